"""Reductions (ember/ops/reduce.cpp, backend/cpu/reduce.cpp Note [Reductions], python/src/reduce.cpp):
values against NumPy (float64) for every dim form, keepdim and dtype=, result dtypes, empty inputs,
NaN handling, the "inner" and "outer" strategies over permuted and strided inputs, reductions split
across threads, summation precision, var/std, logsumexp, and the whole-tensor comparisons."""

import math

import numpy as np
import pytest
from conftest import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    LAYOUTS,
    assert_equal,
    bf16_round,
    dtype_name,
    from_np,
    make_layout,
    np_dtype,
    random_array,
    tie_array,
    to_np,
)

import ember

TOL = {ember.float16: 2e-3, ember.bfloat16: 1.6e-2, ember.float32: 2e-6, ember.float64: 1e-12}


def rounded(x, dtype):
    with np.errstate(all="ignore"):
        if dtype is ember.bfloat16:
            return bf16_round(np.asarray(x, np.float32))
        return np.asarray(x).astype(np_dtype(dtype))


def assert_close(t, expected, dtype=None, rtol=None, atol=0.0):
    expected = np.asarray(expected)
    if dtype is not None:
        assert t.dtype is dtype, (t.dtype, dtype)
    assert tuple(t.shape) == expected.shape, (tuple(t.shape), expected.shape)
    rtol = TOL[t.dtype] if rtol is None else rtol
    np.testing.assert_allclose(
        to_np(t).astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True
    )


def np_dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        return (dim % max(ndim, 1),) if ndim else ()
    return tuple(d % ndim for d in dim)


DIMS = [None, 0, 1, -1, 2, (0, 2), (-1, 0), (0, 1, 2), (1,)]


# ------------------------------------------------------------------------------------ sum-like


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
def test_sum_prod_mean_over_dims(dim, keepdim, rng):
    x = random_array(rng, (3, 4, 5), ember.float64)
    t = from_np(x)
    d = np_dims(dim, 3)
    kw = dict(keepdim=keepdim) if dim is None else dict(dim=dim, keepdim=keepdim)
    assert_close(ember.sum(t, **kw), np.sum(x, axis=d, keepdims=keepdim), ember.float64)
    assert_close(t.sum(**kw), np.sum(x, axis=d, keepdims=keepdim), ember.float64)
    assert_close(ember.mean(t, **kw), np.mean(x, axis=d, keepdims=keepdim), ember.float64)
    small = x / 20
    assert_close(ember.prod(from_np(small), **kw), np.prod(small, axis=d, keepdims=keepdim), ember.float64)
    assert_close(ember.amax(t, **kw), np.amax(x, axis=d, keepdims=keepdim), ember.float64)
    assert_close(ember.amin(t, **kw), np.amin(x, axis=d, keepdims=keepdim), ember.float64)
    assert_close(ember.nansum(t, **kw), np.nansum(x, axis=d, keepdims=keepdim), ember.float64)
    assert_close(ember.nanmean(t, **kw), np.nanmean(x, axis=d, keepdims=keepdim), ember.float64)
    assert_equal(ember.all(t > -30, **kw), np.all(x > -30, axis=d, keepdims=keepdim))
    assert_equal(ember.any(t > 30, **kw), np.any(x > 30, axis=d, keepdims=keepdim))
    if not keepdim:
        assert_equal(ember.count_nonzero(t > 0, dim), np.count_nonzero(x > 0, axis=d), dtype=ember.int64)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_result_dtypes(dtype, rng):
    x = random_array(rng, (4, 3), dtype)
    t = from_np(x, dtype)
    integral = not dtype.is_floating_point
    want = ember.int64 if integral else dtype
    assert ember.sum(t).dtype is want and ember.sum(t, 0).dtype is want
    assert ember.prod(t).dtype is want
    assert ember.nansum(t).dtype is want
    assert ember.amax(t).dtype is dtype and ember.amin(t, 1).dtype is dtype
    assert ember.max(t).dtype is dtype and ember.max(t, 0).values.dtype is dtype
    assert ember.max(t, 0).indices.dtype is ember.int64 and ember.argmax(t).dtype is ember.int64
    any_dtype = ember.uint8 if dtype is ember.uint8 else ember.bool
    assert ember.all(t).dtype is any_dtype and ember.any(t, 1).dtype is any_dtype
    assert ember.count_nonzero(t).dtype is ember.int64
    x64 = x.astype(np.int64) if integral else x.astype(np.float64)
    if integral:
        assert_equal(ember.sum(t), np.sum(x64))
        assert_equal(ember.sum(t, 1), np.sum(x64, 1))
        assert_equal(ember.prod(t, 0), np.prod(x64, 0))
        with pytest.raises(RuntimeError, match="mean"):
            ember.mean(t)
        assert_close(ember.mean(t, dtype=ember.float64), np.mean(x64), ember.float64)
        assert_close(ember.mean(t, 0, dtype=ember.float32), np.mean(x64, 0), ember.float32)
    else:
        assert_close(ember.sum(t), np.sum(x64), dtype)
        assert_close(ember.mean(t, 1), np.mean(x64, 1), dtype)
        assert_close(ember.sum(t, 0), np.sum(x64, 0), dtype)
    assert_equal(ember.amax(t, 0), np.amax(x, 0))
    assert_equal(ember.all(t), np.array(np.all(x), np.uint8 if dtype is ember.uint8 else bool))
    assert_equal(ember.any(t, 0), np.any(x, 0).astype(np.uint8 if dtype is ember.uint8 else bool))


