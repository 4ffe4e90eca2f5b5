"""Basic indexing (ints, slices with steps, None, Ellipsis, True/False) against NumPy. PyTorch treats
True and False as a new dim of size 1 and 0 at their position, which is NumPy's None followed, for
False, by an empty slice of that dim; `numpy_index` makes that translation."""

import numpy as np
import pytest
from conftest import ALL_DTYPES, assert_equal, bf16_round, check_view, dtype_name, from_np, np_dtype, random_array
from hypothesis import given, settings
from hypothesis import strategies as st

import ember


def consumes(item):
    return item is not None and item is not Ellipsis and not isinstance(item, bool)


def numpy_index(a, index):
    """a[index] with PyTorch's meaning, computed by NumPy with basic indexing only (so a view)."""
    if not isinstance(index, tuple):
        index = (index,)
    used = sum(consumes(i) for i in index)
    np_index, empty_dims, out_dim = [], [], 0
    for item in index:
        if isinstance(item, bool):
            if item is False:
                empty_dims.append(out_dim)
            np_index.append(None)
            out_dim += 1
        elif item is None or isinstance(item, slice):
            np_index.append(item)
            out_dim += 1
        elif item is Ellipsis:
            np_index.append(item)
            out_dim += a.ndim - used
        else:
            np_index.append(item)
    r = a[tuple(np_index)]
    for d in empty_dims:
        r = r[(slice(None),) * d + (slice(0, 0),)]
    return r


@st.composite
def indexed_arrays(draw):
    """A shape of 0-4 dims of sizes 0-5 and a valid basic index for it."""
    shape = tuple(draw(st.lists(st.integers(0, 5), max_size=4)))
    kinds = draw(st.lists(st.sampled_from(["int", "slice", "none", "ellipsis", "true", "false"]), max_size=6))
    # One Ellipsis at most (as NumPy), and one bool at most: several bools are advanced indices that
    # PyTorch and NumPy merge into one dim (test_several_bools_merge_into_one_dim).
    for group in (("ellipsis",), ("true", "false")):
        found = [i for i, k in enumerate(kinds) if k in group]
        kinds = [k for i, k in enumerate(kinds) if i not in found[1:]]
    # Drop consuming items beyond the tensor's dims.
    out, n = [], 0
    for k in kinds:
        if k in ("int", "slice"):
            if n == len(shape):
                continue
            n += 1
        out.append(k)
    kinds = out
    # The dim each consuming item indexes: left to right before the Ellipsis, right-aligned after it.
    consuming = [i for i, k in enumerate(kinds) if k in ("int", "slice")]
    ell = kinds.index("ellipsis") if "ellipsis" in kinds else len(kinds)
    before = [i for i in consuming if i < ell]
    after = [i for i in consuming if i > ell]
    dim_of = {i: d for d, i in enumerate(before)}
    dim_of.update({i: len(shape) - len(after) + d for d, i in enumerate(after)})
    index = []
    for i, k in enumerate(kinds):
        if k == "int":
            size = shape[dim_of[i]]
            if size == 0:
                index.append(slice(None))
            else:
                index.append(draw(st.integers(-size, size - 1)))
        elif k == "slice":
            size = shape[dim_of[i]]
            start = draw(st.one_of(st.none(), st.integers(-size - 2, size + 2)))
            stop = draw(st.one_of(st.none(), st.integers(-size - 2, size + 2)))
            step = draw(st.one_of(st.none(), st.integers(1, 4)))
            index.append(slice(start, stop, step))
        else:
            index.append({"none": None, "ellipsis": Ellipsis, "true": True, "false": False}[k])
    as_tuple = draw(st.booleans()) or len(index) != 1
    return shape, tuple(index) if as_tuple else index[0], draw(st.integers(0, 2**32 - 1))


def make(shape, seed, dtype=ember.float32):
    a = random_array(np.random.default_rng(seed), shape, dtype)
    return from_np(a, dtype), a


@settings(max_examples=300, deadline=None)
@given(indexed_arrays())
def test_random_basic_indices_match_numpy_and_are_views(case):
    shape, index, seed = case
    t, a = make(shape, seed)
    r = t[index]
    assert r.data_ptr() == t.data_ptr() + r.storage_offset() * t.element_size()
    check_view(t, r, a, lambda b: numpy_index(b, index))


@settings(max_examples=200, deadline=None)
@given(indexed_arrays(), st.sampled_from(["scalar", "tensor", "list", "row"]))
def test_random_setitem_matches_numpy(case, kind):
    shape, index, seed = case
    t, a = make(shape, seed, ember.int32)
    target_shape = np.shape(numpy_index(a, index))
    positions = np.ravel(numpy_index(np.arange(a.size).reshape(a.shape), index))
    rng = np.random.default_rng(seed + 1)
    if kind == "scalar":
        value = int(rng.integers(-50, 50))
        ember_value = value
    else:
        # a full-shape value, or one row broadcast over the leading dims
        vshape = target_shape if kind != "row" else target_shape[-1:]
        value = rng.integers(-50, 50, vshape).astype(np.int32)
        ember_value = from_np(value) if kind != "list" else value.tolist()
    before = t._version
    t[index] = ember_value
    a.flat[positions] = np.broadcast_to(value, target_shape).ravel()
    assert_equal(t, a)
    assert t._version == before + 1


