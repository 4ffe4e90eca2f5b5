"""View ops against NumPy: every view's values equal NumPy's, and writing through it changes the base
exactly where NumPy's view of the same elements says (conftest.check_view)."""

import math

import numpy as np
import pytest
from conftest import assert_equal, check_view, contiguous_strides, from_np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import as_strided as np_as_strided
from numpy.lib.stride_tricks import sliding_window_view

import ember

BASES = {
    "contiguous": (lambda t: t, lambda a: a),
    "transposed": (lambda t: t.transpose(0, -1), lambda a: np.swapaxes(a, 0, -1)),
    "stepped": (lambda t: t[::2], lambda a: a[::2]),
}


def make_base(rng, shape, layout="contiguous"):
    """A random float32 tensor of `shape` laid out as `layout` (a view of a larger root for
    "stepped" and "transposed"), and the same values in NumPy."""
    make, np_make = BASES[layout]
    if layout == "stepped":
        root_shape = (shape[0] * 2,) + tuple(shape[1:])
    elif layout == "transposed":
        root_shape = tuple(shape[-1:]) + tuple(shape[1:-1]) + tuple(shape[:1]) if len(shape) > 1 else shape
    else:
        root_shape = shape
    a = rng.standard_normal(root_shape).astype(np.float32)
    t = make(from_np(a))
    expected = np_make(a).copy()
    assert_equal(t, expected)
    return t, expected


# ------------------------------------------------------------------------------------------ view, reshape


@pytest.mark.parametrize(
    "shape, new",
    [
        ((2, 3, 4), (6, 4)),
        ((2, 3, 4), (24,)),
        ((2, 3, 4), (4, -1)),
        ((2, 3, 4), (-1,)),
        ((2, 3, 4), (2, 1, 3, 1, 4)),
        ((6,), (2, 3)),
        ((1,), ()),
        ((), (1, 1)),
        ((), (-1,)),
        ((0, 3), (3, 0)),
        ((0, 3), (-1,)),
        ((4, 0), (2, 2, 0)),
    ],
    ids=str,
)
def test_view_of_contiguous_tensor(rng, shape, new):
    t, a = make_base(rng, shape)
    v = t.view(*new)
    expected_shape = np.empty(shape).reshape(new).shape
    assert v.shape == expected_shape and v.stride() == contiguous_strides(expected_shape)
    assert v.data_ptr() == t.data_ptr()
    check_view(t, v, a, lambda x: x.reshape(new))
    assert t.view(new).shape == expected_shape and t.view(list(new)).shape == expected_shape


def test_view_of_a_transposed_tensor_where_legal(rng):
    # Splitting a dim is always legal; merging dims is legal when they are contiguous with each other.
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x = from_np(a)
    tt = x.t()  # (6, 4), strides (1, 6)
    v = tt.view(2, 3, 4)
    assert v.stride() == (3, 1, 6)
    check_view(x, v, a, lambda b: b.T.reshape(2, 3, 4))
    v = tt.view(6, 2, 2)
    assert v.stride() == (1, 12, 6)
    check_view(x, v, a, lambda b: b.T.reshape(6, 2, 2))

    b = rng.standard_normal((2, 3, 4)).astype(np.float32)
    y = from_np(b)
    p = y.permute(1, 2, 0)  # (3, 4, 2), strides (4, 1, 12): dims 0 and 1 are contiguous with each other
    v = p.view(12, 2)
    assert v.stride() == (1, 12)
    check_view(y, v, b, lambda c: c.transpose(1, 2, 0).reshape(12, 2))


