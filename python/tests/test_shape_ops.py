"""Shape and indexing ops against NumPy: joining and splitting, reordering and repetition, gather/scatter, the
index_* ops, masks, nonzero, take and triangles. Inputs are random, in several dtypes and layouts (contiguous,
transposed, stepped, expanded), with zero-size and 0-d cases and the error paths."""

import numpy as np
import pytest
from conftest import LAYOUTS, assert_equal, dtype_name, from_np, make_layout, np_dtype

import ember

DTYPES = [ember.float32, ember.float64, ember.int64, ember.bool, ember.float16]


make = make_layout


def index_array(rng, shape, high, low=0):
    return rng.integers(low, high, shape) if high > low else np.zeros(shape, np.int64)


def tensor_list(ts):
    return [t for t, _ in ts], [a for _, a in ts]


# ------------------------------------------------------------------------------------------ cat / stack


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_matches_numpy(rng, dtype, layout, dim):
    shapes = [(2, 3, 4), (2, 3, 4), (2, 3, 4)]
    for i, n in enumerate([1, 3, 2]):
        shapes[i] = tuple(n if d == dim % 3 else s for d, s in enumerate(shapes[i]))
    ts, arrays = tensor_list([make(rng, s, dtype, layout) for s in shapes])
    assert_equal(ember.cat(ts, dim), np.concatenate(arrays, dim), dtype)
    assert_equal(ember.cat(tuple(ts), dim=dim), np.concatenate(arrays, dim), dtype)
    assert_equal(ember.concat(ts, dim), np.concatenate(arrays, dim), dtype)
    assert_equal(ember.concatenate(ts, dim), np.concatenate(arrays, dim), dtype)


@pytest.mark.parametrize(
    "a_dtype, b_dtype",
    [
        (ember.int64, ember.float32),
        (ember.bool, ember.int8),
        (ember.int32, ember.float16),
        (ember.uint8, ember.int8),
        (ember.float16, ember.bfloat16),
        (ember.bool, ember.bool),
        (ember.float32, ember.float64),
    ],
)
def test_cat_promotes_dtypes(rng, a_dtype, b_dtype):
    (a, x), (b, y) = make(rng, (2, 3), a_dtype), make(rng, (1, 3), b_dtype)
    r = ember.cat([a, b])
    expected = ember.promote_types(a_dtype, b_dtype)
    assert_equal(r, np.concatenate([x, y]).astype(np_dtype(expected)), expected)


def test_cat_zero_size_and_legacy_empty_tensors(rng):
    (a, x), (b, y) = make(rng, (2, 3)), make(rng, (0, 3))
    assert_equal(ember.cat([b, a, b]), np.concatenate([y, x, y]))
    assert_equal(ember.cat([a, b], 1 - 1), np.concatenate([x, y]))
    assert_equal(ember.cat([ember.zeros(2, 0), ember.zeros(2, 0)], 1), np.zeros((2, 0), np.float32))
    # 1-d empty tensors are skipped whatever the other shapes (PyTorch's legacy rule), but promote
    empty = ember.tensor([], dtype=ember.float64)
    assert_equal(ember.cat([empty, a, empty], 1), x.astype(np.float64), ember.float64)
    assert_equal(ember.cat([empty, empty]), np.zeros(0), ember.float64)