def test_integer_sums_accumulate_in_int64():
    i8 = ember.tensor([100, 100, 100], dtype=ember.int8)
    assert_equal(ember.sum(i8), np.array(300), dtype=ember.int64)
    assert_equal(ember.prod(i8), np.array(1_000_000), dtype=ember.int64)
    assert_equal(ember.sum(ember.tensor([True, True, False])), np.array(2), dtype=ember.int64)
    assert_equal(ember.prod(ember.tensor([True, True])), np.array(1), dtype=ember.int64)
    u8 = ember.full((1000,), 255, dtype=ember.uint8)
    assert_equal(u8.sum(), np.array(255_000))
    assert_equal(ember.sum(ember.full((3,), 2**40)), np.array(3 * 2**40))


def test_dtype_argument():
    i8 = ember.tensor([100, 100, 100], dtype=ember.int8)
    assert_equal(ember.sum(i8, dtype=ember.int8), np.array(300 - 256, np.int8), dtype=ember.int8)
    assert_equal(ember.sum(i8, dtype=ember.float32), np.array(300.0, np.float32), dtype=ember.float32)
    assert_equal(i8.sum(0, dtype=ember.float64), np.array(300.0), dtype=ember.float64)
    assert_equal(ember.prod(i8, dtype=ember.float64), np.array(1e6), dtype=ember.float64)
    f = ember.tensor([1.5, 2.5, 3.5])
    assert_equal(ember.sum(f, dtype=ember.int32), np.array(6, np.int32), dtype=ember.int32)  # the input is cast first
    assert_equal(ember.sum(f, dtype=ember.float64), np.array(7.5), dtype=ember.float64)
    assert_equal(ember.mean(f, dtype=ember.float64), np.array(2.5), dtype=ember.float64)
    h = ember.full((3000,), 0.1, dtype=ember.float16)
    r = ember.sum(h, dtype=ember.float32)
    assert_close(r, 3000 * float(np.float16(0.1)), ember.float32)
    assert_equal(ember.mean(ember.tensor([1, 2, 4]), dtype=ember.float64), np.array(7 / 3))
    out = ember.empty(())
    assert ember.sum(f, out=out) is out
    assert_equal(out, np.array(7.5, np.float32))
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        ember.mean(ember.tensor([1, 2]), dtype=ember.int64)


