"""Special functions (ember/ops/special.cpp, ember/backend/math/special.h, python/src/special.cpp, ember.special):
values against scipy.special and NumPy in float64 and float32, PyTorch 1.13's edge values, dtype rules (integers
compute in the default float dtype, the 16-bit floats in float32), layouts, in-place and out= forms, errors, the
window functions and frexp."""

import inspect
import math

import numpy as np
import pytest
import scipy.special as sp
from conftest import bf16_round, from_np, to_np
from special_functions import BINARY_ROWS, ROWS

import ember

inf, nan = math.inf, math.nan


def f64(values):
    return ember.tensor(values, dtype=ember.float64)


def check_close(t, expected, rtol, atol=0.0, dtype=None):
    expected = np.asarray(expected, dtype=np.float64)
    if dtype is not None:
        assert t.dtype == dtype
    assert tuple(t.shape) == expected.shape
    np.testing.assert_allclose(to_np(t).astype(np.float64), expected, rtol=rtol, atol=atol, equal_nan=True)


# ---- unary ops: name -> (ember function, scipy/NumPy reference, input range, float64 rtol)


def _mvlgamma_ref(p):
    def ref(x):
        return sum(sp.gammaln(x - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)

    return ref


UNARY = {
    "lgamma": (ember.lgamma, sp.gammaln, (-6, 30), 1e-13),
    "digamma": (ember.digamma, sp.psi, (-6, 30), 1e-12),
    "polygamma1": (lambda t: ember.polygamma(1, t), lambda x: sp.polygamma(1, x), (-6, 30), 1e-12),
    "polygamma2": (lambda t: ember.polygamma(2, t), lambda x: sp.polygamma(2, x), (-6, 30), 1e-12),
    "polygamma5": (lambda t: ember.polygamma(5, t), lambda x: sp.polygamma(5, x), (0.1, 30), 1e-12),
    "mvlgamma3": (lambda t: ember.mvlgamma(t, 3), _mvlgamma_ref(3), (1.1, 30), 1e-13),
    "i0": (ember.i0, sp.i0, (-40, 40), 1e-14),
    "i0e": (ember.special.i0e, sp.i0e, (-40, 40), 1e-14),
    "i1": (ember.special.i1, sp.i1, (-40, 40), 1e-14),
    "i1e": (ember.special.i1e, sp.i1e, (-40, 40), 1e-14),
    "sinc": (ember.sinc, np.sinc, (-5, 5), 1e-12),
    "deg2rad": (ember.deg2rad, np.deg2rad, (-400, 400), 1e-15),
    "rad2deg": (ember.rad2deg, np.rad2deg, (-7, 7), 1e-15),
    "erfcx": (ember.special.erfcx, sp.erfcx, (-20, 60), 1e-13),
    "ndtr": (ember.special.ndtr, sp.ndtr, (-30, 10), 1e-13),
    "ndtri": (ember.special.ndtri, sp.ndtri, (0, 1), 1e-13),
    "log_ndtr": (ember.special.log_ndtr, sp.log_ndtr, (-60, 10), 1e-13),
    "entr": (ember.special.entr, sp.entr, (-1, 10), 1e-14),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_float64_against_scipy(name):
    fn, ref, (lo, hi), rtol = UNARY[name]
    x = np.random.default_rng(0).uniform(lo, hi, 400)
    if name in ("ndtri",):  # both tails, down to the smallest doubles
        x = np.concatenate([x, 10.0 ** -np.arange(1, 300, 7.0), 1 - 10.0 ** -np.arange(1, 16)])
    # near the zeros of lgamma and digamma an absolute error is what can be asked
    atol = 1e-13 if name in ("lgamma", "digamma") else 1e-300
    check_close(fn(from_np(x)), ref(x), rtol=rtol, atol=atol, dtype=ember.float64)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_float32_against_scipy(name):
    fn, ref, (lo, hi), _ = UNARY[name]
    x = np.random.default_rng(1).uniform(lo, hi, 300).astype(np.float32)
    r = fn(from_np(x))
    assert r.dtype == ember.float32
    with np.errstate(over="ignore"):
        expected = ref(x.astype(np.float64)).astype(np.float32).astype(np.float64)  # float32 overflows to inf
    if name in ("lgamma", "digamma", "polygamma1", "polygamma2", "polygamma5", "mvlgamma3"):
        np.testing.assert_allclose(to_np(r), expected, rtol=3e-6, atol=2e-6)
    elif name == "sinc":
        np.testing.assert_allclose(to_np(r), expected, rtol=1e-5, atol=1e-6)
    elif name in ("ndtr", "log_ndtr"):  # erfc(x / sqrt2) amplifies the rounding of its float32 argument by ~x^2
        np.testing.assert_allclose(to_np(r), expected, rtol=2e-5, atol=1e-37)
    else:
        np.testing.assert_allclose(to_np(r), expected, rtol=3e-6, atol=1e-37)


# ---- the table of special_functions.py (Bessel and Airy functions): values, edges, dtypes, the missing derivative


@pytest.mark.parametrize("name", list(ROWS))
def test_table_float64_against_scipy(name):
    row = ROWS[name]
    lo, hi = row.values
    x = np.random.default_rng(2).uniform(lo, hi, 500)
    if lo > 0:  # the small arguments too, down to where the function overflows
        x = np.concatenate([x, lo * 10.0 ** -np.arange(1, 6.0)])
    check_close(row.fn(from_np(x)), row.ref(x), rtol=row.rtol, atol=row.atol, dtype=ember.float64)


@pytest.mark.parametrize("name", list(ROWS))
def test_table_float32_and_16bit_against_scipy(name):
    row = ROWS[name]
    lo, hi = row.values
    x = np.random.default_rng(3).uniform(lo, hi, 300).astype(np.float32)
    with np.errstate(over="ignore", under="ignore"):
        expected = row.ref(x.astype(np.float64)).astype(np.float32).astype(np.float64)
    # computed in double and rounded once (Note [Bessel function methods]): within an ulp of float32
    check_close(row.fn(from_np(x)), expected, rtol=row.rtol32, atol=row.atol, dtype=ember.float32)
    h = row.fn(from_np(x[:20]).to(ember.float16))
    assert h.dtype == ember.float16


@pytest.mark.parametrize("name", list(ROWS))
def test_table_edges_and_integer_inputs(name):
    row = ROWS[name]
    # scipy's values there are PyTorch's too (NaN at the infinities for J, Y and Ai); at +-700 the phase of the
    # oscillating ones carries the rounding of 700^(3/2)
    edges = np.array([0.0, -0.0, -1.0, 1.0, inf, -inf, nan, 1e-300, 700.0, -700.0])
    with np.errstate(all="ignore"):
        expected = row.ref(edges)
    check_close(row.fn(from_np(edges)), expected, rtol=max(row.rtol, 1e-12), atol=row.atol, dtype=ember.float64)
    r = row.fn(ember.tensor([1, 2, 3]))
    assert r.dtype == ember.float32
    np.testing.assert_allclose(to_np(r), row.ref(np.array([1.0, 2.0, 3.0])), rtol=1e-6)


def test_table_derivatives():
    # a gradcheck of each row runs in test_gradcheck_ops.py (gradcases/special.py); here the names and the missing one
    for name, row in ROWS.items():
        x = ember.tensor([0.7, 1.3], dtype=ember.float64, requires_grad=True)
        y = row.fn(x)
        assert y.grad_fn.name() == "Special" + "".join(p.capitalize() for p in name.split("_")) + "Backward0"
        if row.grad is None:
            with pytest.raises(NotImplementedError, match="the derivative for 'special.%s' is not implemented" % name):
                y.sum().backward()


# ---- the binary table of special_functions.py: values, dtypes, the missing derivatives


def _binary_operands(row, seed, n=120):
    rng = np.random.default_rng(seed)
    return rng.uniform(*row.x, (n, 1)), rng.uniform(*row.y, (1, 5))  # broadcast to (n, 5)


@pytest.mark.parametrize("name", list(BINARY_ROWS))
def test_binary_table_float64_against_scipy(name):
    row = BINARY_ROWS[name]
    x, y = _binary_operands(row, 5)
    check_close(row.fn(from_np(x), from_np(y)), row.ref(x, y), rtol=row.rtol, atol=row.atol, dtype=ember.float64)
    # a number on the side PyTorch takes one (either side, except for gammainc/gammaincc)
    if row.integers:
        check_close(row.fn(float(x[0, 0]), from_np(y)), row.ref(x[0, 0], y), rtol=row.rtol, atol=row.atol)
        check_close(row.fn(from_np(x), float(y[0, 0])), row.ref(x, y[0, 0]), rtol=row.rtol, atol=row.atol)


@pytest.mark.parametrize("name", list(BINARY_ROWS))
def test_binary_table_float32_and_integer_inputs(name):
    row = BINARY_ROWS[name]
    x, y = _binary_operands(row, 6)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(all="ignore"):
        expected = row.ref(x32.astype(np.float64), y32.astype(np.float64))
    check_close(row.fn(from_np(x32), from_np(y32)), expected, rtol=row.rtol32, atol=1e-6, dtype=ember.float32)
    xi, yi = ember.tensor([2, 3]), ember.tensor([4, 5])
    if row.integers:
        check_close(row.fn(xi, yi), row.ref(np.array([2.0, 3.0]), np.array([4.0, 5.0])), rtol=1e-6, dtype=ember.float32)
    else:
        with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
            row.fn(xi, yi)


@pytest.mark.parametrize("name", list(BINARY_ROWS))
def test_binary_table_missing_derivatives(name):
    row = BINARY_ROWS[name]
    x, y = _binary_operands(row, 7, n=3)
    for i, has in enumerate(row.grad):
        ops = [from_np(x), from_np(y)]
        ops[i].requires_grad_(True)
        r = row.fn(*ops)
        if has:
            r.sum().backward()
            assert ops[i].grad is not None and ops[i].grad.shape == ops[i].shape
        else:
            with pytest.raises(NotImplementedError, match="the derivative for '.*' is not implemented"):
                r.sum().backward()


# PyTorch 1.13's values at the edges (float32), where they are not the limits scipy gives.
EDGES = [0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 0.5, inf, -inf, nan, 1e-30, -1e-30]
TORCH_EDGES = {
    "lgamma": (ember.lgamma, [inf, inf, inf, inf, -0.056243718, 0, 0.57236493, inf, inf, nan, 69.077553, 69.077553]),
    "digamma": (ember.digamma, [-inf, inf, nan, nan, 1.1031567, -0.57721591, -1.9635109, inf, nan, nan, -1e30, 1e30]),
    # at -1 and -2 PyTorch's float32 trigamma gives 1.29e15 and 3.23e14 (sin(pi x) of the rounded pi x is not 0);
    # ember gives the pole (docs/differences.md)
    "polygamma1": (
        lambda t: ember.polygamma(1, t),
        [inf, inf, inf, inf, 9.5392475, 1.6449341, 4.9348021, 0, nan, nan, inf, inf],
    ),
    "polygamma2": (
        lambda t: ember.polygamma(2, t),
        [-inf, -inf, -inf, -inf, -0.10820405, -2.4041138, -16.828796, nan, -inf, nan, -inf, inf],
    ),
    "polygamma3": (
        lambda t: ember.polygamma(3, t),
        [inf, inf, inf, inf, 194.74789, 6.4939394, 97.409088, nan, inf, nan, inf, inf],
    ),
    "i0": (ember.i0, [1, 1, 1.266066, 2.2795851, 3.2898395, 1.266066, 1.0634835, nan, nan, nan, 1, 1]),
    "i0e": (ember.special.i0e, [1, 1, 0.46575963, 0.30850831, 0.27004647, 0.46575963, 0.64503533, 0, 0, nan, 1, 1]),
    "i1": (
        ember.special.i1,
        [0, 0, -0.56515908, -1.5906368, -2.516716, 0.56515908, 0.25789428, nan, nan, nan, 5e-31, -5e-31],
    ),
    "i1e": (
        ember.special.i1e,
        [0, 0, -0.20791042, -0.21526928, -0.20658463, 0.20791042, 0.1564208, 0, -0.0, nan, 5e-31, -5e-31],
    ),
    "sinc": (
        ember.sinc,
        [1, 1, -2.7827534e-08, 2.7827534e-08, 0.12732396, -2.7827534e-08, 0.63661975, nan, nan, nan, 1, 1],
    ),
    "erfcx": (ember.special.erfcx, [1, 1, 5.0089803, 108.9409, 1035.8148, 0.42758358, 0.61569023, 0, inf, nan, 1, 1]),
    "ndtr": (
        ember.special.ndtr,
        [0.5, 0.5, 0.15865526, 0.022750139, 0.0062096715, 0.84134471, 0.69146246, 1, 0, nan, 0.5, 0.5],
    ),
    "ndtri": (ember.special.ndtri, [-inf, -inf, nan, nan, nan, inf, 0, nan, nan, nan, -11.464024, nan]),
    "log_ndtr": (
        ember.special.log_ndtr,
        [
            -0.69314718,
            -0.69314718,
            -1.8410214,
            -3.7831845,
            -5.0816483,
            -0.17275378,
            -0.36894643,
            -0.0,
            -inf,
            nan,
            -0.69314718,
            -0.69314718,
        ],
    ),
    "entr": (ember.special.entr, [0, 0, -inf, -inf, -inf, -0.0, 0.34657359, -inf, -inf, nan, 6.9077552e-29, -inf]),
}


@pytest.mark.parametrize("name", list(TORCH_EDGES))
def test_edge_values_as_pytorch(name):
    fn, expected = TORCH_EDGES[name]
    r = fn(ember.tensor(EDGES))
    got = to_np(r).astype(np.float64)
    expected = np.array(expected)
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-12 if name == "sinc" else 0, equal_nan=True)
    np.testing.assert_array_equal(np.signbit(got[np.isinf(got)]), np.signbit(expected[np.isinf(got)]))


def test_digamma_signed_zero_and_poles():
    r = ember.digamma(f64([0.0, -0.0, -1.0, -7.0, -1e300]))
    assert r.tolist()[:2] == [-inf, inf]
    assert all(math.isnan(v) for v in r.tolist()[2:])


def test_polygamma_large_order_and_asymptotic_region():
    x = np.array([0.5, 1.0, 3.7, 12.0, 150.0, 1e6])
    for n in (4, 7, 10):
        check_close(ember.polygamma(n, from_np(x)), sp.polygamma(n, x), rtol=1e-12)


def test_igamma_igammac_against_scipy():
    rng = np.random.default_rng(2)
    a = np.concatenate([rng.uniform(0.01, 5, 200), rng.uniform(5, 200, 100), [1e4, 1e4, 1e5]])
    x = np.concatenate([rng.uniform(0, 10, 200), rng.uniform(0, 300, 100), [1e4 - 50, 1e4 + 100, 1e5 + 300]])
    # near x ~ a the prefactor's exponent is a sum of terms of size a log x: relative accuracy ~1e-16 a
    rtol = np.where(a > 1000, 1e-9, 1e-12)
    for fn, ref in ((ember.igamma, sp.gammainc), (ember.igammac, sp.gammaincc)):
        got, want = to_np(fn(from_np(a), from_np(x))), ref(a, x)
        assert np.all(np.abs(got - want) <= rtol * np.abs(want) + 1e-300), fn
    check_close(ember.special.gammainc(from_np(a).float(), from_np(x).float()), sp.gammainc(a, x), rtol=2e-4, atol=1e-6)


def test_igamma_edges_as_pytorch():
    a = f64([0.0, 0.0, -1.0, 1.0, inf, inf, 1.0, nan, 1.0, 2.0])
    x = f64([1.0, 0.0, 1.0, -1.0, 1.0, inf, inf, 1.0, nan, 0.0])
    np.testing.assert_array_equal(to_np(ember.igamma(a, x)), [1.0, nan, nan, nan, 0.0, nan, 1.0, nan, nan, 0.0])
    np.testing.assert_array_equal(to_np(ember.igammac(a, x)), [0.0, nan, nan, nan, 1.0, nan, 0.0, nan, nan, 1.0])


def test_zeta_against_scipy_and_edges():
    rng = np.random.default_rng(3)
    s = rng.uniform(1.1, 20, 200)
    q = rng.uniform(0.05, 50, 200)
    check_close(ember.special.zeta(from_np(s), from_np(q)), sp.zeta(s, q), rtol=1e-12)
    # negative non-integer q with integer s (polygamma's use), and PyTorch's edge values
    check_close(
        ember.special.zeta(f64([2.0, 3.0, 4.0]), f64([-2.5, -0.3, -7.9])),
        sp.zeta([2.0, 3.0, 4.0], [-2.5, -0.3, -7.9]),
        rtol=1e-11,
    )
    s = f64([3.0, 3.0, 3.0, 1.0, 0.5, 2.5, inf, 3.0, nan, 3.0, -2.0])
    q = f64([inf, 0.0, -2.0, 2.0, 2.0, -2.5, 2.0, nan, 1.0, -inf, 2.0])
    np.testing.assert_array_equal(
        to_np(ember.special.zeta(s, q)), [nan, inf, inf, inf, nan, nan, nan, nan, nan, inf, nan]
    )
    # numbers on either side; integers compute in the default float dtype
    check_close(ember.special.zeta(2, ember.tensor([1.0, 2.0])), sp.zeta(2, [1.0, 2.0]), rtol=1e-6, dtype=ember.float32)
    check_close(ember.special.zeta(ember.tensor([2, 3]), 1.5), sp.zeta([2, 3], 1.5), rtol=1e-6, dtype=ember.float32)


def test_binary_against_numpy_and_scipy():
    rng = np.random.default_rng(4)
    a, b = rng.uniform(-30, 30, (2, 50, 3))
    y = rng.uniform(-0.9, 30, (50, 3))
    a[0, 0], b[0, 0] = 0.0, 0.0
    check_close(ember.logaddexp(from_np(a), from_np(b)), np.logaddexp(a, b), rtol=1e-14)
    check_close(ember.logaddexp2(from_np(a), from_np(b)), np.logaddexp2(a, b), rtol=1e-14)
    check_close(ember.xlogy(from_np(a), from_np(np.abs(b))), sp.xlogy(a, np.abs(b)), rtol=1e-14)
    check_close(ember.special.xlogy(from_np(a), from_np(np.abs(b))), sp.xlogy(a, np.abs(b)), rtol=1e-14)
    check_close(ember.special.xlog1py(from_np(a), from_np(y)), sp.xlog1py(a, y), rtol=1e-14)
    check_close(ember.heaviside(from_np(a), from_np(b)), np.heaviside(a, b), rtol=0)
    np.testing.assert_array_equal(to_np(ember.nextafter(from_np(a), from_np(b))), np.nextafter(a, b))
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    np.testing.assert_array_equal(to_np(ember.nextafter(from_np(a32), from_np(b32))), np.nextafter(a32, b32))
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    np.testing.assert_array_equal(to_np(ember.nextafter(from_np(a16), from_np(b16))), np.nextafter(a16, b16))


def test_binary_edges_as_pytorch():
    x = ember.tensor([inf, -inf, -inf, nan, 1.0])
    y = ember.tensor([inf, -inf, inf, 1.0, nan])
    np.testing.assert_array_equal(to_np(ember.logaddexp(x, y)), [inf, -inf, inf, nan, nan])
    np.testing.assert_array_equal(to_np(ember.logaddexp2(x, y)), [inf, -inf, inf, nan, nan])
    np.testing.assert_array_equal(
        to_np(ember.xlogy(ember.tensor([0.0, 0.0, 1.0, 0.0, 2.0]), ember.tensor([nan, 0.0, 0.0, inf, -1.0]))),
        [nan, 0.0, -inf, 0.0, nan],
    )
    np.testing.assert_array_equal(
        to_np(ember.heaviside(ember.tensor([nan, -0.0, 0.0, -inf]), ember.tensor([5.0, 6.0, 7.0, 8.0]))),
        [0.0, 6.0, 7.0, 0.0],
    )
    bf = ember.nextafter(
        ember.tensor([0.0, 1.0, 1.0, -0.0, inf, nan], dtype=ember.bfloat16),
        ember.tensor([-1.0, 2.0, 0.0, 1.0, 0.0, 1.0], dtype=ember.bfloat16),
    )
    assert bf.view(ember.int16).tolist() == [-32767, 16257, 16255, 1, 32639, 32704]


def test_gcd_lcm():
    rng = np.random.default_rng(5)
    a, b = rng.integers(-1000, 1000, (2, 40))
    a[:3], b[:3] = [0, 0, 7], [0, 5, 0]
    for dt in (ember.int64, ember.int32, ember.int16):
        ta, tb = ember.tensor(a.tolist(), dtype=dt), ember.tensor(b.tolist(), dtype=dt)
        assert ember.gcd(ta, tb).tolist() == np.gcd(a, b).tolist()
        assert ember.lcm(ta, tb).dtype == dt
        assert ember.lcm(ta, tb).tolist() == np.lcm(a, b).astype(np.dtype(str(dt).split(".")[1])).tolist()
    # PyTorch's wrap-around at the limits
    assert ember.gcd(ember.tensor([-(2**63), 12]), ember.tensor([0, -18])).tolist() == [-(2**63), 6]
    assert ember.lcm(ember.tensor([-128, 100], dtype=ember.int8), ember.tensor([3, 3], dtype=ember.int8)).tolist() == [
        -128,
        44,
    ]
    assert ember.gcd(ember.tensor([200, 7], dtype=ember.uint8), ember.tensor([100, 0], dtype=ember.uint8)).tolist() == [
        100,
        7,
    ]
    t = ember.tensor([12, 18])
    t.gcd_(ember.tensor([8, 12]))
    assert t.tolist() == [4, 6]
    assert ember.tensor([4, 6]).lcm(ember.tensor([6, 4])).tolist() == [12, 12]


# ---- dtype rules


@pytest.mark.parametrize(
    "fn",
    [
        ember.lgamma,
        ember.digamma,
        ember.i0,
        ember.sinc,
        ember.deg2rad,
        ember.rad2deg,
        ember.special.i0e,
        ember.special.i1,
        ember.special.i1e,
        ember.special.erfcx,
        ember.special.ndtr,
        ember.special.ndtri,
        ember.special.log_ndtr,
        ember.special.entr,
        lambda t: ember.polygamma(2, t),
        lambda t: ember.mvlgamma(t, 2),
    ],
)
def test_integer_and_bool_inputs_compute_in_default_dtype(fn):
    i = ember.tensor([1, 2, 3])
    r = fn(i)
    assert r.dtype == ember.float32
    np.testing.assert_array_equal(to_np(r), to_np(fn(i.float())))
    assert fn(ember.tensor([True, False])).dtype == ember.float32
    try:
        ember.set_default_dtype(ember.float64)
        assert fn(i).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("dt", [ember.float16, ember.bfloat16])
@pytest.mark.parametrize(
    "fn",
    [
        ember.lgamma,
        ember.digamma,
        lambda t: ember.polygamma(1, t),
        ember.i0,
        ember.sinc,
        ember.deg2rad,
        ember.special.erfcx,
        ember.special.ndtri,
        ember.special.i1e,
        ember.special.entr,
        ember.special.log_ndtr,
    ],
)
def test_16bit_floats_compute_in_float32(fn, dt):
    x = ember.tensor([0.1, 0.3, 0.55, 0.9, 1.5, 2.5, 7.0], dtype=dt)
    r = fn(x)
    assert r.dtype == dt
    ref = to_np(fn(x.float()))
    ref = bf16_round(ref) if dt == ember.bfloat16 else ref.astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(to_np(r).astype(np.float32), ref)


def test_binary_dtype_rules():
    i, f, d = ember.tensor([1, 2]), ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0], dtype=ember.float64)
    h = ember.tensor([1.0, 2.0], dtype=ember.float16)
    assert ember.logaddexp(i, f).dtype == ember.float32
    assert ember.logaddexp(d, f).dtype == ember.float64
    assert ember.logaddexp(h, h).dtype == ember.float16
    assert ember.logaddexp(h, f).dtype == ember.float32
    assert ember.xlogy(i, i).dtype == ember.float32
    assert ember.xlogy(ember.tensor([True]), ember.tensor([True])).dtype == ember.float32
    assert ember.xlogy(2, f).dtype == ember.float32 and ember.xlogy(f, 2).dtype == ember.float32
    assert ember.xlogy(2.0, ember.tensor(3)).dtype == ember.float32
    assert ember.xlogy(h, 2.5).dtype == ember.float16
    assert ember.igamma(i, f).dtype == ember.float32
    assert ember.heaviside(i, i).dtype == ember.int64
    assert ember.heaviside(ember.tensor([True, False]), ember.tensor([False, True])).tolist() == [True, True]
    assert ember.ldexp(i, i).dtype == ember.float32 and ember.ldexp(h, h).dtype == ember.float16
    assert ember.ldexp(h, f).dtype == ember.float32
    assert ember.ldexp(ember.tensor([1.0, 3.0]), ember.tensor([1, 3])).tolist() == [2.0, 24.0]
    for a, b in [(i, i), (f, f), (h, h), (i, 2), (2, f), (f, 2.5), (ember.tensor([True]), ember.tensor([True]))]:
        assert ember.float_power(a, b).dtype == ember.float64
    check_close(ember.float_power(ember.tensor([2.0, 3.0]), 2.5), np.array([2.0, 3.0]) ** 2.5, rtol=1e-15)
    check_close(ember.float_power(2, ember.tensor([0.5, 3.0])), 2.0 ** np.array([0.5, 3.0]), rtol=1e-15)