def test_cat_out(rng):
    (a, x), (b, y) = make(rng, (2, 3)), make(rng, (2, 2))
    out = ember.empty(2, 5, dtype=ember.float64)
    before = out._version
    assert ember.cat([a, b], 1, out=out) is out
    assert_equal(out, np.concatenate([x, y], 1).astype(np.float64))
    assert out._version == before + 1
    with pytest.raises(RuntimeError, match=r"cat\(\): out= has shape \[2, 4\] but the result has shape \[2, 5\]"):
        ember.cat([a, b], 1, out=ember.empty(2, 4))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        ember.cat([a, b], 1, out=ember.empty(2, 5, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="written-to tensor refer to a single memory location"):
        ember.cat([out[:, :2], out[:, 2:]], 1, out=out)


@pytest.mark.parametrize(
    "tensors, error, message",
    [
        (lambda: [], RuntimeError, r"expected a non-empty list of Tensors"),
        (
            lambda: [ember.zeros(2), ember.tensor(1.0)],
            RuntimeError,
            r"zero-dimensional tensor \(at position 1\) cannot be concatenated",
        ),
        (
            lambda: [ember.zeros(2, 3), ember.zeros(2, 3, 1)],
            RuntimeError,
            "Tensors must have same number of dimensions: got 2 and 3",
        ),
        (
            lambda: [ember.zeros(2, 3), ember.zeros(2, 4), ember.zeros(3, 3)],
            RuntimeError,
            r"^Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number "
            r"1 in the list.$",
        ),
    ],
)
def test_cat_errors(tensors, error, message):
    with pytest.raises(error, match=message):
        ember.cat(tensors())


def test_cat_error_names_the_dim_and_tensor():
    with pytest.raises(
        RuntimeError,
        match=r"^Sizes of tensors must match except in dimension 1. Expected size 3 but "
        r"got size 4 for tensor number 1 in the list.$",
    ):
        ember.cat([ember.zeros(3, 2), ember.zeros(4, 2)], 1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        ember.cat([ember.zeros(3, 2)], 2)
    with pytest.raises(TypeError, match=r"cat\(\): argument 'tensors' must be tuple of Tensors, not ember.Tensor"):
        ember.cat(ember.zeros(3))
    with pytest.raises(TypeError, match=r"expected Tensor as element 1 in argument 'tensors', but got int"):
        ember.cat([ember.zeros(3), 1])


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack_matches_numpy(rng, dtype, layout, dim):
    ts, arrays = tensor_list([make(rng, (2, 3), dtype, layout) for _ in range(3)])
    assert_equal(ember.stack(ts, dim), np.stack(arrays, dim), dtype)


def test_stack_0d_zero_size_and_out(rng):
    assert_equal(ember.stack([ember.tensor(1.5), ember.tensor(2.5)]), np.array([1.5, 2.5], np.float32))
    assert_equal(ember.stack([ember.zeros(0, 2)] * 3, 1), np.zeros((0, 3, 2), np.float32))
    (a, x), (b, y) = make(rng, (2,)), make(rng, (2,))
    out = ember.empty(2, 2)
    assert ember.stack([a, b], 1, out=out) is out
    assert_equal(out, np.stack([x, y], 1))


def test_stack_errors():
    with pytest.raises(
        RuntimeError,
        match=r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 "
        r"and \[2, 4\] at entry 1",
    ):
        ember.stack([ember.zeros(2, 3), ember.zeros(2, 4)])
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        ember.stack([])
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.stack([ember.zeros(2)], 2)


@pytest.mark.parametrize(
    "shapes", [[(), ()], [(2,), (3,)], [(2, 1), (2, 3)], [(2, 1, 2), (2, 3, 2)], [(0,), (2,)]], ids=str
)
def test_hstack_matches_numpy(rng, shapes):
    ts, arrays = tensor_list([make(rng, s, ember.float64) for s in shapes])
    assert_equal(ember.hstack(ts), np.hstack(arrays))


@pytest.mark.parametrize(
    "shapes", [[(), ()], [(2,), (2,)], [(1, 3), (2, 3)], [(2, 2, 1), (1, 2, 1)], [(0, 2), (2,)]], ids=str
)
def test_vstack_matches_numpy(rng, shapes):
    ts, arrays = tensor_list([make(rng, s, ember.int64) for s in shapes])
    assert_equal(ember.vstack(ts), np.vstack(arrays))
    assert_equal(ember.row_stack(ts), np.vstack(arrays))


def test_vstack_of_rows_and_matrices(rng):
    (a, x), (b, y), (c, z) = make(rng, (3,)), make(rng, (2, 3)), make(rng, (3,), layout="stepped")
    assert_equal(ember.vstack([a, b, c]), np.vstack([x, y, z]))
    out = ember.empty(4, 3)
    assert ember.vstack((a, b, c), out=out) is out
    assert_equal(out, np.vstack([x, y, z]))


# ------------------------------------------------------------------------------------------ split / chunk / unbind


def check_pieces(pieces, base, expected):
    """`pieces` match NumPy's `expected` and are views of `base`."""
    assert isinstance(pieces, tuple) and len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        assert_equal(p, e)
        if p.numel():
            assert p.data_ptr() == base.data_ptr() + (p.storage_offset() - base.storage_offset()) * base.element_size()


@pytest.mark.parametrize(
    "size, split_size, dim", [(5, 2, 0), (6, 3, 1), (4, 4, -1), (4, 10, 0), (0, 2, 0), (0, 0, 1), (7, 1, 1)]
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_split_by_size(rng, size, split_size, dim, layout):
    shape = [3, 3]
    shape[dim] = size
    t, a = make(rng, shape, layout=layout)
    n = max(-(-size // split_size), 1) if split_size else 1
    bounds = [min(i * split_size, size) for i in range(n)] + [size]
    expected = [np.take(a, range(bounds[i], bounds[i + 1]), axis=dim) for i in range(n)]
    check_pieces(ember.split(t, split_size, dim), t, expected)
    check_pieces(t.split(split_size, dim), t, expected)


def test_split_pieces_are_writable_views(rng):
    t, a = make(rng, (6, 2))
    first, second = t.split([2, 4])
    second.fill_(7)
    a[2:] = 7
    assert_equal(t, a)
    assert t._version == 1


@pytest.mark.parametrize("sizes, dim", [([1, 2, 3], 0), ([0, 6, 0], 0), ([2, 2], 1), ((4, 0), -1)])
def test_split_with_sizes(rng, sizes, dim):
    t, a = make(rng, (6, 4), layout="stepped")
    bounds = np.cumsum([0] + list(sizes))
    expected = [np.take(a, range(bounds[i], bounds[i + 1]), axis=dim) for i in range(len(sizes))]
    check_pieces(ember.split(t, sizes, dim), t, expected)
    check_pieces(t.split(list(sizes), dim=dim), t, expected)
    check_pieces(t.split_with_sizes(sizes, dim), t, expected)
    check_pieces(ember.split_with_sizes(t, sizes, dim), t, expected)


def test_split_errors():
    t = ember.zeros(3, 4)
    with pytest.raises(
        RuntimeError,
        match=r"split_with_sizes expects split_sizes to sum exactly to 3 \(input tensor's "
        r"size at dimension 0\), but got split_sizes=\[1, 1\]",
    ):
        t.split([1, 1])
    with pytest.raises(RuntimeError, match=r"only non-negative entries, but got split_sizes=\[-1, 4\]"):
        t.split([-1, 4])
    with pytest.raises(
        RuntimeError, match="split_size can only be 0 if dimension size is 0, but got dimension size of 3"
    ):
        t.split(0)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got split_size=-1"):
        t.split(-1)
    with pytest.raises(RuntimeError, match="split expects at least a 1-dimensional tensor"):
        ember.tensor(1.0).split(1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.split(1, 2)


@pytest.mark.parametrize("size, chunks", [(6, 3), (5, 2), (5, 4), (2, 5), (0, 3), (1, 1), (7, 7)])
def test_chunk(rng, size, chunks):
    t, a = make(rng, (2, size), layout="transposed")
    split_size = -(-size // chunks)
    if size == 0:
        expected = [a[:, :0]] * chunks
    else:
        expected = [a[:, i : i + split_size] for i in range(0, size, split_size)]
    check_pieces(ember.chunk(t, chunks, 1), t, expected)
    check_pieces(t.chunk(chunks, dim=-1), t, expected)


def test_chunk_errors():
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        ember.zeros(3).chunk(0)
    with pytest.raises(RuntimeError, match="chunk expects at least a 1-dimensional tensor"):
        ember.tensor(1).chunk(1)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unbind(rng, dim, layout):
    t, a = make(rng, (3, 2, 4), ember.int64, layout)
    check_pieces(ember.unbind(t, dim), t, [np.take(a, i, axis=dim) for i in range(a.shape[dim])])
    check_pieces(t.unbind(dim), t, [np.take(a, i, axis=dim) for i in range(a.shape[dim])])


def test_unbind_edge_cases():
    assert ember.zeros(0, 3).unbind() == ()
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        ember.tensor(1).unbind()


# ------------------------------------------------------------------------------------------ views


@pytest.mark.parametrize(
    "source, destination", [(0, 2), (-1, 0), ((0, 1), (2, 0)), ([0, 2], [1, 2]), ((), ()), ((0, 1, 2), (2, 1, 0))]
)
def test_movedim_matches_numpy_and_is_a_view(rng, source, destination):
    t, a = make(rng, (2, 3, 4), layout="stepped")
    for f in (ember.movedim, ember.moveaxis):
        r = f(t, source, destination)
        assert_equal(r, np.moveaxis(a, source, destination))
        assert r.data_ptr() == t.data_ptr()
    assert_equal(t.movedim(source, destination), np.moveaxis(a, source, destination))
    assert_equal(t.moveaxis(source, destination), np.moveaxis(a, source, destination))


def test_movedim_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match="movedim: Invalid source or destination dims"):
        t.movedim((0, 1), (0,))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, 0\]\)"):
        t.movedim((0, 0), (0, 1))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `destination` \(\[1, -1\]\)"):
        t.movedim((0, 1), (1, -1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.movedim(2, 0)


def test_swapdims_and_swapaxes(rng):
    t, a = make(rng, (2, 3, 4))
    assert_equal(ember.swapdims(t, 0, 2), np.swapaxes(a, 0, 2))
    assert_equal(t.swapdims(1, -1), np.swapaxes(a, 1, -1))
    assert_equal(ember.swapaxes(t, 0, 1), np.swapaxes(a, 0, 1))


@pytest.mark.parametrize(
    "shape, target", [((3,), (2, 3)), ((1, 3), (4, 3)), ((), (2, 2)), ((2, 1), (2, -1)), ((0, 1), (0, 5))]
)
def test_broadcast_to(rng, shape, target):
    t, a = make(rng, shape)
    expected = np.broadcast_to(
        a, tuple(s if s != -1 else a.shape[i - len(target) + a.ndim] for i, s in enumerate(target))
    )
    r = ember.broadcast_to(t, target)
    assert_equal(r, expected)
    assert r.data_ptr() == t.data_ptr() or not r.numel()
    assert_equal(t.broadcast_to(target), expected)
    assert_equal(t.broadcast_to(*target), expected)


def test_broadcast_tensors(rng):
    (a, x), (b, y), (c, z) = make(rng, (3, 1)), make(rng, (4,), ember.int64), make(rng, ())
    rs = ember.broadcast_tensors(a, b, c)
    for r, e in zip(rs, np.broadcast_arrays(x, y, z)):
        assert_equal(r, e)
    assert rs[0].data_ptr() == a.data_ptr()
    assert len(ember.broadcast_tensors([a, b])) == 2
    # a tensor that already has the shape comes back itself, as in PyTorch: a leaf stays a leaf
    w = ember.ones(3, requires_grad=True)
    same, wider = ember.broadcast_tensors(w, ember.ones(2, 3))
    assert ember.broadcast_tensors(w, ember.ones(3))[0] is w and same.grad_fn is not None and wider.grad_fn is None
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        ember.broadcast_tensors(a, ember.zeros(2, 2))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("shapes", [[(3,), (4,)], [(2,), (), (3,)], [(5,)], [(0,), (2,)]], ids=str)
def test_meshgrid_matches_numpy(rng, indexing, shapes):
    ts, arrays = tensor_list([make(rng, s, ember.int64) for s in shapes])
    rs = ember.meshgrid(*ts, indexing=indexing)
    expected = np.meshgrid(*[np.atleast_1d(a) for a in arrays], indexing=indexing)
    assert len(rs) == len(expected)
    for r, e in zip(rs, expected):
        assert_equal(r, e)
    for r, e in zip(ember.meshgrid(ts, indexing=indexing), expected):
        assert_equal(r, e)
    if shapes[0] and shapes[0][0]:
        assert rs[0].data_ptr() == ts[0].data_ptr()  # expanded views


def test_meshgrid_defaults_to_ij_and_errors():
    a, b = ember.arange(3), ember.arange(2)
    assert ember.meshgrid(a, b)[0].shape == (3, 2)
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor in the tensor list but got"):
        ember.meshgrid(ember.zeros(2, 2))
    with pytest.raises(RuntimeError, match="Expected all tensors in the tensor list to have the same dtype"):
        ember.meshgrid(a, b.float())
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but received: ab'):
        ember.meshgrid(a, b, indexing="ab")
    with pytest.raises(RuntimeError, match="Expected at least one tensor"):
        ember.meshgrid()


# ------------------------------------------------------------------------------------------ flip / roll


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dims", [(0,), (1,), (-1,), (0, 2), (0, 1, 2), ()])
def test_flip_matches_numpy(rng, dtype, layout, dims):
    t, a = make(rng, (3, 4, 5), dtype, layout)
    r = ember.flip(t, dims)
    assert_equal(r, np.flip(a, dims) if dims else a, dtype)
    assert r.is_contiguous() and r.data_ptr() != t.data_ptr()
    assert_equal(t.flip(*dims), np.flip(a, dims) if dims else a)
    assert_equal(t.flip(dims), np.flip(a, dims) if dims else a)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int8, ember.int16, ember.int64, ember.bool])
@pytest.mark.parametrize("n", [1, 7, 8, 33, 1000])
def test_flip_of_the_innermost_dim(rng, dtype, n):
    # the copy reads a reversed run with a vectorized loop (loops.h), whatever the element size and the length
    t, a = make(rng, (3, n), dtype)
    assert_equal(t.flip(-1), np.flip(a, -1), dtype)
    assert_equal(t[:, 1:].flip(-1), np.flip(a[:, 1:], -1), dtype)  # a run starting off the vector alignment
    assert_equal(ember.flip(t.t(), [0]), np.flip(a.T, 0), dtype)


def test_flip_edge_cases(rng):
    t, a = make(rng, ())
    assert_equal(ember.flip(t, [0]), a)
    assert_equal(ember.flip(ember.zeros(0, 3), [0, 1]), np.zeros((0, 3), np.float32))
    t, a = make(rng, (3, 4))
    assert_equal(ember.fliplr(t), np.fliplr(a))
    assert_equal(t.flipud(), np.flipud(a))
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        t.flip(0, -2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.flip(2)


@pytest.mark.parametrize(
    "shifts, dims",
    [
        (1, 0),
        (-1, 1),
        (7, 1),
        ((1, 2), (0, 1)),
        ((-5, 3, 1), (2, 0, 1)),
        (3, None),
        (-13, None),
        (0, 0),
        ((2, 2), (1, 1)),
    ],
)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll_matches_numpy(rng, shifts, dims, layout):
    t, a = make(rng, (2, 3, 4), ember.int64, layout)
    assert_equal(ember.roll(t, shifts, dims), np.roll(a, shifts, dims))
    assert_equal(t.roll(shifts, dims), np.roll(a, shifts, dims))
    if dims is None:
        assert_equal(t.roll(shifts), np.roll(a, shifts))


def test_roll_edge_cases(rng):
    t, a = make(rng, ())
    assert_equal(ember.roll(t, 3), a)
    assert_equal(ember.roll(t, 3, 0), a)
    assert_equal(ember.roll(ember.zeros(0, 3), 1, 0), np.zeros((0, 3), np.float32))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        ember.roll(ember.zeros(3), (1, 2), (0,))
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.roll(ember.zeros(3), 1, 1)


# ------------------------------------------------------------------------------------------ repeat / tile


@pytest.mark.parametrize(
    "shape, reps",
    [
        ((2, 3), (2, 1)),
        ((2, 3), (1, 2, 3)),
        ((3,), (2,)),
        ((), (2, 3)),
        ((2, 3), (0, 2)),
        ((0, 2), (3, 1)),
        ((2, 1, 3), (1, 4, 1)),
    ],
)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_and_tile_match_numpy_tile(rng, shape, reps, dtype, layout):
    t, a = make(rng, shape, dtype, layout)
    assert_equal(t.repeat(*reps), np.tile(a, reps), dtype)
    assert_equal(t.repeat(reps), np.tile(a, reps), dtype)
    assert_equal(ember.tile(t, reps), np.tile(a, reps), dtype)
    assert_equal(t.tile(*reps), np.tile(a, reps), dtype)


def test_tile_with_fewer_reps_than_dims(rng):
    t, a = make(rng, (2, 3, 2))
    assert_equal(t.tile(2), np.tile(a, 2))
    assert_equal(ember.tile(t, (2, 1)), np.tile(a, (2, 1)))


def test_repeat_errors():
    with pytest.raises(
        RuntimeError, match="Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
    ):
        ember.zeros(2, 3).repeat(2)
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[-2, 3\]"):
        ember.zeros(2, 3).repeat(-1, 1)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("repeats, dim", [(2, 0), (3, 1), (2, None), (0, 1), (1, -1)])
def test_repeat_interleave_int(rng, dtype, layout, repeats, dim):
    t, a = make(rng, (2, 3), dtype, layout)
    assert_equal(ember.repeat_interleave(t, repeats, dim), np.repeat(a, repeats, dim), dtype)
    assert_equal(t.repeat_interleave(repeats, dim=dim), np.repeat(a, repeats, dim), dtype)


@pytest.mark.parametrize("repeats, dim", [([1, 0, 2], 1), ([3, 1], 0), ([2], 0), ([1, 2, 0, 1, 1, 3], None)])
def test_repeat_interleave_tensor(rng, repeats, dim):
    t, a = make(rng, (2, 3), layout="transposed")
    reps = repeats * 2 if repeats == [2] else repeats
    expected = np.repeat(a, reps if len(repeats) > 1 else repeats[0], dim)
    assert_equal(ember.repeat_interleave(t, ember.tensor(repeats), dim), expected)
    assert_equal(t.repeat_interleave(ember.tensor(repeats), dim, output_size=expected.shape[dim or 0]), expected)


def test_repeat_interleave_of_repeats_and_errors():
    assert_equal(ember.repeat_interleave(ember.tensor([2, 0, 3])), np.repeat(np.arange(3), [2, 0, 3]))
    assert_equal(ember.repeat_interleave(ember.tensor([], dtype=ember.int64)), np.zeros(0, np.int64))
    assert_equal(ember.repeat_interleave(ember.tensor(3), 2), np.array([3, 3]))
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        ember.repeat_interleave(ember.tensor([1, -1]))
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        ember.repeat_interleave(ember.zeros(2), -1)
    with pytest.raises(
        RuntimeError,
        match=r"repeats must have the same size as input along dim, but got "
        r"repeats.size\(0\) = 2 and input.size\(0\) = 3",
    ):
        ember.repeat_interleave(ember.zeros(3), ember.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="repeats must be 0-dim or 1-dim tensor"):
        ember.repeat_interleave(ember.zeros(3), ember.ones(3, 1, dtype=ember.int64))


# ------------------------------------------------------------------------------------------ tril / triu


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("diagonal", [0, 1, -1, 3, -5])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (0, 3), (2, 0, 2)], ids=str)
def test_tril_triu_match_numpy(rng, dtype, layout, diagonal, shape):
    t, a = make(rng, shape, dtype, layout)
    assert_equal(ember.tril(t, diagonal), np.tril(a, diagonal), dtype)
    assert_equal(t.triu(diagonal), np.triu(a, diagonal), dtype)
    assert_equal(t.tril(diagonal=diagonal), np.tril(a, diagonal), dtype)
    if layout != "expanded":
        u = t.clone() if layout == "contiguous" else t
        before = u._version
        assert u.tril_(diagonal) is u
        assert_equal(u, np.tril(a, diagonal))
        assert u._version == before + 1
        t2, a2 = make(rng, shape, dtype, layout)
        t2.triu_(diagonal)
        assert_equal(t2, np.triu(a2, diagonal))


@pytest.mark.parametrize("diagonal", [2**62, -(2**62), 2**63 - 1, -(2**63), 70, -300])
def test_tril_triu_diagonals_past_the_matrix(rng, diagonal):
    t, a = make(rng, (2, 5, 7))
    k = max(min(diagonal, 100), -100)  # NumPy's own index arithmetic overflows on the extremes
    assert_equal(t.tril(diagonal), np.tril(a, k))
    assert_equal(t.triu(diagonal), np.triu(a, k))
    u = t.clone()
    u.triu_(diagonal)
    assert_equal(u, np.triu(a, k))


@pytest.mark.parametrize("view", ["plain", "batch_permuted", "transposed", "column_step"])
def test_tril_triu_large_batched_views(rng, view):
    # Matrices larger than one task's grain, split over threads, read through strided batch and row layouts.
    a = rng.standard_normal((3, 4, 90, 400)).astype(np.float32)
    t = ember.tensor(a)
    if view == "batch_permuted":
        t, a = t.permute(1, 0, 2, 3), a.transpose(1, 0, 2, 3)
    elif view == "transposed":
        t, a = t.transpose(-1, -2), a.swapaxes(-1, -2)
    elif view == "column_step":
        t, a = t[..., ::3], a[..., ::3]
    threads = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        for d in (0, 5, -17):
            r = t.tril(d)
            assert r.is_contiguous()
            assert_equal(r, np.tril(a, d))
            assert_equal(t.triu(d), np.triu(a, d))
    finally:
        ember.set_num_threads(threads)


def test_tril_triu_complex_conjugate_view(rng):
    a = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(np.complex64)
    t = ember.tensor(a).conj()
    np.testing.assert_array_equal(t.tril(1).resolve_conj().numpy(), np.tril(a.conj(), 1))
    u = ember.tensor(a).conj()
    u.triu_(-1)
    np.testing.assert_array_equal(u.resolve_conj().numpy(), np.triu(a.conj(), -1))


def test_tril_out_and_errors(rng):
    t, a = make(rng, (3, 3))
    out = ember.empty(3, 3)
    assert ember.triu(t, 1, out=out) is out
    assert_equal(out, np.triu(a, 1))
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        ember.tril(ember.zeros(3))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.zeros(1, 3).expand(3, 3).tril_()


# ------------------------------------------------------------------------------------------ gather / scatter


def np_gather(a, dim, idx):
    a = np.asarray(a).reshape(np.shape(a) or (1,))
    idx = np.asarray(idx).reshape(np.shape(idx) or (1,))
    sl = tuple(slice(0, n) if d != dim else slice(None) for d, n in enumerate(idx.shape))
    return np.take_along_axis(a[sl], idx, dim)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("index_layout", ["contiguous", "transposed", "expanded"])
def test_gather_matches_numpy(rng, dtype, layout, dim, index_layout):
    t, a = make(rng, (4, 5), dtype, layout)
    shape = (3, 2) if index_layout != "transposed" else (2, 2)
    idx = index_array(rng, shape, a.shape[dim])
    i = from_np(idx)
    if index_layout == "transposed":
        i = from_np(idx.T.copy()).t()
    elif index_layout == "expanded":
        idx = np.broadcast_to(idx[:1], shape)
        i = from_np(idx[:1].copy()).expand(*shape)
    assert_equal(ember.gather(t, dim, i), np_gather(a, dim % 2, idx), dtype)
    assert_equal(t.gather(dim, i), np_gather(a, dim % 2, idx), dtype)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int8, ember.int16, ember.bool], ids=dtype_name)
def test_gathered_runs_check_their_range_first(rng, dtype):
    # Note [Gathering a run] (ember/backend/cpu/index.cpp): long runs along the innermost dim, negative indices
    # wrapping where allowed, and the first bad index of a run named even when a later one is further out
    t, a = make(rng, (6, 300), dtype)
    idx = rng.integers(0, 300, size=(6, 300))
    assert_equal(t.gather(1, from_np(idx)), np.take_along_axis(a, idx, 1), dtype)
    flat, fa = t.flatten(), a.reshape(-1)
    pos = rng.integers(-1800, 1800, size=700)
    assert_equal(ember.take(flat, from_np(pos)), fa[pos], dtype)
    assert_equal(flat.index_select(0, from_np(pos % 1800)), fa[pos % 1800], dtype)
    bad = idx.copy()
    bad[2, 100], bad[2, 200] = 300, -1000
    with pytest.raises(RuntimeError, match=r"^gather\(\): index 300 is out of bounds for dimension 1 with size 300$"):
        t.gather(1, from_np(bad))
    with pytest.raises(IndexError, match="index -1801 is out of bounds"):
        ember.take(flat, from_np(np.array([5, -1801, 4000])))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int16, ember.int64], ids=dtype_name)
