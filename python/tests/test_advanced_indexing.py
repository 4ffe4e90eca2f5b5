"""Advanced indexing (integer tensors and lists, bool masks, mixed with basic indices) against NumPy, for
__getitem__ and __setitem__. PyTorch differs from NumPy in two places, which `torch_index` models: an int beside
advanced indices selects first (a basic index; NumPy makes it advanced, which changes where the result dims go),
and a scalar bool is a new dim indexed by [0] or [] (so several bools broadcast into one dim)."""

import numpy as np
import pytest
from conftest import assert_equal, dtype_name, from_np, np_dtype, random_array
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

DTYPES = [ember.float32, ember.float64, ember.int64, ember.bool, ember.float16]


def is_bool_scalar(item):
    return isinstance(item, (bool, np.bool_)) or (
        isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype == np.bool_
    )


def as_tuple(index):
    """PyTorch's reading of an index: a tuple, a list holding sequences (or slices, None, Ellipsis), or one item."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and any(
        isinstance(i, (list, tuple, np.ndarray, slice)) or i is None or i is Ellipsis for i in index
    ):
        return tuple(index)
    return (index,)


def torch_index(a, index):
    """a[index] with PyTorch's meaning, computed by NumPy in two steps: ints, slices, None and Ellipsis (and a new
    dim for each bool), then the advanced indices on the dims that remain."""
    basic, advanced = [], []
    for item in as_tuple(index):
        if item is None:
            basic.append(None)
            advanced.append(slice(None))
        elif item is Ellipsis:
            basic.append(Ellipsis)
            advanced.append(Ellipsis)
        elif is_bool_scalar(item):
            basic.append(None)
            advanced.append(np.array([0] if item else [], np.intp))
        elif isinstance(item, (int, np.integer)) or (isinstance(item, np.ndarray) and item.ndim == 0):
            basic.append(int(item))
        elif isinstance(item, slice):
            basic.append(item)
            advanced.append(slice(None))
        else:
            arr = np.asarray(item)
            if arr.dtype != np.bool_:
                arr = arr.astype(np.intp)
            basic.extend([slice(None)] * (arr.ndim if arr.dtype == np.bool_ else 1))
            advanced.append(arr)
    b = a[tuple(basic)]
    # PyTorch decides whether advanced indices are adjacent by the dims they index, so an Ellipsis that covers no
    # dims does not separate them (it does in NumPy): spell it out as slices.
    covered = b.ndim - sum(np.ndim(i) if np.asarray(i).dtype == np.bool_ else 1 for i in advanced if i is not Ellipsis)
    advanced = [x for i in advanced for x in ([slice(None)] * covered if i is Ellipsis else [i])]
    return b[tuple(advanced)]


def to_ember_index(index):
    """The NumPy arrays of an index as ember tensors (lists and scalars stay)."""

    def conv(item):
        if isinstance(item, np.ndarray):
            return from_np(item) if item.dtype == np.bool_ else from_np(item.astype(np.int64))
        return item

    if isinstance(index, tuple):
        return tuple(conv(i) for i in index)
    return conv(index)


def make(rng, shape, dtype=ember.float32, layout="contiguous"):
    shape = tuple(shape)
    if layout == "transposed" and len(shape) > 1:
        a = random_array(rng, shape[::-1], dtype)
        return from_np(a, dtype).permute(*reversed(range(len(shape)))), a.transpose()
    if layout == "stepped" and shape:
        a = random_array(rng, (shape[0] * 2,) + shape[1:], dtype)
        return from_np(a, dtype)[::2], a[::2]
    a = random_array(rng, shape, dtype)
    return from_np(a, dtype), a


def check_getitem(t, a, index):
    expected = torch_index(a, index)
    r = t[to_ember_index(index)]
    assert_equal(r, expected, t.dtype)
    return r


# ------------------------------------------------------------------------------------------ getitem, fixed cases

A = np.array
GET_CASES = [
    [0, 2],
    [-1, 0, 0],
    (A([0, 2]),),
    (A([[0, 1], [2, 0]]),),
    (slice(None), [1, 3]),
    (Ellipsis, [0, -1]),
    ([0, 2], [1, 3]),
    ([[0], [2]], [1, 3, 0]),
    (A([0, 2]), slice(1, 3), A([1, 4])),
    (slice(None), [0, 1], [2, 3]),
    ([1], slice(None), [0, 2]),
    (None, [0, 1], None),
    ([0, 1], None, [2, 3]),
    (0, slice(None), [1, 2]),
    ([1, 2], 0, [3, 4]),
    (A([True, False, True]),),
    (slice(None), A([True, False, False, True])),
    (A([[True, False, True, False], [False, False, True, True], [True, True, True, False]]),),
    (A([[True, False, True, False], [False, False, True, True], [True, True, True, False]]), [4]),
    ([True, False, True], [2, 3]),
    (Ellipsis, A([True, False, False, True, True])),
    ([],),
    (A([], np.int64),),
    (slice(None), A([], np.int64), slice(1, 2)),
    (True, [0, 1]),
    (True, True),
    ([0, 1], True, [1, 2]),
    (False, 0, False),
    (slice(None, None, 2), [[-1], [0]]),
    ([2],),
    (A([1, 0]), Ellipsis, A([0, 4])),
]


def case_id(index):
    return repr(index).replace("\n", "").replace(" ", "")


@pytest.mark.parametrize("index", GET_CASES, ids=case_id)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_getitem_matches_numpy(rng, index, layout):
    t, a = make(rng, (3, 4, 5), ember.float32, layout)
    r = check_getitem(t, a, index)
    # a copy: writing into it leaves the input alone
    if r.numel():
        before = a.copy()
        r.fill_(123)
        assert_equal(t, before)


@pytest.mark.parametrize("dtype", DTYPES + [ember.bfloat16, ember.uint8, ember.int8], ids=dtype_name)
def test_getitem_every_dtype(rng, dtype):
    t, a = make(rng, (4, 3), dtype)
    check_getitem(t, a, ([3, 0, -1],))
    check_getitem(t, a, (slice(None), A([True, False, True])))
    check_getitem(t, a, ([[0, 1], [2, 3]], [[2], [0]]))


@pytest.mark.parametrize("index_dtype", [ember.int64, ember.int32, ember.int16, ember.int8], ids=dtype_name)
def test_integer_index_dtypes(rng, index_dtype):
    t, a = make(rng, (5, 3))
    i = ember.tensor([4, -5, 2], dtype=index_dtype)
    assert_equal(t[i], a[[4, -5, 2]])
    assert_equal(t[i[::2]], a[[4, 2]])  # a stepped index tensor


def test_uint8_tensors_are_masks(rng):
    t, a = make(rng, (3, 2))
    assert_equal(t[ember.tensor([1, 0, 1], dtype=ember.uint8)], a[[True, False, True]])


def test_non_contiguous_and_expanded_index_tensors(rng):
    t, a = make(rng, (6, 5))
    idx = rng.integers(-6, 6, (4, 3))
    assert_equal(t[from_np(idx.T.copy()).t()], a[idx])
    assert_equal(t[from_np(np.repeat(idx, 2, 1))[:, ::2]], a[idx])
    row = from_np(idx[:1].copy()).expand(4, 3)
    assert_equal(t[row, 1:4], a[np.broadcast_to(idx[:1], (4, 3))][:, :, 1:4])
    m = rng.random((6, 5)) < 0.5
    assert_equal(t[from_np(m.T.copy()).t()], a[m])
    assert_equal(t.expand(2, 6, 5)[:, [0, 5]], np.broadcast_to(a, (2, 6, 5))[:, [0, 5]])


def test_nested_lists_and_list_as_tuple(rng):
    t, a = make(rng, (3, 4))
    # A list holding sequences is read as a tuple (PyTorch 1.13, and NumPy before 1.23).
    assert_equal(t[[[0, 2], [1, 3]]], a[[0, 2], [1, 3]])
    assert_equal(t[[0, slice(None)]], a[0, :])
    assert_equal(t[([[0, 2], [1, 1]],)], a[np.array([[0, 2], [1, 1]])])
    assert_equal(t[[0, 1, 2]], a[[0, 1, 2]])
    assert_equal(t[(0, 1),], a[[0, 1]])
    assert_equal(t[np.array([2, 0])], a[[2, 0]])


def test_zero_size_and_0d(rng):
    t, a = make(rng, (0, 3))
    assert_equal(t[[]], a[np.array([], np.intp)])
    assert_equal(t[:, [0, 2]], a[:, [0, 2]])
    assert_equal(t[np.zeros((0, 3), bool)], a[np.zeros((0, 3), bool)])
    t, a = make(rng, ())
    assert_equal(t[ember.tensor(True)], a[None])
    assert_equal(t[ember.tensor(False)], a[None][:0])
    assert_equal(t[True, True], np.array([a]))
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        t[None, [0, 0]]  # None adds no dim to index (PyTorch counts the indices against the input's dims)


def test_ints_beside_advanced_indices_select_first(rng):
    # PyTorch: x[0, :, [1, 2]] is x[0][:, [1, 2]] (shape [4, 2]); NumPy would give [2, 4].
    t, a = make(rng, (3, 4, 5))
    assert t[0, :, [1, 2]].shape == (4, 2)
    assert_equal(t[0, :, [1, 2]], a[0][:, [1, 2]])
    assert_equal(t[ember.tensor(1), :, [1, 2]], a[1][:, [1, 2]])


def test_transposition_rule(rng):
    t, a = make(rng, (2, 3, 4, 5))
    assert t[:, [0, 1], [1, 2], :].shape == (2, 2, 5)
    assert t[[0, 1], :, [1, 2]].shape == (2, 3, 5)
    assert t[:, [[0], [1]], :, [1, 2, 3]].shape == (2, 3, 2, 4)
    assert_equal(t[:, [[0], [1]], :, [1, 2, 3]], a[:, [[0], [1]], :, [1, 2, 3]])


def test_large_advanced_indexing_runs_in_parallel(rng):
    t, a = make(rng, (200, 300))
    idx = rng.integers(-200, 200, 500)
    assert_equal(t[from_np(idx)], a[idx])
    m = rng.random((200, 300)) < 0.7
    assert_equal(t[from_np(m)], a[m])
    assert_equal(t[from_np(idx[:300]), from_np(idx[:300] % 300)], a[idx[:300], idx[:300] % 300])


@pytest.mark.parametrize(
    "index, message",
    [
        ([3], "index 3 is out of bounds for dimension 0 with size 3"),
        ([-4], "index -4 is out of bounds for dimension 0 with size 3"),
        ((slice(None), [0, 4]), "index 4 is out of bounds for dimension 1 with size 4"),
        ((0, slice(None), [5]), "index 5 is out of bounds for dimension 1 with size 5"),
        (([0, 1], [0, 7]), "index 7 is out of bounds for dimension 1 with size 4"),
        (([0, 1], slice(None), [-6]), "index -6 is out of bounds for dimension 2 with size 5"),
        (
            ([0, 1], [0, 1, 2]),
            r"shape mismatch: indexing tensors could not be broadcast together with shapes \[2\], \[3\]",
        ),
        (
            (A([True, False]),),
            r"The shape of the mask \[2\] at index 0 does not match the shape of the indexed tensor "
            r"\[3, 4, 5\] at index 0",
        ),
        (
            (slice(None), A([[True] * 4] * 5)),
            r"The shape of the mask \[5, 4\] at index 0 does not match the shape of the "
            r"indexed tensor \[3, 4, 5\] at index 1",
        ),
        (([0.5],), "tensors used as indices must be long, int, byte or bool tensors"),
        ((A([[True] * 4] * 3), 0, 0), "too many indices for tensor of dimension 3"),
        (([0], [0], [0], [0]), "too many indices for tensor of dimension 3"),
        ((Ellipsis, [0], Ellipsis), "single ellipsis"),
    ],
)
def test_getitem_and_setitem_errors(index, message):
    t = ember.zeros(3, 4, 5)
    with pytest.raises(IndexError, match=message):
        t[to_ember_index(index)]
    with pytest.raises(IndexError, match=message):
        t[to_ember_index(index)] = 1
    assert_equal(t, np.zeros((3, 4, 5), np.float32))  # nothing written


def test_float_tensor_index_is_an_index_error():
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        ember.zeros(3)[ember.tensor([0.0])]
    with pytest.raises(IndexError, match="only integers, slices"):
        ember.zeros(3)["a"]


# ------------------------------------------------------------------------------------------ setitem, fixed cases


def check_setitem(t, a, index, value, np_value=None):
    """t[index] = value against NumPy, with PyTorch's reading of the index; the version goes up by one."""
    target = torch_index(np.arange(a.size).reshape(a.shape), index)
    np_value = value if np_value is None else np_value
    a.flat[target.ravel()] = np.broadcast_to(np.asarray(np_value).astype(a.dtype), target.shape).ravel()
    before = t._version
    t[to_ember_index(index)] = value
    assert_equal(t, a)
    assert t._version == before + 1


