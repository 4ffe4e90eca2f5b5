"""Unary elementwise ops (ember/ops/unary.cpp, backend/cpu/unary.cpp and vec_math.cpp, python/src/unary.cpp):
values against NumPy and closed forms for every dtype, integer-to-float promotion, special values,
layouts (the contiguous float32/float64 Sleef path and the strided scalar path), 0-d and empty inputs,
in-place forms, out=, clamp, round, nan_to_num, logit and the activations."""

import math

import numpy as np
import pytest
from conftest import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    assert_bits,
    assert_equal,
    bf16_round,
    dtype_name,
    from_np,
    np_dtype,
    random_array,
    to_np,
)

import ember

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


# name -> (ember function, float64 NumPy reference). Integer and bool inputs compute in the default
# float dtype (float32).
FLOAT_OPS = {
    "reciprocal": (ember.reciprocal, lambda x: 1 / x),
    "sqrt": (ember.sqrt, np.sqrt),
    "rsqrt": (ember.rsqrt, lambda x: 1 / np.sqrt(x)),
    "exp": (ember.exp, np.exp),
    "exp2": (ember.exp2, np.exp2),
    "expm1": (ember.expm1, np.expm1),
    "log": (ember.log, np.log),
    "log2": (ember.log2, np.log2),
    "log10": (ember.log10, np.log10),
    "log1p": (ember.log1p, np.log1p),
    "sin": (ember.sin, np.sin),
    "cos": (ember.cos, np.cos),
    "tan": (ember.tan, np.tan),
    "asin": (ember.asin, np.arcsin),
    "acos": (ember.acos, np.arccos),
    "atan": (ember.atan, np.arctan),
    "sinh": (ember.sinh, np.sinh),
    "cosh": (ember.cosh, np.cosh),
    "tanh": (ember.tanh, np.tanh),
    "asinh": (ember.asinh, np.arcsinh),
    "acosh": (ember.acosh, np.arccosh),
    "atanh": (ember.atanh, np.arctanh),
    "sigmoid": (ember.sigmoid, _sigmoid),
    "erf": (ember.erf, _erf),
    "erfc": (ember.erfc, _erfc),
    "logit": (ember.logit, lambda x: np.log(x / (1 - x))),
    "gelu": (ember._C._gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "gelu_tanh": (
        lambda t: ember._C._gelu(t, approximate="tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    "silu": (ember._C._silu, lambda x: x * _sigmoid(x)),
    "mish": (ember._C._mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "softplus": (ember._C._softplus, _softplus),
}
# Compositions whose float32 formula cancels (1 + erf(x) for x << 0): compared with an absolute slack too.
CANCELLING = {"gelu", "gelu_tanh", "silu", "mish", "softplus", "sigmoid", "erfc", "expm1"}

RTOL = {ember.float16: 2e-3, ember.bfloat16: 1.6e-2, ember.float32: 2e-6, ember.float64: 1e-13}
ATOL = {ember.float16: 1e-7, ember.bfloat16: 1e-37, ember.float32: 1e-37, ember.float64: 1e-300}


def as_dtype(a, dtype):
    """a's values as the kernel sees them after loading into `dtype`, in float64."""
    a = np.asarray(a)
    if dtype is ember.bfloat16:
        return bf16_round(a.astype(np.float32)).astype(np.float64)
    return a.astype(np_dtype(dtype)).astype(np.float64)


def rounded(x, dtype):
    with np.errstate(all="ignore"):
        if dtype is ember.bfloat16:
            return bf16_round(np.asarray(x).astype(np.float32))
        return np.asarray(x).astype(np_dtype(dtype))


def check_float(name, got, x_np, dtype):
    """got = op(x) for x_np (values of any dtype) computed in `dtype`, against float64 NumPy."""
    fn, ref = FLOAT_OPS[name]
    with np.errstate(all="ignore"):
        exp = rounded(ref(as_dtype(x_np, dtype)), dtype)
    assert got.dtype is dtype
    assert tuple(got.shape) == exp.shape
    atol = ATOL[dtype]
    if name in CANCELLING:
        atol = max(
            atol, {ember.float16: 2e-3, ember.bfloat16: 1.6e-2, ember.float32: 2e-6, ember.float64: 1e-14}[dtype]
        )
    np.testing.assert_allclose(
        to_np(got).astype(np.float64), exp.astype(np.float64), rtol=RTOL[dtype], atol=atol, equal_nan=True, err_msg=name
    )


def inputs_for(name, rng, shape, dtype):
    """Values in the op's domain (and some outside it, where NaN is the answer)."""
    a = random_array(rng, shape, dtype)
    if not dtype.is_floating_point:
        return a
    a = a.astype(np.float64)
    if name in ("asin", "acos", "atanh", "logit", "erfinv"):
        a = np.tanh(a / 10) * 1.05  # mostly inside (-1, 1)
        if name == "logit":
            a = (a + 1) / 2
    elif name in (
        "exp",
        "exp2",
        "expm1",
        "sinh",
        "cosh",
        "sigmoid",
        "silu",
        "mish",
        "softplus",
        "gelu",
        "gelu_tanh",
        "erf",
        "erfc",
        "tan",
    ):
        a = a / 4
    return rounded(a, dtype)


# ------------------------------------------------------------------------------------ floating ops


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_float_ops_match_numpy(name, dtype, rng):
    fn = FLOAT_OPS[name][0]
    x = inputs_for(name, rng, (67,), dtype)  # contiguous: the vector path for float32/float64, with a tail
    check_float(name, fn(from_np(x, dtype)), x, dtype)
    xs = inputs_for(name, rng, (9, 8), dtype)  # transposed: the strided path
    check_float(name, fn(from_np(xs, dtype).t()), xs.T, dtype)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=dtype_name)
@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_strided_inputs_give_the_contiguous_bits(name, dtype, rng):
    # every other column and a transposed copy: strided runs longer than the vector path's buffer of 256
    fn = FLOAT_OPS[name][0]
    x = from_np(inputs_for(name, rng, (6, 1100), dtype), dtype)
    want = to_np(fn(x[:, ::2].contiguous()))
    np.testing.assert_array_equal(to_np(fn(x[:, ::2])), want, err_msg=name)
    np.testing.assert_array_equal(to_np(fn(x[:, ::2].t().contiguous().t())), want, err_msg=name)


@pytest.mark.parametrize(
    "dtype", [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64], ids=dtype_name
)
@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_integer_inputs_promote_to_the_default_float_dtype(name, dtype, rng):
    fn = FLOAT_OPS[name][0]
    x = random_array(rng, (3, 5), dtype)
    if name in ("asin", "acos", "atanh", "logit") and dtype is not ember.bool:
        x = (x % 3 - 1).astype(x.dtype) if dtype is not ember.uint8 else x % 2
    got = fn(from_np(x, dtype))
    check_float(name, got, x, ember.float32)


def test_promotion_follows_the_default_dtype():
    ember.set_default_dtype(ember.float64)
    r = ember.sqrt(ember.tensor([4, 9]))
    assert_equal(r, np.array([2.0, 3.0]), dtype=ember.float64)
    assert ember.exp(ember.tensor([True])).dtype is ember.float64
    assert ember.sigmoid(ember.tensor([1], dtype=ember.uint8)).dtype is ember.float64
    assert ember.sqrt(ember.tensor([4.0], dtype=ember.float32)).dtype is ember.float32  # floats keep theirs


SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-30, 100.0, -100.0]
# Ops whose result for -0.0 is -0.0 (and NumPy agrees on the sign of every zero they give).
SIGNED_ZERO = {"sqrt", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "expm1", "log1p", "erf"}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_special_values(name, dtype):
    fn = FLOAT_OPS[name][0]
    x = rounded(np.array(SPECIAL), dtype)
    for t, xn in ((from_np(x, dtype), x), (from_np(np.stack([x, x]), dtype).t()[:, 0], x)):
        got = fn(t)
        check_float(name, got, xn, dtype)
        if name in SIGNED_ZERO:
            zero = to_np(got) == 0
            np.testing.assert_array_equal(np.signbit(to_np(got))[zero], np.signbit(xn)[zero], err_msg=name)


def assert_float32_within_ulp(op, ref_fn, xs, limit):
    # op over float32 xs against ref_fn in float64, in ulps of the float32 result; lengths with and without a vector
    # tail
    for n in (xs.size, 13):
        x = xs[:n]
        got = to_np(op(from_np(x))).astype(np.float64)
        ref = ref_fn(x.astype(np.float64))
        ulp = np.abs(got - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
        assert ulp.max() <= limit, (ulp.max(), x[ulp.argmax()])


def test_float32_tanh_is_within_one_and_a_half_ulp():
    # The inline float32 tanh (Note [Inline float32 tanh]): a polynomial below |x| = 0.9 and 1 - 2 / (e^2x + 1)
    # beyond, against float64's tanh over a dense sweep across the switch, the tiny and the saturated, in lengths
    # with and without a vector tail.
    xs = np.concatenate([np.linspace(-10, 10, 400001), np.geomspace(1e-38, 10, 20001)]).astype(np.float32)
    assert_float32_within_ulp(ember.tanh, np.tanh, np.concatenate([xs, -xs, np.float32([0.89999, 0.9, 0.90001])]), 1.5)
    special = to_np(ember.tanh(from_np(np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -20.0]))))
    np.testing.assert_array_equal(special[:4], [0.0, 0.0, 1.0, -1.0])
    assert np.signbit(special[1]) and not np.signbit(special[0])
    assert np.isnan(special[4]) and special[5] == np.float32(1e-45) and special[6] == -1.0


def test_float32_softplus_is_within_two_and_a_half_ulp():
    # The inline float32 softplus (Note [Inline float32 softplus]) against float64's formula, for several beta and
    # threshold, across the log1p's switch (t = sqrt(2) - 1), the tiny and the saturated.
    xs = np.concatenate(
        [np.linspace(-40, 40, 400001), -np.geomspace(1e-30, 100, 20001), np.geomspace(1e-30, 100, 20001)]
    )
    xs = xs.astype(np.float32)
    for beta, threshold in ((1.0, 20.0), (2.0, 15.0), (0.5, 20.0)):
        got = to_np(ember.nn.functional.softplus(from_np(xs), beta=beta, threshold=threshold)).astype(np.float64)
        x = xs.astype(np.float64)
        with np.errstate(over="ignore"):
            ref = np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)
        ulp = np.abs(got - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
        assert ulp.max() <= 2.5, (beta, ulp.max(), xs[ulp.argmax()])
    special = to_np(ember.nn.functional.softplus(from_np(np.float32([np.nan, np.inf, -np.inf, 0.0, -200.0, 1e-30]))))
    assert np.isnan(special[0]) and special[1] == np.inf and special[2] == 0 and special[4] == 0
    np.testing.assert_allclose(special[[3, 5]], [math.log(2), math.log(2)], rtol=1e-7)


def test_float32_erf_is_within_one_and_a_half_ulp():
    # The inline float32 erf (Note [Inline float32 erf]): a series below |x| = 1 and 1 - erfc(|x|) beyond, against
    # float64's erf over a dense sweep across the switch, the tiny and the saturated, with and without a vector tail.
    xs = np.concatenate([np.linspace(-11, 11, 440001), np.geomspace(1e-38, 11, 20001)]).astype(np.float32)
    assert_float32_within_ulp(ember.erf, _erf, np.concatenate([xs, -xs, np.float32([0.99999994, 1.0, 1.0000001])]), 1.5)
    special = to_np(ember.erf(from_np(np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -20.0]))))
    np.testing.assert_array_equal(special[[0, 1, 2, 3, 6]], [0.0, 0.0, 1.0, -1.0, -1.0])
    assert np.signbit(special[1]) and not np.signbit(special[0]) and np.isnan(special[4])
    assert special[5] == np.float32(1e-45 * 2 / math.sqrt(math.pi))