def test_view_of_a_stepped_tensor_splits_and_keeps_steps(rng):
    a = rng.standard_normal((8, 6)).astype(np.float32)
    x = from_np(a)
    s = x[::2]  # (4, 6), strides (12, 1)
    v = s.view(2, 2, 3, 2)
    assert v.stride() == (24, 12, 2, 1)
    check_view(x, v, a, lambda b: b[::2].reshape(2, 2, 3, 2))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_reshape_is_a_view_when_possible_and_a_copy_otherwise(rng, layout):
    t, a = make_base(rng, (4, 6), layout)
    r = t.reshape(-1)
    assert_equal(r, a.reshape(-1))
    if layout == "contiguous":
        assert r.data_ptr() == t.data_ptr()
        check_view(t, r, a, lambda b: b.reshape(-1))
    else:  # transposed or stepped rows cannot be flattened in place
        assert r.is_contiguous() and r.data_ptr() != t.data_ptr()
        r.fill_(7)
        assert_equal(t, a)
    s = ember.reshape(t, (2, 2, 6))  # splitting dim 0 is always a view
    assert s.data_ptr() == t.data_ptr()
    check_view(t, s, a, lambda b: b.reshape(2, 2, 6))
    check_view(t, t.reshape_as(ember.zeros(2, 2, 6)), a, lambda b: b.reshape(2, 2, 6))


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (5,)], ids=str)
def test_reshape_and_view_of_degenerate_shapes(rng, shape):
    t, a = make_base(rng, shape)
    for new in [(-1,), (1, -1) if a.size else (0, 1), tuple(reversed(shape))]:
        if math.prod(new) != a.size and -1 not in new:
            continue
        check_view(t, t.reshape(new), a, lambda b: b.reshape(new))
        check_view(t, t.view(new), a, lambda b: b.reshape(new))


# ----------------------------------------------------------------------------------- dimension shuffles


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("dims", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, -3, -2)], ids=str)
def test_permute(rng, layout, dims):
    t, a = make_base(rng, (2, 3, 4), layout)
    p = t.permute(*dims)
    assert p.stride() == tuple(t.stride()[d] for d in dims)
    check_view(t, p, a, lambda b: b.transpose(dims))
    assert ember.permute(t, dims).shape == a.transpose(dims).shape
    assert t.permute(list(dims)).shape == a.transpose(dims).shape


@pytest.mark.parametrize("d0, d1", [(0, 1), (0, 2), (1, -1), (-3, -3), (2, 0)])
def test_transpose_and_swapaxes(rng, d0, d1):
    t, a = make_base(rng, (2, 3, 4))
    check_view(t, t.transpose(d0, d1), a, lambda b: np.swapaxes(b, d0, d1))
    check_view(t, t.swapaxes(d0, d1), a, lambda b: np.swapaxes(b, d0, d1))
    check_view(t, ember.transpose(t, d0, d1), a, lambda b: np.swapaxes(b, d0, d1))
    check_view(t, ember.swapaxes(t, d0, d1), a, lambda b: np.swapaxes(b, d0, d1))
    check_view(t, t.swapdims(d0, d1), a, lambda b: np.swapaxes(b, d0, d1))


@pytest.mark.parametrize("shape", [(), (4,), (3, 5), (0, 2)], ids=str)
def test_t(rng, shape):
    t, a = make_base(rng, shape)
    check_view(t, t.t(), a, lambda b: b.T)
    check_view(t, ember.t(t), a, lambda b: b.T)


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4), (2, 1, 3, 2)], ids=str)
def test_mT(rng, shape):
    t, a = make_base(rng, shape)
    check_view(t, t.mT, a, lambda b: np.swapaxes(b, -2, -1))


# ---------------------------------------------------------------------------------------------- expand


@pytest.mark.parametrize(
    "shape, size",
    [
        ((3, 1), (3, 4)),
        ((1,), (2, 3, 5)),
        ((), (2, 3)),
        ((2, 1, 3), (4, 2, 5, 3)),
        ((3, 1), (-1, 4)),
        ((1, 3), (0, 3)),
        ((3,), (2, -1)),
        ((2, 3), (2, 3)),
    ],
    ids=str,
)
def test_expand(rng, shape, size):
    t, a = make_base(rng, shape)
    e = t.expand(*size)
    target = tuple(s if s != -1 else shape[i - (len(size) - len(shape))] for i, s in enumerate(size))
    assert e.shape == target
    # new and broadcast dims get stride 0; the others keep theirs
    offset = len(target) - len(shape)
    for i, s in enumerate(target):
        j = i - offset
        if j >= 0 and shape[j] == s:
            assert e.stride(i) == t.stride(j)
        elif s != 1:
            assert e.stride(i) == 0
    check_view(t, e, a, lambda b: np.broadcast_to(b, target))
    assert e.data_ptr() == t.data_ptr()
    assert t.expand(size).shape == target and t.expand(list(size)).shape == target