@pytest.mark.parametrize("index", GET_CASES, ids=case_id)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_setitem_scalar_matches_numpy(rng, index, layout):
    t, a = make(rng, (3, 4, 5), ember.float32, layout)
    check_setitem(t, a, index, 7.5)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
def test_setitem_casts_and_broadcasts(rng, dtype):
    t, a = make(rng, (4, 3), dtype)
    check_setitem(t, a, ([0, 2],), 2)
    values = rng.standard_normal(3) * 5
    check_setitem(t, a, ([1, 3],), from_np(values), values)  # a float64 row broadcast over the rows, cast
    check_setitem(t, a, (slice(None), A([True, False, True])), [[1], [0], [1], [0]], np.array([[1], [0], [1], [0]]))
    m = rng.random((4, 3)) < 0.5
    check_setitem(t, a, (m,), True)


def test_setitem_values_of_many_shapes(rng):
    t, a = make(rng, (4, 5), ember.int64)
    check_setitem(t, a, ([0, 3], slice(1, 4)), np.arange(6).reshape(2, 3))
    check_setitem(t, a, ([0, 3], slice(1, 4)), from_np(np.arange(3)), np.arange(3))
    check_setitem(t, a, ([[0], [1]], [0, 2]), ember.tensor([[[5, 6]]]), np.array([5, 6]))  # leading 1s dropped
    check_setitem(t, a, (A([1, 2]),), ember.tensor(9), 9)
    check_setitem(t, a, (A([], np.int64),), ember.zeros(0, 5, dtype=ember.int64), np.zeros((0, 5), np.int64))
    with pytest.raises(
        RuntimeError,
        match=r"shape mismatch: value tensor of shape \[3\] cannot be broadcast to "
        r"indexing result of shape \[2, 5\]",
    ):
        t[[0, 1]] = ember.ones(3, dtype=ember.int64)