def test_float64_erf_against_libm():
    # ember's float64 erf (Note [float64 erf]): two fits, switched at |x| = 1, saturating past 6. Within 1 ulp of the
    # exact value (mpmath); libm's math.erf is itself within 1, so 2 here. Lengths with and without a vector tail.
    xs = np.concatenate(
        [np.linspace(-7, 7, 140001), np.geomspace(1e-300, 7, 20001), [1 - 2**-52, 1.0, 6.0, 6 + 2**-50]]
    )
    xs = np.concatenate([xs, -xs])
    for n in (xs.size, 11):
        got = to_np(ember.erf(from_np(xs[:n])))
        ref = np.array([math.erf(v) for v in xs[:n]])
        ulp = np.abs(got - ref) / np.spacing(np.abs(ref))
        assert ulp.max() <= 2, (ulp.max(), xs[ulp.argmax()])
    special = to_np(ember.erf(from_np(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 40.0]))))
    np.testing.assert_array_equal(special[[0, 2, 3, 5, 6]], [0.0, 1.0, -1.0, 5e-324 * 2 / math.sqrt(math.pi), 1.0])
    assert np.signbit(special[1]) and np.isnan(special[4])


def test_erfinv_inverts_erf():
    y = np.concatenate([np.linspace(-0.999999, 0.999999, 201), [0.0, 1e-10, -1e-10, 0.5, 0.9999999999]])
    x = ember.erfinv(from_np(y))
    back = _erf(to_np(x))
    np.testing.assert_allclose(back, y, rtol=1e-14, atol=1e-15)
    x32 = ember.erfinv(from_np(y.astype(np.float32)))
    assert x32.dtype is ember.float32
    np.testing.assert_allclose(_erf(to_np(x32).astype(np.float64)), y.astype(np.float32), rtol=1e-6, atol=3e-7)
    # Strided input takes the scalar path; the answers agree.
    xs = ember.erfinv(from_np(np.stack([y, y])).t()[:, 1])
    assert_equal(xs, to_np(x))
    assert_equal(
        ember.erfinv(ember.tensor([1.0, -1.0, 1.5, -2.0, math.nan, 0.0, -0.0])),
        np.array([np.inf, -np.inf, np.nan, np.nan, np.nan, 0.0, -0.0], np.float32),
    )
    assert np.signbit(to_np(ember.erfinv(ember.tensor([-0.0])))[0])
    for dtype in (ember.float16, ember.bfloat16):
        yy = rounded(np.array([-0.9, -0.5, 0.0, 0.25, 0.75]), dtype)
        got = to_np(ember.erfinv(from_np(yy, dtype))).astype(np.float64)
        np.testing.assert_allclose(_erf(got), yy.astype(np.float64), rtol=RTOL[dtype] * 4, atol=1e-3)
    assert ember.erfinv(ember.tensor([0, 1])).dtype is ember.float32


