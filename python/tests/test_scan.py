"""Scans along a dim (ember/ops/scan.cpp, backend/cpu/scan.cpp): cumsum, cumprod, cummax, cummin and
logcumsumexp against NumPy, in every dtype and in several layouts (contiguous, transposed, stepped, expanded),
with NaNs, ties, zero-size and 0-d inputs, dtype=, out=, the in-place forms and the error paths. Expected values
the NumPy references cannot give were recorded from PyTorch 1.13."""

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
)

import ember

NAN = math.nan
INF = math.inf


make = make_layout


def round_to(a, dtype):
    """float64/float32 values rounded to `dtype` as NumPy arrays comparable with to_np."""
    if dtype is ember.bfloat16:
        return bf16_round(np.asarray(a, np.float32))
    return np.asarray(a).astype(np_dtype(dtype))


def ref_cum(fn, a, axis, out_dtype):
    """cumsum/cumprod with PyTorch's CPU accumulation: int64 for integers, double for float32, float for 16-bit."""
    if not out_dtype.is_floating_point:
        return fn(a.astype(np.int64), axis=axis).astype(np_dtype(out_dtype))
    acc = np.float64 if out_dtype in (ember.float32, ember.float64) else np.float32
    with np.errstate(over="ignore", invalid="ignore"):
        return round_to(fn(a.astype(acc), axis=axis), out_dtype)