# ---- layouts, zero-size, 0-d, broadcasting


def test_layouts_and_shapes():
    base = ember.tensor(np.random.default_rng(6).uniform(0.1, 5, (4, 6)).tolist(), dtype=ember.float64)
    nc = base.t()
    assert not nc.is_contiguous()
    for fn in (ember.lgamma, ember.digamma, ember.i0, ember.special.ndtri, lambda t: ember.polygamma(3, t)):
        np.testing.assert_array_equal(to_np(fn(nc)), to_np(fn(nc.contiguous())))
        assert fn(ember.empty(0, 3)).shape == (0, 3)
        assert fn(ember.tensor(0.5)).shape == ()
    strided = base[:, ::2]
    np.testing.assert_allclose(to_np(ember.lgamma(strided)), sp.gammaln(to_np(strided)), rtol=1e-14, atol=1e-14)
    row = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64)
    col = ember.tensor([[0.5], [2.0]], dtype=ember.float64)
    check_close(ember.igamma(col, row), sp.gammainc([[0.5], [2.0]], [1.0, 2.0, 3.0]), rtol=1e-13)
    check_close(ember.xlogy(col, row), sp.xlogy([[0.5], [2.0]], [1.0, 2.0, 3.0]), rtol=1e-15)
    check_close(ember.logaddexp(nc, row[:1]), np.logaddexp(to_np(nc), 1.0), rtol=1e-15)
    assert ember.logaddexp(ember.empty(0, 3), ember.empty(3)).shape == (0, 3)
    assert ember.gcd(ember.empty(0, dtype=ember.int64), ember.tensor(3)).shape == (0,)
    assert ember.special.zeta(ember.tensor(2.0), ember.tensor(1.0)).shape == ()