def test_scattered_runs_check_their_range_first(rng, dtype):
    # scatter along the innermost dim takes the same range check first (ember/backend/cpu/index.cpp, scatter_run):
    # copies with repeated indices (the last one wins), adds, and the first bad index of a run named
    t, a = make(rng, (6, 300), dtype)
    src, sa = make(rng, (6, 300), dtype)
    idx = rng.integers(0, 300, size=(6, 300))
    want = a.copy()
    for r in range(6):
        for j in range(300):
            want[r, idx[r, j]] = sa[r, j]
    assert_equal(t.scatter(1, from_np(idx), src), want, dtype)
    want = a.copy()
    np.add.at(want, (np.arange(6)[:, None], idx), sa)  # in order, as ember adds
    assert_equal(t.scatter_add(1, from_np(idx), src), want, dtype)
    bad = idx.copy()
    bad[2, 100], bad[2, 200] = -1, 1000
    with pytest.raises(RuntimeError, match=r"^scatter\(\): index -1 is out of bounds for dimension 1 with size 300$"):
        t.clone().scatter_(1, from_np(bad), src)


def test_gather_edge_cases(rng):
    t, a = make(rng, ())
    assert_equal(ember.gather(t, 0, ember.tensor(0)), a)
    assert_equal(ember.gather(t, 0, ember.tensor([0, 0])), np.array([a, a]))
    t, a = make(rng, (3, 4))
    assert_equal(ember.gather(t, 1, ember.zeros(3, 0, dtype=ember.int64)), np.zeros((3, 0), np.float32))
    out = ember.empty(3, 1)
    assert ember.gather(t, 1, ember.tensor([[1], [2], [3]]), out=out) is out
    assert_equal(out, np.take_along_axis(a, np.array([[1], [2], [3]]), 1))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda t: t.gather(1, ember.tensor([[0, 7]])),
            RuntimeError,
            r"^gather\(\): index 7 is out of bounds for dimension 1 with size 4$",
        ),
        (
            lambda t: t.gather(0, ember.tensor([[-1]])),
            RuntimeError,
            r"^gather\(\): index -1 is out of bounds for dimension 0 with size 3$",
        ),
        (
            lambda t: t.gather(1, ember.tensor([[0]], dtype=ember.int32)),
            RuntimeError,
            r"gather\(\): Expected dtype int64 for index",
        ),
        (
            lambda t: t.gather(1, ember.tensor([0])),
            RuntimeError,
            "Index tensor must have the same number of dimensions as input tensor",
        ),
        (
            lambda t: t.gather(1, ember.zeros(4, 1, dtype=ember.int64)),
            RuntimeError,
            r"Size does not match at dimension 0 expected index \[4, 1\] to be smaller than self \[3, 4\] apart from "
            r"dimension 1",
        ),
        (lambda t: t.gather(2, ember.zeros(1, 1, dtype=ember.int64)), IndexError, "Dimension out of range"),
    ],
)
def test_gather_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(ember.zeros(3, 4))