def test_expand_as(rng):
    t, a = make_base(rng, (3, 1), "transposed")
    check_view(t, t.expand_as(ember.zeros(2, 3, 4)), a, lambda b: np.broadcast_to(b, (2, 3, 4)))


def test_writes_to_one_element_of_an_expanded_view_reach_the_whole_broadcast_row():
    base = ember.zeros(3, 1)
    e = base.expand(3, 4)
    e[1, 2] = 5  # element (1, 2) is base[1, 0]; every e[1, :] reads it
    assert_equal(e, np.array([[0] * 4, [5] * 4, [0] * 4], np.float32))
    assert_equal(base, np.array([[0], [5], [0]], np.float32))


# ------------------------------------------------------------------------------------- squeeze/unsqueeze


@pytest.mark.parametrize("shape", [(1, 3, 1, 2), (1,), (), (2, 3), (1, 0, 1)], ids=str)
def test_squeeze_all(rng, shape):
    t, a = make_base(rng, shape)
    check_view(t, t.squeeze(), a, np.squeeze)
    check_view(t, ember.squeeze(t), a, np.squeeze)


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1, -4])
def test_squeeze_dim_drops_it_only_when_its_size_is_1(rng, dim):
    t, a = make_base(rng, (1, 3, 1, 2))

    def np_squeeze(b):
        return np.squeeze(b, dim) if b.shape[dim] == 1 else b

    check_view(t, t.squeeze(dim), a, np_squeeze)
    check_view(t, ember.squeeze(t, dim), a, np_squeeze)


@pytest.mark.parametrize("dims", [(0, 2), (0, 1), (-1, -2), (1,), (), (0, 2, -2)], ids=str)
def test_squeeze_tuple_of_dims(rng, dims):
    t, a = make_base(rng, (1, 3, 1, 1))
    drop = tuple(sorted({d % 4 for d in dims if a.shape[d] == 1}))
    check_view(t, t.squeeze(dims), a, lambda b: np.squeeze(b, drop))
    check_view(t, t.squeeze(list(dims)), a, lambda b: np.squeeze(b, drop))


def test_squeeze_of_0d_tensor(rng):
    t, a = make_base(rng, ())
    for r in (t.squeeze(), t.squeeze(0), t.squeeze(-1)):
        check_view(t, r, a, lambda b: b[...])


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_unsqueeze_every_position(rng, shape):
    t, a = make_base(rng, shape)
    n = len(shape)
    for d in range(-n - 1, n + 1):
        u = t.unsqueeze(d)
        assert u.shape == np.expand_dims(a, d).shape
        check_view(t, u, a, lambda b: np.expand_dims(b, d))
        check_view(t, ember.unsqueeze(t, d), a, lambda b: np.expand_dims(b, d))


def test_unsqueeze_of_non_contiguous_tensor(rng):
    t, a = make_base(rng, (3, 4), "stepped")
    u = t.unsqueeze(1)
    assert u.stride(0) == t.stride(0) and u.stride(2) == t.stride(1)
    check_view(t, u, a, lambda b: b[:, None])


# --------------------------------------------------------------------------------- flatten, unflatten


@pytest.mark.parametrize("start, end", [(0, -1), (1, 2), (0, 1), (2, 3), (-2, -1), (1, 1), (0, 3)], ids=str)
def test_flatten(rng, start, end):
    t, a = make_base(rng, (2, 3, 4, 5))
    s, e = start % 4, end % 4
    new = a.shape[:s] + (math.prod(a.shape[s : e + 1]),) + a.shape[e + 1 :]
    f = t.flatten(start, end)
    assert f.data_ptr() == t.data_ptr()
    check_view(t, f, a, lambda b: b.reshape(new))
    check_view(t, ember.flatten(t, start_dim=start, end_dim=end), a, lambda b: b.reshape(new))


