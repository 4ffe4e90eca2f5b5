"""Ternary elementwise ops (ember/ops/ternary.cpp, backend/cpu/ternary.cpp, bindings in python/src/ternary.cpp):
where, lerp, addcmul and addcdiv against NumPy, with promotion, broadcasting, layouts and in-place forms."""

import math

import numpy as np
import pytest
from both_libraries import needs_torch, run_ember, run_torch
from conftest import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    assert_equal,
    bf16_round,
    dtype_name,
    from_np,
    np_dtype,
    random_array,
    to_np,
)

import ember


def rounded(x, dtype):
    with np.errstate(all="ignore"):
        if dtype is ember.bfloat16:
            return bf16_round(np.asarray(x, np.float32))
        return np.asarray(x).astype(np_dtype(dtype))


def acc(x, dtype):
    """x's values converted to `dtype` (as the kernel loads them), in the type the kernel computes in
    (float32 for the 16-bit floats)."""
    x = rounded(x, dtype)
    return x.astype(np.float32) if dtype in (ember.float16, ember.bfloat16) else x


EPS = {ember.float16: 2.0**-10, ember.bfloat16: 2.0**-7, ember.float32: 2.0**-23, ember.float64: 2.0**-52}


def assert_close(t, expected, dtype, scale):
    """Within a few rounding steps: the compiler may fuse a * b + c into one FMA (one rounding instead of
    two), so results may differ from NumPy's in the last bit; `scale` bounds the size of the terms."""
    expected = np.asarray(expected)
    assert t.dtype is dtype and tuple(t.shape) == expected.shape
    np.testing.assert_allclose(
        to_np(t).astype(np.float64),
        expected.astype(np.float64),
        rtol=2 * EPS[dtype],
        atol=4 * EPS[dtype] * scale,
        equal_nan=True,
    )


# ------------------------------------------------------------------------------------ where


@pytest.mark.parametrize("dx", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("dy", [ember.bool, ember.int8, ember.int64, ember.float16, ember.float32], ids=dtype_name)
def test_where_promotes_like_binary_ops(dx, dy, rng):
    cond = rng.random((3, 4)) < 0.5
    x, y = random_array(rng, (3, 4), dx), random_array(rng, (3, 4), dy)
    got = ember.where(from_np(cond), from_np(x, dx), from_np(y, dy))
    result = ember.promote_types(dx, dy)
    assert got.dtype is result
    assert_equal(got, np.where(cond, rounded(x, result), rounded(y, result)))


def test_where_with_python_scalars():
    c = ember.tensor([True, False, True])
    assert_equal(ember.where(c, 1, 2), np.array([1, 2, 1]), dtype=ember.int64)
    assert_equal(ember.where(c, 1, 2.5), np.array([1.0, 2.5, 1.0], np.float32), dtype=ember.float32)
    assert_equal(ember.where(c, 1.0, 2), np.array([1.0, 2.0, 1.0], np.float32), dtype=ember.float32)
    assert_equal(ember.where(c, True, False), np.array([True, False, True]), dtype=ember.bool)
    i8 = ember.tensor([1, 2, 3], dtype=ember.int8)
    assert_equal(ember.where(c, i8, 0), np.array([1, 0, 3], np.int8), dtype=ember.int8)  # weak int
    assert_equal(ember.where(c, i8, 2.5), np.array([1.0, 2.5, 3.0], np.float32), dtype=ember.float32)
    assert_equal(ember.where(c, 0, i8), np.array([0, 2, 0], np.int8), dtype=ember.int8)
    h = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float16)
    assert_equal(ember.where(c, h, 0.1), np.array([1.0, 0.1, 3.0], np.float16), dtype=ember.float16)
    assert_equal(ember.where(c, h, math.nan), np.array([1.0, np.nan, 3.0], np.float16))
    ember.set_default_dtype(ember.float64)
    assert ember.where(c, 1, 2.5).dtype is ember.float64