def np_scatter(a, dim, idx, src, combine=lambda old, new: new):
    """a with a[..., idx[i], ...] = combine(that, src[i]) along dim, in row-major order of idx."""
    r = np.array(a, copy=True).reshape(np.shape(a) or (1,))
    idx = np.asarray(idx).reshape(np.shape(idx) or (1,))
    src = np.broadcast_to(src, idx.shape) if np.ndim(src) == 0 else np.asarray(src).reshape(np.shape(src) or (1,))
    for pos in np.ndindex(*idx.shape):
        target = list(pos)
        target[dim] = idx[pos]
        r[tuple(target)] = combine(r[tuple(target)], src[pos])
    return r.reshape(np.shape(a))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_src_matches_numpy(rng, dtype, layout, dim):
    t, a = make(rng, (4, 5), dtype, layout)
    src, s = make(rng, (3, 4), dtype, "transposed")
    # a permutation along dim so that every target is written once
    shape = (3, 2)
    idx = np.stack(
        [rng.permutation(a.shape[dim % 2])[: shape[dim % 2]] for _ in range(shape[1 - dim % 2])], 1 - dim % 2
    )
    expected = np_scatter(a, dim % 2, idx, s)
    assert_equal(ember.scatter(t, dim, from_np(idx), src), expected, dtype)
    assert_equal(t.scatter(dim, from_np(idx), src=src), expected, dtype)
    before = t._version
    assert t.scatter_(dim, from_np(idx), src) is t
    assert_equal(t, expected, dtype)
    assert t._version == before + 1


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
def test_scatter_value_and_duplicates(rng, dtype):
    t, a = make(rng, (3, 4), dtype)
    idx = index_array(rng, (3, 3), 4)
    assert_equal(ember.scatter(t, 1, from_np(idx), 1), np_scatter(a, 1, idx, np.array(1).astype(a.dtype)), dtype)
    assert_equal(t.scatter(1, from_np(idx), value=0), np_scatter(a, 1, idx, np.array(0).astype(a.dtype)), dtype)
    # repeated indices: the last write in row-major order wins, as in PyTorch on the CPU
    src, s = make(rng, (3, 3), dtype)
    assert_equal(t.scatter(1, from_np(idx), src), np_scatter(a, 1, idx, s), dtype)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int64, ember.int16], ids=dtype_name)