# ---- methods, in-place, out=, aliases


def test_methods_inplace_and_out():
    x = ember.tensor([0.5, 1.5, 4.0])
    for name in ("lgamma", "digamma", "i0", "sinc", "deg2rad", "rad2deg", "sgn"):
        expected = getattr(ember, name)(x)
        assert getattr(x, name)().tolist() == expected.tolist()
        y = x.clone()
        assert getattr(y, name + "_")() is y
        assert y.tolist() == expected.tolist()
        out = ember.empty(3)
        assert getattr(ember, name)(x, out=out) is out and out.tolist() == expected.tolist()
    assert x.polygamma(2).tolist() == ember.polygamma(2, x).tolist()
    y = x.clone()
    y.polygamma_(1)
    assert y.tolist() == ember.polygamma(1, x).tolist()
    out = ember.empty(3)
    assert ember.polygamma(1, x, out=out) is out and out.tolist() == y.tolist()
    assert ember.special.polygamma(1, x).tolist() == y.tolist()
    z = ember.tensor([2.0, 3.0])
    expected = ember.mvlgamma(z, 2).tolist()
    assert z.mvlgamma(2).tolist() == expected and ember.special.multigammaln(z, 2).tolist() == expected
    z.mvlgamma_(2)
    assert z.tolist() == expected
    np.testing.assert_allclose(expected, [sp.multigammaln(2.0, 2), sp.multigammaln(3.0, 2)], rtol=1e-6)
    for name in ("xlogy", "heaviside", "nextafter", "igamma", "igammac", "ldexp"):
        a, b = ember.tensor([1.0, 2.0]), ember.tensor([3.0, 0.5])
        expected = getattr(ember, name)(a, b).tolist()
        assert getattr(a, name)(b).tolist() == expected
        assert getattr(a, name + "_")(b) is a and a.tolist() == expected
        out = ember.empty(2)
        assert getattr(ember, name)(ember.tensor([1.0, 2.0]), b, out=out) is out and out.tolist() == expected
    a = ember.tensor([1.0, 2.0])
    assert a.logaddexp(ember.tensor([0.0, 0.0])).tolist() == ember.logaddexp(a, ember.tensor([0.0, 0.0])).tolist()
    assert not hasattr(a, "logaddexp_")
    assert ember.tensor([3.0]).xlogy_(2).tolist() == pytest.approx([3 * math.log(2)])
    y = ember.tensor([0.5, 2.0])
    assert ember.i0_(y) is y and y.tolist() == ember.i0(ember.tensor([0.5, 2.0])).tolist()
    y = ember.tensor([1.0, 4.0])
    assert ember.xlogy_(y, 2.0) is y and y.tolist() == pytest.approx([math.log(2), 4 * math.log(2)])
    n = ember.tensor([4, 6])
    assert ember.gcd_(n, ember.tensor([6, 4])) is n and n.tolist() == [2, 2]
    d = ember.tensor([2.0], dtype=ember.float64)
    assert d.float_power_(ember.tensor([2.0])) is d and d.tolist() == [4.0]
    assert ember.tensor([2.0]).float_power(2).dtype == ember.float64