@pytest.mark.parametrize("dim", [0, 1, -1, (0, 1), None], ids=str)
def test_dim_forms_on_0d_and_errors(dim):
    t = ember.tensor([[1, 2], [3, 4]])
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.sum(t, 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.amax(t, (0, -3))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        ember.sum(t, (0, 0))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        ember.sum(t, (1, -1))
    s = ember.tensor(5.0)
    for d in (0, -1, None):
        assert_equal(ember.sum(s, d) if d is not None else ember.sum(s), np.array(5.0, np.float32))
        assert_equal(
            ember.sum(s, d, keepdim=True) if d is not None else ember.sum(s, keepdim=True), np.array(5.0, np.float32)
        )
    assert_equal(ember.amax(s, 0), np.array(5.0, np.float32))
    mv = ember.max(s, 0)
    assert mv.values.item() == 5.0 and mv.indices.item() == 0
    assert ember.argmax(s).item() == 0
    with pytest.raises(IndexError):
        ember.sum(s, 1)


# ------------------------------------------------------------------------------------ empty inputs


def test_empty_reductions():
    e = ember.zeros(0)
    assert_equal(ember.sum(e), np.array(0.0, np.float32))
    assert_equal(ember.prod(e), np.array(1.0, np.float32))
    assert_equal(ember.mean(e), np.array(np.nan, np.float32))
    assert_equal(ember.nansum(e), np.array(0.0, np.float32))
    assert_equal(ember.all(e), np.array(True))
    assert_equal(ember.any(e), np.array(False))
    assert_equal(ember.count_nonzero(e), np.array(0))
    assert_equal(ember.sum(ember.zeros(0, dtype=ember.int32)), np.array(0), dtype=ember.int64)
    m = ember.zeros(0, 3)
    assert_equal(ember.sum(m, 0), np.zeros(3, np.float32))
    assert_equal(ember.prod(m, 0), np.ones(3, np.float32))
    assert_equal(ember.mean(m, 0), np.full(3, np.nan, np.float32))
    assert_equal(ember.sum(m, 1), np.zeros(0, np.float32))
    assert_equal(ember.sum(m, 0, keepdim=True), np.zeros((1, 3), np.float32))
    assert_equal(ember.amax(m, 1), np.zeros(0, np.float32))  # nothing to reduce over: empty result
    mv = ember.max(m, 1)
    assert mv.values.shape == (0,) and mv.indices.shape == (0,)
    assert ember.argmax(m, 1).shape == (0,)
    v = ember.var(e)
    assert math.isnan(v.item())
    with pytest.raises(
        RuntimeError,
        match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0. "
        "Specify the reduction dim with the 'dim' argument.",
    ):
        ember.max(e)
    with pytest.raises(RuntimeError, match=r"min\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        ember.min(m)
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified"):
        e.max()
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size"):
        ember.max(m, 0)
    with pytest.raises(IndexError, match=r"min\(\): Expected reduction dim 0 to have non-zero size"):
        ember.min(m, 0)
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim 0 to have non-zero size"):
        ember.argmax(m, 0)
    with pytest.raises(RuntimeError, match=r"amax\(\): Expected reduction dim 0 to have non-zero size"):
        ember.amax(m, 0)
    with pytest.raises(RuntimeError, match=r"amin\(\): Expected reduction dim"):
        ember.amin(e)
    with pytest.raises(
        RuntimeError, match=r"argmax\(\): Expected reduction dim to be specified for input.numel\(\) == 0"
    ):
        ember.argmax(e)


# ------------------------------------------------------------------------------------ max / min / arg


def test_max_min_with_dim_namedtuple(rng):
    x = rng.integers(-5, 5, (4, 6)).astype(np.float32)  # many ties
    t = from_np(x)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            r = ember.max(t, dim, keepdim)
            values, indices = r
            assert r.values is values and r.indices is indices
            assert type(r).__name__ == "max" and r._fields == ("values", "indices")
            assert_equal(values, np.amax(x, dim, keepdims=keepdim))
            assert_equal(indices, np.expand_dims(np.argmax(x, dim), dim) if keepdim else np.argmax(x, dim))  # first
            m = t.min(dim=dim, keepdim=keepdim)
            assert type(m).__name__ == "min"
            assert_equal(m.values, np.amin(x, dim, keepdims=keepdim))
            assert_equal(m.indices, np.expand_dims(np.argmin(x, dim), dim) if keepdim else np.argmin(x, dim))
            assert_equal(ember.argmax(t, dim, keepdim), to_np(r.indices))
            assert_equal(t.argmin(dim, keepdim=keepdim), to_np(m.indices))
    assert_equal(ember.argmax(t), np.array(np.argmax(x)))
    assert_equal(ember.argmin(t), np.array(np.argmin(x)))
    assert_equal(ember.argmax(t, keepdim=True), np.array(np.argmax(x)).reshape(1, 1))
    assert_equal(ember.max(t), np.array(x.max()))
    assert_equal(t.min(), np.array(x.min()))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_max_min_argmax_every_dtype(dtype, rng):
    x = random_array(rng, (5, 7), dtype)
    t = from_np(x, dtype)
    for dim in (0, 1):
        r = ember.max(t, dim)
        assert_equal(r.values, np.amax(x, dim))
        assert_equal(r.indices, np.argmax(x, dim))
        r = ember.min(t.t(), dim)  # strided
        assert_equal(r.values, np.amin(x.T, dim))
        assert_equal(r.indices, np.argmin(x.T, dim))
    assert_equal(ember.argmax(t), np.array(np.argmax(x)))
    assert_equal(ember.argmin(t.t()), np.array(np.argmin(x.T)))
    assert_equal(ember.amax(t), np.array(x.max()))
    assert_equal(ember.amin(t, 0), np.amin(x, 0))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_nan_wins_in_max_min_and_arg(dtype):
    nan = math.nan
    x = np.array([[3.0, nan, 1.0, nan], [-1.0, 2.0, 5.0, 0.0], [nan, -np.inf, np.inf, 4.0]])
    t = ember.tensor(x.tolist(), dtype=dtype)
    np_t = rounded(x, dtype)
    assert_equal(ember.amax(t, 1), np.array([nan, 5.0, nan], np_dtype(dtype)))
    assert_equal(ember.amin(t, 1), np.array([nan, -1.0, nan], np_dtype(dtype)))
    assert_equal(ember.amax(t, 0), np.amax(np_t, 0))
    assert_equal(ember.amin(t, 0), np.amin(np_t, 0))
    r = ember.max(t, 1)
    assert_equal(r.values, np.array([nan, 5.0, nan], np_dtype(dtype)))
    assert_equal(r.indices, np.array([1, 2, 0]))  # the first NaN
    r = ember.min(t, 1)
    assert_equal(r.indices, np.array([1, 0, 0]))
    assert_equal(ember.argmax(t, 0), np.argmax(np_t, 0))  # NumPy also reports the first NaN
    assert_equal(ember.argmin(t, 0), np.argmin(np_t, 0))
    assert_equal(ember.argmax(t), np.array(1))
    assert_equal(ember.argmin(t), np.array(1))
    assert math.isnan(ember.max(t).item()) and math.isnan(ember.min(t).item())
    big = ember.zeros(100_000, dtype=dtype)
    big[70_001] = nan
    big[90_000] = nan
    assert ember.argmax(big).item() == 70_001 and ember.argmin(big).item() == 70_001
    assert math.isnan(ember.amax(big).item()) and math.isnan(ember.amin(big).item())
    assert math.isnan(ember.sum(big).item())
    assert ember.nansum(big).item() == 0.0


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    "dtype", [ember.float32, ember.float16, ember.float64, ember.int8, ember.uint8, ember.bool], ids=dtype_name
)
def test_max_min_arg_with_ties_and_nans_in_every_layout(layout, dtype, rng):
    """Many ties and NaNs: values and indices are NumPy's (NaN wins, the first occurrence of the winner)."""
    t, a = make_layout(rng, (4, 7, 5), dtype, layout, values=tie_array)
    for dim in (0, 1, 2, -1):
        for keepdim in (False, True):
            r = ember.max(t, dim, keepdim)
            assert_equal(r.values, np.max(a, dim, keepdims=keepdim))
            assert_equal(r.indices, np.argmax(a, dim, keepdims=keepdim))
            r = ember.min(t, dim, keepdim=keepdim)
            assert_equal(r.values, np.min(a, dim, keepdims=keepdim))
            assert_equal(r.indices, np.argmin(a, dim, keepdims=keepdim))
        assert_equal(ember.argmax(t, dim), np.argmax(a, dim))
        assert_equal(ember.argmin(t, dim), np.argmin(a, dim))
    assert_equal(ember.argmax(t), np.array(np.argmax(a)))
    assert_equal(ember.argmin(t), np.array(np.argmin(a)))
    for dims in ((0, 2), (1,), (0, 1, 2)):
        assert_equal(ember.amax(t, dims), np.max(a, dims))
        assert_equal(ember.amin(t, dims), np.min(a, dims))
    assert_equal(ember.max(t), np.array(np.max(a)))
    assert_equal(ember.min(t), np.array(np.min(a)))


def test_max_of_other_tensor_is_maximum():
    a, b = ember.tensor([1.0, 5.0]), ember.tensor([3.0, 2.0])
    assert_equal(ember.max(a, b), np.array([3.0, 5.0], np.float32))
    assert_equal(a.min(b), np.array([1.0, 2.0], np.float32))


# ------------------------------------------------------------------------------------ all / any / count


def test_all_any_count_nonzero():
    x = ember.tensor([[0.0, 1.0, math.nan], [2.0, 0.0, 0.0]])
    xn = to_np(x)
    assert_equal(ember.all(x), np.array(False))
    assert_equal(ember.any(x), np.array(True))
    assert_equal(ember.all(x, 0), np.all(xn, 0))
    assert_equal(ember.any(x, 1), np.any(xn, 1))
    assert_equal(ember.all(x, 1, keepdim=True), np.all(xn, 1, keepdims=True))
    assert_equal(ember.count_nonzero(x), np.array(3))
    assert_equal(ember.count_nonzero(x, 0), np.array([1, 1, 1]))
    assert_equal(x.count_nonzero(dim=(0, 1)), np.array(3))
    assert_equal(ember.count_nonzero(x, -1), np.array([2, 1]))
    u = ember.tensor([[0, 3], [1, 1]], dtype=ember.uint8)
    assert_equal(ember.all(u), np.array(0, np.uint8), dtype=ember.uint8)
    assert_equal(ember.all(u, 0), np.array([0, 1], np.uint8), dtype=ember.uint8)
    assert_equal(ember.any(u, 1), np.array([1, 1], np.uint8), dtype=ember.uint8)
    assert_equal(ember.all(ember.tensor([1, 2], dtype=ember.int8)), np.array(True), dtype=ember.bool)


# ------------------------------------------------------------------------------------ layouts and strategies


@pytest.mark.parametrize(
    "dtype", [ember.float32, ember.float64, ember.int32, ember.float16, ember.bool], ids=dtype_name
)
def test_inner_and_outer_strategies(dtype, rng):
    """A contiguous [N, C] tensor summed over C reduces its innermost dim ("inner"), over N keeps it
    ("outer"); its transpose swaps the two."""
    x = random_array(rng, (37, 300), dtype)
    t = from_np(x, dtype)
    x64 = x.astype(np.float64)
    for view, v in ((t, x64), (t.t(), x64.T), (from_np(np.ascontiguousarray(x.T), dtype).t(), x64)):
        for dim in (0, 1):
            if dtype is ember.bool:
                assert_equal(ember.sum(view, dim), v.sum(dim).astype(np.int64))
                assert_equal(ember.any(view, dim), v.any(dim))
                assert_equal(ember.all(view, dim), v.all(dim))
                continue
            s = ember.sum(view, dim)
            if dtype.is_floating_point:
                assert_close(s, v.sum(dim), dtype, rtol=TOL[dtype] * 4, atol=TOL[dtype] * 40)
                assert_close(ember.mean(view, dim), v.mean(dim), dtype, rtol=TOL[dtype] * 4, atol=TOL[dtype])
            else:
                assert_equal(s, v.sum(dim).astype(np.int64))
            assert_equal(ember.amax(view, dim), rounded(v.max(dim), dtype))
            assert_equal(ember.amin(view, dim), rounded(v.min(dim), dtype))
            assert_equal(ember.argmax(view, dim), v.argmax(dim))
            assert_equal(ember.count_nonzero(view, dim), np.count_nonzero(v, dim))
            p = ember.prod(view / 10 if dtype.is_floating_point else view.remainder(3), dim)
            ref = np.prod(v / 10 if dtype.is_floating_point else v % 3, dim)
            if dtype.is_floating_point:
                assert_close(p, rounded(ref, dtype), dtype, rtol=TOL[dtype] * 20, atol=1e-30)
            else:
                assert_equal(p, ref.astype(np.int64))


@pytest.mark.parametrize("dims", [(0, 2), (1, 3), (0, 1), (2, 3), (3,), (0,), (0, 1, 3), (-1, -3)], ids=str)
@pytest.mark.parametrize("perm", [(2, 0, 3, 1), (3, 2, 1, 0), (1, 3, 0, 2)], ids=str)
def test_reducing_dims_of_a_permuted_4d_tensor(perm, dims, rng):
    base = random_array(rng, (6, 5, 4, 7), ember.float64)
    x = base.transpose(perm)
    t = from_np(base).permute(*perm)
    assert not t.is_contiguous()
    d = tuple(k % 4 for k in dims)
    for keepdim in (False, True):
        assert_close(ember.sum(t, dims, keepdim), x.sum(d, keepdims=keepdim), ember.float64)
        assert_close(ember.mean(t, dims, keepdim), x.mean(d, keepdims=keepdim), ember.float64)
        assert_equal(ember.amax(t, dims, keepdim), x.max(d, keepdims=keepdim))
        assert_equal(ember.amin(t, dims, keepdim), x.min(d, keepdims=keepdim))
        assert_close(ember.var(t, dims, keepdim=keepdim), x.var(d, ddof=1, keepdims=keepdim), ember.float64)
        assert_close(
            ember.prod(t / 20, dims, keepdim), np.prod(x / 20, d, keepdims=keepdim), ember.float64, atol=1e-300
        )
        assert_close(ember.logsumexp(t, dims, keepdim), np.log(np.sum(np.exp(x), d, keepdims=keepdim)), ember.float64)
    f32 = t.to(ember.float32)  # converted copy keeps the permuted layout's values
    assert_close(ember.sum(f32, dims), x.sum(d), ember.float32, rtol=1e-5, atol=1e-4)
    i = t.remainder(7).to(ember.int16)
    assert_equal(ember.sum(i, dims), np.sum(np.trunc(np.mod(x, 7)).astype(np.int16).astype(np.int64), d))
    assert_equal(ember.count_nonzero(t > 0, dims), np.count_nonzero(x > 0, d))


def test_strided_expanded_and_sliced_inputs(rng):
    base = random_array(rng, (8, 10, 6), ember.float64)
    t = from_np(base)
    for view, v in (
        (t[::2, 1::3, 1], base[::2, 1::3, 1]),
        (t[:, 2:7, :].transpose(0, 2), base[:, 2:7, :].transpose(2, 1, 0)),
        (t[3].expand(4, 10, 6), np.broadcast_to(base[3], (4, 10, 6))),
        (t[:, :1, :].expand(8, 5, 6), np.broadcast_to(base[:, :1, :], (8, 5, 6))),
    ):
        for dim in (None, 0, 1, -1, (0, -1)):
            d = np_dims(dim, v.ndim)
            kw = {} if dim is None else {"dim": dim}
            assert_close(ember.sum(view, **kw), v.sum(d), ember.float64)
            assert_equal(ember.amax(view, **kw), v.max(d))
            assert_close(ember.std(view, **kw), v.std(d, ddof=1), ember.float64)


# ------------------------------------------------------------------------------------ large and threaded


@pytest.mark.parametrize("threads", [2, 4])
def test_large_reductions_split_across_threads(threads, rng):
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        n = 4 * 32768 + 12_345
        x = rng.standard_normal(n) * 3 + 1
        x32 = x.astype(np.float32)
        t = from_np(x32)
        ref = x32.astype(np.float64)
        assert_close(ember.sum(t), ref.sum(), ember.float32, rtol=1e-6)
        assert_close(ember.mean(t), ref.mean(), ember.float32, rtol=1e-6)
        assert_close(ember.var(t), ref.var(ddof=1), ember.float32, rtol=1e-5)
        assert_close(ember.std(t, correction=0), ref.std(), ember.float32, rtol=1e-5)
        assert_equal(ember.amax(t), np.array(x32.max()))
        assert_equal(ember.amin(t), np.array(x32.min()))
        assert_equal(ember.argmax(t), np.array(np.argmax(x32)))
        assert_equal(ember.argmin(t), np.array(np.argmin(x32)))
        assert_equal(ember.count_nonzero(t > 1), np.array(np.count_nonzero(x32 > 1)))
        assert_equal(ember.all(t > -100), np.array(True))
        assert_equal(ember.any(t > 100), np.array(False))
        assert_close(ember.logsumexp(t, 0), np.log(np.sum(np.exp(ref))), ember.float32, rtol=1e-6)
        # products of powers of two are exact in any order (the sign alternates, the exponent stays small)
        pattern = np.tile(np.array([2, 0.5, -1, -1, 4, 0.25, 1, -1], np.float32), n // 8 + 1)[:n]
        pattern[-1] = 2
        p = ember.prod(from_np(pattern))
        assert_equal(p, np.array(np.prod(pattern.astype(np.float64)), np.float32))
        xn = x32.copy()
        xn[::1000] = np.nan
        assert_close(ember.nansum(from_np(xn)), np.nansum(xn.astype(np.float64)), ember.float32, rtol=1e-6)
        assert_close(ember.nanmean(from_np(xn)), np.nanmean(xn.astype(np.float64)), ember.float32, rtol=1e-6)
        i = from_np(rng.integers(-1000, 1000, n).astype(np.int32))
        assert_equal(ember.sum(i), np.array(to_np(i).astype(np.int64).sum()))
        # few outputs, each a long reduction (>= 4 * 32768 elements): each output's reduction is split
        # across the threads
        k = 140_001
        m_np = ((np.arange(3 * k, dtype=np.int64) * 7919 % 10007) / 1000.0 - 5).astype(np.float32).reshape(3, k)
        m = ember.arange(3 * k).mul(7919).remainder(10007).to(ember.float64).div(1000.0).sub(5).to(ember.float32)
        m = m.reshape(3, k)
        assert_equal(m[:, :5], m_np[:, :5])
        m64 = m_np.astype(np.float64)
        slack = 1e-7 * np.abs(m64).sum()  # the sums cancel: the error scales with the sum of |x|
        assert_close(ember.sum(m, 1), m64.sum(1), ember.float32, rtol=1e-6, atol=slack)
        assert_close(ember.sum(m.t(), 0), m64.sum(1), ember.float32, rtol=1e-6, atol=slack)
        assert_close(ember.sum(m[:, ::2], 1), m64[:, ::2].sum(1), ember.float32, rtol=1e-6, atol=slack)
        assert_equal(ember.amax(m, 1), m_np.max(1))
        assert_equal(ember.argmin(m, 1), m_np.argmin(1))
        assert_close(ember.var(m, 1), m64.var(1, ddof=1), ember.float32, rtol=1e-5)
        # many outputs: the outer strategy with the rows split across threads
        w = from_np(x32[:131_072].reshape(512, 256))
        assert_close(ember.sum(w, 0), ref[:131_072].reshape(512, 256).sum(0), ember.float32, rtol=1e-5, atol=1e-4)
        assert_close(ember.sum(w, 1), ref[:131_072].reshape(512, 256).sum(1), ember.float32, rtol=1e-5, atol=1e-4)
    finally:
        ember.set_num_threads(before)


def test_float32_sum_of_2_pow_25_ones_is_exact():
    assert ember.ones(2**25).sum().item() == 33554432.0  # naive float32 summation stops at 16777216
    assert ember.ones(2**25).mean().item() == 1.0


def test_float32_sums_are_accurate_in_the_outer_strategy_too():
    """Summing over a long outer dim (the "outer" strategy) must not degrade to naive summation: naive
    float32 accumulation of 1e6 x 0.1 is off by ~1% (100958.34)."""
    x = ember.full((1_000_000, 2), 0.1)
    exact = 1_000_000 * float(np.float32(0.1))
    got = ember.sum(x, 0)
    np.testing.assert_allclose(to_np(got).astype(np.float64), [exact, exact], rtol=1e-5)
    np.testing.assert_allclose(to_np(ember.mean(x, 0)).astype(np.float64), [0.1, 0.1], rtol=1e-5)
    y = ember.full((2, 1_000_000), 0.1).t()  # the same reduction through a transposed (inner) layout
    np.testing.assert_allclose(to_np(ember.sum(y, 0)).astype(np.float64), [exact, exact], rtol=1e-5)
    # and over a non-innermost set of dims of a 3-D tensor
    z = ember.full((1000, 1000, 2), 0.1)
    np.testing.assert_allclose(to_np(ember.sum(z, (0, 1))).astype(np.float64), [exact, exact], rtol=1e-5)


def test_float32_sums_are_accurate_over_many_short_runs():
    """A reduction whose reduced elements form many short runs (rows with gaps between them) must combine
    the runs pairwise too, not one after the other."""
    exact = 2_000_000 * float(np.float32(0.1))
    s = ember.full((1_000_000, 3), 0.1)[:, :2].sum()
    np.testing.assert_allclose(s.item(), exact, rtol=1e-5)
    s = ember.full((1_000_000, 3), 0.1)[:, 1:].t().sum((0, 1))
    np.testing.assert_allclose(s.item(), exact, rtol=1e-5)
    m = ember.full((1_000_000, 3), 0.1)[:, :2].mean()
    np.testing.assert_allclose(m.item(), 0.1, rtol=1e-5)


def test_float16_sums_accumulate_in_float32():
    assert ember.ones(4096, dtype=ember.float16).sum().item() == 4096.0  # float16 can't count past 2048
    assert ember.ones(4096, dtype=ember.bfloat16).sum().item() == 4096.0  # bfloat16 stops at 256
    assert ember.ones(3, 4096, dtype=ember.float16).sum(1).tolist() == [4096.0] * 3
    assert ember.ones(4096, 3, dtype=ember.float16).sum(0).tolist() == [4096.0] * 3  # outer strategy
    assert ember.ones(4096, dtype=ember.float16).mean().item() == 1.0
    assert ember.ones(70_000, dtype=ember.float16).sum().item() == math.inf  # 70000 > 65504: the result overflows
    h = rounded(np.linspace(-2, 2, 5000), ember.float16)
    assert_close(
        ember.sum(from_np(h, ember.float16)),
        np.float16(h.astype(np.float64).sum()),
        ember.float16,
        rtol=1e-3,
        atol=1e-2,
    )


# ------------------------------------------------------------------------------------ var / std


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_var_std_correction_and_dims(dtype, rng):
    x = rounded(rng.standard_normal((4, 6, 5)) * 3 + 10, dtype)
    t = from_np(x, dtype)
    x64 = x.astype(np.float64)
    tol = dict(rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    for dim in (None, 0, -1, (0, 2), (1,)):
        d = np_dims(dim, 3)
        for correction in (0, 1, 2):
            for keepdim in (False, True):
                kw = dict(correction=correction, keepdim=keepdim)
                if dim is not None:
                    kw["dim"] = dim
                assert_close(ember.var(t, **kw), x64.var(d, ddof=correction, keepdims=keepdim), dtype, **tol)
                assert_close(ember.std(t, **kw), x64.std(d, ddof=correction, keepdims=keepdim), dtype, **tol)
                v, m = ember.var_mean(t, **kw)
                assert_close(v, x64.var(d, ddof=correction, keepdims=keepdim), dtype, **tol)
                assert_close(m, x64.mean(d, keepdims=keepdim), dtype, **tol)
                s, m = ember.std_mean(t, **kw)
                assert_close(s, x64.std(d, ddof=correction, keepdims=keepdim), dtype, **tol)
                assert_close(m, x64.mean(d, keepdims=keepdim), dtype, **tol)


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=dtype_name)
def test_var_of_16_bit_floats_accumulates_in_float32(dtype):
    """The intermediate sum of 100 float16 values of 1000 overflows float16 (65504); var and std must not
    (PyTorch accumulates them in float32 too)."""
    x = ember.full((100,), 1000.0, dtype=dtype)
    assert ember.var(x).item() == 0.0 and ember.std(x).item() == 0.0
    v, m = ember.var_mean(x)
    assert v.item() == 0.0 and m.item() == 1000.0 and v.dtype is dtype and m.dtype is dtype
    s, m = ember.std_mean(ember.ones(70_000, dtype=dtype))
    assert s.item() == 0.0 and m.item() == 1.0
    y = rounded(np.linspace(500, 600, 300), dtype)
    assert_close(ember.var(from_np(y, dtype)), y.astype(np.float64).var(ddof=1), dtype)
    assert_close(ember.std(from_np(y, dtype), correction=0), y.astype(np.float64).std(), dtype)


def test_var_unbiased_positional_forms():
    x = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 9.0]])
    t = from_np(x)
    assert_close(ember.var(t), x.var(ddof=1), ember.float64)
    assert_close(ember.var(t, False), x.var(ddof=0), ember.float64)  # var(input, unbiased)
    assert_close(ember.var(t, True), x.var(ddof=1), ember.float64)
    assert_close(ember.var(t, 1, False), x.var(1, ddof=0), ember.float64)  # var(input, dim, unbiased)
    assert_close(ember.std(t, 0, True, True), x.std(0, ddof=1, keepdims=True), ember.float64)
    assert_close(t.var(unbiased=False), x.var(), ember.float64)
    assert_close(t.std(dim=1, unbiased=False, keepdim=True), x.std(1, keepdims=True), ember.float64)
    assert_close(t.var(1, correction=0), x.var(1), ember.float64)
    s, m = ember.std_mean(t, 1, False)
    assert_close(s, x.std(1), ember.float64)
    assert_close(m, x.mean(1), ember.float64)
    v, m = t.var_mean(0)
    assert_close(v, x.var(0, ddof=1), ember.float64)


