"""The reductions' fast paths (backend/cpu/reduce.cpp, Note [Reduction lanes] and Note [Outer blocking]) against
NumPy: short contiguous inner reductions folded row by row (lengths around the vector and lane widths, the leaf
size and the tails), NaN propagation in amax/amin and NaN skipping in nansum through the lanes, 16-bit floats
accumulating in float32 in every path, the outer strategy's row blocks and column blocks wider than one block, the
splits across threads (deterministic at a fixed thread count), and adaptive_avg_pool to size 1, run as a mean."""

import numpy as np
import pytest
from conftest import FLOAT_DTYPES, assert_equal, dtype_name, from_np, random_array, to_np

import ember

# Row lengths around the widths of the folds: a vector (4 to 8 accumulators for the float dtypes), the four-vector
# lanes (16, 32), the wide loop's threshold (4 x lanes), the product leaf (128) and the sum leaf (2048).
LENGTHS = [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 49, 63, 64, 65, 127, 128, 129, 130, 257, 2047, 2049, 4100]
TOL = {ember.float16: 2e-3, ember.bfloat16: 1.6e-2, ember.float32: 2e-6, ember.float64: 1e-12}


def check_close(t, ref, dtype, v, dim, mean=False):
    """t against the float64 reference `ref` of reducing v over dim: the result's rounding to dtype (rtol) plus the
    accumulation's rounding (float32 for every float dtype but float64), at most a few ulps of the sum of |v|."""
    acc_eps = 2.0**-52 if dtype is ember.float64 else 2.0**-23
    mag = np.abs(v).sum(dim) / (np.prod(np.shape(v)) / np.size(np.abs(v).sum(dim)) if mean else 1)
    atol = 16 * acc_eps * float(np.max(mag, initial=0.0))
    np.testing.assert_allclose(to_np(t).astype(np.float64), ref, rtol=TOL[dtype], atol=atol)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_short_and_long_inner_reductions(dtype, rng):
    for n in LENGTHS:
        rows = 7 if n > 1000 else 37
        x = random_array(rng, (rows, n), dtype)
        t = from_np(x, dtype)
        v = x.astype(np.float64)
        for keepdim in (False, True):
            check_close(ember.sum(t, 1, keepdim), v.sum(1, keepdims=keepdim), dtype, v, 1)
            check_close(ember.mean(t, -1, keepdim), v.mean(1, keepdims=keepdim), dtype, v, 1, True)
            assert_equal(ember.amax(t, 1, keepdim), x.max(1, keepdims=keepdim))
            assert_equal(ember.amin(t, 1, keepdim), x.min(1, keepdims=keepdim))
        assert_equal(ember.argmax(t, 1), x.astype(np.float64).argmax(1))
        # products of +-1 and +-2^k stay exact in any order (no lane overflows: the leaves are short)
        p = np.where(rng.random((rows, n)) < 0.5, -1.0, 1.0) * np.where(
            rng.random((rows, n)) < min(0.05, 40 / n), 2.0, 1.0
        )
        assert_equal(ember.prod(from_np(p.astype(np.float32)), 1), np.prod(p, 1).astype(np.float32))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_inner_reductions_of_strided_rows(dtype, rng):
    """Rows with gaps between them (a column slice), rows with a stride (every other row), and rows whose elements
    are not adjacent (a transposed view: the outer strategy) reduce as their contiguous copies do."""
    base = random_array(rng, (41, 70), dtype)
    t = from_np(base, dtype)
    for view, v in (
        (t[:, 3:52], base[:, 3:52]),
        (t[::2, :49], base[::2, :49]),
        (t[1::3, 5:8], base[1::3, 5:8]),
        (t.t()[:, ::2], base.T[:, ::2]),
        (t.reshape(41, 7, 10).permute(1, 0, 2), base.reshape(41, 7, 10).transpose(1, 0, 2)),
    ):
        v64 = v.astype(np.float64)
        for dim in (-1, 0, (0, -1)):
            check_close(ember.sum(view, dim), v64.sum(dim), dtype, v64, dim)
            check_close(ember.mean(view, dim, True), v64.mean(dim, keepdims=True), dtype, v64, dim, True)
            assert_equal(ember.amax(view, dim), v.max(dim))
            assert_equal(ember.amin(view, dim, True), v.min(dim, keepdims=True))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_nan_propagates_through_the_lanes(dtype, rng):
    """A NaN in any lane (the first element, one in the middle of a vector, the tail) makes the row's max and min
    NaN, in the inner and the outer strategy and over the whole tensor."""
    for n in (3, 9, 49, 300, 2100):
        x = random_array(rng, (6, n), dtype).astype(np.float32)
        x[1, 0] = np.nan
        x[2, n // 2] = np.nan
        x[3, n - 1] = np.nan
        x[4, :] = np.nan
        x[5, n // 3] = np.inf
        t = from_np(x, dtype)
        want_max, want_min = x.max(1), x.min(1)
        assert np.isnan(want_max[1:5]).all()
        assert_equal(ember.amax(t, 1), want_max.astype(to_np(t).dtype))
        assert_equal(ember.amin(t, 1), want_min.astype(to_np(t).dtype))
        assert_equal(ember.amax(t.t(), 0), want_max.astype(to_np(t).dtype))  # outer strategy, columns
        assert_equal(ember.amin(t.t().contiguous(), 0), want_min.astype(to_np(t).dtype))
        assert np.isnan(ember.amax(t).item()) and np.isnan(ember.amin(t).item())
        # nansum skips the NaNs in every lane, a leading one included (row 4 is all NaN: 0)
        v = np.nan_to_num(x[:5].astype(np.float64), nan=0.0)
        check_close(ember.nansum(t[:5], 1), v.sum(1), dtype, v, 1)
        check_close(ember.nansum(t[:5].t(), 0), v.sum(1), dtype, v, 1)
        assert ember.nansum(t[4]).item() == 0.0
        assert ember.amax(t[5:]).item() == np.inf


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, ember.int32, ember.uint8], ids=dtype_name)
def test_arg_extrema_of_contiguous_rows_take_the_first_occurrence(dtype, rng):
    """max/min/argmax/argmin over contiguous rows (the extremum by the lanes, then a scan) and over columns (rows
    walked in order): the first of tied extrema, +0 and -0 as equals, and the first NaN over everything."""
    floating = dtype.is_floating_point
    for n in (1, 3, 8, 9, 49, 130, 2049):
        x = (rng.integers(0, 4, (9, n)) if not floating else rng.integers(-3, 3, (9, n)) * 0.5).astype(np.float64)
        if floating:
            x[1] = -0.0
            x[2, n // 2 :] = 0.0
            x[3, n - 1] = np.nan
            x[4, n // 3] = np.nan
            x[4, n // 2] = np.nan
        t = from_np(x.astype(to_np(ember.zeros(1, dtype=dtype)).dtype), dtype)
        v = to_np(t).astype(np.float64)
        for f, npf, npa in ((ember.max, np.max, np.argmax), (ember.min, np.min, np.argmin)):
            values, indices = f(t, 1)
            assert_equal(indices, npa(v, 1))
            assert_equal(f(t, 1, True)[1], npa(v, 1)[:, None])
            np.testing.assert_array_equal(to_np(values).astype(np.float64), npf(v, 1))
            np.testing.assert_array_equal(
                np.signbit(to_np(values).astype(np.float64)), np.signbit(v[range(9), npa(v, 1)])
            )
        assert_equal(ember.argmax(t[:, ::2], 1), np.argmax(v[:, ::2], 1))  # strided rows: the one-pass loop
        cols = t.t().contiguous()  # [n, 9]: over dim 0, adjacent outputs read adjacent columns, row by row
        for f, npf, npa in ((ember.max, np.max, np.argmax), (ember.min, np.min, np.argmin)):
            values, indices = f(cols, 0)
            assert_equal(indices, npa(v, 1))
            np.testing.assert_array_equal(to_np(values).astype(np.float64), npf(v, 1))
        assert_equal(ember.argmin(cols[:, 1:], 0, True), np.argmin(v[1:], 1)[None])


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=dtype_name)
def test_16_bit_floats_accumulate_in_float32_in_every_path(dtype):
    """bfloat16 counts exactly only to 256 and float16 to 2048: 320 and 4608 ones must still sum exactly (the
    results are representable), whether the rows are short, long, strided or columns."""
    for n in (320, 4608):
        ones = ember.ones(5, n, dtype=dtype)
        assert ember.sum(ones, 1).tolist() == [float(n)] * 5
        assert ember.sum(ones.t(), 0).tolist() == [float(n)] * 5
        assert ember.sum(ember.ones(n, 5, dtype=dtype), 0).tolist() == [float(n)] * 5
        assert ember.sum(ember.ones(5, 2 * n, dtype=dtype)[:, ::2], 1).tolist() == [float(n)] * 5
        assert ember.mean(ones, 1).tolist() == [1.0] * 5
        wide = ember.sum(ones, 1, dtype=ember.float32)  # read as 16-bit, summed and stored as float32
        assert wide.dtype is ember.float32 and wide.tolist() == [float(n)] * 5
        assert ember.nansum(ones.t(), 0, dtype=ember.float32).tolist() == [float(n)] * 5
    assert ember.ones(2**20, dtype=dtype).mean().item() == 1.0  # the sum overflows float16; the mean does not


def test_outer_blocks_wider_than_one_block_and_many_row_blocks(rng):
    """Rows wider than the 16 KiB accumulator block (4096 float32, 2048 float64) and more than one block of 128
    rows: every column still gets every row."""
    for dtype, shape in ((ember.float32, (300, 4100)), (ember.float64, (130, 2050)), (ember.float32, (1029, 5))):
        x = random_array(rng, shape, dtype)
        t = from_np(x, dtype)
        v = x.astype(np.float64)
        check_close(ember.sum(t, 0), v.sum(0), dtype, v, 0)
        check_close(ember.mean(t, 0, True), v.mean(0, keepdims=True), dtype, v, 0, True)
        assert_equal(ember.amax(t, 0), x.max(0))
        assert_equal(ember.amin(t[:, 1:], 0), x[:, 1:].min(0))
        # the same column sums through a 3-D view: rows below a kept inner dim and a kept outer dim
        t3 = t[: shape[0] // 2 * 2].reshape(2, shape[0] // 2, shape[1])
        v3 = v[: shape[0] // 2 * 2].reshape(2, -1, shape[1])
        check_close(ember.sum(t3, 1), v3.sum(1), dtype, v3, 1)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_thread_splits_agree_and_repeat_exactly(threads, rng):
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        x = (rng.standard_normal((600, 700)) * 3 + 1).astype(np.float32)
        t = from_np(x)
        v = x.astype(np.float64)
        big = from_np((rng.standard_normal(300_001) + 0.5).astype(np.float32))
        cases = [
            (lambda: ember.sum(t, 0), v.sum(0)),
            (lambda: ember.sum(t, 1), v.sum(1)),
            (lambda: ember.mean(t[:, :3], 1), v[:, :3].mean(1)),
            (lambda: ember.sum(big), to_np(big).astype(np.float64).sum()),
            (lambda: ember.sum(from_np(x[:2]), 0), v[:2].sum(0)),
        ]
        for f, ref in cases:
            a, b = f(), f()
            np.testing.assert_array_equal(to_np(a), to_np(b))  # bit for bit, run to run
            np.testing.assert_allclose(to_np(a).astype(np.float64), ref, rtol=1e-5, atol=1e-3)
        assert_equal(ember.amax(t, 0), x.max(0))
        assert_equal(ember.amax(t, 1), x.max(1))
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_adaptive_avg_pool_to_one_is_the_spatial_mean(dtype, rng):
    F = ember.nn.functional
    x = random_array(rng, (3, 5, 7, 7), dtype)
    v = x.astype(np.float64)
    t = from_np(x, dtype)
    for inp in (t, t.contiguous(memory_format=ember.channels_last), t[:, ::2]):
        want = v[:, ::2] if inp.shape[1] == 3 else v
        got = F.adaptive_avg_pool2d(inp, 1)
        assert got.dtype is dtype and tuple(got.shape) == want.shape[:2] + (1, 1)
        np.testing.assert_allclose(
            to_np(got).astype(np.float64), want.mean((2, 3), keepdims=True), rtol=TOL[dtype], atol=TOL[dtype] * 20
        )
        c = got.shape[1]  # the strides PyTorch gives: channels-last in, channels-last out
        cl = inp.is_contiguous(memory_format=ember.channels_last) and not inp.is_contiguous()
        assert got.stride() == ((c, 1, c, c) if cl else (c, 1, 1, 1))
    np.testing.assert_allclose(
        to_np(F.adaptive_avg_pool2d(t[0], (1, 1))).astype(np.float64), v[0].mean((1, 2), keepdims=True), rtol=TOL[dtype]
    )
    np.testing.assert_allclose(
        to_np(F.adaptive_avg_pool1d(t[0], 1)).astype(np.float64), v[0].mean(2, keepdims=True), rtol=TOL[dtype]
    )
    np.testing.assert_allclose(
        to_np(F.adaptive_avg_pool3d(t.unsqueeze(0), 1)).astype(np.float64),
        v[None].mean((2, 3, 4), keepdims=True),
        rtol=TOL[dtype],
        atol=TOL[dtype] * 20,
    )


def test_adaptive_avg_pool_to_one_gradient(rng):
    x = from_np(rng.standard_normal((2, 3, 7, 5))).requires_grad_()
    w = from_np(rng.standard_normal((2, 3, 1, 1)))
    (ember.nn.functional.adaptive_avg_pool2d(x, 1) * w).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), np.broadcast_to(to_np(w) / 35.0, (2, 3, 7, 5)), rtol=1e-12)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [ember.int32], ids=dtype_name)
@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 15, 16])
def test_narrow_outer_reductions(dtype, m, rng):
    # Note [Narrow outer reductions]: rows of fewer than 16 outputs read as 16 elements each (the extra lanes
    # dropped), the last rows element by element; 1, 3 and 300 rows (one and three row blocks of 128), NaNs in
    # maxima, sums and products against NumPy
    for n in (1, 3, 300):
        x = random_array(rng, (n, m), dtype)
        if dtype.is_floating_point:
            x = (x / 4).astype(x.dtype)  # products of 300 rows stay finite
        t = from_np(x, dtype)
        v = x.astype(np.float64)
        if dtype.is_floating_point:
            check_close(ember.sum(t, 0), v.sum(0), dtype, v, 0)
            check_close(ember.mean(t, 0), v.mean(0), dtype, v, 0, True)
        else:
            assert_equal(ember.sum(t, 0), x.astype(np.int64).sum(0))
        assert_equal(ember.amax(t, 0), x.max(0))
        assert_equal(ember.amin(t, 0), x.min(0))
        if n == 3:
            np.testing.assert_allclose(to_np(ember.prod(t, 0)).astype(np.float64), v.prod(0), rtol=TOL.get(dtype, 0))
    if dtype.is_floating_point and m > 1:
        x = random_array(rng, (300, m), dtype)
        x[rng.integers(0, 300), m - 1] = np.nan  # in the last lane of some row
        t = from_np(x, dtype)
        got = to_np(ember.amax(t, 0))
        assert np.isnan(got[m - 1]) and not np.isnan(got[: m - 1]).any()
        assert np.isnan(to_np(ember.sum(t, 0))[m - 1])


def test_narrow_outer_nansum_and_signed_zeros(rng):
    # the narrow lanes start a sum from zero as every other path does: nansum skips a NaN in the first row, and a
    # column of -0.0 sums to +0.0 (PyTorch's identity start)
    x = rng.standard_normal((50, 6)).astype(np.float32)
    x[0, 2] = x[7, 4] = np.nan
    x[:, 5] = -0.0
    got = to_np(ember.nansum(from_np(x, ember.float32), 0))
    np.testing.assert_allclose(got[:5], np.nansum(x[:, :5].astype(np.float64), 0), rtol=1e-5, atol=1e-5)
    assert got[5] == 0 and not np.signbit(got[5])
    assert not np.signbit(to_np(ember.sum(from_np(x[:, 5:], ember.float32), 0))[0])