@pytest.mark.parametrize("reduce, combine", [("add", np.add), ("multiply", np.multiply)])
def test_scatter_with_reduce(rng, dtype, reduce, combine):
    t, a = make(rng, (3, 4), dtype, "transposed")
    idx = index_array(rng, (5, 4), 3)
    src, s = make(rng, (5, 4), dtype)
    assert_equal(t.scatter(0, from_np(idx), src, reduce=reduce), np_scatter(a, 0, idx, s, combine), dtype)
    assert_equal(
        t.scatter(0, from_np(idx), 2, reduce=reduce), np_scatter(a, 0, idx, np.array(2).astype(a.dtype), combine), dtype
    )
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
        t.scatter(0, from_np(idx), src, reduce="sum")


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_scatter_add_matches_numpy(rng, dtype, layout):
    t, a = make(rng, (4, 3), dtype, layout)
    idx = index_array(rng, (6, 3), 4)
    src, s = make(rng, (6, 3), dtype, "expanded")
    combine = np.logical_or if dtype is ember.bool else np.add
    expected = np_scatter(a, 0, idx, s, combine).astype(a.dtype)
    assert_equal(ember.scatter_add(t, 0, from_np(idx), src), expected, dtype)
    assert_equal(t.scatter_add(0, from_np(idx), src), expected, dtype)
    assert t.scatter_add_(0, from_np(idx), src) is t
    assert_equal(t, expected, dtype)


def test_scatter_add_accumulates_large_inputs_in_parallel(rng):
    # Large enough to split across threads: repeated indices must still all add up.
    t = ember.zeros(1000, 100, dtype=ember.int64)
    idx = rng.integers(0, 1000, (3000, 100))
    t.scatter_add_(0, from_np(idx), ember.ones(3000, 100, dtype=ember.int64))
    expected = np.zeros((1000, 100), np.int64)
    np.add.at(expected, (idx, np.arange(100)[None, :]), 1)
    assert_equal(t, expected)


def test_scatter_add_into_a_short_dst_by_chunks(rng):
    # A 1-d scatter_add_ or index_add_ of a long source into a short dst sums fixed chunks of the source apart (Note
    # [Sums into a short dst]): the same bits at every thread count, the sums as np.add.at's, and the first
    # out-of-range index reported with nothing written.
    idx = rng.integers(0, 1000, 200_000)
    src = rng.standard_normal(200_000)
    expected = np.zeros(1000)
    np.add.at(expected, idx, src)
    threads = ember.get_num_threads()
    try:
        results = []
        for n in (1, 2, 3):
            ember.set_num_threads(n)
            for dtype in (ember.float32, ember.float64):
                t = ember.ones(2, 1000, dtype=dtype)[1]  # a view: dst's own offset
                t.scatter_add_(0, from_np(idx), from_np(src).to(dtype))
                np.testing.assert_allclose(t.numpy(), expected + 1, rtol=1e-4 if dtype is ember.float32 else 1e-12)
                results.append(t.numpy().tobytes())
            counts = ember.zeros(50, dtype=ember.int64).index_add_(
                0, from_np(idx % 50), ember.ones(200_000, dtype=ember.int64)
            )
            np.testing.assert_array_equal(counts.numpy(), np.bincount(idx % 50, minlength=50))
        assert results[0::2] == [results[0]] * 3 and results[1::2] == [results[1]] * 3
        bad = idx.copy()
        bad[150_000], bad[190_000] = 1000, -1
        t = ember.zeros(1000, dtype=ember.float64)
        with pytest.raises(RuntimeError, match="index 1000 is out of bounds for dimension 0 with size 1000"):
            t.scatter_add_(0, from_np(bad), from_np(src))
        assert not t.numpy().any()
    finally:
        ember.set_num_threads(threads)