def test_setitem_repeated_indices_last_write_wins():
    t = ember.zeros(4)
    t[[1, 1, 3, 1]] = ember.tensor([1.0, 2.0, 3.0, 4.0])
    assert_equal(t, np.array([0, 4, 0, 3], np.float32))


def test_setitem_from_an_alias_of_itself(rng):
    t, a = make(rng, (5,), ember.int64)
    t[[0, 1, 2]] = t[2:]
    a[[0, 1, 2]] = a[2:].copy()
    assert_equal(t, a)
    u = ember.tensor([2, 0, 1])
    u[u] = ember.tensor([7, 8, 9])
    assert_equal(u, np.array([8, 9, 7]))


def test_setitem_large_mask_in_parallel(rng):
    t, a = make(rng, (300, 400))
    m = rng.random((300, 400)) < 0.5
    t[from_np(m)] = 0.0
    a[m] = 0
    assert_equal(t, a)
    t[:, from_np(m[0])] = ember.arange(300.0)[:, None]
    a[:, m[0]] = np.arange(300.0)[:, None]
    assert_equal(t, a)


# ------------------------------------------------------------------------------------------ hypothesis

KINDS = ["int", "slice", "none", "ellipsis", "true", "false", "bool0d", "array", "list", "mask", "mask_list"]
WIDTH = {"int": 1, "slice": 1, "array": 1, "list": 1, "mask_list": 1}