def test_float32_erfinv_is_correctly_rounded():
    # Note [float32 erfinv]: the vector kernel against float64's erfinv (which the test above checks against erf),
    # over a dense sweep of (-1, 1) and the last floats below 1
    y = np.concatenate(
        [np.linspace(-1, 1, 400001, dtype=np.float32)[1:-1], (1 - np.logspace(-7.2, -1, 500)).astype(np.float32)]
    )
    y = np.concatenate([y, -y[-500:], [np.float32(1e-45), np.float32(-3e-39)]])
    ref = to_np(ember.erfinv(from_np(y.astype(np.float64))))
    got = to_np(ember.erfinv(from_np(y)))
    ulp = np.abs(got.astype(np.float64) - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    assert ulp.max() <= 0.501, (ulp.max(), y[ulp.argmax()])  # correctly rounded but within 0.001 ulp of a tie


# ------------------------------------------------------------------------------------ same-dtype ops


def _np_round(x):
    return np.rint(x)


SAME_OPS = {
    "neg": (ember.neg, np.negative),
    "abs": (ember.abs, np.abs),
    "sign": (ember.sign, lambda x: np.where(np.isnan(x), 0, np.sign(x)).astype(x.dtype)),
    "sgn": (ember.sgn, lambda x: np.where(np.isnan(x), 0, np.sign(x)).astype(x.dtype)),
    "square": (ember.square, np.square),
    "relu": (ember.relu, lambda x: np.where(x > 0, x, np.where(np.isnan(x), x, 0)).astype(x.dtype)),
    "floor": (ember.floor, np.floor),
    "ceil": (ember.ceil, np.ceil),
    "round": (ember.round, _np_round),
    "trunc": (ember.trunc, np.trunc),
}


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d is not ember.bool], ids=dtype_name)
@pytest.mark.parametrize("name", sorted(SAME_OPS))
def test_same_dtype_ops_match_numpy(name, dtype, rng):
    fn, ref = SAME_OPS[name]
    x = random_array(rng, (4, 6), dtype)
    if dtype.is_floating_point:
        x = np.concatenate([x.ravel(), rounded(np.array(SPECIAL + [0.49999997, 1.5, -1.5, 3.5, 2.5000002]), dtype)])
    for t, xn in ((from_np(x, dtype), x), (from_np(x, dtype)[::2], x[::2])):
        got = fn(t)
        assert got.dtype is dtype
        if dtype in (ember.float16, ember.bfloat16):
            exp = rounded(ref(xn.astype(np.float32)), dtype)
        elif name in ("floor", "ceil", "round", "trunc") and not dtype.is_floating_point:
            exp = xn  # integers are already integral
        else:
            with np.errstate(all="ignore"):
                exp = ref(xn)
        assert_equal(got, exp)
        if dtype.is_floating_point and name in ("neg", "abs", "floor", "ceil", "round", "trunc"):
            ok = ~np.isnan(exp)
            np.testing.assert_array_equal(np.signbit(to_np(got))[ok], np.signbit(exp)[ok], err_msg=name)


