"""The shape and matrix helpers of ember/ops/shape_more.cpp and the statistics of ember/ops/stats.cpp against NumPy:
the diagonal family and *_scatter ops, cross/kron/rot90, splitting and stacking, in-place metadata ops, resize_,
put_, diff, renorm, dist, cov, corrcoef, vander, trapezoid and quantile, with non-contiguous, zero-size, 0-d and
broadcast inputs, autograd behaviour, and the error paths (PyTorch 1.13's exception types, messages naming the op).
"""

import itertools

import numpy as np
import pytest
from conftest import assert_equal, from_np, to_np

import ember

NAN = float("nan")


def close(t, expected, rtol=1e-6, atol=1e-6):
    expected = np.asarray(expected)
    assert tuple(t.shape) == expected.shape, (tuple(t.shape), expected.shape)
    np.testing.assert_allclose(to_np(t).astype(np.float64), expected, rtol=rtol, atol=atol, equal_nan=True)


def rnd(rng, *shape):
    return rng.standard_normal(shape)


# ---------------------------------------------------------------------------------------------- diagonal family


@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
def test_diag_against_numpy(rng, k):
    v = rnd(rng, 4)
    assert_equal(ember.diag(from_np(v), k), np.diag(v, k))
    m = rnd(rng, 4, 5)
    assert_equal(ember.diag(from_np(m), k), np.diag(m, k))
    assert_equal(from_np(m).t().diag(k), np.diag(m.T, k))  # non-contiguous; method form
    assert_equal(ember.diag(from_np(v)[::2], k), np.diag(v[::2], k))
    assert_equal(ember.diagflat(from_np(m), k), np.diagflat(m, k))


def test_diag_copies_zero_size_and_errors():
    m = ember.ones(3, 3)
    d = ember.diag(m)
    d += 1
    assert m.sum().item() == 9  # a copy, not a view
    assert ember.diag(ember.zeros(0)).shape == (0, 0)
    assert ember.diag(ember.zeros(0), 2).shape == (2, 2)
    assert ember.diag(ember.ones(2, 2, dtype=ember.bool)).tolist() == [True, True]
    for bad in (ember.zeros(2, 2, 2), ember.tensor(1.0)):
        with pytest.raises(RuntimeError, match="diag"):
            ember.diag(bad)