def test_var_edge_cases():
    assert math.isnan(ember.var(ember.tensor([1.0])).item())  # one element, Bessel's correction: 0/0
    assert ember.var(ember.tensor([1.0]), correction=0).item() == 0.0
    assert ember.var(ember.tensor([1.0, 2.0, 4.0]), correction=5).item() == math.inf  # n - correction <= 0
    assert ember.var(ember.full((10,), 3.0)).item() == 0.0
    assert math.isnan(ember.var(ember.tensor([1.0, math.nan])).item())
    x = ember.full((1000,), 1e4) + ember.arange(1000.0).remainder(2)  # a large mean: two-pass keeps precision
    np.testing.assert_allclose(ember.var(x, correction=0).item(), 0.25, rtol=1e-5)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.var(ember.tensor([1, 2, 3]))
    with pytest.raises(RuntimeError, match="floating point"):
        ember.std(ember.tensor([1, 2, 3]))


# ------------------------------------------------------------------------------------ logsumexp


def test_logsumexp():
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, -1000.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0]])
    t = from_np(x)
    with np.errstate(all="ignore"):
        exp_rows = np.array([np.log(np.exp(1) + np.exp(2) + np.exp(3)), 1000 + np.log(2), -np.inf, np.inf])
    assert_close(ember.logsumexp(t, 1), exp_rows, ember.float64)
    assert_close(ember.logsumexp(t, -1, keepdim=True), exp_rows[:, None], ember.float64)
    assert_close(ember.logsumexp(t[:2], 0), [1000.0, 1000.0, 3.0], ember.float64)
    assert_close(ember.logsumexp(t[:2], (0, 1)), 1000 + np.log(2), ember.float64)
    i = ember.tensor([1, 2, 3])  # integers compute in the default float dtype
    assert_close(ember.logsumexp(i, 0), np.log(np.exp(1) + np.exp(2) + np.exp(3)), ember.float32)
    assert ember.logsumexp(ember.zeros(0), 0).item() == -math.inf
    assert_close(ember.logsumexp(ember.zeros(3, 0), 1), np.full(3, -np.inf), ember.float32)
    h = ember.tensor([60000.0, 60000.0], dtype=ember.float16)
    assert_close(ember.logsumexp(h, 0), 60000.0, ember.float16)