def test_special_namespace_aliases():
    s = ember.special
    x = ember.tensor([0.3, 1.7])
    assert s.gammaln(x).tolist() == ember.lgamma(x).tolist()
    assert s.psi(x).tolist() == s.digamma(x).tolist() == ember.digamma(x).tolist()
    assert s.expit(x).tolist() == ember.sigmoid(x).tolist()
    assert s.gammainc(x, x).tolist() == ember.igamma(x, x).tolist()
    assert s.gammaincc(x, x).tolist() == ember.igammac(x, x).tolist()
    assert s.modified_bessel_i0(x).tolist() == ember.i0(x).tolist()
    assert s.modified_bessel_i1(x).tolist() == s.i1(x).tolist()
    assert s.logsumexp(x, 0).item() == pytest.approx(float(np.logaddexp(0.3, 1.7)), rel=1e-6)
    assert s.softmax(x, 0).tolist() == ember.softmax(x, 0).tolist()
    assert s.round(ember.tensor([2.5])).tolist() == [2.0]
    for name in (
        "erf",
        "erfc",
        "erfinv",
        "exp2",
        "expm1",
        "log1p",
        "logit",
        "sinc",
        "i0",
        "log_softmax",
        "xlogy",
        "polygamma",
        "multigammaln",
        "entr",
        "ndtr",
        "ndtri",
        "log_ndtr",
        "erfcx",
        "i0e",
        "i1e",
        "zeta",
        "xlog1py",
    ):
        assert callable(getattr(s, name)), name
    out = ember.empty(2)
    assert s.i0e(x, out=out) is out