def test_integer_edge_values():
    i8 = ember.tensor([-128, -1, 0, 127], dtype=ember.int8)
    assert_equal(ember.abs(i8), np.array([-128, 1, 0, 127], np.int8))  # wraps like NumPy
    assert_equal(-i8, np.array([-128, 1, 0, -127], np.int8))
    assert_equal(ember.square(i8), np.array([0, 1, 0, 1], np.int8))
    u8 = ember.tensor([0, 1, 255], dtype=ember.uint8)
    assert_equal(-u8, np.array([0, 255, 1], np.uint8))
    assert_equal(ember.sign(u8), np.array([0, 1, 1], np.uint8))
    assert_equal(ember.abs(u8), np.array([0, 1, 255], np.uint8))
    assert_equal(ember.sign(ember.tensor([-5, 0, 7])), np.array([-1, 0, 1]))
    big = ember.tensor([-(2**63), 2**63 - 1])
    assert_equal(ember.abs(big), np.array([-(2**63), 2**63 - 1]))
    assert_equal(ember.relu(ember.tensor([-3, 0, 3], dtype=ember.int16)), np.array([0, 0, 3], np.int16))


def test_bool_inputs():
    b = ember.tensor([True, False])
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        -b
    with pytest.raises(RuntimeError, match="Negation"):
        ember.neg(b)
    with pytest.raises(RuntimeError, match="Negation"):
        b.neg_()
    assert_equal(ember.square(b), np.array([1, 0]), dtype=ember.int64)  # as PyTorch: pow(bool, 2) is int64
    assert_equal(~b, np.array([False, True]), dtype=ember.bool)
    assert_equal(ember.bitwise_not(b), np.array([False, True]), dtype=ember.bool)
    assert_equal(ember.logical_not(b), np.array([False, True]), dtype=ember.bool)
    assert_equal(ember.sign(b), np.array([True, False]), dtype=ember.bool)
    assert_equal(ember.sqrt(b), np.array([1.0, 0.0], np.float32), dtype=ember.float32)


def test_round_half_to_even_and_decimals():
    x = ember.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.4999998, 1e20, math.nan, math.inf])
    assert_equal(ember.round(x), np.rint(to_np(x)))
    d = np.array([0.125, 0.135, 1234.5678, -2.675, 0.5, 1.005], np.float64)
    for decimals in (1, 2, 3):
        got = ember.round(from_np(d), decimals=decimals)
        p = 10.0**decimals
        assert_equal(got, np.rint(d * p) / p)
        got32 = ember.round(from_np(d.astype(np.float32)), decimals=decimals)
        assert_equal(got32, np.rint(d.astype(np.float32) * np.float32(p)) / np.float32(p))
    for decimals in (-1, -2, -3):
        p = 10.0**-decimals
        got = ember.round(from_np(np.array([1234.5, 1250.0, 1350.0, -2.5, 15.0, 25.0])), decimals=decimals)
        assert_equal(got, np.rint(np.array([1234.5, 1250.0, 1350.0, -2.5, 15.0, 25.0]) / p) * p)
    assert_equal(ember.tensor([2.5, 0.125]).round(decimals=1), np.array([2.5, 0.1], np.float32))
    t = ember.tensor([2.5, 3.5])
    assert t.round_() is t
    assert_equal(t, np.array([2.0, 4.0], np.float32))
    h = ember.round(ember.tensor([0.125, 2.5], dtype=ember.float16), decimals=2)
    assert_equal(h, np.array([0.12, 2.5], np.float16), dtype=ember.float16)
    # Integers: round is the identity; rounding them to tens is not implemented (PyTorch 1.13 has no
    # integer round kernel at all) rather than silently returning the input.
    assert_equal(ember.round(ember.tensor([15, 25])), np.array([15, 25]))
    with pytest.raises(RuntimeError, match="round"):
        ember.round(ember.tensor([15, 25]), decimals=-1)
    out = ember.empty(3)
    assert ember.round(ember.tensor([0.5, 1.5, 2.25]), decimals=1, out=out) is out
    assert_equal(out, np.array([0.5, 1.5, 2.2], np.float32))


def test_frac():
    x = np.array([1.25, -1.25, 3.0, -0.0, 0.75, 1e10 + 0.5, math.inf, -math.inf, math.nan], np.float64)
    with np.errstate(invalid="ignore"):
        assert_equal(ember.frac(from_np(x)), x - np.trunc(x))  # inf - inf is nan
    for dtype in (ember.float16, ember.bfloat16, ember.float32):
        xr = rounded(x, dtype)
        with np.errstate(all="ignore"):
            assert_equal(
                ember.frac(from_np(xr, dtype)), rounded(xr.astype(np.float64) - np.trunc(xr.astype(np.float64)), dtype)
            )
    for dtype in INT_DTYPES + [ember.bool]:
        with pytest.raises(RuntimeError, match="frac_cpu"):
            ember.frac(ember.ones(2, dtype=dtype))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_name)
def test_bitwise_not(dtype, rng):
    x = random_array(rng, (11,), dtype)
    assert_equal(ember.bitwise_not(from_np(x, dtype)), np.invert(x), dtype=dtype)
    assert_equal(~from_np(x, dtype), np.invert(x), dtype=dtype)
    t = from_np(x, dtype)
    assert t.bitwise_not_() is t
    assert_equal(t, np.invert(x))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_bitwise_not_of_floats_raises(dtype):
    with pytest.raises(RuntimeError, match="bitwise_not"):
        ~ember.ones(2, dtype=dtype)


# ------------------------------------------------------------------------------------ predicates

PREDICATES = {
    "isnan": (ember.isnan, np.isnan),
    "isinf": (ember.isinf, np.isinf),
    "isposinf": (ember.isposinf, np.isposinf),
    "isneginf": (ember.isneginf, np.isneginf),
    "isfinite": (ember.isfinite, np.isfinite),
    "signbit": (ember.signbit, np.signbit),
    "logical_not": (ember.logical_not, np.logical_not),
}


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_predicates(name, dtype, rng):
    fn, ref = PREDICATES[name]
    x = random_array(rng, (13,), dtype)
    if dtype.is_floating_point:
        x = np.concatenate([x, rounded(np.array(SPECIAL), dtype)])
    for t, xn in ((from_np(x, dtype), x), (from_np(x, dtype)[1::3], x[1::3])):
        got = fn(t)
        assert got.dtype is ember.bool
        assert_equal(got, ref(xn))