# ------------------------------------------------------------------------------------------ fixed cases

CASES = [
    1,
    -1,
    slice(1, None),
    slice(None, None, 2),
    slice(-3, -1),
    slice(10, 20),
    None,
    Ellipsis,
    True,
    False,
    (0, 1),
    (-1, -2, -3),
    (slice(None), 2),
    (Ellipsis, 1),
    (1, Ellipsis),
    (None, 1, None),
    (slice(1, 3), None, slice(None, None, 2)),
    (True, 1),
    (1, slice(None), True),
    (False, Ellipsis, None, 2),
    (Ellipsis, None),
    (0, 0, 0),
    (slice(None, None, 3), slice(None, None, 2), slice(1, None, 3)),
    (Ellipsis, True, 0),
]


@pytest.mark.parametrize("index", CASES, ids=repr)
def test_fixed_indices_on_3d_tensor(index):
    t, a = make((3, 4, 5), 0)
    r = t[index]
    check_view(t, r, a, lambda b: numpy_index(b, index))


@pytest.mark.parametrize("index", [(), Ellipsis, None, True, False, (None, None), (Ellipsis, None)], ids=repr)
def test_indexing_a_0d_tensor(index):
    t, a = make((), 1)
    check_view(t, t[index], a, lambda b: numpy_index(b, index))


def test_0d_integer_tensors_index_like_ints():
    t, a = make((3, 4), 2)
    assert_equal(t[ember.tensor(1)], a[1])
    assert_equal(t[ember.tensor(-1), ember.tensor(2, dtype=ember.int8)], a[-1, 2])


def test_indexing_a_non_contiguous_tensor():
    t, a = make((4, 6), 3)
    tt = t.t()[::2]  # (3, 4), strides (2, 6)
    check_view(t, tt[1, 1:], a, lambda b: b.T[::2][1, 1:])
    check_view(t, tt[..., ::3], a, lambda b: b.T[::2][..., ::3])


def test_integer_index_result_is_a_0d_view():
    t, a = make((2, 3), 4)
    r = t[1, 2]
    assert r.shape == () and r.item() == a[1, 2]
    assert r.data_ptr() == t.data_ptr() + 5 * 4
    r.fill_(3)
    assert t[1, 2].item() == 3


# ---------------------------------------------------------------------------------------------- setitem


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("value", [True, 5, -3, 2.75], ids=repr)
def test_setitem_scalar_casts_like_numpy(dtype, value):
    if dtype is ember.uint8:
        value = abs(value)  # negative values are outside uint8
    t = ember.zeros(3, 4, dtype=dtype)
    a = np.zeros((3, 4), np_dtype(dtype))
    t[1:, ::2] = value
    a[1:, ::2] = value if dtype is not ember.bool else bool(value)
    if dtype is ember.bfloat16:
        a = bf16_round(a)
    assert_equal(t, a, dtype)


def test_setitem_tensor_broadcasts_and_casts():
    t = ember.zeros(3, 4, dtype=ember.int32)
    t[:, 1:3] = ember.tensor([1.9, -2.9], dtype=ember.float64)  # broadcast over rows, truncated
    t[0] = ember.tensor(7)
    t[2, ...] = ember.tensor([True]).expand(4)  # a stride-0 source
    assert_equal(t, np.array([[7, 7, 7, 7], [0, 1, -2, 0], [1, 1, 1, 1]], np.int32), ember.int32)


def test_setitem_nested_lists():
    t = ember.zeros(2, 3)
    t[0] = [1, 2, 3]
    t[1, :2] = [[4.5, 5.5]]  # broadcast from (1, 2)
    t[:, 2] = (True, False)
    assert_equal(t, np.array([[1, 2, 1], [4.5, 5.5, 0]], np.float32))
    u = ember.zeros(2, 2, dtype=ember.int64)
    u[...] = [[1.7, -1.7], [2.0, 3]]
    assert_equal(u, np.array([[1, -1], [2, 3]]))


def test_setitem_on_0d_tensor():
    t = ember.tensor(1.5)
    t[()] = 4
    assert t.item() == 4.0
    t[...] = ember.tensor(2.5)
    assert t.item() == 2.5
    t[None] = 8
    assert t.item() == 8.0


def test_setitem_strips_leading_unit_dims_of_the_value():
    # PyTorch (and NumPy) drop leading dims of size 1 from the value before broadcasting it
    t = ember.zeros(2, 3)
    t[0] = ember.full((1, 1, 3), 2.0)
    t[1, :2] = ember.tensor([[4.5, 5.5]])
    assert_equal(t, np.array([[2, 2, 2], [4.5, 5.5, 0]], np.float32))
    with pytest.raises(RuntimeError, match="number of sizes provided"):
        t[0] = ember.ones(2, 3)