REDUCERS = {
    "sum": (np.add, 0),
    "prod": (np.multiply, 1),
    "amax": (np.maximum, None),
    "amin": (np.minimum, None),
}


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int64, ember.float16], ids=dtype_name)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_numpy(rng, dtype, reduce, include_self):
    t, a = make(rng, (4, 3), dtype, "transposed")
    if dtype is not ember.int64:
        t, a = (t / 10).to(dtype), (a / np.array(10, a.dtype)).astype(a.dtype)
        assert_equal(t, a)
    idx = index_array(rng, (5, 3), 4)
    src, s = make(rng, (5, 3), dtype)
    if dtype is not ember.int64:
        src, s = (src / 10).to(dtype), (s / np.array(10, s.dtype)).astype(s.dtype)
    # The reference: gather each target's values (its own first when include_self) and reduce them in order.
    expected = np.array(a, copy=True)
    hits = {}
    for pos in np.ndindex(*idx.shape):
        hits.setdefault((idx[pos], pos[1]), []).append(s[pos])
    for target, values in hits.items():
        values = ([a[target]] if include_self else []) + values
        acc = np.array(values, np.float64 if dtype is not ember.int64 else np.int64)
        r = {
            "sum": acc.sum(),
            "prod": acc.prod(),
            "amax": acc.max(),
            "amin": acc.min(),
            "mean": acc.sum() / len(acc) if dtype is not ember.int64 else acc.sum() // len(acc),
        }[reduce]
        expected[target] = r
    r = ember.scatter_reduce(t, 0, from_np(idx), src, reduce, include_self=include_self)
    tol = {ember.float16: 2e-2, ember.float32: 1e-5}.get(dtype, 1e-12)
    np.testing.assert_allclose(np.array(r.tolist(), np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
    u = t.clone()
    assert u.scatter_reduce_(0, from_np(idx), src, reduce, include_self=include_self) is u
    assert_equal(u, np.array(r.tolist(), a.dtype))


def test_scatter_reduce_propagates_nan():
    t = ember.tensor([1.0, float("nan"), 3.0])
    r = t.scatter_reduce(0, ember.tensor([0, 1, 2, 2]), ember.tensor([float("nan"), 5.0, 1.0, 2.0]), "amax")
    assert_equal(r, np.array([np.nan, np.nan, 3.0], np.float32))
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got max"):
        t.scatter_reduce(0, ember.tensor([0]), ember.tensor([1.0]), "max")


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda t: t.scatter_(1, ember.tensor([[0, 7]]), 1.0),
            RuntimeError,
            r"^scatter\(\): index 7 is out of bounds for dimension 1 with size 4$",
        ),
        (
            lambda t: t.scatter_add_(0, ember.tensor([[3]]), ember.ones(1, 1)),
            RuntimeError,
            r"^scatter_add\(\): index 3 is out of bounds for dimension 0 with size 3$",
        ),
        (
            lambda t: t.scatter_(0, ember.tensor([[-1]]), ember.ones(1, 1)),
            RuntimeError,
            "index -1 is out of bounds for dimension 0 with size 3",
        ),
        (
            lambda t: t.scatter_(0, ember.tensor([[0]]), ember.ones(1, 1, dtype=ember.float64)),
            RuntimeError,
            r"scatter\(\): Expected self.dtype to be equal to src.dtype",
        ),
        (
            lambda t: t.scatter_(0, ember.tensor([[0]], dtype=ember.int32), 1.0),
            RuntimeError,
            r"scatter\(\): Expected dtype int64 for index",
        ),
        (
            lambda t: t.scatter_(0, ember.tensor([0]), 1.0),
            RuntimeError,
            "Index tensor must have the same number of dimensions as self tensor",
        ),
        (
            lambda t: t.scatter_(0, ember.zeros(1, 5, dtype=ember.int64), 1.0),
            RuntimeError,
            r"Expected index \[1, 5\] to be smaller than self \[3, 4\] apart from dimension 0$",
        ),
        (
            lambda t: t.scatter_(0, ember.zeros(2, 2, dtype=ember.int64), ember.ones(1, 4)),
            RuntimeError,
            r"Expected index \[2, 2\] to be smaller than self \[3, 4\] apart from dimension 0 and to be smaller "
            r"size than src \[1, 4\]",
        ),
        (
            lambda t: ember.zeros(1, 3).expand(3, 3).scatter_(0, ember.zeros(1, 1, dtype=ember.int64), 1.0),
            RuntimeError,
            "more than one element of the written-to tensor refers to a single memory location",
        ),
    ],
)
def test_scatter_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(ember.zeros(3, 4))


def test_scatter_out_of_bounds_never_writes_outside(rng):
    base = ember.zeros(4, 4)
    view = base[1:3]
    with pytest.raises(RuntimeError, match="scatter.*index 2 is out of bounds for dimension 0 with size 2"):
        view.scatter_(0, ember.tensor([[2, 0, 0, 0]]), 5.0)
    assert_equal(base[0], np.zeros(4, np.float32))
    assert_equal(base[3], np.zeros(4, np.float32))


# ------------------------------------------------------------------------------------------ index_*


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("index_dtype", [ember.int64, ember.int32], ids=dtype_name)
def test_index_select_matches_numpy(rng, dtype, layout, dim, index_dtype):
    t, a = make(rng, (3, 4, 2), dtype, layout)
    idx = index_array(rng, (5,), a.shape[dim])
    i = from_np(idx, index_dtype)
    assert_equal(ember.index_select(t, dim, i), np.take(a, idx, dim), dtype)
    assert_equal(t.index_select(dim, i[::1]), np.take(a, idx, dim), dtype)
    stepped = from_np(np.repeat(idx, 2))[::2]
    assert_equal(t.index_select(dim, stepped), np.take(a, idx, dim), dtype)


def test_index_select_edge_cases(rng):
    t, a = make(rng, (3, 4))
    assert_equal(t.index_select(0, ember.tensor([], dtype=ember.int64)), a[:0])
    assert_equal(t.index_select(1, ember.tensor(2)), a[:, [2]])
    assert_equal(ember.tensor(5.0).index_select(0, ember.tensor([0])), np.array(5.0, np.float32))
    out = ember.empty(2, 4)
    assert ember.index_select(t, 0, ember.tensor([2, 0]), out=out) is out
    assert_equal(out, a[[2, 0]])
    with pytest.raises(IndexError, match=r"^index_select\(\): index 3 is out of bounds for dimension 0 with size 3$"):
        t.index_select(0, ember.tensor([0, 3]))
    with pytest.raises(IndexError, match=r"index_select\(\): index -1 is out of bounds for dimension 1 with size 4"):
        t.index_select(1, ember.tensor([-1]))
    with pytest.raises(IndexError, match=r"index_select\(\): Index is supposed to be a vector"):
        t.index_select(0, ember.zeros(1, 1, dtype=ember.int64))
    with pytest.raises(RuntimeError, match=r"index_select\(\): Expected dtype int32 or int64 for index"):
        t.index_select(0, ember.zeros(1))


def np_index_add(a, dim, idx, src, alpha=1):
    r = np.moveaxis(np.array(a, copy=True), dim, 0)
    s = np.moveaxis(np.asarray(src), dim, 0)
    for k, i in enumerate(idx):
        r[i] = r[i] + alpha * s[k] if r.dtype != np.bool_ else r[i] | s[k]
    return np.moveaxis(r, 0, dim)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_add_matches_numpy(rng, dtype, layout, dim):
    t, a = make(rng, (4, 3), dtype, layout)
    idx = index_array(rng, (5,), a.shape[dim])
    shape = [4, 3]
    shape[dim] = 5
    src, s = make(rng, shape, dtype, "transposed")
    expected = np_index_add(a, dim, idx, s)
    assert_equal(ember.index_add(t, dim, from_np(idx), src), expected, dtype)
    assert_equal(t.index_add(dim, from_np(idx, ember.int32), src), expected, dtype)
    if dtype in (ember.float64, ember.int64):
        assert_equal(t.index_add(dim, from_np(idx), src, alpha=3), np_index_add(a, dim, idx, s, 3), dtype)
    before = t._version
    assert t.index_add_(dim, from_np(idx), src) is t
    assert_equal(t, expected, dtype)
    assert t._version == before + 1