def test_where_number_that_the_integer_dtype_cannot_hold_raises():
    c = ember.tensor([True, False])
    i8 = ember.tensor([1, 2], dtype=ember.int8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        ember.where(c, i8, 1000)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        ember.where(c, -256, ember.tensor([1, 2], dtype=ember.uint8))
    # Negative numbers down to -255 wrap into uint8, as PyTorch 2.15 allows (Note [Checked scalar conversion]).
    assert_equal(ember.where(c, -1, ember.tensor([1, 2], dtype=ember.uint8)), np.array([255, 2], np.uint8))
    assert_equal(ember.where(c, i8, -128), np.array([1, -128], np.int8))
    assert_equal(ember.where(c, i8, 1000.5), np.array([1.0, 1000.5], np.float32))  # a float lifts to float32


def test_where_with_zero_dim_tensors():
    c = ember.tensor([True, False])
    i8 = ember.tensor([1, 2], dtype=ember.int8)
    assert ember.where(c, i8, ember.tensor(1000)).dtype is ember.int8  # 0-d int does not lift int8
    assert ember.where(c, i8, ember.tensor(1.5, dtype=ember.float64)).dtype is ember.float64
    r = ember.where(ember.tensor(True), ember.tensor(1.0), ember.tensor(2.0))
    assert r.shape == () and r.item() == 1.0


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 1), (1, 4), (4,)),
        ((4,), (3, 4), ()),
        ((), (2, 3), (3,)),
        ((2, 1, 3), (4, 1), (1,)),
        ((0, 3), (3,), (1, 3)),
        ((2, 0), (), ()),
    ],
    ids=str,
)
def test_where_broadcasts(shapes, rng):
    sc, sx, sy = shapes
    cond = np.asarray(rng.random(sc) < 0.5)
    x, y = random_array(rng, sx, ember.float64), random_array(rng, sy, ember.float64)
    got = ember.where(from_np(cond), from_np(x), from_np(y))
    assert_equal(got, np.where(cond, x, y))


def test_where_non_contiguous_and_method_form(rng):
    cond = rng.random((5, 6)) < 0.5
    x, y = random_array(rng, (6, 5), ember.float32), random_array(rng, (10, 6), ember.int32)
    tc, tx, ty = from_np(cond).t().contiguous().t(), from_np(x).t(), from_np(y)[::2]
    assert not tx.is_contiguous() and not ty.is_contiguous()
    assert_equal(ember.where(tc, tx, ty), np.where(cond, x.T, y[::2]).astype(np.float32), dtype=ember.float32)
    assert_equal(tx.where(tc, ty), np.where(cond, x.T, y[::2]).astype(np.float32))
    assert_equal(tx.where(tc, 0.0), np.where(cond, x.T, 0).astype(np.float32))
    # values of the unselected branch don't matter, even NaN and inf
    n = ember.tensor([math.nan, math.inf, 1.0])
    assert_equal(ember.where(ember.tensor([False, False, True]), n, ember.zeros(3)), np.array([0, 0, 1.0], np.float32))


def test_where_condition_dtype():
    x, y = ember.tensor([1, 2]), ember.tensor([3, 4])
    assert_equal(ember.where(ember.tensor([1, 0], dtype=ember.uint8), x, y), np.array([1, 4]))  # deprecated in PyTorch
    for dtype in (ember.int64, ember.int8, ember.float32, ember.float16):
        with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
            ember.where(ember.ones(2, dtype=dtype), x, y)
    with pytest.raises(RuntimeError):
        ember.where(ember.tensor([True, False, True]), x, y)  # shapes don't broadcast


# ------------------------------------------------------------------------------------ lerp