# ------------------------------------------------------------------------------------ equal / isclose / allclose


def test_equal():
    a = ember.tensor([[1, 2], [3, 4]])
    assert ember.equal(a, ember.tensor([[1, 2], [3, 4]])) is True
    assert ember.equal(a, ember.tensor([[1, 2], [3, 5]])) is False
    assert ember.equal(a, ember.tensor([1, 2, 3, 4])) is False  # shapes differ
    assert ember.equal(a, a.t().t()) and not ember.equal(a, a.t())
    assert ember.equal(ember.tensor([1.0, math.nan]), ember.tensor([1.0, math.nan])) is False  # NaN != NaN
    assert ember.equal(ember.zeros(0), ember.zeros(0)) is True
    assert a.equal(a.clone())


def test_isclose_and_allclose():
    nan, inf = math.nan, math.inf
    a = np.array([1.0, 1.0, nan, inf, -inf, inf, 0.0, 1e-9, 100.0])
    b = np.array([1.0 + 1e-6, 1.1, nan, inf, inf, 1e300, 1e-9, 0.0, 100.0001])
    ta, tb = from_np(a), from_np(b)
    with np.errstate(all="ignore"):
        for rtol, atol, equal_nan in ((1e-5, 1e-8, False), (1e-5, 1e-8, True), (0.2, 0.0, False), (0.0, 1e-7, False)):
            exp = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
            assert_equal(ember.isclose(ta, tb, rtol=rtol, atol=atol, equal_nan=equal_nan), exp)
            assert_equal(ta.isclose(tb, rtol, atol, equal_nan), exp)
            assert ember.allclose(ta, tb, rtol=rtol, atol=atol, equal_nan=equal_nan) == bool(exp.all())
            assert ember.allclose(ta[:2], ta[:2] + 1e-9, rtol=rtol, atol=max(atol, 1e-8), equal_nan=equal_nan)
    assert ember.allclose(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.00001]))
    assert not ember.allclose(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.001]))
    assert ember.allclose(ember.tensor([1.0, nan]), ember.tensor([1.0, nan]), equal_nan=True)
    assert not ember.allclose(ember.tensor([1.0, nan]), ember.tensor([1.0, nan]))
    assert ember.tensor([1.0]).allclose(ember.tensor([1.5]), rtol=0.5)
    # broadcasting
    assert_equal(
        ember.isclose(ember.tensor([[1.0], [2.0]]), ember.tensor([1.0, 2.0])), np.array([[True, False], [False, True]])
    )
    # integers and bools
    assert_equal(ember.isclose(ember.tensor([1, 2, 100]), ember.tensor([1, 3, 100])), np.array([True, False, True]))
    assert_equal(
        ember.isclose(ember.tensor([10, 20]), ember.tensor([11, 20]), rtol=0.1, atol=0), np.array([True, True])
    )
    assert_equal(ember.isclose(ember.tensor([True, False]), ember.tensor([True, True])), np.array([True, False]))
    with pytest.raises(RuntimeError):
        ember.isclose(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64))