def test_signbit_of_negative_nan_and_zero():
    x = ember.tensor([-0.0, 0.0, -math.nan, math.nan, -1e-45])
    np.testing.assert_array_equal(to_np(ember.signbit(x)), np.signbit(to_np(x)))
    for dtype in (ember.float16, ember.bfloat16, ember.float64):
        y = ember.tensor([-0.0, 0.0, -1.0, math.inf, -math.inf], dtype=dtype)
        assert_equal(ember.signbit(y), np.array([True, False, True, False, True]))


# ------------------------------------------------------------------------------------ clamp


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d is not ember.bool], ids=dtype_name)
def test_clamp_scalar_bounds(dtype, rng):
    x = random_array(rng, (5, 4), dtype)
    lo, hi = (10, 90) if dtype is ember.uint8 else (-7, 12)
    t = from_np(x, dtype)
    exp = np.clip(x, lo, hi)
    assert_equal(ember.clamp(t, lo, hi), exp, dtype=dtype)
    assert_equal(ember.clip(t, lo, hi), exp, dtype=dtype)
    assert_equal(t.clamp(min=lo), np.maximum(x, lo).astype(x.dtype))
    assert_equal(t.clamp(max=hi), np.minimum(x, hi).astype(x.dtype))
    assert_equal(ember.clamp_min(t, lo), np.maximum(x, lo).astype(x.dtype))
    assert_equal(ember.clamp_max(t, hi), np.minimum(x, hi).astype(x.dtype))
    # min > max gives max everywhere
    assert_equal(ember.clamp(t, hi, lo), np.full(x.shape, lo, x.dtype))
    # non-contiguous input
    assert_equal(ember.clamp(t.t(), lo, hi), exp.T)


def test_clamp_promotion_with_scalars():
    i = ember.tensor([1, 5, -3])
    r = ember.clamp(i, 0.5, 2)  # a float bound lifts integers to the default float dtype
    assert_equal(r, np.array([1.0, 2.0, 0.5], np.float32), dtype=ember.float32)
    r = ember.clamp(ember.tensor([1, 5, -3], dtype=ember.int8), 0, 2)  # ints keep the tensor's dtype
    assert_equal(r, np.array([1, 2, 0], np.int8), dtype=ember.int8)
    r = ember.clamp(ember.tensor([1.0, 5.0], dtype=ember.float16), 0, 2.5)
    assert_equal(r, np.array([1.0, 2.5], np.float16), dtype=ember.float16)
    r = ember.clamp(ember.tensor([True, False]), 0, 1)  # bool with int bounds: int64, as PyTorch
    assert_equal(r, np.array([1, 0]), dtype=ember.int64)
    r = ember.clamp(ember.tensor([1, 5, 2], dtype=ember.uint8), min=-1.5)
    assert_equal(r, np.array([1.0, 5.0, 2.0], np.float32))


def test_clamp_nan():
    x = ember.tensor([1.0, 5.0, math.nan, -3.0])
    assert_equal(ember.clamp(x, 0, 2), np.array([1.0, 2.0, np.nan, 0.0], np.float32))  # NaN input stays NaN
    assert_equal(ember.clamp(x, 3, 2), np.array([2.0, 2.0, np.nan, 2.0], np.float32))
    # A NaN bound gives NaN (as NaN propagates through maximum/minimum, the tensor-bound form)
    assert_equal(ember.clamp(x, math.nan, 2), np.full(4, np.nan, np.float32))
    assert_equal(ember.clamp(x, -1, math.nan), np.full(4, np.nan, np.float32))
    assert_equal(ember.clamp(x, min=math.nan), np.full(4, np.nan, np.float32))
    assert_equal(ember.clamp(ember.tensor([1, 2]), max=math.nan), np.full(2, np.nan, np.float32))
    # tensor bounds: elementwise, NaN propagates
    tmin = ember.tensor([math.nan, 0.0, 0.0, 0.0])
    assert_equal(
        ember.clamp(x, tmin, ember.tensor([4.0, 1.0, 1.0, 1.0])), np.array([np.nan, 1.0, np.nan, 0.0], np.float32)
    )


def test_clamp_tensor_bounds(rng):
    x = random_array(rng, (3, 4), ember.float64)
    lo = random_array(rng, (4,), ember.float64)
    hi = random_array(rng, (3, 1), ember.float64)
    tx, tlo, thi = from_np(x), from_np(lo), from_np(hi)
    assert_equal(ember.clamp(tx, tlo, thi), np.minimum(np.maximum(x, lo), hi))  # min > max gives max
    assert_equal(ember.clamp(tx, min=tlo), np.maximum(x, lo))
    assert_equal(ember.clamp(tx, max=thi), np.minimum(x, hi))
    assert_equal(tx.clip(tlo, thi), np.minimum(np.maximum(x, lo), hi))
    # one tensor and one number: the number is a weak scalar, as in the all-scalar form
    i = ember.tensor([1, 5, -3])
    assert_equal(
        ember.clamp(i, ember.tensor([0, 0, 0]), 2.5), np.array([1.0, 2.5, 0.0], np.float32), dtype=ember.float32
    )
    assert_equal(ember.clamp(i, ember.tensor([0, 0, 0]), 2), np.array([1, 2, 0]), dtype=ember.int64)
    i8 = ember.tensor([1, 5, -3], dtype=ember.int8)
    assert_equal(
        ember.clamp(i8, ember.tensor([0, 0, 0], dtype=ember.int8), 2), np.array([1, 2, 0], np.int8), dtype=ember.int8
    )
    x64 = ember.tensor([0.1, 0.2], dtype=ember.float64)
    assert_equal(ember.clamp(x64, ember.zeros(2, dtype=ember.float64), 0.1), np.array([0.1, 0.1]))  # not 0.1f
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        ember.clamp(i)


def test_clamp_bounds_out_of_the_integer_range_raise():
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        ember.clamp(ember.tensor([1, 5], dtype=ember.uint8), -1, 300)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        ember.clamp(ember.tensor([1, 5], dtype=ember.uint8), min=256)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        ember.clamp(ember.tensor([1, 5], dtype=ember.int8), max=-129)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int16_t without overflow"):
        ember.clamp(ember.tensor([1, 5], dtype=ember.int16), 0, 40000)
    # the extremes themselves are fine
    assert_equal(ember.clamp(ember.tensor([1, 5], dtype=ember.uint8), 0, 255), np.array([1, 5], np.uint8))
    assert_equal(ember.clamp(ember.tensor([1, 5], dtype=ember.int8), -128, 3), np.array([1, 3], np.int8))