@st.composite
def index_cases(draw):
    """A shape of 0-4 dims of sizes 0-4 and an index mixing basic and advanced items that fits it."""
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    items, used, ellipsis = [], 0, False
    for k in kinds:
        if k == "ellipsis":
            if ellipsis:
                continue
            ellipsis = True
        w = draw(st.integers(1, 2)) if k == "mask" else WIDTH.get(k, 0)
        if used + w > len(shape):
            continue
        used += w
        items.append((k, w))
    # The dims each item covers: left to right before the Ellipsis, right-aligned after it.
    ell = next((i for i, (k, _) in enumerate(items) if k == "ellipsis"), len(items))
    dims, d = [], 0
    for i, (k, w) in enumerate(items):
        if i == ell:
            d = len(shape) - sum(w for _, w in items[ell + 1 :])
        dims.append(list(range(d, d + w)))
        d += w
    common = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    index = []
    for (k, w), ds in zip(items, dims):
        sizes = [shape[x] for x in ds]
        if k == "int":
            index.append(slice(None) if sizes[0] == 0 else int(rng.integers(-sizes[0], sizes[0])))
        elif k == "slice":
            n = sizes[0]
            index.append(
                slice(
                    draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))),
                    draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))),
                    draw(st.one_of(st.none(), st.integers(1, 3))),
                )
            )
        elif k in ("none", "ellipsis", "true", "false"):
            index.append({"none": None, "ellipsis": Ellipsis, "true": True, "false": False}[k])
        elif k == "bool0d":
            index.append(np.array(bool(rng.integers(0, 2))))
        elif k in ("array", "list"):
            # a shape that broadcasts with `common` (some dims dropped or 1), empty for a dim of size 0
            ashape = tuple(s if rng.random() < 0.7 else 1 for s in common[int(rng.integers(0, len(common) + 1)) :])
            if k == "list":
                ashape = ashape[-1:]
            if sizes[0] == 0:
                ashape = (0,)
            arr = rng.integers(-sizes[0], max(sizes[0], 1), ashape) if sizes[0] else np.zeros(ashape, np.int64)
            index.append(arr.tolist() if k == "list" and arr.ndim else arr)
        elif k == "mask":
            index.append(rng.random(sizes) < 0.5)
        else:
            index.append((rng.random(sizes[0]) < 0.5).tolist())
    if len(index) == 1 and draw(st.booleans()):
        return shape, index[0], seed
    return shape, tuple(index), seed