def test_index_add_errors():
    t = ember.zeros(3, 4)
    with pytest.raises(IndexError, match=r"^index_add_\(\): index 3 is out of bounds for dimension 0 with size 3$"):
        t.index_add_(0, ember.tensor([3]), ember.ones(1, 4))
    with pytest.raises(
        RuntimeError,
        match=r"index_add_\(\): self \(Float\) and source \(Long\) must have the same "
        "scalar type",
    ):
        t.index_add_(0, ember.tensor([0]), ember.ones(1, 4, dtype=ember.int64))
    with pytest.raises(IndexError, match=r"Number of indices \(2\) should be equal to source.size\(dim\) \(1\)"):
        t.index_add_(0, ember.tensor([0, 1]), ember.ones(1, 4))
    with pytest.raises(
        RuntimeError,
        match=r"source tensor shape must match self tensor shape, excluding the specified "
        r"dimension. Got self.shape = \[3, 4\] source.shape = \[1, 5\]",
    ):
        t.index_add_(0, ember.tensor([0]), ember.ones(1, 5))
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        ember.zeros(3, dtype=ember.int64).index_add_(0, ember.tensor([0]), ember.ones(1, dtype=ember.int64), alpha=1.5)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_index_copy_matches_numpy(rng, dtype, layout):
    t, a = make(rng, (3, 5), dtype, layout)
    idx = rng.permutation(5)[:3]
    src, s = make(rng, (3, 3), dtype, "stepped")
    expected = np.array(a, copy=True)
    expected[:, idx] = s
    assert_equal(ember.index_copy(t, 1, from_np(idx), src), expected, dtype)
    assert_equal(t.index_copy(-1, from_np(idx), src), expected, dtype)
    assert t.index_copy_(1, from_np(idx), src) is t
    assert_equal(t, expected, dtype)
    with pytest.raises(RuntimeError, match=r"index_copy_\(\): self \(.*\) and source \(.*\) must have the same"):
        t.index_copy_(1, from_np(idx), src.to(ember.int8 if dtype is not ember.int8 else ember.int16))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("value", [0, 1, 2.5, True])
def test_index_fill_matches_numpy(rng, dtype, layout, value):
    t, a = make(rng, (3, 5), dtype, layout)
    idx = np.array([4, -1, 0])
    expected = np.array(a, copy=True)
    expected[:, idx] = np.array(value).astype(a.dtype) if dtype is not ember.bool else bool(value)
    assert_equal(ember.index_fill(t, 1, from_np(idx), value), expected, dtype)
    assert_equal(t.index_fill(1, from_np(idx), ember.tensor(value)), expected, dtype)
    assert t.index_fill_(1, from_np(idx), value) is t
    assert_equal(t, expected, dtype)
    with pytest.raises(IndexError, match=r"index_fill_\(\): index 5 is out of bounds for dimension 1 with size 5"):
        t.index_fill_(1, ember.tensor([5]), value)
    with pytest.raises(
        RuntimeError, match="only supports a 0-dimensional value tensor, but got tensor with 1 dimension"
    ):
        t.index_fill_(1, ember.tensor([0]), ember.tensor([1]))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_matches_numpy(rng, dtype, accumulate):
    t, a = make(rng, (4, 5), dtype, "transposed")
    rows = rng.integers(-4, 4, 6)
    cols = rng.integers(0, 5, 6)
    if not accumulate:
        keep = np.unique((rows % 4) * 5 + cols, return_index=True)[1]
        rows, cols = rows[keep], cols[keep]
    v, values = make(rng, rows.shape, dtype)
    expected = np.array(a, copy=True)
    if accumulate:
        if dtype is ember.bool:
            np.logical_or.at(expected, (rows, cols), values)
        else:
            np.add.at(expected, (rows, cols), values)
    else:
        expected[rows, cols] = values
    assert_equal(ember.index_put(t, (from_np(rows), from_np(cols)), v, accumulate), expected, dtype)
    assert_equal(t.index_put([from_np(rows), from_np(cols)], v, accumulate=accumulate), expected, dtype)
    assert t.index_put_((from_np(rows), from_np(cols)), v, accumulate) is t
    assert_equal(t, expected, dtype)


def test_index_put_with_none_and_broadcast_values(rng):
    t, a = make(rng, (3, 4))
    r = ember.index_put(t, (None, ember.tensor([1, 3])), ember.tensor(9.0))
    a[:, [1, 3]] = 9
    assert_equal(r, a)
    assert ember.index_put_(t, [ember.tensor([True, False, True])], ember.tensor([1.0, 2, 3, 4])) is t
    with pytest.raises(
        RuntimeError,
        match="Index put requires the source and destination dtypes match, got Float for "
        "the destination and Double for the source.",
    ):
        t.index_put_((ember.tensor([0]),), ember.tensor([1.0], dtype=ember.float64))
    with pytest.raises(
        RuntimeError,
        match=r"shape mismatch: value tensor of shape \[3\] cannot be broadcast to "
        r"indexing result of shape \[2, 4\]",
    ):
        t.index_put_((ember.tensor([0, 1]),), ember.ones(3))


# ------------------------------------------------------------------------------------------ masks


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), (3, 1), ()], ids=str)
def test_masked_select_matches_numpy(rng, dtype, layout, mask_shape):
    t, a = make(rng, (3, 4), dtype, layout)
    m = rng.random(mask_shape) < 0.5
    shape = np.broadcast_shapes(a.shape, m.shape)
    expected = np.broadcast_to(a, shape)[np.broadcast_to(m, shape)]
    assert_equal(ember.masked_select(t, from_np(m)), expected, dtype)
    assert_equal(t.masked_select(from_np(m)), expected, dtype)


def test_masked_select_broadcasts_self_and_0d(rng):
    t, a = make(rng, (4,))
    m = rng.random((2, 4)) < 0.5
    assert_equal(t.masked_select(from_np(m)), np.broadcast_to(a, (2, 4))[m])
    assert_equal(ember.tensor(2.0).masked_select(ember.tensor(True)), np.array([2.0], np.float32))
    assert_equal(ember.tensor(2.0).masked_select(ember.tensor(False)), np.zeros(0, np.float32))
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor for mask"):
        t.masked_select(ember.ones(4, dtype=ember.uint8))
    out = ember.empty(int(m.sum()))
    assert ember.masked_select(t, from_np(m), out=out) is out


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), ()], ids=str)
def test_masked_scatter_matches_numpy(rng, dtype, layout, mask_shape):
    t, a = make(rng, (3, 4), dtype, layout)
    m = np.broadcast_to(rng.random(mask_shape) < 0.5, (3, 4))
    src, s = make(rng, (4, 4), dtype, "transposed")
    expected = np.array(a, copy=True)
    expected[m] = s.ravel()[: m.sum()]
    mask = from_np(np.array(m)[(0,) * (2 - len(mask_shape))] if mask_shape != (3, 4) else m)
    assert_equal(ember.masked_scatter(t, mask, src), expected, dtype)
    assert_equal(t.masked_scatter(mask, src), expected, dtype)
    before = t._version
    assert t.masked_scatter_(mask, src) is t
    assert_equal(t, expected, dtype)
    assert t._version == before + 1