def test_clamp_inplace_and_out():
    t = ember.tensor([1.0, 5.0, -3.0])
    assert t.clamp_(0, 2) is t
    assert_equal(t, np.array([1.0, 2.0, 0.0], np.float32))
    assert t._version == 1
    t2 = ember.tensor([1.0, 5.0, -3.0])
    t2.clip_(min=ember.tensor([2.0, 0.0, 0.0]))
    assert_equal(t2, np.array([2.0, 5.0, 0.0], np.float32))
    i = ember.tensor([1, 5, -3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.clamp_(0.5, 2)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.clamp_(min=ember.tensor([0.5, 0.0, 0.0]))
    assert_equal(i, np.array([1, 5, -3]))
    assert i.clamp_(0, 2) is i
    assert_equal(i, np.array([1, 2, 0]))
    out = ember.empty(3)
    assert ember.clamp(ember.tensor([1.0, 5.0, -3.0]), 0, 2, out=out) is out
    assert_equal(out, np.array([1.0, 2.0, 0.0], np.float32))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_clamp_inplace_by_numbers_writes_self(dtype):
    # clamp_ by numbers on a floating self runs in place (no copy back): strided views, NaN elements and bounds, and
    # under no_grad on a leaf that requires grad; the element values against NumPy's clip
    a = np.linspace(-3, 3, 60).reshape(6, 10)
    a[2, 3] = np.nan
    base = ember.tensor(a, dtype=dtype)
    view = base.t()[::2]  # a strided view: only its elements change
    want = to_np(base.double())  # the bounds are exact in every dtype, so clipping in float64 gives the same values
    want.T[::2] = np.clip(want.T[::2], -1.25, 0.5)
    assert view.clamp_(-1.25, 0.5) is view
    np.testing.assert_array_equal(to_np(base.double()), want)
    assert base._version == 1
    x = ember.tensor(a, dtype=dtype)
    x.clamp_(min=float("nan"))
    assert np.isnan(to_np(x.float())).all()
    w = ember.tensor([[-2.0, 0.5, 3.0]], dtype=dtype, requires_grad=True)
    with ember.no_grad():
        w.clamp_max_(1.0)
    assert to_np(w.detach().float()).tolist() == [[-2.0, 0.5, 1.0]] and w.grad_fn is None
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.zeros(1, dtype=dtype).expand(4).clamp_(0, 1)


# ------------------------------------------------------------------------------------ nan_to_num, logit, activations


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_nan_to_num(dtype):
    x = ember.tensor([math.nan, math.inf, -math.inf, 1.5, -0.0], dtype=dtype)
    big = {
        ember.float16: 65504.0,
        ember.bfloat16: 3.3895313892515355e38,
        ember.float32: float(np.finfo(np.float32).max),
        ember.float64: float(np.finfo(np.float64).max),
    }[dtype]
    npd = np_dtype(dtype)
    assert_equal(ember.nan_to_num(x), np.array([0.0, big, -big, 1.5, -0.0], npd), dtype=dtype)
    assert_equal(ember.nan_to_num(x, nan=2.0, posinf=3.0, neginf=-4.0), np.array([2.0, 3.0, -4.0, 1.5, 0.0], npd))
    assert_equal(x.nan_to_num(posinf=1.0), np.array([0.0, 1.0, -big, 1.5, 0.0], npd))
    y = ember.tensor([math.nan, math.inf], dtype=dtype)
    assert y.nan_to_num_(nan=7.0) is y
    assert_equal(y, np.array([7.0, big], npd))
    out = ember.empty(5, dtype=dtype)
    assert ember.nan_to_num(x, out=out) is out
    assert_equal(out, np.array([0.0, big, -big, 1.5, 0.0], npd))


def test_nan_to_num_inplace_on_views_and_with_a_gradient():
    # nan_to_num_ writes self in place (a strided view changes only its elements) and records the gradient, which
    # is 0 where an element was replaced, against the input before the write
    base = ember.tensor([[1.0, math.nan], [math.inf, -2.0], [-math.inf, 3.0]])
    col = base[:, 1]
    assert col.nan_to_num_(nan=5.0) is col
    assert_equal(base, np.array([[1.0, 5.0], [math.inf, -2.0], [-math.inf, 3.0]], np.float32))
    assert base._version == 1
    a = ember.tensor([1.0, math.nan, math.inf, -2.0], requires_grad=True)
    b = a * 1
    b.nan_to_num_(posinf=9.0)
    assert b.grad_fn is not None
    (b * ember.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert_equal(b.detach(), np.array([1.0, 0.0, 9.0, -2.0], np.float32))
    assert_equal(a.grad, np.array([1.0, 0.0, 0.0, 4.0], np.float32))


def test_nan_to_num_of_integers_is_the_identity():
    for dtype in INT_DTYPES + [ember.bool]:
        x = ember.ones(3, dtype=dtype)
        assert_equal(ember.nan_to_num(x), np.ones(3, np_dtype(dtype)), dtype=dtype)


def test_logit_eps():
    x = np.array([0.0, 0.05, 0.25, 0.5, 0.97, 1.0, 1.5, -0.5, np.nan])
    with np.errstate(all="ignore"):
        assert_equal(ember.logit(from_np(x)), np.log(x / (1 - x)))
        for eps in (0.1, 0.0, 1e-6):
            c = np.clip(x, eps, 1 - eps)
            np.testing.assert_allclose(
                to_np(ember.logit(from_np(x), eps=eps)), np.log(c / (1 - c)), rtol=1e-14, equal_nan=True
            )
            # float32 computes in float32 (1 - eps rounds there), as PyTorch does
            x32, e32 = x.astype(np.float32), np.float32(eps)
            c32 = np.clip(x32, e32, np.float32(1) - e32)
            np.testing.assert_allclose(
                to_np(from_np(x32).logit(eps)), np.log(c32 / (np.float32(1) - c32)), rtol=1e-6, equal_nan=True
            )


def test_gelu_softplus_silu_mish_closed_forms():
    x = np.array([-30.0, -5.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, 30.0, np.inf, -np.inf, np.nan])
    t = from_np(x)
    sq2 = math.sqrt(2)
    with np.errstate(all="ignore"):
        gelu = 0.5 * x * (1 + _erf(x / sq2))
        np.testing.assert_allclose(to_np(ember._C._gelu(t))[:-3], gelu[:-3], rtol=1e-14, atol=1e-14)
        assert to_np(ember._C._gelu(t))[-3] == np.inf and np.isnan(to_np(ember._C._gelu(t))[-1])
        sp = np.where(x > 20, x, np.log1p(np.exp(x)))
        np.testing.assert_allclose(to_np(ember._C._softplus(t)), sp, rtol=1e-14, equal_nan=True)
        sp2 = np.where(2 * x > 15, x, np.log1p(np.exp(2 * x)) / 2)
        np.testing.assert_allclose(to_np(ember._C._softplus(t, beta=2, threshold=15)), sp2, rtol=1e-14, equal_nan=True)
        np.testing.assert_allclose(to_np(ember._C._silu(t))[:-3], (x * _sigmoid(x))[:-3], rtol=1e-14, atol=1e-300)
        mish = x * np.tanh(np.log1p(np.exp(x)))
        np.testing.assert_allclose(to_np(ember._C._mish(t))[:-3], mish[:-3], rtol=1e-14, atol=1e-300)
    with pytest.raises(ValueError, match="approximate"):
        ember._C._gelu(t, approximate="exact")
    # the nn.functional forms call the same ops
    import ember.nn.functional as F

    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(
            to_np(F.gelu(t, approximate="tanh"))[:-3],
            (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))))[:-3],
            rtol=1e-14,
            atol=1e-14,
        )
    u = from_np(x.copy())
    assert F.silu(u, inplace=True) is u