def torch_index_or_error(a, index):
    try:
        return torch_index(a, index)
    except IndexError:
        return None


@settings(max_examples=400, deadline=None)
@given(index_cases(), st.sampled_from(DTYPES), st.sampled_from(["contiguous", "transposed", "stepped"]))
def test_random_advanced_getitem_matches_numpy(case, dtype, layout):
    shape, index, seed = case
    t, a = make(np.random.default_rng(seed), shape, dtype, layout)
    expected = torch_index_or_error(a, index)
    if expected is None:  # indices that do not broadcast together
        with pytest.raises(IndexError):
            t[to_ember_index(index)]
        return
    assert_equal(t[to_ember_index(index)], expected, dtype)


@settings(max_examples=300, deadline=None)
@given(index_cases(), st.sampled_from(["scalar", "tensor", "row", "list"]), st.sampled_from(DTYPES))
def test_random_advanced_setitem_matches_numpy(case, kind, dtype):
    shape, index, seed = case
    t, a = make(np.random.default_rng(seed), shape, dtype, "transposed")
    target = torch_index_or_error(np.arange(a.size).reshape(a.shape), index)
    if target is None:
        with pytest.raises(IndexError):
            t[to_ember_index(index)] = 1
        return
    # Each value is a function of the element it lands on, so that repeated indices agree on what to write.
    values = (target * 7 % 23).astype(np_dtype(dtype))
    if kind == "scalar":
        value = np_value = 3
    elif kind == "row" and target.ndim and np.unique(target).size == target.size:
        np_value = (np.arange(target.shape[-1]) % 5).astype(np_dtype(dtype))  # broadcast over the leading dims
        value = from_np(np_value, dtype)
    elif kind == "list" and values.size:
        value, np_value = values.tolist(), values
    else:
        value, np_value = from_np(values, dtype), values
    a.flat[target.ravel()] = np.broadcast_to(np.asarray(np_value).astype(a.dtype), target.shape).ravel()
    before = t._version
    t[to_ember_index(index)] = value
    assert_equal(t, a, dtype)
    assert t._version == before + 1


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_masks_over_several_dims_get_set_and_gradient(rng, layout):
    # A mask over dims that merge into one is read as the positions of its flattened trues; other layouts take the
    # per-dim indices. Results, writes and gradients are NumPy's either way.
    a = rng.standard_normal((6, 5, 4, 3))
    t = from_np(a)
    if layout == "transposed":
        t, a = t.permute(0, 2, 1, 3), a.transpose(0, 2, 1, 3)
    elif layout == "sliced":
        t, a = t[:, :, ::2], a[:, :, ::2]
    lead, middle, full = a[..., 0] > 0, a[0, ..., 0] > 0, a > 0
    assert_equal(t[from_np(lead)], a[lead])
    assert_equal(t[from_np(full)], a[full])
    assert_equal(t[:, from_np(middle)], a[:, middle])
    assert_equal(t.masked_select(from_np(full)), a[full])
    u, b = t.clone(), a.copy()
    u[from_np(lead)] = from_np(np.arange(int(lead.sum()) * 3, dtype=np.float64).reshape(-1, 3))
    b[lead] = np.arange(int(lead.sum()) * 3).reshape(-1, 3)
    assert_equal(u, b)
    x = from_np(a).requires_grad_()
    w = rng.standard_normal(a[:, middle].shape)
    x[:, from_np(middle)].backward(from_np(w))
    g = np.zeros_like(a)
    g[:, middle] = w
    assert_equal(x.grad, g)


def test_setitem_of_a_number_through_one_index_records_pytorchs_nodes(rng):
    a = rng.standard_normal((4, 5))
    x = from_np(a).requires_grad_()
    y = x * 1
    y[from_np(a > 0)] = 2.5
    assert y.grad_fn.name() == "MaskedFillBackward0"
    assert_equal(y, np.where(a > 0, 2.5, a))
    y.backward(ember.ones(4, 5))
    assert_equal(x.grad, (a <= 0).astype(np.float64))
    z = from_np(a) * 1
    z.requires_grad_()
    w = z * 1
    w[ember.tensor([0, 2])] = -1.0
    assert w.grad_fn.name() == "IndexFillBackward0"
    b = a.copy()
    b[[0, 2]] = -1.0
    assert_equal(w, b)