def test_frexp():
    x = np.array([0.0, -0.0, -1.0, 1.0, 0.5, -0.5, 50.0, -50.0, 1e-30, 3e-39, 1e30, 6.0])
    for dt, npdt in ((ember.float32, np.float32), (ember.float64, np.float64), (ember.float16, np.float16)):
        with np.errstate(over="ignore"):
            xs = x.astype(npdt)  # 1e30 is inf in float16
        m, e = ember.frexp(from_np(xs))
        em, ee = np.frexp(xs)
        assert m.dtype == dt and e.dtype == ember.int32
        np.testing.assert_array_equal(to_np(m), em)
        np.testing.assert_array_equal(to_np(e), ee)
    r = ember.frexp(ember.tensor([inf, -inf, nan]))
    assert r.mantissa.tolist()[:2] == [inf, -inf] and math.isnan(r.mantissa.tolist()[2])
    assert r.exponent.tolist() == [0, 0, 0]
    m, e = ember.tensor([3.0, 10.0], dtype=ember.bfloat16).frexp()
    assert m.tolist() == [0.75, 0.625] and e.tolist() == [2, 4]
    m_out, e_out = ember.empty(2), ember.empty(2, dtype=ember.int32)
    r = ember.frexp(ember.tensor([3.0, 10.0]), out=(m_out, e_out))
    assert r.mantissa is m_out and r.exponent is e_out and e_out.tolist() == [2, 4]
    assert ember.frexp(ember.empty(0)).mantissa.shape == (0,)
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes"):
        ember.frexp(ember.tensor([1, 2]))
    g = ember.tensor([3.0, 10.0], requires_grad=True)
    ember.frexp(g).mantissa.sum().backward()
    assert g.grad.tolist() == [0.25, 0.0625]