# ------------------------------------------------------------------------------------ layouts, 0-d, empty


@pytest.mark.parametrize("name", ["exp", "sqrt", "sigmoid", "tanh", "erf", "gelu"])
def test_layouts_0d_and_empty(name):
    fn, ref = FLOAT_OPS[name]
    base = np.linspace(0.1, 3.0, 48).reshape(4, 12)
    t = from_np(base)
    for view, v in (
        (t.t(), base.T),
        (t[:, ::3], base[:, ::3]),
        (t[1:3, 2:9], base[1:3, 2:9]),
        (t[0].expand(3, 12), np.broadcast_to(base[0], (3, 12))),
        (t.t()[::2], base.T[::2]),
    ):
        np.testing.assert_allclose(to_np(fn(view)), ref(v), rtol=1e-14)
        f32 = view.to(ember.float32)
        np.testing.assert_allclose(to_np(fn(f32)), ref(v.astype(np.float32).astype(np.float64)), rtol=2e-6)
    z = fn(ember.tensor(0.5))
    assert z.shape == () and z.dtype is ember.float32
    np.testing.assert_allclose(z.item(), ref(np.array(np.float32(0.5), np.float64)), rtol=2e-6)
    e = fn(ember.zeros(0, 3))
    assert e.shape == (0, 3) and e.dtype is ember.float32
    assert fn(ember.zeros(2, 0, dtype=ember.int32)).shape == (2, 0)


def test_same_dtype_ops_on_0d_and_empty():
    assert_equal(ember.abs(ember.tensor(-3)), np.array(3))
    assert_equal(-ember.tensor(2.5), np.array(-2.5, np.float32))
    assert ember.floor(ember.zeros(0, dtype=ember.float16)).shape == (0,)
    assert ember.isnan(ember.zeros(3, 0)).shape == (3, 0)
    assert_equal(ember.isnan(ember.tensor(math.nan)), np.array(True))


# ------------------------------------------------------------------------------------ in place and out=

INPLACE_METHODS = [
    "neg",
    "abs",
    "sign",
    "square",
    "relu",
    "floor",
    "ceil",
    "trunc",
    "frac",
    "reciprocal",
    "sqrt",
    "rsqrt",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "sigmoid",
    "erf",
    "erfc",
    "erfinv",
    "negative",
    "absolute",
    "arcsin",
    "arctan",
    "fix",
    "logical_not",
]


@pytest.mark.parametrize("name", INPLACE_METHODS)
def test_inplace_methods_keep_identity_bump_version_and_match_out_of_place(name):
    x = np.array([[0.3, 0.7, 1.9], [2.5, 0.1, 0.55]])
    for t in (from_np(x), from_np(x.T.copy()).t()):  # contiguous and transposed self
        expected = getattr(t, name)()
        r = getattr(t, name + "_")()
        assert r is t and t._version == 1
        assert_equal(t, to_np(expected))


def test_inplace_with_a_result_dtype_that_cannot_be_stored_raises():
    t = ember.tensor([1, 4, 9])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t.sqrt_()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t.exp_()
    assert_equal(t, np.array([1, 4, 9]))
    b = ember.tensor([True, False])
    b.logical_not_()  # bool result into bool
    assert_equal(b, np.array([False, True]))
    f = ember.tensor([0.0, 2.0])
    f.logical_not_()  # bool result stored into float
    assert_equal(f, np.array([1.0, 0.0], np.float32))


def test_out():
    x = ember.tensor([1.0, 4.0, 9.0])
    out = ember.empty(3)
    r = ember.sqrt(x, out=out)
    assert r is out and out._version == 1
    assert_equal(out, np.array([1.0, 2.0, 3.0], np.float32))
    out64 = ember.empty(3, dtype=ember.float64)
    ember.sqrt(x, out=out64)  # float32 result into float64
    assert_equal(out64, np.array([1.0, 2.0, 3.0]))
    outv = ember.zeros(3, 2)
    ember.neg(x, out=outv[:, 0])  # non-contiguous out
    assert_equal(outv, np.array([[-1, 0], [-4, 0], [-9, 0]], np.float32))
    outb = ember.empty(3, dtype=ember.bool)
    ember.isnan(x, out=outb)
    assert_equal(outb, np.zeros(3, bool))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.sqrt(ember.tensor([4]), out=ember.empty(1, dtype=ember.int64))
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match"):
        ember.exp(x, out=ember.empty(2))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.exp(x, out=ember.empty(1).expand(3))


