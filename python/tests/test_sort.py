"""Sorting, selection and counting (ember/ops/sort.cpp, backend/cpu/sort.cpp): sort, argsort, msort, topk,
kthvalue, median, nanmedian, mode, unique, unique_consecutive, bincount, histc and aminmax against NumPy and
reference implementations, in every dtype and several layouts (contiguous, transposed, stepped, expanded), with
ties (stability), NaNs (ordered above every number), zero-size and 0-d inputs, out= and the error paths.

Ties are broken by position wherever PyTorch leaves the order unspecified (topk, kthvalue, median indices), so
the references below are stable sorts. Expected values recorded from PyTorch 1.13 are pasted as literals."""

import math

import numpy as np
import pytest
from conftest import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    LAYOUTS,
    assert_equal,
    dtype_name,
    from_np,
    make_layout,
    np_dtype,
    random_array,
    tie_array,
    to_np,
)

import ember

NAN = math.nan
INF = math.inf


def make(rng, shape, dtype, layout="contiguous", values=tie_array):
    return make_layout(rng, shape, dtype, layout, values)


def key(v):
    return (1, 0) if v != v else (0, v)  # NaN above every number


def ref_sort(a, axis, descending=False):
    """A stable sort along axis with NaN the largest value: (values, indices)."""
    moved = np.moveaxis(np.asarray(a), axis, -1)
    idx = np.empty(moved.shape, np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        row = moved[pos]
        idx[pos] = sorted(range(row.shape[0]), key=lambda i: key(row[i]), reverse=descending)
    return np.take_along_axis(moved, idx, -1), idx  # both with axis last


def along(fn, a, axis):
    """fn(row) -> (value, index) for every slice of a along axis: two arrays without that axis."""
    moved = np.moveaxis(np.asarray(a), axis, -1)
    vals, idx = np.empty(moved.shape[:-1], moved.dtype), np.empty(moved.shape[:-1], np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        vals[pos], idx[pos] = fn(moved[pos])
    return vals, idx


def sorted_row(row):
    return ref_sort(row, 0)


def kth_row(k):
    def fn(row):
        v, i = sorted_row(row)
        return v[k - 1], i[k - 1]

    return fn


def median_row(row):
    nans = np.flatnonzero(row != row)
    if nans.size:
        return row[nans[0]], nans[0]
    v, i = sorted_row(row)
    return v[(len(row) - 1) // 2], i[(len(row) - 1) // 2]


def nanmedian_row(row):
    valid = int(np.count_nonzero(row == row))
    v, i = sorted_row(row)
    k = (valid - 1) // 2 if valid else 0
    return v[k], i[k]


def mode_row(row):
    """Most frequent value, the smallest on ties, and its last index; each NaN is its own value."""
    groups = {}
    for i, v in enumerate(row.tolist()):
        g = ("nan", i) if v != v else ("num", v)
        groups[g] = (groups.get(g, (0, -1))[0] + 1, i)
    best = min(groups, key=lambda g: (-groups[g][0], (1, g[1]) if g[0] == "nan" else (0, g[1])))
    return (NAN if best[0] == "nan" else best[1]), groups[best][1]


def expand_dims(a, axis, keepdim):
    return np.expand_dims(a, axis) if keepdim else a


# ------------------------------------------------------------------------------------------ sort / argsort / msort


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_sort_is_stable_and_matches_reference(rng, dtype, layout):
    x, a = make(rng, (3, 4, 9), dtype, layout)
    for dim in range(-3, 3):
        for descending in (False, True):
            ev, ei = ref_sort(a, dim, descending)
            ev, ei = np.moveaxis(ev, -1, dim), np.moveaxis(ei, -1, dim)
            r = ember.sort(x, dim, descending, stable=True)
            assert type(r).__name__ == "sort" and r._fields == ("values", "indices")
            assert_equal(r.values, ev, dtype)
            assert_equal(r.indices, ei, ember.int64)
            assert_equal(x.sort(dim, descending=descending).indices, ei)  # always stable
            assert_equal(ember.argsort(x, dim, descending), ei, ember.int64)
            assert_equal(x.argsort(dim=dim, descending=descending, stable=True), ei)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [ember.int64], ids=dtype_name)
def test_sort_of_distinct_values_matches_numpy(rng, dtype):
    a = random_array(rng, (5, 40), dtype)
    x = from_np(a, dtype)
    assert_equal(ember.sort(x).values, np.sort(a, axis=-1, kind="stable"))
    assert_equal(ember.argsort(x, 0), np.argsort(a, axis=0, kind="stable"))


def test_sort_nan_placement_and_stability_match_pytorch():
    # Recorded from PyTorch 1.13.
    x = ember.tensor([3.0, NAN, 1.0, NAN, -INF])
    r = ember.sort(x)
    assert_equal(r.values, [-INF, 1.0, 3.0, NAN, NAN])
    assert r.indices.tolist() == [4, 2, 0, 1, 3]
    r = ember.sort(x, descending=True)
    assert_equal(r.values, [NAN, NAN, 3.0, 1.0, -INF])
    assert r.indices.tolist() == [1, 3, 0, 2, 4]
    r = ember.sort(ember.tensor([2, 1, 2, 1, 2]), stable=True)
    assert r.indices.tolist() == [1, 3, 0, 2, 4]
    r = ember.sort(ember.tensor([2, 1, 2, 1, 2]), descending=True, stable=True)
    assert r.indices.tolist() == [0, 2, 4, 1, 3]
    r = ember.sort(ember.tensor([True, False, True]))
    assert r.values.tolist() == [False, True, True] and r.indices.tolist() == [1, 0, 2]


def special_ties(rng, shape, dtype):
    """tie_array's values, with (for floats) zeros of both signs, NaNs of both signs and infinities among them."""
    a = tie_array(rng, shape, dtype)
    if dtype in FLOAT_DTYPES:
        flat = a.reshape(-1)
        flat[::7] = 0.0
        flat[3::7] = -0.0
        flat[5::11] = np.nan
        flat[6::13] = -np.inf
        flat[8::19] = np.inf
        flat[2::17] = np.copysign(np.nan, -1.0)
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_radix_sorted_slices_are_stable_with_nan_and_signed_zeros(rng, dtype, layout):
    # Slices of 256 elements and more take the radix sort: its key mapping must order negatives, ties (kept in
    # position order, -0 tying with +0) and NaN (of either sign, the largest) as the comparison sort does.
    for shape, dim in [((3, 300), 1), ((300, 2), 0)]:
        x, a = make(rng, shape, dtype, layout, values=special_ties)
        for descending in (False, True):
            ev, ei = ref_sort(a, dim, descending)
            ev, ei = np.moveaxis(ev, -1, dim), np.moveaxis(ei, -1, dim)
            r = ember.sort(x, dim, descending)
            assert_equal(r.indices, ei, ember.int64)
            assert_equal(r.values, ev, dtype)
            if dtype in FLOAT_DTYPES:  # the values keep their bits: -0 stays -0
                np.testing.assert_array_equal(np.signbit(to_np(r.values)), np.signbit(ev))


def test_sort_of_large_inputs_runs_slices_in_parallel(rng):
    a = rng.integers(-1000, 1000, (400, 300))
    x = from_np(a)
    for dim in (0, 1):
        assert_equal(ember.sort(x, dim).values, np.sort(a, axis=dim))
        assert_equal(ember.argsort(x, dim), np.argsort(a, axis=dim, kind="stable"))
    flat = rng.standard_normal(100_000)
    assert_equal(ember.sort(from_np(flat)).values, np.sort(flat))


def test_sort_zero_size_zero_dim_and_out():
    for shape in [(0,), (0, 3), (3, 0)]:
        for dim in range(len(shape)):
            r = ember.sort(ember.zeros(shape), dim)
            assert tuple(r.values.shape) == shape and tuple(r.indices.shape) == shape
    r = ember.sort(ember.tensor(4.0))
    assert r.values.tolist() == 4.0 and r.indices.tolist() == 0 and r.indices.shape == ()
    v, i = ember.zeros(3, dtype=ember.int64), ember.zeros(3, dtype=ember.int64)
    r = ember.sort(ember.tensor([3, 1, 2]), 0, True, out=(v, i))
    assert r.values is v and r.indices is i
    assert v.tolist() == [3, 2, 1] and i.tolist() == [0, 2, 1]


@pytest.mark.parametrize("dtype", [ember.int16, ember.float32, ember.bool], ids=dtype_name)
def test_msort_sorts_along_dim_0(rng, dtype):
    x, a = make(rng, (6, 5), dtype, "transposed")
    ev, _ = ref_sort(a, 0)
    assert_equal(ember.msort(x), np.moveaxis(ev, -1, 0), dtype)
    assert_equal(x.msort(), np.moveaxis(ev, -1, 0))
    out = ember.empty(6, 5, dtype=dtype)
    assert ember.msort(x, out=out) is out
    assert_equal(out, np.moveaxis(ev, -1, 0))
    assert ember.msort(ember.tensor(4.0)).tolist() == 4.0


# ------------------------------------------------------------------------------------------ topk


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_topk_matches_stable_reference(rng, dtype, layout):
    x, a = make(rng, (3, 4, 10), dtype, layout)
    for dim in (0, -1, 1):
        n = a.shape[dim]
        for largest in (True, False):
            ev, ei = ref_sort(a, dim, descending=largest)
            for k in range(n + 1):
                r = ember.topk(x, k, dim, largest)
                assert type(r).__name__ == "topk"
                assert_equal(r.values, np.moveaxis(ev[..., :k], -1, dim), dtype)
                assert_equal(r.indices, np.moveaxis(ei[..., :k], -1, dim), ember.int64)


def test_topk_small_k_of_long_rows_uses_partial_sort(rng):
    a = rng.integers(-20, 20, (3, 700)).astype(np.float64)
    a[0, 5] = np.nan
    ev, ei = ref_sort(a, 1, descending=True)
    r = ember.topk(from_np(a), 5)
    assert_equal(r.values, ev[:, :5])
    assert_equal(r.indices, ei[:, :5])
    ev, ei = ref_sort(a, 1)
    r = from_np(a).topk(7, largest=False)
    assert_equal(r.values, ev[:, :7])
    assert_equal(r.indices, ei[:, :7])


def test_topk_small_k_by_insertion_across_slice_lengths(rng):
    # k <= 8 of slices up to 128 keeps the top k by insertion (Note [Top k by insertion]); longer slices and larger k
    # take the other ways. Few distinct values and NaNs make ties everywhere; a row in ascending order is the worst
    # case.
    for n in (9, 31, 33, 64, 128, 129):
        a = rng.integers(0, 4, (20, n)).astype(np.float32)
        a[rng.random(a.shape) < 0.1] = np.nan
        a[0] = np.arange(n)
        for largest in (True, False):
            ev, ei = ref_sort(a, 1, descending=largest)
            for k in (1, 2, 7, 8, 9):
                r = ember.topk(from_np(a), k, largest=largest)
                assert_equal(r.values, ev[:, :k])
                assert_equal(r.indices, ei[:, :k], ember.int64)


@pytest.mark.parametrize("dtype", [ember.int32, ember.float32], ids=dtype_name)
def test_topk_unsorted_returns_the_same_set(rng, dtype):
    a = random_array(rng, (4, 50), dtype)
    x = from_np(a, dtype)
    for k in (1, 10, 50):
        r = ember.topk(x, k, sorted=False)
        vals = np.sort(np.array(r.values.tolist()), axis=1)[:, ::-1]
        assert_equal(from_np(vals.copy(), dtype), -np.sort(-a, axis=1)[:, :k])
        assert (np.take_along_axis(a, np.array(r.indices.tolist()), 1) == np.array(r.values.tolist())).all()


def test_topk_nans_and_ties_match_pytorch():
    # Recorded from PyTorch 1.13 (its tie order is unspecified; these cases have one answer).
    r = ember.topk(ember.tensor([1.0, NAN, NAN, 2.0]), 3)
    assert_equal(r.values, [NAN, NAN, 2.0])
    assert r.indices.tolist() == [1, 2, 3]
    r = ember.topk(ember.tensor([3.0, NAN, 1.0, 5.0]), 2, largest=False)
    assert r.values.tolist() == [1.0, 3.0] and r.indices.tolist() == [2, 0]
    r = ember.topk(ember.tensor([[1, 5, 2], [7, 3, 3]]), 2, dim=0, largest=False)
    assert r.values.tolist() == [[1, 3, 2], [7, 5, 3]] and r.indices.tolist() == [[0, 1, 0], [1, 0, 1]]


def test_topk_zero_size_zero_dim_and_out():
    r = ember.topk(ember.zeros(0, 3), 0, 0)
    assert tuple(r.values.shape) == (0, 3)
    r = ember.topk(ember.zeros(3, 0), 2, 0)
    assert tuple(r.values.shape) == (2, 0)
    r = ember.topk(ember.tensor(5.0), 1)
    assert r.values.tolist() == 5.0 and r.indices.tolist() == 0
    r = ember.topk(ember.tensor([1.0, 2.0]), 0)
    assert tuple(r.values.shape) == (0,) and r.indices.dtype == ember.int64
    v, i = ember.zeros(2), ember.zeros(2, dtype=ember.int64)
    ember.topk(ember.tensor([1.0, 4.0, 3.0]), 2, out=(v, i))
    assert v.tolist() == [4.0, 3.0] and i.tolist() == [1, 2]


@pytest.mark.parametrize("k, shape, dim", [(3, (2,), 0), (-1, (2,), 0), (2, (), 0), (1, (0, 3), 0), (4, (2, 3), 1)])
def test_topk_k_out_of_range_raises(k, shape, dim):
    with pytest.raises(RuntimeError, match=r"topk\(\): selected index k out of range"):
        ember.topk(ember.zeros(shape), k, dim)


# ------------------------------------------------------------------------------------------ kthvalue / median / mode


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_kthvalue_matches_stable_reference(rng, dtype, layout):
    x, a = make(rng, (3, 4, 7), dtype, layout)
    for dim in (0, 1, -1):
        for k in range(1, a.shape[dim] + 1):
            for keepdim in (False, True):
                ev, ei = along(kth_row(k), a, dim)
                r = ember.kthvalue(x, k, dim, keepdim)
                assert type(r).__name__ == "kthvalue"
                assert_equal(r.values, expand_dims(ev, dim, keepdim), dtype)
                assert_equal(r.indices, expand_dims(ei, dim, keepdim), ember.int64)
    ev, ei = along(kth_row(2), a, -1)
    assert_equal(x.kthvalue(2).values, ev)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("op", ["median", "nanmedian", "mode"])
def test_median_nanmedian_mode_along_a_dim(rng, op, dtype, layout):
    ref = {"median": median_row, "nanmedian": nanmedian_row, "mode": mode_row}[op]
    x, a = make(rng, (3, 4, 8), dtype, layout)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            ev, ei = along(ref, a, dim)
            r = getattr(ember, op)(x, dim, keepdim)
            assert type(r).__name__ == op and r._fields == ("values", "indices")
            assert_equal(r.values, expand_dims(ev, dim, keepdim), dtype)
            assert_equal(r.indices, expand_dims(ei, dim, keepdim), ember.int64)
            m = getattr(x, op)(dim, keepdim=keepdim)
            assert_equal(m.indices, expand_dims(ei, dim, keepdim))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_median_of_all_elements_is_the_lower_median(rng, dtype):
    for shape in [(7,), (4, 6), (3, 1, 5)]:
        x, a = make(rng, shape, dtype, "transposed" if len(shape) > 1 else "contiguous")
        flat = np.sort(a.reshape(-1))  # NumPy puts NaN last too
        lower = flat[(flat.size - 1) // 2]
        has_nan = dtype.is_floating_point and np.isnan(flat).any()
        assert_equal(ember.median(x), np.array(NAN if has_nan else lower, np_dtype(dtype)), dtype)
        valid = flat[flat == flat]
        expected = valid[(valid.size - 1) // 2] if valid.size else NAN
        assert_equal(ember.nanmedian(x), np.array(expected, np_dtype(dtype)), dtype)
        assert_equal(x.median(), np.array(NAN if has_nan else lower, np_dtype(dtype)))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_mode_of_long_slices(rng, dtype, layout):
    # Slices of 256 elements and more find their runs by radix order; ties, NaNs (each its own value) and signed
    # zeros (one value) as the reference, which follows PyTorch.
    x, a = make(rng, (2, 300), dtype, layout, values=special_ties)
    ev, ei = along(mode_row, a, 1)
    r = ember.mode(x, 1)
    assert_equal(r.values, ev, dtype)
    assert_equal(r.indices, ei, ember.int64)


def test_median_nanmedian_mode_match_pytorch():
    # Recorded from PyTorch 1.13.
    assert ember.median(ember.tensor([4, 1, 3, 2])).tolist() == 2
    assert math.isnan(ember.median(ember.tensor([3.0, NAN, 1.0])).tolist())
    assert ember.nanmedian(ember.tensor([3.0, NAN, 1.0])).tolist() == 1.0
    r = ember.median(ember.tensor([3.0, NAN, 1.0]), 0)
    assert math.isnan(r.values.tolist()) and r.indices.tolist() == 1
    r = ember.nanmedian(ember.tensor([3.0, NAN, 1.0, 2.0]), 0)
    assert r.values.tolist() == 2.0 and r.indices.tolist() == 3
    r = ember.nanmedian(ember.tensor([NAN, NAN]), 0)
    assert math.isnan(r.values.tolist()) and r.indices.tolist() == 0
    r = ember.median(ember.tensor([[1, 2], [3, 4]]), 0)
    assert r.values.tolist() == [1, 2] and r.indices.tolist() == [0, 0]
    r = ember.mode(ember.tensor([3, 1, 1, 2, 2, 5]))
    assert r.values.tolist() == 1 and r.indices.tolist() == 2
    r = ember.mode(ember.tensor([[3, 1, 1, 2, 2, 5], [1, 1, 1, 0, 0, 0]]), 1)
    assert r.values.tolist() == [1, 0] and r.indices.tolist() == [2, 5]
    r = ember.mode(ember.tensor([[1, 2], [1, 2]]), 0)
    assert r.values.tolist() == [1, 2] and r.indices.tolist() == [1, 1]
    r = ember.mode(ember.tensor([2.0, NAN, 1.25]))
    assert r.values.tolist() == 1.25 and r.indices.tolist() == 2
    r = ember.kthvalue(ember.tensor([[1, 5, 2], [7, 3, 4]]), 2, 1, True)
    assert r.values.tolist() == [[2], [4]] and r.indices.tolist() == [[2], [2]]


def test_selection_zero_size_and_zero_dim():
    for op in ("median", "nanmedian", "mode"):
        r = getattr(ember, op)(ember.zeros(3, 0), 0)
        assert tuple(r.values.shape) == (0,) and r.indices.dtype == ember.int64
        r = getattr(ember, op)(ember.zeros(0, 3), 1, keepdim=True)
        assert tuple(r.values.shape) == (0, 1)
        r = getattr(ember, op)(ember.tensor(5.0), 0, True)
        assert r.values.tolist() == 5.0 and r.indices.tolist() == 0 and r.values.shape == ()
    r = ember.kthvalue(ember.tensor(5.0), 1)
    assert r.values.tolist() == 5.0 and r.indices.tolist() == 0
    assert math.isnan(ember.median(ember.tensor([])).tolist())
    assert math.isnan(ember.nanmedian(ember.zeros(0, 2)).tolist())
    assert ember.median(ember.tensor(3)).tolist() == 3


def test_selection_out_arguments():
    v, i = ember.zeros(2), ember.zeros(2, dtype=ember.int64)
    r = ember.median(ember.tensor([[1.0, 5.0, 2.0], [7.0, 3.0, 4.0]]), 1, out=(v, i))
    assert r.values is v and v.tolist() == [2.0, 4.0] and i.tolist() == [2, 2]
    ember.kthvalue(ember.tensor([[1.0, 5.0, 2.0], [7.0, 3.0, 4.0]]), 3, out=(v, i))
    assert v.tolist() == [5.0, 7.0] and i.tolist() == [1, 0]
    ember.mode(ember.tensor([[1.0, 1.0, 2.0], [7.0, 3.0, 3.0]]), out=[v, i])
    assert v.tolist() == [1.0, 3.0] and i.tolist() == [1, 2]


@pytest.mark.parametrize("op", ["median", "nanmedian", "mode"])
def test_selection_over_an_empty_dim_raises_index_error(op):
    with pytest.raises(
        IndexError,
        match=op + r"\(\): Expected reduction dim 0 to have non-zero size. \(input shape "
        r"\[0, 3\]\)",
    ):
        getattr(ember, op)(ember.zeros(0, 3), 0)


def test_kthvalue_errors():
    with pytest.raises(IndexError, match=r"kthvalue\(\): Expected reduction dim 0 to have non-zero size"):
        ember.kthvalue(ember.zeros(0, 2), 1, 0)
    for k in (0, 3):
        with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range for dimension 0"):
            ember.kthvalue(ember.tensor([1.0, 2.0]), k)
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        ember.kthvalue(ember.tensor(5.0), 2)


def test_median_of_an_empty_integer_tensor_raises():
    with pytest.raises(
        RuntimeError,
        match=r"median\(\): the median of an empty tensor is NaN, which dtype int64 "
        "cannot hold",
    ):
        ember.median(ember.tensor([], dtype=ember.int64))


def test_median_without_dim_rejects_keepdim():
    # As in PyTorch, median(input) takes no keepdim: dim is required with it (the other overload).
    with pytest.raises(TypeError, match=r"median\(\): incompatible function arguments"):
        ember.median(ember.ones(2, 2), keepdim=True)
    with pytest.raises(TypeError, match=r"median\(\): keepdim=True needs a dim"):
        ember.ones(2, 2).median(keepdim=True)


def test_sort_family_dim_errors():
    for call in (
        lambda: ember.sort(ember.tensor([1, 2]), dim=2),
        lambda: ember.topk(ember.ones(2), 1, 1),
        lambda: ember.median(ember.ones(2), 1),
        lambda: ember.kthvalue(ember.ones(2, 2), 1, -3),
        lambda: ember.mode(ember.ones(2), 2),
        lambda: ember.argsort(ember.ones(2), 5),
    ):
        with pytest.raises(IndexError, match="Dimension out of range"):
            call()


def test_out_must_be_a_pair_of_tensors_of_the_result_dtypes():
    with pytest.raises(TypeError, match=r"sort\(\): out= must be a tuple of two tensors"):
        ember.sort(ember.tensor([3, 1]), out=ember.zeros(2))
    with pytest.raises(RuntimeError, match=r"sort\(\): out= has dtype float32 but the result has dtype int64"):
        ember.sort(ember.tensor([3, 1]), out=(ember.zeros(2), ember.zeros(2, dtype=ember.int64)))


# ------------------------------------------------------------------------------------------ unique


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_unique_matches_numpy(rng, dtype, layout):
    values = (lambda r, s, d: np.nan_to_num(tie_array(r, s, d))) if dtype.is_floating_point else tie_array
    x, a = make(rng, (3, 4, 5), dtype, layout, values)
    u, inv, counts = np.unique(a, return_inverse=True, return_counts=True)
    inv = inv.reshape(a.shape)
    assert_equal(ember.unique(x), u, dtype)
    assert_equal(x.unique(), u, dtype)
    r = ember.unique(x, return_inverse=True, return_counts=True)
    assert isinstance(r, tuple) and len(r) == 3
    assert_equal(r[0], u, dtype)
    assert_equal(r[1], inv, ember.int64)
    assert_equal(r[2], counts, ember.int64)
    v, i = ember.unique(x, sorted=False, return_inverse=True)  # PyTorch leaves the order to the backend
    assert_equal(v, u)
    assert_equal(i, inv)
    v, c = x.unique(return_counts=True)
    assert_equal(c, counts)


def test_unique_treats_each_nan_as_distinct():
    # PyTorch 1.13 returns ([1, nan, nan, 3], [3, 0, 0, 0, 3], [1, 0, 0, 2]) here: a bug (zero counts). ember
    # sorts NaNs last, each its own value, as unique_consecutive does in PyTorch.
    v, i, c = ember.unique(ember.tensor([3.0, NAN, 1.0, NAN, 3.0]), return_inverse=True, return_counts=True)
    assert_equal(v, [1.0, 3.0, NAN, NAN])
    assert i.tolist() == [1, 2, 0, 3, 1]
    assert c.tolist() == [1, 2, 1, 1]


def test_unique_zero_dim_and_zero_size_match_pytorch():
    v, i = ember.unique(ember.tensor(5), return_inverse=True)
    assert v.tolist() == [5] and i.tolist() == 0 and i.shape == ()
    v, i, c = ember.unique(ember.zeros(0, 3), return_inverse=True, return_counts=True)
    assert tuple(v.shape) == (0,) and tuple(i.shape) == (0, 3) and tuple(c.shape) == (0,)
    assert i.dtype == ember.int64 and c.dtype == ember.int64
    v, c = ember.unique(ember.tensor([True, False, True]), return_counts=True)
    assert v.tolist() == [False, True] and c.tolist() == [1, 2]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_unique_consecutive_matches_reference(rng, dtype):
    x, a = make(rng, (4, 6), dtype, "transposed")
    flat = a.reshape(-1)
    starts = [i for i in range(flat.size) if i == 0 or not flat[i] == flat[i - 1]]  # NaN != NaN
    counts = np.diff(starts + [flat.size])
    inverse = np.repeat(np.arange(len(starts)), counts).reshape(a.shape)
    v, i, c = ember.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert_equal(v, flat[starts], dtype)
    assert_equal(i, inverse, ember.int64)
    assert_equal(c, counts, ember.int64)
    assert_equal(x.unique_consecutive(), flat[starts])


def test_unique_consecutive_matches_pytorch():
    # Recorded from PyTorch 1.13.
    v, i, c = ember.unique_consecutive(ember.tensor([3.0, NAN, NAN, 1.0, 1.0]), return_inverse=True, return_counts=True)
    assert_equal(v, [3.0, NAN, NAN, 1.0])
    assert i.tolist() == [0, 1, 2, 3, 3] and c.tolist() == [1, 1, 1, 2]
    v, i, c = ember.unique_consecutive(ember.tensor(5), return_inverse=True, return_counts=True)
    assert v.tolist() == [5] and i.tolist() == 0 and c.tolist() == [1]
    v, c = ember.unique_consecutive(ember.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_counts=True)
    assert v.tolist() == [1, 2, 3, 1, 2] and c.tolist() == [2, 2, 1, 2, 1]


@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
def test_unique_with_a_dim_is_not_implemented(op):
    with pytest.raises(NotImplementedError, match=op + r"\(\): dim=0 is not supported by ember yet"):
        getattr(ember, op)(ember.tensor([1, 2]), dim=0)


# ------------------------------------------------------------------------------------------ bincount


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_name)
def test_bincount_matches_numpy(rng, dtype):
    a = rng.integers(0, 20, 200).astype(np_dtype(dtype))
    for layout in ("contiguous", "stepped"):
        x = from_np(a, dtype) if layout == "contiguous" else from_np(np.repeat(a, 2), dtype)[::2]
        assert_equal(ember.bincount(x), np.bincount(a), ember.int64)
        assert_equal(x.bincount(minlength=30), np.bincount(a, minlength=30), ember.int64)
        assert_equal(ember.bincount(x, minlength=3), np.bincount(a, minlength=3), ember.int64)


@pytest.mark.parametrize(
    "wdtype, out_dtype",
    [
        (ember.float32, ember.float32),
        (ember.float64, ember.float64),
        (ember.float16, ember.float64),
        (ember.int64, ember.float64),
        (ember.bool, ember.float64),
    ],
    ids=lambda d: dtype_name(d),
)
def test_bincount_with_weights(rng, wdtype, out_dtype):
    a = rng.integers(0, 10, 100)
    w = rng.integers(0, 2, 100) if wdtype is ember.bool else rng.integers(-4, 5, 100) * 0.25
    wt = from_np(w.astype(np_dtype(wdtype)), wdtype)
    r = ember.bincount(from_np(a), wt, minlength=12)
    assert_equal(r, np.bincount(a, w.astype(np_dtype(wdtype)).astype(np.float64), minlength=12), out_dtype)
    assert_equal(from_np(a).bincount(weights=wt[::1]), np.bincount(a, w.astype(np_dtype(wdtype)).astype(float)))


def test_bincount_edge_cases_match_pytorch():
    # Recorded from PyTorch 1.13.
    assert ember.bincount(ember.tensor([], dtype=ember.int64)).tolist() == []
    assert ember.bincount(ember.tensor([], dtype=ember.int64), minlength=3).tolist() == [0, 0, 0]
    assert ember.bincount(ember.tensor([1, 2], dtype=ember.uint8)).tolist() == [0, 1, 1]
    r = ember.bincount(ember.tensor([1, 1]), ember.tensor([0.5, 0.25]))
    assert r.tolist() == [0.0, 0.75] and r.dtype == ember.float32


@pytest.mark.parametrize(
    "x",
    [
        ember.tensor([1, -1]),
        ember.tensor([[1, 1]]),
        ember.tensor(1),
        ember.tensor([1.0, 2.0]),
        ember.tensor([True]),
        ember.tensor([-3], dtype=ember.int8),
    ],
    ids=["negative", "2-d", "0-d", "float", "bool", "int8-negative"],
)
def test_bincount_rejects_what_pytorch_rejects(x):
    with pytest.raises(RuntimeError, match=r"^bincount only supports 1-d non-negative integral inputs\.$"):
        ember.bincount(x)


def test_bincount_argument_errors():
    with pytest.raises(RuntimeError, match=r"bincount\(\): minlength should be >= 0, but got -1"):
        ember.bincount(ember.tensor([1, 2]), minlength=-1)
    with pytest.raises(
        RuntimeError,
        match=r"bincount\(\): weights should be 1-d and have the same length as input "
        r"\(input shape \[2\], weights shape \[3\]\)",
    ):
        ember.bincount(ember.tensor([1, 2]), weights=ember.tensor([1.0, 2.0, 3.0]))


# ------------------------------------------------------------------------------------------ histc


def ref_histc(a, bins, lo, hi):
    """PyTorch's histc in a's own float arithmetic: bin = (x - lo) * bins / (hi - lo), max in the last bin."""
    a = a.reshape(-1)
    t = a.dtype.type
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    lo, hi = t(lo), t(hi)
    inside = a[(a >= lo) & (a <= hi)]
    pos = ((inside - lo) * t(bins) / (hi - lo)).astype(np.int64)
    return np.bincount(np.minimum(pos, bins - 1), minlength=bins).astype(a.dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=dtype_name)
def test_histc_matches_reference(rng, dtype, layout):
    x, a = make(rng, (5, 6, 7), dtype, layout, random_array)
    for bins, lo, hi in [(10, 0, 0), (7, -20.0, 15.5), (1, -5, 5), (100, 3, 3), (4, -1e-3, 1e-3)]:
        assert_equal(ember.histc(x, bins, lo, hi), ref_histc(a, bins, lo, hi), dtype)
    assert_equal(x.histc(), ref_histc(a, 100, 0, 0), dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_histc_ignores_out_of_range_values_and_nans(dtype):
    # Recorded from PyTorch 1.13 (float32; the values are exact in every float dtype), except for the NaN: PyTorch
    # counts it in bin 0 (its bin index is a NaN cast to int64, undefined behaviour), ember ignores it.
    x = ember.tensor([1.0, 2.0, 1.0, 5.0, -1.0, NAN], dtype=dtype)
    assert_equal(ember.histc(x, bins=4, min=0, max=4), [0.0, 2.0, 1.0, 0.0], dtype)
    assert_equal(ember.histc(ember.tensor([5.0, -1.0], dtype=dtype), bins=4, min=0, max=4), [0.0] * 4, dtype)
    assert_equal(ember.histc(ember.tensor([1.0, 2.0, 1.0], dtype=dtype), bins=4), [2.0, 0.0, 0.0, 1.0], dtype)
    assert_equal(ember.histc(ember.tensor([1.0, 1.0, 1.0], dtype=dtype), bins=4), [0.0, 0.0, 3.0, 0.0], dtype)
    assert_equal(ember.histc(ember.tensor([], dtype=dtype), bins=4), [0.0] * 4, dtype)
    assert_equal(ember.histc(ember.ones(2, 2, dtype=dtype), bins=3), [0.0, 4.0, 0.0], dtype)


def test_histc_bin_edges_match_pytorch():
    # Recorded from PyTorch 1.13: the max lands in the last bin.
    x = ember.tensor([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    assert ember.histc(x, bins=10, min=0, max=1).tolist() == [1.0] * 9 + [2.0]
    assert ember.tensor([1.0, 2.0]).histc(4, 0, 3).tolist() == [0.0, 1.0, 1.0, 0.0]
    out = ember.zeros(4)
    assert ember.histc(ember.tensor([1.0, 2.0]), 4, 0, 3, out=out) is out
    assert out.tolist() == [0.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (
            lambda: ember.histc(ember.tensor([1.0, 2.0]), bins=0),
            RuntimeError,
            r"histc\(\): bins must be > 0, but got 0",
        ),
        (lambda: ember.histc(ember.tensor([1.0, 2.0]), bins=-1), RuntimeError, r"bins must be > 0, but got -1"),
        (
            lambda: ember.histc(ember.tensor([1.0]), bins=4, min=3, max=1),
            RuntimeError,
            r"histc\(\): max must be larger than min \(min = 3, max = 1\)",
        ),
        (
            lambda: ember.histc(ember.tensor([1.0, INF]), bins=4),
            RuntimeError,
            r"histc\(\): range of \[1, inf\] is not finite",
        ),
        (lambda: ember.histc(ember.tensor([NAN]), bins=4), RuntimeError, r"range of \[nan, nan\] is not finite"),
        (lambda: ember.histc(ember.tensor([1.0]), bins=4, min=NAN, max=2), RuntimeError, r"range of \[nan, 2\]"),
        (
            lambda: ember.histc(ember.tensor([1, 2])),
            RuntimeError,
            r"histc\(\): expected a floating point input, but got int64",
        ),
    ],
    ids=["zero-bins", "negative-bins", "min-above-max", "inf-data", "nan-data", "nan-min", "integer"],
)
def test_histc_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


# ------------------------------------------------------------------------------------------ aminmax


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_aminmax_matches_numpy(rng, dtype, layout):
    x, a = make(rng, (3, 4, 5), dtype, layout)
    r = ember.aminmax(x)
    assert type(r).__name__ == "aminmax" and r._fields == ("min", "max")
    assert_equal(r.min, np.array(np.min(a)), dtype)  # NumPy propagates NaN too
    assert_equal(r.max, np.array(np.max(a)), dtype)
    for dim in range(-3, 3):
        for keepdim in (False, True):
            r = ember.aminmax(x, dim=dim, keepdim=keepdim)
            assert_equal(r.min, np.min(a, axis=dim, keepdims=keepdim), dtype)
            assert_equal(r.max, np.max(a, axis=dim, keepdims=keepdim), dtype)
    r = x.aminmax(dim=1)
    assert_equal(r.max, np.max(a, axis=1))


def test_aminmax_cases_match_pytorch():
    # Recorded from PyTorch 1.13.
    r = ember.aminmax(ember.tensor([1.0, NAN, 3.0]))
    assert math.isnan(r.min.tolist()) and math.isnan(r.max.tolist())
    r = ember.aminmax(ember.tensor([True, False]))
    assert r.min.tolist() is False and r.max.tolist() is True
    r = ember.aminmax(ember.ones(2, 3), keepdim=True)
    assert tuple(r.min.shape) == (1, 1)
    r = ember.aminmax(ember.tensor(4.0), dim=0)
    assert r.min.tolist() == 4.0 and r.max.shape == ()
    r = ember.aminmax(ember.zeros(0, 3), dim=1)
    assert tuple(r.min.shape) == (0,)
    lo, hi = ember.zeros(2, dtype=ember.int64), ember.zeros(2, dtype=ember.int64)
    r = ember.aminmax(ember.tensor([[1, 3], [4, 2]]), dim=-1, out=(lo, hi))
    assert r.min is lo and lo.tolist() == [1, 2] and hi.tolist() == [3, 4]


def test_aminmax_errors():
    with pytest.raises(
        RuntimeError,
        match=r"aminmax\(\): cannot compute aminmax over an empty dimension as the "
        r"operation has no identity\.",
    ):
        ember.aminmax(ember.tensor([]))
    with pytest.raises(IndexError, match=r"aminmax\(\): Expected reduction dim 0 to have non-zero size"):
        ember.aminmax(ember.zeros(0, 3), dim=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.aminmax(ember.zeros(2, 3), dim=2)
    with pytest.raises(TypeError):
        ember.aminmax(ember.ones(2, 3), 0)  # dim is keyword-only, as in PyTorch


@pytest.mark.parametrize("n", [2, 31, 32, 33])
def test_short_slices_sort_stably_around_the_insertion_limit(rng, n):
    # Note [Short slices]: up to 32 elements by insertion, longer by stable_sort; ties and NaNs on both sides
    a = rng.integers(-3, 4, (50, n)).astype(np.float32)
    a[rng.random((50, n)) < 0.1] = np.nan
    x = from_np(a, ember.float32)
    for descending in (False, True):
        ev, ei = ref_sort(a, 1, descending)
        r = ember.sort(x, 1, descending, stable=True)
        assert_equal(r.values, ev, ember.float32)
        assert_equal(r.indices, ei, ember.int64)
        k = min(n, 5)
        t = ember.topk(x, k, 1, largest=descending)
        assert_equal(t.values, ev[:, :k], ember.float32)
        assert_equal(t.indices, ei[:, :k], ember.int64)