# ---- windows


def _win_ref(kind, n, periodic, **kw):
    if n == 0:
        return np.zeros(0)
    if n == 1:
        return np.ones(1)
    m = n + 1 if periodic else n
    k = np.arange(m)
    if kind == "hann":
        w = 0.5 - 0.5 * np.cos(2 * np.pi * k / (m - 1))
    elif kind == "hamming":
        w = kw.get("alpha", 0.54) - kw.get("beta", 0.46) * np.cos(2 * np.pi * k / (m - 1))
    elif kind == "blackman":
        w = 0.42 - 0.5 * np.cos(2 * np.pi * k / (m - 1)) + 0.08 * np.cos(4 * np.pi * k / (m - 1))
    elif kind == "bartlett":
        w = np.bartlett(m)
    else:
        w = np.kaiser(m, kw.get("beta", 12.0))
    return w[:n]


@pytest.mark.parametrize("kind", ["hann", "hamming", "blackman", "bartlett", "kaiser"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(kind, n, periodic):
    fn = getattr(ember, kind + "_window")
    w = fn(n, periodic)
    assert w.dtype == ember.float32 and w.shape == (n,)
    np.testing.assert_allclose(to_np(w), _win_ref(kind, n, periodic), rtol=1e-5, atol=1e-6)
    w64 = fn(n, periodic=periodic, dtype=ember.float64)
    assert w64.dtype == ember.float64
    np.testing.assert_allclose(to_np(w64), _win_ref(kind, n, periodic), rtol=1e-13, atol=1e-15)


def test_window_options_and_errors():
    assert ember.hann_window(5).tolist() == ember.hann_window(5, True).tolist()
    np.testing.assert_allclose(to_np(ember.hamming_window(5, False, 0.5, 0.4)), [0.1, 0.5, 0.9, 0.5, 0.1], rtol=1e-6)
    np.testing.assert_allclose(
        to_np(ember.hamming_window(5, True, alpha=0.6)), _win_ref("hamming", 5, True, alpha=0.6), rtol=1e-6
    )
    np.testing.assert_allclose(to_np(ember.kaiser_window(5, False, 5.0)), np.kaiser(5, 5.0), rtol=1e-5)
    np.testing.assert_allclose(to_np(ember.kaiser_window(6, beta=3.0)), np.kaiser(7, 3.0)[:6], rtol=1e-5)
    w = ember.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf
    assert ember.bartlett_window(4, dtype=ember.bfloat16).dtype == ember.bfloat16
    assert ember.blackman_window(4, device="cpu").device.type == "cpu"
    for fn in (
        ember.hann_window,
        ember.hamming_window,
        ember.blackman_window,
        ember.bartlett_window,
        ember.kaiser_window,
    ):
        name = fn.__name__
        with pytest.raises(RuntimeError, match=name + " requires non-negative window_length, got window_length=-1"):
            fn(-1)
        with pytest.raises(RuntimeError, match=name + " expects floating point dtypes"):
            fn(3, dtype=ember.int64)


# ---- autograd


def test_gradient_names_and_second_derivatives():
    x = ember.tensor([0.7, 2.5], dtype=ember.float64, requires_grad=True)
    assert ember.lgamma(x).grad_fn.name() == "LgammaBackward0"
    assert ember.digamma(x).grad_fn.name() == "DigammaBackward0"
    assert ember.polygamma(2, x).grad_fn.name() == "PolygammaBackward0"
    (g,) = ember.autograd.grad(ember.lgamma(x).sum(), x, create_graph=True)
    check_close(g, sp.psi([0.7, 2.5]), rtol=1e-13)
    (gg,) = ember.autograd.grad(g.sum(), x, create_graph=True)
    check_close(gg, sp.polygamma(1, [0.7, 2.5]), rtol=1e-13)
    (ggg,) = ember.autograd.grad(gg.sum(), x)
    check_close(ggg, sp.polygamma(2, [0.7, 2.5]), rtol=1e-12)


def test_no_gradient_where_pytorch_has_none():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    x = ember.tensor([0.5, 1.5], requires_grad=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not implemented"):
        ember.igamma(a, x).sum().backward()
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
        ember.special.zeta(a + 1, x).sum().backward()
    for fn, name in ((ember.heaviside, "heaviside"), (ember.nextafter, "nextafter")):
        with pytest.raises(NotImplementedError, match=f"the derivative for '{name}' is not implemented"):
            fn(ember.tensor([1.0, 2.0], requires_grad=True), ember.tensor([0.5, 1.5])).sum().backward()
    # the other operand's gradient alone is fine
    x = ember.tensor([0.5, 1.5], requires_grad=True)
    ember.igammac(ember.tensor([1.0, 2.0]), x).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), [-math.exp(-0.5), -1.5 * math.exp(-1.5)], rtol=1e-6)


# ---- errors


def test_errors():
    x = ember.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        ember.polygamma(-1, x)
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        x.polygamma_(-1)
    assert x.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        ember.mvlgamma(x, 0)
    with pytest.raises(RuntimeError, match="\"gcd_cpu\" not implemented for 'Float'"):
        ember.gcd(x, x)
    with pytest.raises(RuntimeError, match="\"lcm_cpu\" not implemented for 'Bool'"):
        ember.lcm(ember.tensor([True]), ember.tensor([True]))
    with pytest.raises(RuntimeError, match="\"logaddexp_cpu\" not implemented for 'Long'"):
        ember.logaddexp(ember.tensor([1]), ember.tensor([2]))
    with pytest.raises(RuntimeError, match="\"igamma_cpu\" not implemented for 'Long'"):
        ember.igamma(ember.tensor([1]), ember.tensor([2]))
    with pytest.raises(RuntimeError, match="\"nextafter_cpu\" not implemented for 'Bool'"):
        ember.nextafter(ember.tensor([True]), ember.tensor([True]))
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
        ember.heaviside(ember.tensor([1]), x)
    with pytest.raises(TypeError, match=r"logaddexp\(\): argument 'other' \(position 2\) must be Tensor, not int"):
        ember.logaddexp(x, 2)
    with pytest.raises(TypeError, match=r"gcd\(\): argument 'input' \(position 1\) must be Tensor, not int"):
        ember.gcd(2, ember.tensor([1]))
    with pytest.raises(TypeError, match=r"heaviside\(\): argument 'values' \(position 2\) must be Tensor, not float"):
        ember.heaviside(x, 2.0)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.tensor([1, 2]).lgamma_()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.tensor([1, 2]).xlogy_(2)
    with pytest.raises(
        RuntimeError,
        match="the base given to float_power_ has dtype Float but the operation's result requires dtype Double",
    ):
        ember.tensor([1.0]).float_power_(2)
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype Float"):
        ember.tensor([1.0]).float_power_(2)


# ---- orthogonal polynomials (torch.special's; no gradient, as PyTorch)


def _chebyv(n, x):
    return sp.eval_chebyu(n, x) - (sp.eval_chebyu(n - 1, x) if n > 0 else 0.0)


def _chebyw(n, x):
    return sp.eval_chebyu(n, x) + (sp.eval_chebyu(n - 1, x) if n > 0 else 0.0)


POLYNOMIALS = {
    "chebyshev_polynomial_t": sp.eval_chebyt,
    "chebyshev_polynomial_u": sp.eval_chebyu,
    "chebyshev_polynomial_v": _chebyv,
    "chebyshev_polynomial_w": _chebyw,
    "shifted_chebyshev_polynomial_t": sp.eval_sh_chebyt,
    "shifted_chebyshev_polynomial_u": sp.eval_sh_chebyu,
    "shifted_chebyshev_polynomial_v": lambda n, x: _chebyv(n, 2 * x - 1),
    "shifted_chebyshev_polynomial_w": lambda n, x: _chebyw(n, 2 * x - 1),
    "hermite_polynomial_h": sp.eval_hermite,
    "hermite_polynomial_he": sp.eval_hermitenorm,
    "laguerre_polynomial_l": sp.eval_laguerre,
    "legendre_polynomial_p": sp.eval_legendre,
}


@pytest.mark.parametrize("name", list(POLYNOMIALS))
def test_orthogonal_polynomials_against_scipy(name):
    fn, ref = getattr(ember.special, name), POLYNOMIALS[name]
    x = np.random.default_rng(7).uniform(-1.5, 1.5, 60)
    for n in (0, 1, 2, 5, 9, 14):  # 9 and 14: the trigonometric forms of the Chebyshev families inside (-1, 1)
        expected = ref(n, x)
        check_close(fn(from_np(x), n), expected, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(expected).max()))
    # n as a tensor (broadcast), truncated toward zero; negative n gives 0
    ns = np.array([[0.0], [3.7], [-1.0], [-0.5]])
    expected = np.stack([ref(0, x), ref(3, x), np.zeros_like(x), ref(0, x)])
    check_close(fn(from_np(x), from_np(ns)), expected, rtol=1e-12, atol=1e-12)
    assert fn(ember.tensor([1, 2]), ember.tensor([2, 3])).dtype == ember.float32
    assert fn(0.5, ember.tensor([2.0])).shape == (1,)
    assert not fn(ember.tensor([0.5], requires_grad=True), 3).requires_grad