def test_flatten_of_0d_and_non_contiguous(rng):
    t, a = make_base(rng, ())
    check_view(t, t.flatten(), a, lambda b: b.reshape(1))
    t, a = make_base(rng, (3, 4, 2), "transposed")  # strides (1, 3, 12): no two dims merge in place
    for start, end in [(0, -1), (1, 2), (0, 1)]:
        f = t.flatten(start, end)
        assert f.is_contiguous()
        assert_equal(f, a.reshape(a.shape[:start] + (-1,) + a.shape[end + 1 :] if end != -1 else -1))
        f.fill_(7)
        assert_equal(t, a)
    y, b = make_base(rng, (2, 3, 4))
    p = y.permute(1, 2, 0)  # (3, 4, 2), strides (4, 1, 12): dims 0 and 1 merge
    g = p.flatten(0, 1)
    assert g.stride() == (1, 12)
    check_view(y, g, b, lambda c: c.transpose(1, 2, 0).reshape(12, 2))


@pytest.mark.parametrize("dim, sizes", [(1, (2, 3)), (1, (-1, 2)), (-1, (4, 1)), (0, (1, 2, 1)), (2, (2, 2))], ids=str)
def test_unflatten(rng, dim, sizes):
    t, a = make_base(rng, (2, 6, 4))
    d = dim % 3
    inner = np.empty(a.shape[d]).reshape(sizes).shape
    new = a.shape[:d] + inner + a.shape[d + 1 :]
    check_view(t, t.unflatten(dim, sizes), a, lambda b: b.reshape(new))
    check_view(t, ember.unflatten(t, dim, list(sizes)), a, lambda b: b.reshape(new))


# ------------------------------------------------------------------------------- narrow, select, slices


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize(
    "dim, start, length", [(0, 1, 2), (1, -3, 2), (1, 0, 0), (-1, 4, 1), (0, -4, 4), (1, 5, 0)], ids=str
)
def test_narrow(rng, layout, dim, start, length):
    t, a = make_base(rng, (4, 5), layout)
    s = start % a.shape[dim] if start < 0 else start
    idx = [slice(None)] * 2
    idx[dim] = slice(s, s + length)
    n = t.narrow(dim, start, length)
    if length:
        assert n.data_ptr() == t.data_ptr() + s * t.stride(dim) * t.element_size()
    check_view(t, n, a, lambda b: b[tuple(idx)])
    check_view(t, ember.narrow(t, dim, start, length), a, lambda b: b[tuple(idx)])


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("dim, index", [(0, 0), (0, -1), (1, 2), (-1, -4), (2, 3)], ids=str)
def test_select(rng, layout, dim, index):
    t, a = make_base(rng, (4, 5, 4), layout)
    s = t.select(dim, index)
    assert s.storage_offset() == t.storage_offset() + (index % a.shape[dim]) * t.stride(dim)
    check_view(t, s, a, lambda b: np.moveaxis(b, dim, 0)[index])
    check_view(t, ember.select(t, dim, index), a, lambda b: np.moveaxis(b, dim, 0)[index])


# ---------------------------------------------------------------------------------------------- as_strided


@pytest.mark.parametrize(
    "size, stride, offset",
    [
        ((3, 3), (1, 1), 0),
        ((2, 2), (3, 1), 1),
        ((4,), (2,), None),
        ((2, 3), (0, 2), 5),
        ((), (), 7),
        ((3, 2, 2), (4, 2, 1), 0),
        ((0, 5), (1, 1), 100),
    ],
    ids=str,
)
def test_as_strided_matches_numpy(rng, size, stride, offset):
    t, a = make_base(rng, (12,))

    def np_fn(b):
        start = 0 if offset is None else offset
        return np_as_strided(b[start:], shape=size, strides=[s * b.itemsize for s in stride])

    v = t.as_strided(size, stride, offset) if offset is not None else t.as_strided(size, stride)
    assert v.shape == size and v.stride() == stride
    assert v.storage_offset() == (offset or 0)
    check_view(t, v, a, np_fn)


def test_as_strided_counts_offset_from_the_storage_not_the_view(rng):
    t, a = make_base(rng, (12,))
    n = t[4:]  # storage offset 4
    v = n.as_strided((2, 2), (1, 2))  # keeps n's offset
    assert v.storage_offset() == 4
    check_view(t, v, a, lambda b: np_as_strided(b[4:], (2, 2), (b.itemsize, 2 * b.itemsize)))
    w = ember.as_strided(n, (3,), (3,), 1)  # an explicit offset is absolute
    assert w.storage_offset() == 1
    check_view(t, w, a, lambda b: b[1:8:3])