def test_diag_embed_against_numpy(rng):
    a = rnd(rng, 2, 3)
    r = ember.diag_embed(from_np(a))
    exp = np.zeros((2, 3, 3))
    for i in range(2):
        exp[i] = np.diag(a[i])
    assert_equal(r, exp)
    r = ember.diag_embed(from_np(a), 1, 0, 2)  # PyTorch: shape [4, 2, 4]
    assert r.shape == (4, 2, 4)
    exp = np.zeros((4, 2, 4))
    for b in range(2):
        exp[:, b, :] = np.diag(a[b], 1)
    assert_equal(r, exp)
    assert_equal(from_np(a).diag_embed(-1, -1, -2), np.stack([np.diag(a[i], -1).T for i in range(2)]))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 0, 0"):
        ember.diag_embed(ember.arange(3.0), 0, 0, 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.diag_embed(ember.tensor(2.0))


def test_linalg_diagonal_is_a_view_of_the_last_two_dims(rng):
    a = rnd(rng, 2, 3, 4)
    d = ember.linalg.diagonal(from_np(a), offset=1)
    assert_equal(d, np.diagonal(a, 1, -2, -1))
    t = from_np(a)
    ember.linalg.diagonal(t, dim1=0, dim2=2).fill_(0)
    assert to_np(t)[0, :, 0].tolist() == [0, 0, 0]


def test_trace(rng):
    m = rnd(rng, 3, 5)
    close(ember.trace(from_np(m)), np.trace(m))
    close(from_np(m).t().trace(), np.trace(m.T))
    r = ember.trace(ember.arange(6, dtype=ember.int8).reshape(2, 3))
    assert r.dtype is ember.int64 and r.item() == 4
    assert ember.trace(ember.zeros(0, 3)).item() == 0
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 1"):
        ember.trace(ember.ones(6))


@pytest.mark.parametrize("row,col,offset", [(3, 4, 1), (4, 3, -1), (5, 5, 0), (0, 4, 0), (3, 3, 10), (3, 3, -10)])
def test_tril_triu_indices(row, col, offset):
    for fn, np_fn in ((ember.tril_indices, np.tril_indices), (ember.triu_indices, np.triu_indices)):
        r = fn(row, col, offset)
        assert_equal(r, np.stack(np_fn(row, offset, col)).reshape(2, -1), ember.int64)
    assert ember.tril_indices(3, 4, 1, dtype=ember.int32).dtype is ember.int32
    with pytest.raises(RuntimeError, match="row must be non-negative, got -1"):
        ember.tril_indices(-1, 4)


@pytest.mark.parametrize(
    "shape,wrap", [((3, 4), False), ((7, 3), True), ((7, 3), False), ((3, 3, 3), False), ((2, 5), True), ((8, 3), True)]
)
def test_fill_diagonal_against_numpy(shape, wrap):
    a = np.zeros(shape)
    np.fill_diagonal(a, 5, wrap=wrap)
    t = ember.zeros(*shape)
    assert t.fill_diagonal_(5, wrap=wrap) is t
    assert_equal(t, a)
    assert t._version == (2 if wrap and shape[0] > shape[1] + 1 else 1)  # two fills, as PyTorch


def test_fill_diagonal_noncontiguous_grad_and_errors():
    t = ember.zeros(4, 3).t()  # (3, 4) view
    t.fill_diagonal_(2.0)
    assert_equal(t, np.eye(3, 4) * 2)
    x = ember.ones(3, 3, requires_grad=True)
    y = x * 2
    y.fill_diagonal_(0.0)
    y.sum().backward()
    assert_equal(x.grad, 2 * (1 - np.eye(3)))
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        ember.zeros(3, 3, 4).fill_diagonal_(5)
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        ember.zeros(3).fill_diagonal_(5)


def test_scatter_family_against_numpy(rng):
    base = rnd(rng, 3, 4)
    src = rnd(rng, 3)
    exp = base.copy()
    exp[np.arange(3), np.arange(3) + 1] = src
    assert_equal(ember.diagonal_scatter(from_np(base), from_np(src), 1), exp)
    exp = base.copy()
    exp[-1] = src[0]
    row = np.full(4, src[0])
    assert_equal(ember.select_scatter(from_np(base), from_np(row), 0, -1), exp)
    big = rnd(rng, 8, 4)
    s = rnd(rng, 8, 2)
    exp = big.copy()
    exp[:, 0:4:2] = s
    assert_equal(ember.slice_scatter(from_np(big), from_np(s), 1, 0, 4, 2), exp)
    exp = big.copy()
    exp[6:] = s.T[:, :4].reshape(2, 4) if False else exp[6:]
    s2 = rnd(rng, 2, 4)
    exp[6:] = s2
    assert_equal(from_np(big).slice_scatter(from_np(s2), start=6), exp)
    r = ember.as_strided_scatter(ember.zeros(6), ember.ones(2, 2), (2, 2), (1, 2), 1)
    assert r.tolist() == [0.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    # non-contiguous self: the result has self's values
    nc = from_np(big).t()
    r = ember.select_scatter(nc, ember.zeros(8), 0, 1)
    exp = big.T.copy()
    exp[1] = 0
    assert_equal(r, exp)
    with pytest.raises(
        RuntimeError,
        match=r"expected src to have a size equal to the slice of self. src size = \[2\], "
        r"slice size = \[3\]",
    ):
        ember.diagonal_scatter(ember.zeros(3, 4), ember.ones(2), 1)
    with pytest.raises(RuntimeError, match="select_scatter"):
        ember.select_scatter(ember.zeros(3, 4), ember.ones(3), 0, 0)


def test_scatter_family_gradients():
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    s = ember.randn(3, dtype=ember.float64, requires_grad=True)
    r = ember.diagonal_scatter(x, s, 1)
    (r * ember.arange(12.0, dtype=ember.float64).reshape(3, 4)).sum().backward()
    w = np.arange(12.0).reshape(3, 4)
    wx = w.copy()
    wx[np.arange(3), np.arange(3) + 1] = 0
    assert_equal(x.grad, wx)
    assert_equal(s.grad, w[np.arange(3), np.arange(3) + 1])


# ---------------------------------------------------------------------------------------------- products, rotations


def test_cross_against_numpy(rng):
    a, b = rnd(rng, 4, 3), rnd(rng, 4, 3)
    close(ember.cross(from_np(a), from_np(b)), np.cross(a, b))
    close(ember.linalg.cross(from_np(a), from_np(b)), np.cross(a, b))
    a3, b3 = rnd(rng, 3, 5), rnd(rng, 3, 5)
    close(ember.cross(from_np(a3), from_np(b3)), np.cross(a3, b3, axis=0))  # dim=None: the first dim of size 3
    close(ember.linalg.cross(from_np(a3), from_np(b3), dim=0), np.cross(a3, b3, axis=0))
    close(from_np(a).cross(from_np(b)[:1], dim=1), np.cross(a, b[:1]))  # broadcast
    close(ember.cross(from_np(a.T).t(), from_np(b)), np.cross(a, b))  # non-contiguous
    # the dim of size 3 in a 3x3 input: torch.cross picks dim 0, linalg.cross dim -1
    m, n = rnd(rng, 3, 3), rnd(rng, 3, 3)
    close(ember.cross(from_np(m), from_np(n)), np.cross(m, n, axis=0))
    close(ember.linalg.cross(from_np(m), from_np(n)), np.cross(m, n, axis=-1))
    with pytest.raises(RuntimeError, match="no dimension of size 3"):
        ember.cross(ember.ones(4, 4), ember.ones(4, 4))
    with pytest.raises(RuntimeError, match="linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4"):
        ember.linalg.cross(ember.ones(3, 4), ember.ones(3, 4))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        ember.cross(ember.ones(3), ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="dtype"):
        ember.cross(ember.ones(3, 3, dtype=ember.int64), ember.ones(3, 3))


def test_kron_against_numpy(rng):
    for sa, sb in [((2, 3), (4,)), ((2, 3), (2, 2)), ((), (3,)), ((2, 1, 3), (3, 2)), ((0, 2), (3, 3))]:
        a, b = rnd(rng, *sa), rnd(rng, *sb)
        close(ember.kron(from_np(a), from_np(b)), np.kron(a, b))
    assert ember.kron(ember.ones(2, 3, dtype=ember.int64), ember.ones(4)).dtype is ember.float32
    a = rnd(rng, 3, 2)
    close(from_np(a.T).t().kron(from_np(a)), np.kron(a, a))


@pytest.mark.parametrize("k", [-5, -3, -1, 0, 1, 2, 3, 4, 6])
def test_rot90_against_numpy(rng, k):
    a = rnd(rng, 2, 3, 4)
    for dims in [(0, 1), (1, 0), (1, 2), (-1, 0)]:
        assert_equal(ember.rot90(from_np(a), k, dims), np.rot90(a, k, dims))
    assert_equal(from_np(a).rot90(k), np.rot90(a, k))


def test_rot90_errors():
    x = ember.arange(6).reshape(2, 3)
    with pytest.raises(RuntimeError, match="expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"):
        ember.rot90(x, 1, [0, 0])
    with pytest.raises(RuntimeError, match="expected total dims >= 2, but got total dims = 1"):
        ember.rot90(ember.arange(6), 1, [0, 1])
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2, but got dims = 1"):
        ember.rot90(x, 1, [0])


def test_block_diag(rng):
    a, b = rnd(rng, 2, 2), rnd(rng, 3)
    r = ember.block_diag(from_np(a), ember.tensor(3.0), from_np(b), ember.ones(0, 2))
    exp = np.zeros((4, 8))
    exp[:2, :2] = a
    exp[2, 2] = 3
    exp[3, 3:6] = b
    assert_equal(r, exp)
    assert ember.block_diag().shape == (1, 0)
    assert ember.block_diag(ember.ones(2, 2, dtype=ember.int64), ember.ones(1)).dtype is ember.float32
    with pytest.raises(RuntimeError, match="Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions"):
        ember.block_diag(ember.ones(2, 2, 2))


def test_cartesian_prod_and_combinations():
    r = ember.cartesian_prod(ember.tensor([1, 2]), ember.tensor([3, 4, 5]))
    assert_equal(r, np.array(list(itertools.product([1, 2], [3, 4, 5]))))
    assert_equal(ember.cartesian_prod(ember.tensor([1, 2])), [1, 2])
    x = ember.tensor([1, 2, 3, 4])
    for r in range(0, 6):
        for rep, it in ((False, itertools.combinations), (True, itertools.combinations_with_replacement)):
            got = ember.combinations(x, r, with_replacement=rep)
            exp = np.array(list(it([1, 2, 3, 4], r)), dtype=np.int64).reshape(-1, r) if r else np.zeros(0, np.int64)
            assert_equal(got, exp)
    assert ember.combinations(x, 5).shape == (0, 5)
    with pytest.raises(RuntimeError, match="Expect a non-negative number, but got -1"):
        ember.combinations(x, -1)
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        ember.combinations(ember.ones(2, 2))


# ---------------------------------------------------------------------------------------------- splitting, stacking


def test_atleast(rng):
    s = ember.tensor(1.0)
    assert ember.atleast_1d(s).shape == (1,)
    assert ember.atleast_2d(s).shape == (1, 1)
    assert ember.atleast_3d(s).shape == (1, 1, 1)
    for shape in [(2,), (2, 3), (2, 3, 4), (1, 2, 3, 4)]:
        a = rnd(rng, *shape)
        for fn, np_fn in (
            (ember.atleast_1d, np.atleast_1d),
            (ember.atleast_2d, np.atleast_2d),
            (ember.atleast_3d, np.atleast_3d),
        ):
            assert_equal(fn(from_np(a)), np_fn(a))
    r = ember.atleast_1d((ember.tensor(1.0), ember.ones(2)))
    assert isinstance(r, tuple) and [t.shape for t in r] == [(1,), (2,)]
    r = ember.atleast_2d(ember.tensor(1.0), ember.ones(2))
    assert [t.shape for t in r] == [(1, 1), (1, 2)]
    assert [t.shape for t in ember.atleast_3d([ember.tensor(1.0)])] == [(1, 1, 1)]


@pytest.mark.parametrize("arg", [3, 1, 7, 10, [1, 5, 3, 10], [2], [], (0, 0, 4), [-2]])
def test_tensor_split_against_numpy(rng, arg):
    a = rnd(rng, 7, 4)
    got = ember.tensor_split(from_np(a), arg)
    exp = np.array_split(a, arg) if isinstance(arg, int) else np.split(a, arg)
    assert len(got) == len(exp)
    for g, e in zip(got, exp):
        assert_equal(g, e)
    got = from_np(a).t().tensor_split(arg, dim=1)
    exp = np.array_split(a.T, arg, axis=1) if isinstance(arg, int) else np.split(a.T, arg, axis=1)
    for g, e in zip(got, exp):
        assert_equal(g, e)


def test_tensor_split_tensor_args_and_errors():
    x = ember.arange(7)
    assert [t.tolist() for t in ember.tensor_split(x, ember.tensor(3))] == [[0, 1, 2], [3, 4], [5, 6]]
    assert [t.tolist() for t in ember.tensor_split(x, ember.tensor([1, 6]))] == [[0], [1, 2, 3, 4, 5], [6]]
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        ember.tensor_split(x, 0)
    with pytest.raises(RuntimeError, match="tensor_split expected at least a 1-dimensional tensor"):
        ember.tensor_split(ember.tensor(7), 2)
    with pytest.raises(RuntimeError, match="zero-dimensional or one-dimensional tensor, but got a tensor with 2 dims"):
        ember.tensor_split(x, ember.tensor([[1]]))
    with pytest.raises(RuntimeError, match="dtype of long"):
        ember.tensor_split(x, ember.tensor([1.0]))
    # the pieces are views
    a = ember.zeros(6)
    ember.tensor_split(a, 2)[1].fill_(1)
    assert a.tolist() == [0, 0, 0, 1, 1, 1]


def test_hsplit_vsplit_dsplit_against_numpy(rng):
    a = rnd(rng, 4, 6, 2)
    for fn, np_fn in ((ember.hsplit, np.hsplit), (ember.vsplit, np.vsplit), (ember.dsplit, np.dsplit)):
        for arg in (2, [1, 3]):
            got, exp = fn(from_np(a), arg), np_fn(a, arg)
            assert len(got) == len(exp)
            for g, e in zip(got, exp):
                assert_equal(g, e)
    v = rnd(rng, 12)
    for g, e in zip(from_np(v).hsplit(4), np.hsplit(v, 4)):
        assert_equal(g, e)
    with pytest.raises(
        RuntimeError,
        match="torch.hsplit attempted to split along dimension 1, but the size of the "
        "dimension 4 is not divisible by the split_size 3!",
    ):
        ember.hsplit(ember.ones(3, 4), 3)
    with pytest.raises(RuntimeError, match="torch.vsplit requires a tensor with at least 2 dimension"):
        ember.vsplit(ember.ones(12), 2)
    with pytest.raises(RuntimeError, match="torch.hsplit requires a tensor with at least 1 dimension"):
        ember.hsplit(ember.tensor(1), 4)
    with pytest.raises(RuntimeError, match="torch.dsplit requires a tensor with at least 3 dimension"):
        ember.dsplit(ember.ones(2, 2), 2)


def test_dstack_column_stack_ravel(rng):
    a, b = rnd(rng, 2), rnd(rng, 2)
    assert_equal(ember.dstack([from_np(a), from_np(b)]), np.dstack([a, b]))
    m, n = rnd(rng, 2, 3), rnd(rng, 2, 3, 2)
    assert_equal(ember.dstack((from_np(m), from_np(n))), np.dstack([m, n]))
    c = rnd(rng, 2, 3)
    assert_equal(ember.column_stack([from_np(a), from_np(c), from_np(b)]), np.column_stack([a, c, b]))
    assert ember.column_stack([ember.tensor(1.0), ember.tensor(2.0)]).shape == (1, 2)
    out = ember.empty(2, 2)
    assert ember.column_stack([from_np(a), from_np(b)], out=out) is out
    assert_equal(ember.ravel(from_np(c).t()), np.ravel(c.T))
    assert_equal(from_np(c).ravel(), np.ravel(c))
    assert [t.tolist() for t in ember.unsafe_chunk(ember.arange(5), 2)] == [[0, 1, 2], [3, 4]]
    assert [t.tolist() for t in ember.arange(5).unsafe_split(2)] == [[0, 1], [2, 3], [4]]


# ---------------------------------------------------------------------------------------------- in-place metadata


def test_inplace_shape_ops_change_the_same_tensor():
    x = ember.ones(2, 3)
    assert x.t_() is x and x.shape == (3, 2) and x.stride() == (1, 3) and x._version == 1
    assert x.unsqueeze_(0) is x and x.shape == (1, 3, 2)
    assert x.squeeze_() is x and x.shape == (3, 2)
    assert x.transpose_(0, 1) is x and x.shape == (2, 3) and x.is_contiguous()
    assert x.swapdims_(0, 1).shape == (3, 2) and x.swapaxes_(0, 1).shape == (2, 3)
    assert x.unsqueeze_(-1).squeeze_(2).shape == (2, 3)
    y = ember.zeros(2, 3)
    w = y.view(6)
    y.transpose_(0, 1)
    assert w.shape == (6,) and y.shape == (3, 2)  # other views keep their geometry
    with pytest.raises(RuntimeError, match="t_"):
        ember.ones(2, 2, 2).t_()


def test_inplace_shape_ops_autograd():
    a = ember.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        a.unsqueeze_(0)
    b = a * 2
    b.unsqueeze_(0)
    assert b.shape == (1, 2, 3) and b.grad_fn is not None
    (b * ember.arange(6.0).reshape(1, 2, 3)).sum().backward()
    assert_equal(a.grad, 2 * np.arange(6.0).reshape(2, 3))
    a.grad = None
    c = (a * 1).t_()
    (c * ember.arange(6.0).reshape(3, 2)).sum().backward()
    assert_equal(a.grad, np.arange(6.0).reshape(3, 2).T)
    with ember.no_grad():
        a.unsqueeze_(0)
    assert a.shape == (1, 2, 3) and a.is_leaf


def test_resize():
    x = ember.arange(6.0).reshape(2, 3)
    assert x.resize_(3, 2) is x
    assert_equal(x, np.arange(6.0).reshape(3, 2))
    x.resize_(4, 5)
    assert x.shape == (4, 5) and x.stride() == (5, 1)
    assert_equal(x.reshape(-1)[:6], np.arange(6.0))  # the old values stay in front
    x.resize_(0)
    assert x.shape == (0,)
    x.resize_as_(ember.ones(2, 2))
    assert x.shape == (2, 2)
    y = ember.arange(6.0).reshape(2, 3).t()
    y.resize_(2, 3)
    assert_equal(y, np.arange(6.0).reshape(2, 3))
    a = ember.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        a.resize_(3, 3)
    with pytest.raises(RuntimeError, match="resize_"):
        ember.ones(2).resize_(-1)


def test_put_against_numpy(rng):
    a = rnd(rng, 3, 4)
    idx = np.array([0, 5, -1, 7])
    v = rnd(rng, 4)
    exp = a.copy()
    np.put(exp, idx, v)
    t = from_np(a)
    assert t.put_(from_np(idx), from_np(v)) is t
    assert_equal(t, exp)
    r = ember.put(from_np(a), from_np(np.array([[1, 1]])), from_np(np.array([[2.0, 3.0]])), accumulate=True)
    exp = a.copy()
    exp.flat[1] += 5
    close(r, exp)
    nc = from_np(a).t()  # non-contiguous: positions in nc's own (row-major) order
    nc.put_(ember.tensor([1]), ember.tensor([9.0], dtype=ember.float64))
    assert nc[0, 1].item() == 9.0
    with pytest.raises(IndexError, match="same number of elements"):
        ember.zeros(2, 3).put_(ember.tensor([1, 2]), ember.tensor([1.0]))
    with pytest.raises(IndexError):
        ember.zeros(2, 3).put_(ember.tensor([6]), ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.zeros(2, 3).put_(ember.tensor([1]), ember.tensor([1.0], dtype=ember.float64))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_against_reference(rng, reduce, include_self):
    self_np, src = rnd(rng, 4, 3), rnd(rng, 6, 3)
    idx = np.array([0, 2, 0, 3, 2, 0])
    exp = self_np.copy()
    fn = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    for row in range(4):
        vals = list(src[idx == row])
        if not vals:
            continue
        exp[row] = fn(np.stack(([self_np[row]] if include_self else []) + vals), axis=0)
    r = ember.index_reduce(from_np(self_np), 0, from_np(idx), from_np(src), reduce, include_self=include_self)
    close(r, exp, rtol=1e-12)
    t = from_np(self_np).t().contiguous().t()
    assert t.index_reduce_(0, from_np(idx).int(), from_np(src), reduce, include_self=include_self) is t
    close(t, exp, rtol=1e-12)
    close(
        from_np(self_np.T).index_reduce(1, from_np(idx), from_np(src.T), reduce, include_self=include_self),
        exp.T,
        rtol=1e-12,
    )


def test_index_reduce_errors():
    x, s = ember.ones(3, 2), ember.ones(3, 2)
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum"):
        x.index_reduce(0, ember.tensor([0, 2, 0]), s, "sum")
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_reduce(0, ember.tensor([[0, 2, 0]]), s, "prod")
    with pytest.raises(RuntimeError, match=r"Number of indices \(2\) should be equal to source.size\(dim\): \(3\)"):
        x.index_reduce(0, ember.tensor([0, 2]), s, "prod")
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        x.index_reduce(0, ember.tensor([0.0, 2, 1]), s, "prod")
    # PyTorch's type and message, not those of the scatter_reduce it is composed of
    for bad in ([0, 5, 1], [0, -1, 1]):
        with pytest.raises(IndexError, match="^index out of range in self$"):
            x.index_reduce(0, ember.tensor(bad), s, "prod")
        with pytest.raises(IndexError, match="^index out of range in self$"):
            x.clone().index_reduce_(0, ember.tensor(bad), s, "amax")


def test_tensor_methods_misc():
    assert ember.ones(2).type_as(ember.ones(1, dtype=ember.int32)).dtype is ember.int32
    assert ember.ones(2).is_same_size(ember.ones(2)) and not ember.is_same_size(ember.ones(2), ember.ones(1))
    assert [v.is_nonzero() for v in (ember.tensor([0.0]), ember.tensor(1), ember.tensor([[2]]), ember.tensor(NAN))] == [
        False,
        True,
        True,
        True,
    ]
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        ember.tensor([]).is_nonzero()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        ember.is_nonzero(ember.tensor([1, 2]))
    assert not ember.is_signed(ember.ones(1, dtype=ember.uint8)) and not ember.ones(1, dtype=ember.bool).is_signed()
    assert ember.ones(1, dtype=ember.int8).is_signed() and ember.ones(1).is_signed()
    assert_equal(ember.ones(2, 3).sum_to_size(1, 3), [[2.0, 2.0, 2.0]])
    assert_equal(ember.ones(2, 3).sum_to_size((3,)), [2.0, 2.0, 2.0])
    with pytest.raises(RuntimeError, match=r"size \{\[2, 2\]\} is not expandable to size \{\[2, 3\]\}"):
        ember.ones(2, 3).sum_to_size(2, 2)
    t = ember.ones(2, 3).new_empty_strided((2, 2), (1, 2))
    assert t.shape == (2, 2) and t.stride() == (1, 2) and t.dtype is ember.float32
    assert ember.ones(2).new_empty_strided((3,), (1,), dtype=ember.int64).dtype is ember.int64
    assert_equal(ember.narrow_copy(ember.arange(6).reshape(2, 3), 1, 1, 2), [[1, 2], [4, 5]])
    x = ember.arange(6).reshape(2, 3).t()
    c = x.narrow_copy(0, 1, 2)
    assert c.is_contiguous() and c.tolist() == [[3, 4], [5, 6]][:0] + [[1, 4], [2, 5]]
    o = ember.ones(1)
    assert ember.positive(o) is o and o.positive() is o
    with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
        ember.positive(ember.ones(1, dtype=ember.bool))


def test_clamp_min_max():
    x = ember.arange(4.0)
    assert x.clamp_min(2.0).tolist() == [2, 2, 2, 3] and ember.clamp_min(x, 2).tolist() == [2, 2, 2, 3]
    assert ember.clamp_max(x, ember.tensor([0.0, 1, 1, 1])).tolist() == [0, 1, 1, 1]
    assert x.clamp_max(1).tolist() == [0, 1, 1, 1]
    y = x.clone()
    assert y.clamp_min_(1.5) is y and y.tolist() == [1.5, 1.5, 2, 3]
    assert y.clamp_max_(2).tolist() == [1.5, 1.5, 2, 2]


def test_top_level_inplace_aliases_and_copies():
    names = [
        "abs_",
        "acos_",
        "acosh_",
        "asin_",
        "asinh_",
        "atan_",
        "atanh_",
        "ceil_",
        "clamp_",
        "clamp_max_",
        "clamp_min_",
        "clip_",
        "cos_",
        "cosh_",
        "detach_",
        "erf_",
        "erfc_",
        "exp2_",
        "exp_",
        "expm1_",
        "fill_",
        "fix_",
        "floor_",
        "frac_",
        "index_put_",
        "log10_",
        "log1p_",
        "log2_",
        "log_",
        "neg_",
        "negative_",
        "reciprocal_",
        "relu_",
        "resize_as_",
        "round_",
        "rsqrt_",
        "sigmoid_",
        "sin_",
        "sinh_",
        "sqrt_",
        "square_",
        "tan_",
        "tanh_",
        "trunc_",
        "zero_",
        "arccos_",
        "arcsin_",
        "arctan_",
    ]
    missing = [n for n in names if not hasattr(ember, n)]
    assert not missing, missing
    x = ember.tensor([-1.0, 2.0])
    assert ember.abs_(x) is x and x.tolist() == [1.0, 2.0]
    assert ember.clamp_(x, max=1.5).tolist() == [1.0, 1.5]
    assert ember.zero_(x) is x and x.tolist() == [0.0, 0.0]
    assert_equal(ember.fill(ember.ones(2), 3), [3.0, 3.0])
    v = ember.tensor(2.0, requires_grad=True)
    ember.fill(ember.ones(3), v).sum().backward()
    assert v.grad.item() == 3.0
    a = ember.ones(2, requires_grad=True)
    d = ember.detach(a * 2)
    assert not d.requires_grad
    base = ember.arange(6.0).reshape(2, 3)
    for name, args in [
        ("view_copy", ((3, 2),)),
        ("permute_copy", ((1, 0),)),
        ("t_copy", ()),
        ("transpose_copy", (0, 1)),
        ("expand_copy", ((2, 2, 3),)),
        ("unsqueeze_copy", (1,)),
        ("select_copy", (1, 2)),
        ("diagonal_copy", ()),
        ("slice_copy", (1, 1, 3)),
        ("as_strided_copy", ((2, 2), (1, 2))),
        ("detach_copy", ()),
        ("alias_copy", ()),
        ("squeeze_copy", ()),
    ]:
        r = getattr(ember, name)(base, *args)
        view = {
            "slice_copy": lambda t: t[:, 1:3],
            "alias_copy": lambda t: t,
            "as_strided_copy": lambda t: t.as_strided((2, 2), (1, 2)),
            "squeeze_copy": lambda t: t.squeeze(),
        }.get(name) or (lambda t: getattr(t, name[:-5])(*args))
        assert r.is_contiguous(), name
        assert_equal(r, to_np(view(base)))
        r.fill_(-1)
        assert base.min().item() == 0, name  # a copy
    pieces = ember.split_copy(base, 1, 1)
    assert len(pieces) == 3 and all(p.is_contiguous() for p in pieces)
    assert [p.tolist() for p in ember.unbind_copy(base)] == base.tolist()
    for p in ember.unbind_copy(base, 1) + ember.split_with_sizes_copy(base, [2, 1], 1):
        p.fill_(-1)
    assert base.min().item() == 0  # the pieces are copies


def test_splitting_copies_keep_gradients_and_subclasses():
    x = ember.arange(12.0).reshape(3, 4).requires_grad_()
    pieces = ember.unbind_copy(x, 1)
    assert all(p.requires_grad and p.is_contiguous() for p in pieces)
    sum(p * (i + 1) for i, p in enumerate(pieces)).sum().backward()
    assert_equal(x.grad, np.tile(np.arange(1.0, 5.0), (3, 1)))

    class Sub(ember.Tensor):
        pass

    s = ember.arange(6.0).reshape(2, 3).as_subclass(Sub)
    pieces = ember.split_copy(s, 2, 1)
    assert [type(p) for p in pieces] == [Sub, Sub]
    assert [p.tolist() for p in pieces] == [[[0.0, 1.0], [3.0, 4.0]], [[2.0], [5.0]]]


# ---------------------------------------------------------------------------------------------- statistics


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_diff_against_numpy(rng, n):
    a = rnd(rng, 4, 5)
    for dim in (0, 1, -1):
        close(ember.diff(from_np(a), n, dim), np.diff(a, n, axis=dim))
    close(from_np(a).t().diff(n), np.diff(a.T, n))
    p, q = rnd(rng, 4, 2), rnd(rng, 4, 1)
    close(ember.diff(from_np(a), n, prepend=from_np(p), append=from_np(q)), np.diff(a, n, prepend=p, append=q))
    b = np.array([True, False, False, True])
    assert_equal(ember.diff(from_np(b), n), np.diff(b, n))


def test_diff_dtypes_and_errors():
    assert ember.diff(ember.tensor([1, 4, 9, 16]), n=2).tolist() == [2, 2]
    r = ember.diff(ember.tensor([1, 4, 9, 16]), prepend=ember.tensor([0.0]))
    assert r.dtype is ember.float32 and r.tolist() == [1, 3, 5, 7]
    assert ember.diff(ember.ones(2, 3), n=-1).shape == (2, 3)
    with pytest.raises(RuntimeError, match="diff expects input to be at least one-dimensional"):
        ember.diff(ember.tensor(3.0))
    with pytest.raises(RuntimeError, match="diff expects prepend or append to be the same dimension as input"):
        ember.diff(ember.ones(2, 3), prepend=ember.ones(3))


def test_renorm_and_dist(rng):
    a = rnd(rng, 3, 4, 2)
    for p, dim, maxnorm in [(2, 0, 1.0), (1, 1, 0.5), (3, -1, 2.0), (2, 0, 100.0)]:
        moved = np.moveaxis(a, dim, 0)
        norms = (np.abs(moved) ** p).reshape(moved.shape[0], -1).sum(1) ** (1 / p)
        factor = np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
        exp = np.moveaxis(moved * factor.reshape(-1, 1, 1), 0, dim)
        close(ember.renorm(from_np(a), p, dim, maxnorm), exp)
    t = from_np(a)
    assert t.renorm_(2, 0, 1.0) is t
    with pytest.raises(RuntimeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        ember.renorm(ember.ones(3), 2, 0, 1.0)
    with pytest.raises(RuntimeError, match="renorm: non-positive-norm not supported"):
        ember.renorm(ember.ones(2, 3), -1, 0, 1.0)
    with pytest.raises(RuntimeError, match="renorm: expected maxnorm to be >= 0 but got -1"):
        ember.renorm(ember.ones(2, 3), 2, 0, -1.0)
    x, y = rnd(rng, 2, 3), rnd(rng, 3)
    for p in (1, 2, 3, float("inf"), 0):
        close(ember.dist(from_np(x), from_np(y), p), np.linalg.norm((x - y).ravel(), p))
    r = ember.dist(ember.ones(2, 3, dtype=ember.int64), ember.zeros(3))
    assert r.dtype is ember.float32 and abs(r.item() - 6**0.5) < 1e-6


def test_cov_corrcoef_against_numpy(rng):
    x = rnd(rng, 3, 7)
    close(ember.cov(from_np(x)), np.cov(x))
    close(from_np(x).t().t().cov(correction=0), np.cov(x, ddof=0))
    close(ember.cov(from_np(x[0])), np.cov(x[0]))
    f = rng.integers(0, 4, 7)
    w = rng.uniform(0.1, 2, 7)
    close(ember.cov(from_np(x), fweights=from_np(f)), np.cov(x, fweights=f))
    close(ember.cov(from_np(x), aweights=from_np(w)), np.cov(x, aweights=w))
    close(
        ember.cov(from_np(x), correction=0, fweights=from_np(f), aweights=from_np(w)),
        np.cov(x, ddof=0, fweights=f, aweights=w),
    )
    close(
        ember.cov(from_np(x), correction=2, fweights=from_np(f), aweights=from_np(w)),
        np.cov(x, ddof=2, fweights=f, aweights=w),
    )
    assert abs(ember.cov(ember.tensor([1, 2, 4])).item() - 7 / 3) < 1e-6
    assert ember.cov(ember.tensor([[0.0, 1, 2]]), correction=5).item() == float("inf")
    close(ember.corrcoef(from_np(x)), np.corrcoef(x))
    close(ember.corrcoef(ember.tensor([[1, 2, 4], [1, 3, 2]])), np.corrcoef([[1, 2, 4], [1, 3, 2]]))
    assert ember.corrcoef(ember.tensor([1.0, 2, 4])).item() == 1.0


def test_cov_errors():
    x = ember.tensor([[0.0, 1, 2]])
    with pytest.raises(RuntimeError, match="cov\\(\\): expected input to have two or fewer dimensions"):
        ember.cov(ember.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match="expected fweights to have integral dtype"):
        ember.cov(x, fweights=ember.tensor([1.0, 2, 3]))
    with pytest.raises(RuntimeError, match="fweights cannot be negative"):
        ember.cov(x, fweights=ember.tensor([1, -2, 3]))
    with pytest.raises(RuntimeError, match="expected aweights to have floating point dtype"):
        ember.cov(x, aweights=ember.tensor([1, 2, 3]))
    with pytest.raises(RuntimeError, match="same numel as there are observations in the input but got 2 != 3"):
        ember.cov(x, aweights=ember.tensor([1.0, 2]))


def test_vander_against_numpy(rng):
    x = np.array([1, 2, 3, 5])
    for n in (None, 0, 1, 2, 5):
        for inc in (False, True):
            assert_equal(ember.vander(from_np(x), n, inc), np.vander(x, n, inc))
    xf = rnd(rng, 4)
    close(ember.vander(from_np(xf), increasing=True), np.vander(xf, increasing=True))
    assert ember.vander(ember.tensor([1, 2], dtype=ember.int8)).dtype is ember.int64
    assert ember.vander(ember.tensor([True, False])).tolist() == [[1, 1], [0, 1]]
    xb = rnd(rng, 2, 3)
    close(ember.linalg.vander(from_np(xb)), np.stack([np.vander(r, increasing=True) for r in xb]))
    assert_equal(ember.linalg.vander(ember.tensor([1, 2, 3]), N=2), [[1, 1], [1, 2], [1, 3]])
    with pytest.raises(RuntimeError, match="x must be a one-dimensional tensor"):
        ember.vander(ember.ones(2, 2))
    with pytest.raises(RuntimeError, match="N must be non-negative"):
        ember.vander(ember.ones(2), -1)
    with pytest.raises(RuntimeError, match="N must be greater than 1"):
        ember.linalg.vander(ember.tensor([1, 2, 3]), N=1)


def test_trapezoid_against_numpy(rng):
    y = rnd(rng, 3, 5)
    x = np.sort(rnd(rng, 5))
    trap = getattr(np, "trapezoid", None) or np.trapz
    for dim in (0, 1, -1):
        close(ember.trapezoid(from_np(y), dim=dim), trap(y, axis=dim))
        close(ember.trapezoid(from_np(y), dx=0.5, dim=dim), trap(y, dx=0.5, axis=dim))
    close(ember.trapezoid(from_np(y), from_np(x)), trap(y, x))
    x2 = rnd(rng, 3, 5)
    close(ember.trapezoid(from_np(y), from_np(x2)), trap(y, x2))
    close(ember.trapezoid(from_np(y), from_np(x2[:1])), trap(y, np.broadcast_to(x2[:1], y.shape)))
    close(ember.trapz(from_np(y), from_np(x)), trap(y, x))
    close(ember.trapz(from_np(y), dx=2), trap(y, dx=2))
    close(ember.trapezoid(from_np(y).t(), dim=0), trap(y.T, axis=0))
    assert ember.trapezoid(ember.tensor([1, 2, 3])).dtype is ember.float32
    assert ember.trapezoid(ember.tensor([1, 2, 3]), dx=2).item() == 8.0
    assert ember.trapezoid(ember.tensor([1.0, 2, 3]), ember.tensor([1, 3, 6])).item() == 10.5
    assert_equal(ember.trapezoid(ember.ones(2, 0)), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="There must be one `x` value for each sample point"):
        ember.trapezoid(ember.ones(2, 3), ember.tensor([1.0, 3]))
    with pytest.raises(IndexError):
        ember.trapezoid(ember.tensor(1.0))


def test_cumulative_trapezoid_against_scipy(rng):
    from scipy.integrate import cumulative_trapezoid as ref

    y = rnd(rng, 3, 5)
    x = np.sort(rnd(rng, 5))
    for dim in (0, 1):
        close(ember.cumulative_trapezoid(from_np(y), dim=dim), ref(y, axis=dim))
        close(ember.cumulative_trapezoid(from_np(y), dx=0.3, dim=dim), ref(y, dx=0.3, axis=dim))
    close(ember.cumulative_trapezoid(from_np(y), from_np(x)), ref(y, x))
    assert ember.cumulative_trapezoid(ember.tensor([1, 2, 3])).tolist() == [1.5, 4.0]
    assert ember.cumulative_trapezoid(ember.ones(2, 0)).shape == (2, 0)
    assert ember.cumulative_trapezoid(ember.ones(2, 1)).shape == (2, 0)


METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("method", METHODS)
def test_quantile_against_numpy(rng, method):
    a = rnd(rng, 4, 7)
    q = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0])
    kw = {"method": method}
    close(ember.quantile(from_np(a), from_np(q), interpolation=method), np.quantile(a, q, **kw))
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            close(
                ember.quantile(from_np(a), from_np(q), dim, keepdim, interpolation=method),
                np.quantile(a, q, axis=dim, keepdims=keepdim, **kw),
            )
            close(
                from_np(a).t().quantile(0.3, dim, keepdim, interpolation=method),
                np.quantile(a.T, 0.3, axis=dim, keepdims=keepdim, **kw),
            )
    an = a.copy()
    an[1, 2] = an[3, 0] = np.nan
    close(ember.nanquantile(from_np(an), from_np(q), 1, interpolation=method), np.nanquantile(an, q, axis=1, **kw))
    close(ember.quantile(from_np(an), from_np(q), 1, interpolation=method), np.quantile(an, q, axis=1, **kw))
    close(
        from_np(an).nanquantile(0.5),
        np.nanquantile(an, 0.5, **kw) if method == "linear" else np.nanquantile(an, 0.5, method="linear"),
    )


def test_quantile_edges_and_errors():
    assert abs(ember.quantile(ember.tensor([1.0, 2, 3, 4]), 0.4).item() - 2.2) < 1e-6
    assert ember.quantile(ember.tensor([1.0, 2, 3, 4]), [0.4, 0.5], interpolation="nearest").tolist() == [2.0, 3.0]
    assert ember.quantile(ember.tensor(3.0), 0.5, dim=0).item() == 3.0
    assert ember.quantile(ember.ones(2, 3), ember.tensor([0.1, 0.2]), dim=1, keepdim=True).shape == (2, 2, 1)
    assert ember.nanquantile(ember.tensor([NAN]), 0.5).item() != ember.nanquantile(ember.tensor([NAN]), 0.5).item()
    x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(RuntimeError, match=r"quantile\(\) q must be in the range \[0, 1\] but got 1.5"):
        ember.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match=r"q values must be in the range \[0, 1\]"):
        ember.quantile(x, ember.tensor([1.5]))
    with pytest.raises(RuntimeError, match="input tensor must be either float or double dtype"):
        ember.quantile(ember.tensor([1, 2]), 0.4)
    with pytest.raises(RuntimeError, match="q tensor must be same dtype as the input tensor"):
        ember.quantile(x, ember.tensor(0.4, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="input tensor must be non-empty"):
        ember.quantile(ember.tensor([]), 0.4)
    with pytest.raises(RuntimeError, match="interpolation must be one of linear, lower, higher, midpoint or nearest"):
        ember.quantile(x, 0.4, interpolation="foo")
    with pytest.raises(RuntimeError, match="q must be a scalar or 1D tensor"):
        ember.quantile(ember.ones(2, 3), ember.tensor([[0.1]]))


def test_quantile_gradient_matches_interpolation():
    x = ember.tensor([4.0, 1.0, 3.0, 2.0], requires_grad=True)
    ember.quantile(x, 0.4).backward()  # rank 1.2 between sorted[1] = 2 (index 3) and sorted[2] = 3 (index 2)
    np.testing.assert_allclose(x.grad.tolist(), [0.0, 0.0, 0.2, 0.8], atol=1e-6)