def test_masked_scatter_errors():
    t = ember.zeros(2, 2)
    with pytest.raises(RuntimeError, match=r"Number of elements of source \(1\) < number of ones in mask \(2\)"):
        t.masked_scatter_(ember.tensor([True, False]), ember.ones(1))
    with pytest.raises(
        RuntimeError, match="masked_scatter: expected self and source to have same dtypes but got Float and Double"
    ):
        t.masked_scatter_(ember.tensor([True, True]), ember.ones(2, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="masked_scatter_ only supports boolean masks"):
        t.masked_scatter_(ember.tensor([1, 1], dtype=ember.uint8), ember.ones(2))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("value", [0, -3, 2.5, True, "tensor"])
def test_masked_fill_matches_numpy(rng, dtype, layout, value):
    t, a = make(rng, (3, 4), dtype, layout)
    m = rng.random((4,)) < 0.5
    v = ember.tensor(1.5) if value == "tensor" else value
    raw = 1.5 if value == "tensor" else value
    if dtype is ember.bool:
        raw = bool(raw)
    fill = np.array(raw).astype(np.float64).astype(a.dtype) if dtype is not ember.bool else np.bool_(raw)
    if dtype is ember.int64:
        fill = np.int64(int(raw))
    expected = np.where(m, fill, a).astype(a.dtype)
    assert_equal(ember.masked_fill(t, from_np(m), v), expected, dtype)
    assert_equal(t.masked_fill(from_np(m), v), expected, dtype)
    if layout != "expanded":
        before = t._version
        assert t.masked_fill_(from_np(m), v) is t
        assert_equal(t, expected, dtype)
        assert t._version == before + 1


def test_masked_fill_broadcasts_and_errors(rng):
    t, a = make(rng, (4,))
    m = rng.random((2, 4)) < 0.5
    assert_equal(t.masked_fill(from_np(m), 0), np.where(m, 0, a).astype(np.float32))
    with pytest.raises(RuntimeError, match="must be greater or equal to the number of dimensions"):
        t.masked_fill_(from_np(m), 0)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype uint8"):
        t.masked_fill_(ember.ones(4, dtype=ember.uint8), 0)
    with pytest.raises(
        RuntimeError,
        match="only supports a 0-dimensional value tensor, but got tensor with 1 "
        r"dimension\(s\)",
    ):
        t.masked_fill(ember.ones(4, dtype=ember.bool), ember.tensor([1.0]))


# ------------------------------------------------------------------------------------------ nonzero / where


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 4), (5,), (2, 3, 2), (0, 3), ()], ids=str)
def test_nonzero_matches_numpy(rng, dtype, layout, shape):
    t, a = make(rng, shape, dtype, layout)
    if dtype is not ember.bool and a.size:
        t, a = ember.where(t > 0, t, 0).to(dtype), np.where(a > 0, a, 0).astype(a.dtype)  # plenty of zeros
    assert_equal(ember.nonzero(t), np.argwhere(a), ember.int64)
    assert_equal(t.nonzero(), np.argwhere(a))
    assert_equal(ember.argwhere(t), np.argwhere(a))
    assert_equal(t.argwhere(), np.argwhere(a))
    expected = np.nonzero(np.atleast_1d(a))
    for f in (lambda: ember.nonzero(t, as_tuple=True), lambda: t.nonzero(as_tuple=True), lambda: ember.where(t)):
        r = f()
        assert isinstance(r, tuple) and len(r) == len(expected)
        for x, e in zip(r, expected):
            assert_equal(x, e)


def test_nonzero_special_values_and_large_inputs(rng):
    t = ember.tensor([0.0, -0.0, float("nan"), float("inf"), 1e-30])
    assert_equal(t.nonzero(), np.array([[2], [3], [4]]))
    a = rng.random((300, 500)) < 0.1  # split across threads
    assert_equal(from_np(a).nonzero(), np.argwhere(a))
    out = ember.empty(int(a.sum()), 2, dtype=ember.int64)
    assert ember.nonzero(from_np(a), out=out) is out
    assert_equal(out, np.argwhere(a))


@pytest.mark.parametrize("shape", [(70001,), (300, 1), (1, 300), (7, 33, 129), (2, 3, 5, 1200)], ids=str)
@pytest.mark.parametrize("density", [0.0, 0.03, 0.5, 1.0])
def test_nonzero_dense_and_sparse_masks_over_threads(rng, shape, density):
    # Every element's coordinates are written and kept only past a nonzero one: all-false, all-true and random masks,
    # rows shorter and longer than a part, split over two threads.
    a = rng.random(shape) < density
    threads = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        assert_equal(from_np(a).nonzero(), np.argwhere(a))
        f = np.where(a, rng.standard_normal(shape), 0.0).astype(np.float32)
        assert_equal(from_np(f).nonzero(), np.argwhere(f))
    finally:
        ember.set_num_threads(threads)


def test_where_with_three_arguments_still_works(rng):
    t, a = make(rng, (3, 4))
    assert_equal(ember.where(t > 0, t, 0.0), np.where(a > 0, a, 0).astype(np.float32))
    assert_equal(ember.where(condition=t > 0, input=t, other=-t), np.where(a > 0, a, -a))


# ------------------------------------------------------------------------------------------ take


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_matches_numpy(rng, dtype, layout):
    t, a = make(rng, (3, 4), dtype, layout)
    idx = rng.integers(-12, 12, (2, 5))
    assert_equal(ember.take(t, from_np(idx)), np.take(a, idx), dtype)
    assert_equal(t.take(from_np(idx).t()), np.take(a, idx.T), dtype)
    assert_equal(t.take(ember.tensor(3)), np.take(a, 3), dtype)
    assert_equal(t.take(ember.zeros(0, dtype=ember.int64)), np.zeros(0, a.dtype), dtype)


def test_take_errors_and_out(rng):
    t, a = make(rng, (2, 3))
    out = ember.empty(2)
    assert ember.take(t, ember.tensor([0, 5]), out=out) is out
    assert_equal(out, a.ravel()[[0, 5]])
    with pytest.raises(IndexError, match=r"^take\(\): index 6 is out of bounds for dimension 0 with size 6$"):
        t.take(ember.tensor([6]))
    with pytest.raises(IndexError, match=r"take\(\): index -7 is out of bounds"):
        t.take(ember.tensor([-7]))
    with pytest.raises(RuntimeError, match=r"take\(\): Expected a long tensor for index, but got Int"):
        t.take(ember.tensor([0], dtype=ember.int32))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_name)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_take_along_dim_matches_numpy(rng, dtype, layout, dim):
    t, a = make(rng, (3, 4), dtype, layout)
    idx_shape = [3, 4]
    idx_shape[dim] = 5
    idx_shape[1 - dim % 2] = 1  # broadcast along the other dim
    idx = index_array(rng, idx_shape, a.shape[dim])
    assert_equal(ember.take_along_dim(t, from_np(idx), dim), np.take_along_axis(a, idx, dim), dtype)
    assert_equal(t.take_along_dim(from_np(idx), dim=dim), np.take_along_axis(a, idx, dim), dtype)


def test_take_along_dim_without_dim_and_errors(rng):
    t, a = make(rng, (3, 4), layout="transposed")
    idx = rng.integers(0, 12, (2, 3))
    assert_equal(ember.take_along_dim(t, from_np(idx)), np.take_along_axis(a.ravel(), idx.ravel(), 0))
    with pytest.raises(
        RuntimeError,
        match="input and indices should have the same number of dimensions, but got 2 "
        "dimensions for input, and 1 dimensions for indices",
    ):
        t.take_along_dim(ember.tensor([0]), 0)
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got Int"):
        t.take_along_dim(ember.tensor([[0]], dtype=ember.int32), 0)
    # gather's RuntimeError (PyTorch 2.15 reads past the end here and returns a value)
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        t.take_along_dim(ember.tensor([[4]]), 1)


# ------------------------------------------------------------------------------------------ one_hot


@pytest.mark.parametrize("num_classes", [-1, 5, 7])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded"])
def test_one_hot_matches_numpy(rng, num_classes, layout):
    idx = rng.integers(0, 5, (3, 4))
    idx[0, 0] = 4
    t = {
        "contiguous": lambda: from_np(idx),
        "transposed": lambda: from_np(idx.T.copy()).t(),
        "expanded": lambda: from_np(idx[:1].copy()).expand(3, 4),
    }[layout]()
    if layout == "expanded":
        idx = np.broadcast_to(idx[:1], (3, 4))
    n = 5 if num_classes == -1 else num_classes
    assert_equal(ember._C._one_hot(t, num_classes), np.eye(n, dtype=np.int64)[idx], ember.int64)
    assert_equal(ember.nn.functional.one_hot(t, num_classes), np.eye(n, dtype=np.int64)[idx], ember.int64)


def test_one_hot_edge_cases_and_errors():
    assert_equal(ember._C._one_hot(ember.tensor(2)), np.array([0, 0, 1]))
    assert_equal(ember._C._one_hot(ember.zeros(0, dtype=ember.int64), 3), np.zeros((0, 3), np.int64))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor."):
        ember._C._one_hot(ember.zeros(0, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        ember._C._one_hot(ember.tensor([-1, 0]))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        ember._C._one_hot(ember.tensor([3]), 3)
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        ember._C._one_hot(ember.tensor([1.0]))