# ---------------------------------------------------------------------------------------------- diagonal


@pytest.mark.parametrize("offset", [0, 1, 2, -1, -3, 5, -6])
def test_diagonal_2d(rng, offset):
    t, a = make_base(rng, (4, 5))
    check_view(t, t.diagonal(offset), a, lambda b: np.diagonal(b, offset))
    check_view(t, ember.diagonal(t, offset=offset), a, lambda b: np.diagonal(b, offset))


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize(
    "offset, dim1, dim2", [(0, 0, 1), (1, 0, 2), (-1, 2, 0), (0, -1, -2), (2, 1, 2), (-2, 1, 0)], ids=str
)
def test_diagonal_3d(rng, layout, offset, dim1, dim2):
    t, a = make_base(rng, (3, 4, 5), layout)
    d = t.diagonal(offset=offset, dim1=dim1, dim2=dim2)
    assert d.data_ptr() >= t.data_ptr() or d.numel() == 0
    check_view(t, d, a, lambda b: np.diagonal(b, offset, dim1, dim2))


# ------------------------------------------------------------------------------------------------ unfold


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize(
    "dim, size, step", [(0, 2, 1), (1, 3, 2), (-1, 1, 3), (1, 7, 1), (0, 6, 4), (1, 0, 2)], ids=str
)
def test_unfold_matches_sliding_window_view(rng, layout, dim, size, step):
    t, a = make_base(rng, (6, 7), layout)

    def np_fn(b):
        w = sliding_window_view(b, size, axis=dim)
        idx = [slice(None)] * b.ndim
        idx[dim] = slice(None, None, step)
        return w[tuple(idx)]

    check_view(t, t.unfold(dim, size, step), a, np_fn)


def test_unfold_of_0d_tensor(rng):
    t, a = make_base(rng, ())
    check_view(t, t.unfold(0, 1, 1), a, lambda b: b.reshape(1))


# ----------------------------------------------------------------------------------- properties (random)


@st.composite
def arrays_and_permutations(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    perm = tuple(draw(st.permutations(range(len(shape)))))
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, perm, seed


@settings(max_examples=150, deadline=None)
@given(arrays_and_permutations())
def test_random_permutations_match_numpy(case):
    shape, perm, seed = case
    rng = np.random.default_rng(seed)
    t, a = make_base(rng, shape)
    p = t.permute(perm)
    check_view(t, p, a, lambda b: b.transpose(perm))
    # a permuted tensor reshaped to its own shape is the same view
    r = p.reshape(p.shape)
    assert r.data_ptr() == p.data_ptr()
    if p.numel():  # (strides of dims of size 1 are arbitrary)
        assert [st for st, n in zip(r.stride(), r.shape) if n != 1] == [
            st for st, n in zip(p.stride(), p.shape) if n != 1
        ]


def test_view_of_zero_element_tensor_to_its_own_shape_keeps_strides():
    p = ember.zeros(0, 0, 2).permute(0, 2, 1)
    assert p.stride() == (2, 1, 2)
    assert p.view(0, 2, 0).stride() == (2, 1, 2)
    assert p.reshape(0, 2, 0).stride() == (2, 1, 2)


@st.composite
def slices_of(draw, shape):
    out = []
    for s in shape:
        start = draw(st.one_of(st.none(), st.integers(-s - 2, s + 2)))
        stop = draw(st.one_of(st.none(), st.integers(-s - 2, s + 2)))
        step = draw(st.one_of(st.none(), st.integers(1, 4)))
        out.append(slice(start, stop, step))
    return tuple(out)


@st.composite
def sliced_views(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=4)))
    slices = draw(slices_of(shape))
    perm = tuple(draw(st.permutations(range(len(shape)))))
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, slices, perm, seed