def test_legendre_of_large_degree():
    # Note [Polynomials of large degree]: above 2**24 Legendre uses its asymptotic formula; scipy's eval_legendre runs
    # the recurrence (0.5 s at this degree), on x >= 0 (below 0 it loses the symmetry P_n(-x) = (-1)^n P_n(x)).
    n = 2**24 + 1
    x = np.concatenate([np.linspace(0, 0.999, 9), [0.3, 1 - 1e-6, 1 - 1e-9, 1.0]])
    f = ember.special.legendre_polynomial_p
    check_close(f(from_np(x), float(n)), sp.eval_legendre(n, x), rtol=0, atol=1e-11)
    assert ember.equal(f(from_np(-x), float(n)), -f(from_np(x), float(n)))  # odd degree
    huge = f(from_np(x), 2.0**40)  # returns at once: |P_n| <= 1 on [-1, 1], and ~ sqrt(2 / (pi n sin t)) inside
    assert (huge.abs() <= 1).all() and huge[0].abs().item() < 1e-5
    assert f(ember.tensor([0.3, 1.5]), float("inf")).isnan().all()  # a non-finite degree has no polynomial
    assert f(ember.tensor([1.5], dtype=ember.float64), 2.0**40).item() == float("inf")  # overflows, as it must


def test_orthogonal_polynomial_edges_as_pytorch():
    x = ember.tensor([0.3, -0.7, 1.0, -1.0, 2.5, nan, 0.0])
    expected = {  # PyTorch 1.13, n = 3
        "chebyshev_polynomial_t": [-0.792, 0.728, 1.0, -1.0, 55.0, nan, -0.0],
        "chebyshev_polynomial_u": [-0.984, 0.056, 4.0, -4.0, 115.0, nan, -0.0],
        "chebyshev_polynomial_v": [-0.344, -0.904, 1.0, -7.0, 91.0, nan, 1.0],
        "chebyshev_polynomial_w": [-1.624, 1.016, 7.0, -1.0, 139.0, nan, -1.0],
        "hermite_polynomial_h": [-3.384, 5.656, -4.0, 4.0, 95.0, nan, -0.0],
        "hermite_polynomial_he": [-0.873, 1.757, -2.0, 2.0, 8.125, nan, -0.0],
        "laguerre_polynomial_l": [0.2305, 3.8921667, -0.6666667, 5.6666667, 0.2708333, nan, 1.0],
        "legendre_polynomial_p": [-0.3825, 0.1925, 1.0, -1.0, 35.3125, nan, -0.0],
        "shifted_chebyshev_polynomial_t": [0.944, -48.096, 1.0, -99.0, 244.0, nan, -1.0],
    }
    for name, values in expected.items():
        fn = getattr(ember.special, name)
        np.testing.assert_allclose(to_np(fn(x, 3)), values, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=name)
        np.testing.assert_array_equal(to_np(fn(x, -1)), np.zeros(7))
    out = ember.empty(7)
    assert ember.special.legendre_polynomial_p(x, 2, out=out) is out
    with pytest.raises(TypeError):
        ember.special.hermite_polynomial_h(0.5, 2)