def ref_cum_extremum(a, axis, is_max):
    """Running max/min and its index: ties move to the latest index, NaN sticks (each new NaN moves the index)."""
    a = np.asarray(a)
    moved = np.moveaxis(a, axis, -1)
    vals, idx = np.empty_like(moved), np.empty(moved.shape, np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        best, bi = None, 0
        for k, v in enumerate(moved[pos]):
            if k == 0 or v != v or (best == best and (v >= best if is_max else v <= best)):
                best, bi = v, k
            vals[pos + (k,)], idx[pos + (k,)] = best, bi
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


# ------------------------------------------------------------------------------------------ cumsum / cumprod


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_match_numpy(rng, op, dtype, layout):
    fn = np.cumsum if op == "cumsum" else np.cumprod
    values = tie_array if op == "cumprod" and dtype.is_floating_point else random_array  # keep products finite
    x, a = make(rng, (4, 5, 6), dtype, layout, values)
    out_dtype = ember.int64 if not dtype.is_floating_point else dtype
    for dim in range(-3, 3):
        r = getattr(ember, op)(x, dim)
        assert_equal(r, ref_cum(fn, a, dim, out_dtype), out_dtype)
        assert_equal(getattr(x, op)(dim), ref_cum(fn, a, dim, out_dtype), out_dtype)


@pytest.mark.parametrize(
    "dtype", [ember.int8, ember.int32, ember.float16, ember.bfloat16, ember.float32, ember.float64], ids=dtype_name
)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_dtype_argument_casts_the_input_first(rng, op, dtype):
    fn = np.cumsum if op == "cumsum" else np.cumprod
    a = rng.integers(-3, 4, (3, 7)).astype(np.float64) + 0.5
    x = from_np(a, ember.float64)
    r = getattr(ember, op)(x, 1, dtype=dtype)
    cast = a.astype(np.int64) if not dtype.is_floating_point else a
    assert_equal(r, ref_cum(fn, cast, 1, dtype), dtype)


def test_cumsum_of_float32_accumulates_in_double_like_pytorch():
    # float32 partial sums would stay at 2**24 (PyTorch 1.13's values).
    x = ember.tensor([2.0**24, 1, 1, 1, 1], dtype=ember.float32)
    assert ember.cumsum(x, 0).tolist() == [16777216.0, 16777216.0, 16777218.0, 16777220.0, 16777220.0]


def test_integer_and_bool_inputs_accumulate_in_int64():
    x = ember.tensor([100, 100, 100], dtype=ember.int8)
    assert_equal(ember.cumsum(x, 0), [100, 200, 300], ember.int64)
    assert_equal(ember.cumprod(ember.tensor([True, True, False]), 0), [1, 1, 0], ember.int64)
    assert_equal(ember.cumsum(ember.tensor([True, False, True]), 0), [1, 1, 2], ember.int64)
    assert_equal(ember.cumsum(x, 0, dtype=ember.int8), [100, -56, 44], ember.int8)  # wraps like PyTorch


def test_large_inputs_take_the_parallel_and_blocked_paths(rng):
    a = rng.integers(-50, 50, (300, 257)).astype(np.float64)
    x = from_np(a)
    for dim in (0, 1):
        assert_equal(ember.cumsum(x, dim), np.cumsum(a, dim))
        assert_equal(ember.cumsum(x.t(), dim), np.cumsum(a.T, dim))
    v, i = ember.cummax(x, 0)
    ev, ei = ref_cum_extremum(a, 0, True)
    assert_equal(v, ev)
    assert_equal(i, ei)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
def test_zero_size_and_zero_dim(op):
    fn = getattr(ember, op)
    for shape in [(0,), (0, 3), (3, 0)]:
        for dim in range(len(shape)):
            r = fn(ember.zeros(shape), dim)
            assert tuple(r.shape) == shape
    assert_equal(fn(ember.tensor(2.5), 0), np.array(2.5 if op != "logcumsumexp" else 2.5, np.float32))
    assert_equal(fn(ember.tensor(2.5), -1), np.array(2.5, np.float32))


def test_zero_dim_integer_cumsum_gives_int64():
    assert_equal(ember.cumsum(ember.tensor(3, dtype=ember.int16), 0), np.array(3), ember.int64)


def test_out_uses_the_out_dtype_like_pytorch():
    out = ember.zeros(3)
    r = ember.cumsum(ember.tensor([1, 2, 3]), 0, out=out)
    assert r is out
    assert_equal(out, [1.0, 3.0, 6.0], ember.float32)
    out = ember.zeros(2, dtype=ember.int64)
    ember.cumsum(ember.tensor([1.5, 2.0]), 0, out=out)  # PyTorch: [1, 3] (cast, then summed)
    assert_equal(out, [1, 3], ember.int64)


def test_out_with_the_wrong_shape_raises():
    with pytest.raises(RuntimeError, match=r"cumsum\(\): out= has shape \[2\] but the result has shape \[3\]"):
        ember.cumsum(ember.ones(3), 0, out=ember.zeros(2))


@pytest.mark.parametrize("dtype", [ember.int8, ember.int64, ember.float16, ember.float32], ids=dtype_name)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_in_place_forms_keep_the_dtype(rng, op, dtype):
    fn = np.cumsum if op == "cumsum" else np.cumprod
    a = rng.integers(-3, 4, (3, 5)).astype(np_dtype(dtype))
    x = from_np(a, dtype)
    view = x.t()  # in place through a transposed view
    before = x._version
    r = getattr(view, op + "_")(0)
    assert r is view
    assert x._version == before + 1
    expected = ref_cum(fn, a.T, 0, dtype).T
    assert_equal(x, expected, dtype)


def test_in_place_with_another_dtype_raises():
    with pytest.raises(
        RuntimeError, match="Bad in-place call: input tensor dtype int8 and output tensor dtype float32 should match"
    ):
        ember.tensor([1, 2], dtype=ember.int8).cumsum_(0, dtype=ember.float32)


# ------------------------------------------------------------------------------------------ cummax / cummin


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_match_reference(rng, op, dtype, layout):
    x, a = make(rng, (3, 4, 7), dtype, layout, tie_array)
    for dim in range(-3, 3):
        r = getattr(ember, op)(x, dim)
        ev, ei = ref_cum_extremum(a, dim, op == "cummax")
        assert type(r).__name__ == op and r._fields == ("values", "indices")
        assert_equal(r.values, ev, dtype)
        assert_equal(r.indices, ei, ember.int64)
        m = getattr(x, op)(dim)
        assert_equal(m[0], ev)
        assert_equal(m[1], ei)


def test_cummax_ties_and_nans_match_pytorch():
    # Recorded from PyTorch 1.13.
    r = ember.cummax(ember.tensor([1, 3, 3, 2, 3]), 0)
    assert r.values.tolist() == [1, 3, 3, 3, 3] and r.indices.tolist() == [0, 1, 2, 2, 4]
    r = ember.cummin(ember.tensor([3, 1, 1, 2, 1]), 0)
    assert r.values.tolist() == [3, 1, 1, 1, 1] and r.indices.tolist() == [0, 1, 2, 2, 4]
    r = ember.cummax(ember.tensor([1.0, NAN, NAN, 2.0]), 0)
    assert_equal(r.values, [1.0, NAN, NAN, NAN])
    assert r.indices.tolist() == [0, 1, 2, 2]
    r = ember.cummax(ember.tensor([True, False, True]), 0)
    assert r.values.tolist() == [True, True, True] and r.indices.tolist() == [0, 0, 2]


def test_cummax_zero_size_zero_dim_and_out():
    r = ember.cummax(ember.zeros(0), 0)
    assert tuple(r.values.shape) == (0,) and r.indices.dtype == ember.int64
    r = ember.cummin(ember.tensor(3.0), 0)
    assert r.values.tolist() == 3.0 and r.indices.tolist() == 0 and r.indices.shape == ()
    v, i = ember.zeros(3), ember.zeros(3, dtype=ember.int64)
    r = ember.cummax(ember.tensor([2.0, 1.0, 5.0]), 0, out=(v, i))
    assert r.values is v and r.indices is i
    assert v.tolist() == [2.0, 2.0, 5.0] and i.tolist() == [0, 0, 2]


# ------------------------------------------------------------------------------------------ logcumsumexp


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_logcumsumexp_matches_numpy(rng, dtype, layout):
    x, a = make(rng, (3, 4, 5), dtype, layout)
    rtol = {ember.float16: 2e-3, ember.bfloat16: 1e-2, ember.float32: 1e-6, ember.float64: 1e-13}[dtype]
    for dim in range(-3, 3):
        r = ember.logcumsumexp(x, dim)
        assert r.dtype == dtype
        expected = np.logaddexp.accumulate(a.astype(np.float64), axis=dim)
        np.testing.assert_allclose(np.array(r.tolist(), np.float64), expected, rtol=rtol)
        np.testing.assert_allclose(np.array(x.logcumsumexp(dim).tolist()), expected, rtol=rtol)


def test_logcumsumexp_special_values_match_pytorch():
    # Recorded from PyTorch 1.13.
    assert_equal(ember.logcumsumexp(ember.tensor([-INF, -INF, 1.0]), 0), [-INF, -INF, 1.0])
    assert_equal(ember.logcumsumexp(ember.tensor([INF, INF, 1.0]), 0), [INF, INF, INF])
    assert_equal(ember.logcumsumexp(ember.tensor([1.0, NAN, 1.0]), 0), [1.0, NAN, NAN])
    r = ember.logcumsumexp(ember.tensor([1.0, 2.0]), 0).tolist()
    assert r[0] == 1.0 and abs(r[1] - 2.3132617) < 1e-6


def test_logcumsumexp_of_large_values_does_not_overflow():
    r = ember.logcumsumexp(ember.tensor([1000.0, 1000.0], dtype=ember.float64), 0).tolist()
    assert r == [1000.0, 1000.0 + math.log(2)]


# ------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "call",
    [
        lambda: ember.cumsum(ember.tensor([1, 2]), 1),
        lambda: ember.cumprod(ember.ones(2, 3), -3),
        lambda: ember.cummax(ember.tensor(1.0), 1),
        lambda: ember.logcumsumexp(ember.ones(2), 2),
    ],
    ids=["cumsum", "cumprod", "cummax", "logcumsumexp"],
)
def test_dim_out_of_range_raises_index_error(call):
    with pytest.raises(
        IndexError,
        match=r"Dimension out of range \(expected to be in range of \[-?\d, \d\], but "
        r"got -?\d\)",
    ):
        call()


@pytest.mark.parametrize("dtype", [ember.bool, ember.uint8, ember.int64], ids=dtype_name)
def test_logcumsumexp_of_integers_raises(dtype):
    with pytest.raises(
        RuntimeError, match=f"logcumsumexp\\(\\): expected a floating point input, but got {dtype_name(dtype)}"
    ):
        ember.logcumsumexp(ember.ones(3, dtype=dtype), 0)


def test_cummax_out_must_be_a_pair():
    with pytest.raises(TypeError, match=r"cummax\(\): out= must be a tuple of two tensors"):
        ember.cummax(ember.ones(3), 0, out=ember.zeros(3))