def np_lerp(s, e, w):
    return np.where(np.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (1 - w))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_lerp_scalar_and_tensor_weight(dtype, rng):
    s, e = random_array(rng, (4, 5), dtype), random_array(rng, (4, 5), dtype)
    ts, te = from_np(s, dtype), from_np(e, dtype)
    for w in (0.0, 0.25, 0.5, 1.0, 2.0, -1.0):
        got = ember.lerp(ts, te, w)
        assert got.dtype is dtype
        a_s, a_e = acc(s, dtype), acc(e, dtype)
        wa = acc(np.float64(w), dtype)
        exp = rounded(np.where(wa < 0.5, a_s + wa * (a_e - a_s), a_e - (a_e - a_s) * (1 - wa)), dtype)
        assert_close(got, exp, dtype, 200)
    # endpoints are exact
    assert_equal(ember.lerp(ts, te, 0.0), s)
    assert_equal(ember.lerp(ts, te, 1.0), e)
    w = rounded(rng.random((4, 5)) * 1.5 - 0.25, dtype)
    got = ember.lerp(ts, te, from_np(w, dtype))
    a_s, a_e, a_w = acc(s, dtype), acc(e, dtype), acc(w, dtype)
    exp = rounded(np.where(a_w < 0.5, a_s + a_w * (a_e - a_s), a_e - (a_e - a_s) * (1 - a_w)), dtype)
    assert_close(got, exp, dtype, 200)
    assert_equal(ts.lerp(te, from_np(w, dtype)), to_np(got))


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=dtype_name)
def test_lerp_uses_a_number_weight_at_float_precision(dtype):
    """PyTorch computes 16-bit lerp in float32 with the number weight as a float (0.3, not its bfloat16
    rounding 0.30078125): lerp(0, 100, 0.3) is 30.0, where a rounded weight would give 30.125."""
    s, e = ember.zeros(3, dtype=dtype), ember.full((3,), 100.0, dtype=dtype)
    assert_equal(ember.lerp(s, e, 0.3), rounded(np.full(3, np.float32(0.3) * np.float32(100)), dtype), dtype=dtype)
    assert_equal(ember.lerp(s, e, 0.1), rounded(np.full(3, np.float32(0.1) * np.float32(100)), dtype))
    t = ember.zeros(3, dtype=dtype)
    assert t.lerp_(e, 0.3) is t and t._version == 1
    assert_equal(t, rounded(np.full(3, 30.0), dtype))
    # a tensor weight is a tensor of the dtype: its values are what they are
    w = ember.full((3,), 0.3, dtype=dtype)
    wv = float(to_np(w)[0])
    assert_equal(ember.lerp(s, e, w), rounded(np.full(3, np.float32(wv) * np.float32(100)), dtype))