# ---- the bindings of python/src/special.cpp: PyTorch's keyword forms, compared with the positional calls and scipy


def test_keyword_forms_of_the_special_bindings():
    x = f64([0.7, 1.5, 4.0])
    expected = sp.polygamma(2, [0.7, 1.5, 4.0])
    for got in (
        ember.polygamma(n=2, input=x),
        ember.polygamma(2, input=x),
        ember.special.polygamma(n=2, input=x),
        x.polygamma(n=2),
    ):
        check_close(got, expected, rtol=1e-12)
    y = x.clone()
    assert y.polygamma_(n=1) is y
    check_close(y, sp.polygamma(1, [0.7, 1.5, 4.0]), rtol=1e-12)
    z = f64([2.0, 3.5])
    expected = [sp.multigammaln(2.0, 3), sp.multigammaln(3.5, 3)]
    for got in (ember.mvlgamma(input=z, p=3), ember.special.multigammaln(input=z, p=3), z.mvlgamma(p=3)):
        check_close(got, expected, rtol=1e-13)
    out = ember.empty(2, dtype=ember.float64)
    assert ember.special.multigammaln(z, 3, out=out) is out
    check_close(out, expected, rtol=1e-13)
    m, e = ember.frexp(input=f64([6.0, -0.375]))
    assert m.tolist() == [0.75, -0.75] and e.tolist() == [3, -1]
    e_int = ember.tensor([3, -1], dtype=ember.int32)
    check_close(ember.ldexp(input=f64([0.75, -0.75]), other=e_int), [6.0, -0.375], rtol=0)
    w = f64([0.75, -0.75])
    assert ember.ldexp_(input=w, other=e_int) is w and w.tolist() == [6.0, -0.375]
    assert f64([0.5]).ldexp(other=ember.tensor([2])).tolist() == [2.0]
    check_close(
        ember.float_power(input=ember.tensor([2, 3]), exponent=-1), [0.5, 1 / 3], rtol=1e-15, dtype=ember.float64
    )
    check_close(ember.float_power(2, exponent=f64([0.5])), [math.sqrt(2)], rtol=1e-15)
    check_close(ember.tensor([4.0]).float_power(exponent=0.5), [2.0], rtol=0, dtype=ember.float64)
    # the windows' factory keywords
    w = ember.hann_window(
        window_length=5,
        periodic=False,
        dtype=ember.float64,
        layout=ember.strided,
        device="cpu",
        pin_memory=False,
        requires_grad=True,
    )
    assert w.dtype == ember.float64 and w.requires_grad
    check_close(w.detach(), np.hanning(5), rtol=1e-13, atol=1e-15)
    check_close(
        ember.hamming_window(window_length=5, periodic=False, alpha=0.5, beta=0.5), np.hanning(5), rtol=1e-6, atol=1e-7
    )
    check_close(ember.kaiser_window(6, periodic=False, beta=3.0), np.kaiser(6, 3.0), rtol=1e-5)
    with pytest.raises(TypeError, match="only the strided layout is supported"):
        ember.bartlett_window(4, layout="sparse")
    params = inspect.signature(ember.blackman_window).parameters
    assert list(params) == ["window_length", "periodic", "dtype", "layout", "device", "pin_memory", "requires_grad"]
    assert params["periodic"].default is True and params["requires_grad"].default is False


def test_every_special_name_is_bound_in_c_and_documented():
    # ember.special re-exports ember._C._special (plus softmax, log_softmax, logsumexp): each name there is a table row
    # (unary.def, binary.def) or a binding of special.cpp, with a signature and a docstring
    own = set(ember.special.__all__) - {"softmax", "log_softmax", "logsumexp"}
    assert own == set(ember._C._special.__all__)
    for name in own:
        fn = getattr(ember.special, name)
        assert fn.__module__ == "ember._C._special", name
        assert "input" in inspect.signature(fn).parameters, name
        assert fn.__doc__ and "Args:" in fn.__doc__, name