def test_setitem_from_overlapping_view_reads_before_writing():
    t = ember.arange(8)
    t[1:] = t[:-1]
    assert_equal(t, np.array([0, 0, 1, 2, 3, 4, 5, 6]))
    u = ember.arange(9).view(3, 3)
    u[...] = u.t()
    assert_equal(u, np.arange(9).reshape(3, 3).T)


# ------------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "index, message",
    [
        (3, "index 3 is out of bounds for dimension 0 with size 3"),
        (-4, "index -4 is out of bounds for dimension 0 with size 3"),
        ((Ellipsis, -6), "index -6 is out of bounds for dimension 2 with size 5"),
        ((0, 0, 0, 0), "too many indices for tensor of dimension 3"),
        ((Ellipsis, 0, 0, 0, 0), "too many indices for tensor of dimension 3"),
        ((slice(None),) * 4, "too many indices for tensor of dimension 3"),
        ((Ellipsis, Ellipsis), "single ellipsis"),
    ],
)
def test_index_errors(index, message):
    t = ember.zeros(3, 4, 5)
    with pytest.raises(IndexError, match=message):
        t[index]
    with pytest.raises(IndexError, match=message):
        t[index] = 1


def test_out_of_range_index_names_the_dimension_of_the_input():
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 1 with size 4"):
        ember.zeros(3, 4)[0, 5]
    with pytest.raises(IndexError, match="index -6 is out of bounds for dimension 2 with size 5"):
        ember.zeros(3, 4, 5)[0, 0, -6]


@pytest.mark.parametrize(
    "index", [(True, True), (True, False), (True, slice(None), False), (False, 0, False)], ids=repr
)
def test_several_bools_merge_into_one_dim(index):
    t, a = make((2, 3), 5)
    assert_equal(t[index], a[index])  # NumPy and PyTorch 1.13 agree on these


def test_indexing_a_0d_tensor_with_an_int_is_an_index_error():
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        ember.tensor(5)[0]
    with pytest.raises(IndexError, match="too many indices"):
        ember.tensor(5)[:]


@pytest.mark.parametrize(
    "index, message",
    [
        (slice(None, None, 0), "slice step cannot be zero"),
        (slice(None, None, -1), "step must be greater than zero"),
        ((0, slice(3, 0, -2)), "step must be greater than zero"),
    ],
)
def test_non_positive_steps_are_value_errors(index, message):
    t = ember.zeros(3, 4)
    with pytest.raises(ValueError, match=message):
        t[index]
    with pytest.raises(ValueError, match=message):
        t[index] = 0


@pytest.mark.parametrize("index", [1.5, "a", object()], ids=repr)
def test_other_index_types_are_index_errors(index):
    with pytest.raises(IndexError, match="only integers, slices"):
        ember.zeros(3)[index]


def test_setitem_with_a_value_of_the_wrong_shape():
    t = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"must match the existing size \(2\)"):
        t[0] = ember.zeros(2)
    with pytest.raises(RuntimeError, match="must match"):
        t[:, 0] = [1, 2]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_])
def test_whole_rows_by_index(dtype):
    # Note [Runs of one index]: along an outer dim each index moves a whole run (a row, or a strided column)
    rng = np.random.default_rng(3)
    src = (rng.standard_normal((50, 37)) * 10).astype(dtype)
    idx = np.array([3, 49, 0, 3, 7, 7, 7, 12])  # repeats
    t = ember.from_numpy(src)
    i = ember.from_numpy(idx)
    np.testing.assert_array_equal(t.index_select(0, i).numpy(), src[idx])
    np.testing.assert_array_equal(t.t().index_select(1, i).numpy(), src.T[:, idx])  # strided runs
    if dtype == np.float32:
        np.testing.assert_array_equal(ember.nn.functional.embedding(i, t).numpy(), src[idx])
    rows = (rng.standard_normal((8, 37)) * 5).astype(dtype)
    want = src.copy()
    for k, j in enumerate(idx):  # index_copy_: the last of repeated indices wins
        want[j] = rows[k]
    got = ember.from_numpy(src.copy()).index_copy_(0, i, ember.from_numpy(rows))
    np.testing.assert_array_equal(got.numpy(), want)
    got = ember.from_numpy(src.copy()).index_copy_(0, i, ember.from_numpy(np.ascontiguousarray(rows.T)).t())
    np.testing.assert_array_equal(got.numpy(), want)
    if dtype != np.bool_:
        want = src.astype(np.float64)
        np.add.at(want, idx, rows.astype(np.float64))
        got = ember.from_numpy(src.copy()).index_add_(0, i, ember.from_numpy(rows)).numpy()
        tol = 1e-2 if dtype == np.float16 else 1e-6
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)
    with pytest.raises(IndexError, match="index_select.*index 50 is out of bounds for dimension 0 with size 50"):
        t.index_select(0, ember.tensor([1, 50]))