def test_lerp_broadcasting_inplace_and_errors(rng):
    s = random_array(rng, (3, 4), ember.float64)
    e = random_array(rng, (4,), ember.float64)
    w = rng.random((3, 1))
    assert_close(ember.lerp(from_np(s), from_np(e), from_np(w)), np_lerp(s, e, w), ember.float64, 200)
    t = from_np(s)
    assert t.lerp_(from_np(e), 0.3) is t and t._version == 1
    assert_close(t, np_lerp(s, e, 0.3), ember.float64, 200)
    with pytest.raises(RuntimeError, match="lerp"):
        ember.lerp(ember.ones(2), ember.ones(2, dtype=ember.float64), 0.5)
    with pytest.raises(RuntimeError, match="lerp"):
        ember.lerp(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64), 0.5)
    with pytest.raises(RuntimeError, match="weight"):
        ember.lerp(ember.ones(2), ember.ones(2), ember.ones(2, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.ones(4).lerp_(ember.ones(3, 4), 0.5)


# ------------------------------------------------------------------------------------ addcmul / addcdiv


@pytest.mark.parametrize(
    "dtype",
    [ember.int32, ember.int64, ember.uint8, ember.float16, ember.bfloat16, ember.float32, ember.float64],
    ids=dtype_name,
)
def test_addcmul(dtype, rng):
    x, a, b = (random_array(rng, (3, 4), dtype) for _ in range(3))
    value = 2 if not dtype.is_floating_point else 0.5
    got = ember.addcmul(from_np(x, dtype), from_np(a, dtype), from_np(b, dtype), value=value)
    assert got.dtype is dtype
    if dtype.is_floating_point:
        ax, aa, ab = acc(x, dtype), acc(a, dtype), acc(b, dtype)
        v = ax.dtype.type(value)
        assert_close(got, rounded(ax + v * aa * ab, dtype), dtype, 5000)
    else:
        with np.errstate(all="ignore"):
            exp = (x.astype(np.int64) + value * a.astype(np.int64) * b.astype(np.int64)).astype(np_dtype(dtype))
        assert_equal(got, exp)
    # default value 1
    got1 = ember.addcmul(from_np(x, dtype), from_np(a, dtype), from_np(b, dtype))
    if dtype.is_floating_point:
        assert_close(got1, rounded(acc(x, dtype) + acc(a, dtype) * acc(b, dtype), dtype), dtype, 5000)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_addcdiv(dtype, rng):
    x, a, b = (random_array(rng, (3, 4), dtype) for _ in range(3))
    b = np.where(b == 0, np.ones_like(b), b)
    for value in (1, -0.75, 3):
        got = ember.addcdiv(from_np(x, dtype), from_np(a, dtype), from_np(b, dtype), value=value)
        ax, aa, ab = acc(x, dtype), acc(a, dtype), acc(b, dtype)
        v = ax.dtype.type(value)
        assert_close(got, rounded(ax + v * aa / ab, dtype), dtype, 5000)
    # division by zero gives inf/nan like NumPy
    r = ember.addcdiv(
        ember.tensor([1.0, 1.0, 1.0], dtype=dtype),
        ember.tensor([1.0, -1.0, 0.0], dtype=dtype),
        ember.zeros(3, dtype=dtype),
    )
    assert_equal(r, np.array([np.inf, -np.inf, np.nan], np_dtype(dtype)))


def test_addcmul_addcdiv_promotion_broadcasting_and_methods(rng):
    x = random_array(rng, (3, 1), ember.int64)
    a = random_array(rng, (4,), ember.float32)
    b = random_array(rng, (3, 4), ember.int16)
    got = ember.addcmul(from_np(x), from_np(a), from_np(b), value=2)
    assert got.dtype is ember.float32
    assert_close(got, (x.astype(np.float32) + np.float32(2) * a * b.astype(np.float32)), ember.float32, 5000)
    assert_equal(from_np(x).addcmul(from_np(a), from_np(b), value=2), to_np(got))
    b = np.where(b == 0, 1, b)
    got = ember.addcdiv(from_np(x), from_np(a), from_np(b.astype(np.float64)))
    assert_close(got, x + a.astype(np.float64) / b, ember.float64, 5000)
    # a float value with integer tensors: the tensors decide the dtype (value is cast), as PyTorch
    i = ember.tensor([1, 2])
    assert_equal(ember.addcmul(i, ember.tensor([3, 4]), ember.tensor([5, 6]), value=2), np.array([31, 50]))


def test_addcdiv_of_integer_tensors_raises():
    i = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        ember.addcdiv(i, i, i)
    # as PyTorch: the check is on tensor1 and tensor2, whatever input's dtype
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        ember.addcdiv(ember.tensor([1.0, 2.0]), ember.tensor([3, 4]), ember.tensor([5, 6]))
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        ember.addcdiv(ember.tensor([1.0, 2.0]), ember.tensor([True, False]), ember.tensor([5, 6]))
    # one floating tensor among them is enough
    assert_equal(
        ember.addcdiv(ember.tensor([1.0, 2.0]), ember.tensor([3, 4]), ember.tensor([2.0, 8.0])),
        np.array([2.5, 2.5], np.float32),
    )


def test_addcmul_addcdiv_inplace(rng):
    x, a, b = (random_array(rng, (4, 3), ember.float64) for _ in range(3))
    t = from_np(x)
    assert t.addcmul_(from_np(a), from_np(b), value=0.5) is t and t._version == 1
    assert_close(t, x + 0.5 * a * b, ember.float64, 5000)
    t = from_np(x)
    assert t.addcdiv_(from_np(a), from_np(b), value=-2) is t
    assert_close(t, x + -2 * a / b, ember.float64, 5000)
    # in place into a transposed view of the data
    t = from_np(x.T.copy()).t()
    t.addcmul_(from_np(a), from_np(b))
    assert_close(t, x + a * b, ember.float64, 5000)
    i = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.addcmul_(ember.tensor([1.5, 2.0]), ember.tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.ones(3).addcmul_(ember.ones(2, 3), ember.ones(3))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.zeros(1).expand(3).addcmul_(ember.ones(3), ember.ones(3))


def test_inplace_reading_a_broadcast_view_of_self():
    """The inputs may be views of self that broadcast (self[:1] against self): they must be read as they
    were before the op, as NumPy does on copies."""
    base = np.arange(12.0).reshape(3, 4)
    t = from_np(base)
    t.addcmul_(t[:1], ember.ones(3, 4))
    assert_equal(t, base + base[:1])
    t = from_np(base)
    t.addcdiv_(ember.ones(3, 4), t[:1] + 1)
    assert_close(t, base + 1 / (base[:1] + 1), ember.float64, 20)
    t = from_np(base)
    t.lerp_(t[:, :1], 0.75)
    assert_close(t, np_lerp(base, base[:, :1], 0.75), ember.float64, 20)
    t = from_np(base)
    t.addcmul_(t[1:2].expand(3, 4), t)
    assert_equal(t, base + base[1:2] * base)
    t = from_np(base)
    t.addcmul_(t[:1], t[:1])  # the same broadcast view twice
    assert_equal(t, base + base[:1] * base[:1])


def test_ternary_large_inputs_in_several_threads():
    before = ember.get_num_threads()
    ember.set_num_threads(4)
    try:
        n = 100_003
        x_np = np.arange(n, dtype=np.float64) % 7 - 3
        x = ember.arange(n, dtype=ember.float64).remainder(7).sub(3)
        c = x > 0
        assert_equal(ember.where(c, x, -x), np.abs(x_np))
        assert_equal(ember.addcmul(x, x, x, value=2), x_np + 2 * x_np * x_np)  # small integers: exact
        assert_equal(ember.lerp(x, x * 2, 0.5), np_lerp(x_np, 2 * x_np, 0.5))
        xt = x[:100_000].reshape(400, 250).t()  # strided
        assert_equal(
            ember.where(xt > 0, xt, 0.0),
            np.where(x_np[:100_000].reshape(400, 250).T > 0, x_np[:100_000].reshape(400, 250).T, 0.0),
        )
    finally:
        ember.set_num_threads(before)


# ------------------------------------------------------------------------------------ the table's bindings
# The bindings generated from ember/ops/ternary.def (python/src/ternary.cpp): PyTorch's parameter names as keywords,
# out=, value's default, the methods (self is the operand named input), where's one-argument form, PyTorch's
# TypeError for a number where a tensor is needed, and the gradient nodes.

import inspect  # noqa: E402


def test_keyword_forms_match_positional_and_numpy(rng):
    s, e = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, 4)
    w = rng.uniform(0, 1, (3, 1))
    ts, te, tw = from_np(s), from_np(e), from_np(w)
    lerp = s + w * (e - s)
    for got in (ember.lerp(input=ts, end=te, weight=tw), ember.lerp(ts, te, weight=tw), ts.lerp(end=te, weight=tw)):
        np.testing.assert_allclose(to_np(got), lerp, rtol=1e-14, atol=1e-15)
    out = ember.empty(3, 4, dtype=ember.float64)
    assert ember.lerp(ts, te, 0.25, out=out) is out
    np.testing.assert_allclose(to_np(out), s + 0.25 * (e - s), rtol=1e-14, atol=1e-15)
    x = ts.clone()
    assert x.lerp_(end=te, weight=0.5) is x
    np.testing.assert_allclose(to_np(x), s + 0.5 * (e - s), rtol=1e-14, atol=1e-15)

    t1, t2 = rng.uniform(-2, 2, (3, 1)), rng.uniform(0.5, 2, 4)
    for name, ref in (("addcmul", lambda v: s + v * t1 * t2), ("addcdiv", lambda v: s + v * t1 / t2)):
        fn = getattr(ember, name)
        kw = dict(input=ts, tensor1=from_np(t1), tensor2=from_np(t2))
        np.testing.assert_allclose(to_np(fn(**kw)), ref(1), rtol=1e-14)  # value defaults to 1
        np.testing.assert_allclose(to_np(fn(**kw, value=-0.5)), ref(-0.5), rtol=1e-14)
        np.testing.assert_allclose(
            to_np(getattr(ts, name)(tensor1=from_np(t1), tensor2=from_np(t2), value=2)), ref(2), rtol=1e-14
        )
        assert fn(**kw, out=out) is out
        np.testing.assert_allclose(to_np(out), ref(1), rtol=1e-14)
        y = ts.clone()
        assert getattr(y, name + "_")(from_np(t1), tensor2=from_np(t2), value=3) is y
        np.testing.assert_allclose(to_np(y), ref(3), rtol=1e-14)
        assert inspect.signature(fn).parameters["value"].default == 1
        assert inspect.signature(fn).parameters["value"].kind is inspect.Parameter.KEYWORD_ONLY

    c = rng.uniform(-1, 1, (3, 4)) > 0
    tc = from_np(c)
    # ember.where: ternary.cpp's binding, which python/src/shape.cpp (masked.cpp after the split) wraps in this tree
    for got in (
        ember.where(condition=tc, input=ts, other=te),
        ember.where(tc, ts, other=te),
        ts.where(condition=tc, other=te),
    ):
        np.testing.assert_array_equal(to_np(got), np.where(c, s, e))
    np.testing.assert_array_equal(to_np(ts.where(tc, other=0.5)), np.where(c, s, 0.5))
    idx = ember.where(condition=tc)  # where(condition): nonzero(condition, as_tuple=True)
    assert isinstance(idx, tuple) and len(idx) == 2
    np.testing.assert_array_equal([to_np(i) for i in idx], np.nonzero(c))
    assert [str(p) for p in inspect.signature(ember.Tensor.where).parameters.values()] == [
        "self",
        "condition: Tensor",
        "other: Tensor | Number",
    ]
    if "out" in inspect.signature(ember.where).parameters:  # not through shape.cpp's wrapper, which has no out=
        assert ember.where(tc, ts, te, out=out) is out
        np.testing.assert_array_equal(to_np(out), np.where(c, s, e))


def test_tensor_arguments_refuse_numbers():
    t = ember.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"lerp\(\): argument 'end' \(position 2\) must be Tensor, not float"):
        ember.lerp(t, 2.0, 0.5)
    with pytest.raises(TypeError, match=r"lerp\(\): argument 'end' \(position 1\) must be Tensor, not float"):
        t.lerp(2.0, 0.5)
    with pytest.raises(TypeError, match=r"addcmul\(\): argument 'tensor2' \(position 3\) must be Tensor, not int"):
        ember.addcmul(t, t, 2)
    with pytest.raises(TypeError, match=r"addcdiv_\(\): argument 'tensor1' \(position 1\) must be Tensor, not int"):
        t.addcdiv_(1, t)
    with pytest.raises(TypeError, match=r"where\(\): argument 'condition' \(position 1\) must be Tensor, not bool"):
        ember.where(True, t, t)
    with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        ember.lerp(t, t, 0.5, out=3)


def test_gradient_nodes_and_what_they_keep():
    s = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    e = ember.tensor([3.0, 5.0], dtype=ember.float64, requires_grad=True)
    w = ember.tensor([0.25, 0.75], dtype=ember.float64, requires_grad=True)
    assert ember.lerp(s, e, 0.5).grad_fn.name() == "LerpBackward0"  # PyTorch 2.15's names by weight's kind
    r = ember.lerp(s, e, w)
    assert r.grad_fn.name() == "LerpBackward1"
    r.sum().backward()
    np.testing.assert_allclose(to_np(s.grad), [0.75, 0.25])
    np.testing.assert_allclose(to_np(e.grad), [0.25, 0.75])
    np.testing.assert_allclose(to_np(w.grad), [2.0, 3.0])
    assert ember.addcmul(s, e, w).grad_fn.name() == "AddcmulBackward0"
    assert ember.addcdiv(s, e, w).grad_fn.name() == "AddcdivBackward0"
    assert ember.where(s > 1, s, e).grad_fn.name() == "WhereBackward0"


@needs_torch
def test_lerp_gives_pytorchs_bits():
    # contiguous float operands take the vector kernel (fma forms, |w| < 0.5 picks the formula: PyTorch 2's)
    src = """
    def bits(t):
        return t.view(torch.int32 if t.dtype == torch.float32 else torch.int64).tolist()
    result = []
    for dt in (torch.float32, torch.float64):
        i = torch.arange(1003, dtype=dt)
        # inputs both libraries compute alike: integers, then one correctly rounded division
        s, e = (i * 37 % 1001 - 500) / 64, (i * 91 % 997 - 400) / 7
        w = (i * 13 % 401 - 200) / 100
        result.append(bits(torch.lerp(s, e, w)))
        for wv in (0.1, 0.7, -0.6, -0.3, 0.5, 1.5):
            result.append(bits(torch.lerp(s, e, wv)))
        result.append(bits(torch.lerp(s[:1], e, 0.3)))  # a broadcast start
    """
    assert run_ember(src) == run_torch(src)