@settings(max_examples=150, deadline=None)
@given(sliced_views())
def test_random_slices_then_permutations_match_numpy(case):
    shape, slices, perm, seed = case
    rng = np.random.default_rng(seed)
    t, a = make_base(rng, shape)
    v = t[slices].permute(perm)
    check_view(t, v, a, lambda b: b[slices].transpose(perm))


def factorizations(n):
    """The prime factors of n (n >= 1)."""
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


@st.composite
def reshapes(draw):
    shape, slices, perm, seed = draw(sliced_views())
    sliced = np.empty(shape)[slices].transpose(perm).shape
    numel = math.prod(sliced)
    if numel == 0:
        new = list(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))
        new[draw(st.integers(0, len(new) - 1))] = 0
    else:
        factors = draw(st.permutations(factorizations(numel)))
        ngroups = draw(st.integers(1, max(1, min(4, len(factors)))))
        cuts = sorted(draw(st.lists(st.integers(0, len(factors)), min_size=ngroups - 1, max_size=ngroups - 1)))
        bounds = [0] + cuts + [len(factors)]
        new = [math.prod(factors[i:j]) for i, j in zip(bounds, bounds[1:])]
        for _ in range(draw(st.integers(0, 2))):
            new.insert(draw(st.integers(0, len(new))), 1)
    return shape, slices, perm, tuple(new), seed


@settings(max_examples=200, deadline=None)
@given(reshapes())
def test_random_reshapes_view_exactly_when_numpy_can(case):
    shape, slices, perm, new, seed = case
    rng = np.random.default_rng(seed)
    t, a = make_base(rng, shape)
    x = t[slices].permute(perm)
    b = a[slices].transpose(perm)
    assert_equal(x.reshape(new), b.reshape(new))
    try:
        np.reshape(b, new, copy=False)
        numpy_can = True
    except ValueError:
        numpy_can = False
    if numpy_can:
        v = x.view(new)
        check_view(t, v, a, lambda c: c[slices].transpose(perm).reshape(new))
        assert x.reshape(new).data_ptr() == x.data_ptr()
    else:
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            x.view(new)
        r = x.reshape(new)
        r.fill_(7)
        assert_equal(t, a)  # reshape copied


# -- view(dtype): the same bytes as another dtype ------------------------------------------------------------------


@pytest.mark.parametrize(
    "src,dst",
    [
        ("float32", "int32"),
        ("float32", "uint8"),
        ("int16", "int64"),
        ("float64", "int16"),
        ("uint8", "float32"),
        ("int32", "float32"),
    ],
)
def test_view_dtype_matches_numpy(src, dst):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 255, (3, 8), dtype=np.uint8).view(np.dtype(src)).copy()
    t = ember.from_numpy(a)
    v = t.view(getattr(ember, dst))
    want = a.view(np.dtype(dst))
    assert tuple(v.shape) == want.shape and v.dtype == getattr(ember, dst)
    assert v.stride() == tuple(s // want.itemsize for s in want.strides)
    np.testing.assert_array_equal(v.numpy(), want)
    v.zero_()  # shares storage
    assert not a.any()


def test_view_dtype_bfloat16_and_offsets():
    t = ember.tensor([1.0, -2.5, 3.0], dtype=ember.bfloat16)
    bits = t.view(ember.int16)
    assert bits.tolist() == [0x3F80, -16352, 0x4040]  # bfloat16 is the top half of the float32 bits
    x = ember.arange(16, dtype=ember.int16).reshape(4, 4)
    v = x[1:].view(ember.int64)
    assert tuple(v.shape) == (3, 1) and v.storage_offset() == 1
    assert v.view(ember.int16).tolist() == x[1:].tolist()


def test_view_dtype_errors_say_why():
    x = ember.arange(8, dtype=ember.int16).reshape(2, 4)
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 4 to view int16 as int64"):
        x[:, :3].view(ember.int64)
    with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1"):
        x.t().view(ember.int32)
    with pytest.raises(RuntimeError, match=r"self.dim\(\) cannot be 0"):
        ember.tensor(1.0).view(ember.int16)
    with pytest.raises(RuntimeError, match=r"storage_offset\(\) must be divisible by 2"):
        ember.arange(8, dtype=ember.int16)[1:5].view(ember.int32)