def test_out_overlapping_the_input():
    x_np = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    x = from_np(x_np)
    ember.neg(x[1:], out=x[:-1])
    exp = x_np.copy()
    exp[:-1] = -x_np[1:]
    assert_equal(x, exp)
    y = from_np(x_np)
    ember.exp(y[:-1], out=y[1:])
    exp = x_np.copy()
    exp[1:] = np.exp(x_np[:-1])
    np.testing.assert_allclose(to_np(y), exp, rtol=1e-14)
    m = from_np(np.arange(9.0).reshape(3, 3))
    ember.sqrt(m.t(), out=m)
    np.testing.assert_allclose(to_np(m), np.sqrt(np.arange(9.0).reshape(3, 3).T), rtol=1e-14)


# ------------------------------------------------------------------------------------ threads


@pytest.mark.parametrize("name", ["exp", "sin", "sigmoid", "gelu", "sqrt", "tanh"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.bfloat16], ids=dtype_name)
def test_large_tensors_in_several_threads(name, dtype, four_threads):
    n = 100_001
    fn, ref = FLOAT_OPS[name]
    x_np = (np.arange(n, dtype=np.float64) % 1000) / 250.0 - 1.5
    x = ember.arange(n, dtype=ember.float64).remainder(1000).div(250.0).sub(1.5).to(dtype)
    with np.errstate(all="ignore"):
        exp = rounded(ref(as_dtype(x_np, dtype)), dtype)
    atol = 1e-6 if dtype is not ember.bfloat16 else 1e-2
    np.testing.assert_allclose(to_np(fn(x)), exp, rtol=RTOL[dtype], atol=atol, equal_nan=True)
    # a strided view of the same data takes the scalar path and agrees
    xs = x.reshape(n, 1).expand(n, 2).contiguous()[:, 1]
    np.testing.assert_allclose(to_np(fn(xs)), exp, rtol=RTOL[dtype], atol=atol, equal_nan=True)


# ------------------------------------------------------------------------------------ vector kernels of selects


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name",
    [
        "clamp",
        "clamp_min",
        "clamp_max",
        "clamp_crossed",
        "nan_to_num",
        "floor",
        "ceil",
        "trunc",
        "round",
        "reciprocal",
        "rsqrt",
        "hardsigmoid",
    ],
)
def test_vector_selects_give_the_scalar_bits(name, dtype, rng):
    # Note [Selects GCC does not vectorize]: contiguous float data takes vector code, a strided view the scalar
    # functor; both must give NumPy's (and PyTorch's) value bit for bit, signed zeros and NaN included.
    special = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, -3.0, 3.0, 6.0, 1e30, -1e-30]
    big = np.finfo(dtype).max
    x = np.concatenate([special, rng.standard_normal(1000) * 4, np.arange(-8, 8, 0.25)]).astype(dtype)[:1021]

    def lo(v, b):  # PyTorch's clamp: x < min ? min : x, so -0 stays -0 against a bound of 0 (NumPy's maximum: +0)
        return np.where(v < b, dtype(b), v)

    def hi(v, b):
        return np.where(v > b, dtype(b), v)

    with np.errstate(all="ignore"):
        ref, fn = {
            "clamp": (hi(lo(x, -1.25), 2), lambda t: t.clamp(-1.25, 2)),
            "clamp_min": (lo(x, 0), lambda t: t.clamp(min=0)),
            "clamp_max": (hi(x, 0), lambda t: t.clamp(max=0)),
            "clamp_crossed": (np.where(np.isnan(x), x, dtype(-1)), lambda t: t.clamp(2, -1)),  # min > max: max
            "nan_to_num": (np.nan_to_num(x, nan=-7.0, posinf=big, neginf=-big), lambda t: t.nan_to_num(-7.0)),
            "floor": (np.floor(x), lambda t: t.floor()),
            "ceil": (np.ceil(x), lambda t: t.ceil()),
            "trunc": (np.trunc(x), lambda t: t.trunc()),
            "round": (np.round(x), lambda t: t.round()),  # half to even
            "reciprocal": (dtype(1) / x, lambda t: t.reciprocal()),
            "rsqrt": (dtype(1) / np.sqrt(x), lambda t: t.rsqrt()),
            "hardsigmoid": (
                np.minimum(np.maximum(x + dtype(3), dtype(0)), dtype(6)) / dtype(6),
                lambda t: ember.nn.functional.hardsigmoid(t),
            ),
        }[name]
    t = ember.from_numpy(x)
    assert_bits(fn(t).numpy(), ref)  # the vector kernel
    strided = ember.from_numpy(np.repeat(x, 2))[1::2]
    assert_bits(fn(strided).numpy(), ref)  # the scalar functor


@pytest.mark.parametrize(
    "name",
    ["exp", "log", "sin", "tanh", "sigmoid", "erf", "sqrt", "floor", "reciprocal", "rsqrt", "expm1", "log1p", "atan"],
)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=dtype_name)
def test_rows_of_a_slice_get_the_contiguous_bits(name, dtype, rng):
    # A slice whose rows are contiguous runs the vector functions row by row: the bits of the contiguous input's.
    x = ember.tensor(np.abs(rng.standard_normal((40, 300))) + 0.1, dtype=dtype)
    for view in (x[:, :257], x[3:, 40:], x.unsqueeze(0).expand(2, 40, 300)[:, :, 5:]):
        got = getattr(view, name)()
        want = getattr(view.contiguous(), name)()
        assert_bits(got.numpy(), want.numpy())
        out = ember.empty_like(x)[:, : view.shape[-1]] if view.dim() == 2 else None
        if out is not None and out.shape == view.shape:
            getattr(ember, name)(view, out=out)
            assert_bits(out.numpy(), want.numpy())
