"""Gradients of the shape and indexing ops against NumPy references: duplicate indices, masks, in-place writes
through views, the ops PyTorch gives no formula, and the error paths with autograd on.

Backward runs with explicit output gradients (backward(gradient=w)) so that these tests need only the op's own
formula."""

import numpy as np
import pytest
from conftest import from_np, to_np

import ember


def leaf(a):
    return from_np(np.asarray(a, dtype=np.float64)).requires_grad_(True)


def long(a):
    return ember.tensor(a, dtype=ember.int64)


def grad_of(out, inputs, w):
    """d(sum(out * w)) / d(inputs), as NumPy arrays (None where no gradient arrived)."""
    grads = ember.autograd.grad([out], list(inputs), [from_np(np.asarray(w, dtype=np.float64))], allow_unused=True)
    return [None if g is None else to_np(g) for g in grads]


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# ---------------------------------------------------------------------------------------- duplicate indices


def test_gather_duplicates_sum(rng):
    a = rng.standard_normal((3, 4))
    idx = np.array([[0, 0, 3], [2, 2, 2], [1, 0, 1]])
    w = rng.standard_normal(idx.shape)
    x = leaf(a)
    out = ember.gather(x, 1, from_np(idx))
    np.testing.assert_allclose(to_np(out), np.take_along_axis(a, idx, 1))
    expected = np.zeros_like(a)
    np.add.at(expected, (np.arange(3)[:, None].repeat(3, 1), idx), w)
    (g,) = grad_of(out, [x], w)
    np.testing.assert_allclose(g, expected)
    assert out.grad_fn.name() == "GatherBackward0"


def test_advanced_index_duplicates_sum(rng):
    a = rng.standard_normal((4, 3))
    x = leaf(a)
    rows, cols = np.array([0, 3, 0, 0]), np.array([1, 2, 1, 0])
    out = x[long(rows.tolist()), long(cols.tolist())]
    w = rng.standard_normal(4)
    expected = np.zeros_like(a)
    np.add.at(expected, (rows, cols), w)
    (g,) = grad_of(out, [x], w)
    np.testing.assert_allclose(g, expected)
    out2 = x[[2, 2, 1]]
    w2 = rng.standard_normal((3, 3))
    expected2 = np.zeros_like(a)
    np.add.at(expected2, [2, 2, 1], w2)
    np.testing.assert_allclose(grad_of(out2, [x], w2)[0], expected2)


def test_index_select_and_take_duplicates(rng):
    a = rng.standard_normal((2, 5))
    x = leaf(a)
    idx = np.array([4, 1, 4, 4])
    w = rng.standard_normal((2, 4))
    expected = np.zeros_like(a)
    np.add.at(expected.T, idx, w.T)
    np.testing.assert_allclose(grad_of(ember.index_select(x, 1, long(idx.tolist())), [x], w)[0], expected)
    flat_idx = np.array([[9, -1], [0, 9]])
    w = rng.standard_normal((2, 2))
    expected = np.zeros(10)
    np.add.at(expected, flat_idx % 10, w)
    np.testing.assert_allclose(grad_of(ember.take(x, from_np(flat_idx)), [x], w)[0], expected.reshape(2, 5))


def test_scatter_add_and_index_add_duplicates(rng):
    a, s = rng.standard_normal((3, 2)), rng.standard_normal((4, 2))
    x, src = leaf(a), leaf(s)
    idx = np.array([[2, 0], [2, 2], [0, 1], [2, 0]])
    out = ember.scatter_add(x, 0, from_np(idx), src)
    expected = a.copy()
    np.add.at(expected, (idx, np.arange(2)[None, :].repeat(4, 0)), s)
    np.testing.assert_allclose(to_np(out), expected)
    w = rng.standard_normal((3, 2))
    gx, gs = grad_of(out, [x, src], w)
    np.testing.assert_allclose(gx, w)
    np.testing.assert_allclose(gs, np.take_along_axis(w, idx, 0))

    vidx = np.array([1, 1, 0, 1])
    out = ember.index_add(x, 0, long(vidx.tolist()), src, alpha=3.0)
    gx, gs = grad_of(out, [x, src], w)
    np.testing.assert_allclose(gx, w)
    np.testing.assert_allclose(gs, 3.0 * w[vidx])


@pytest.mark.parametrize("accumulate", [True, False])
def test_index_put_gradients(rng, accumulate):
    a = rng.standard_normal((3, 4))
    rows = np.array([2, 0, 2]) if accumulate else np.array([2, 0, 1])
    cols = np.array([1, 3, 1]) if accumulate else np.array([1, 3, 0])
    x, v = leaf(a), leaf(rng.standard_normal(3))
    out = ember.index_put(x, (long(rows.tolist()), long(cols.tolist())), v, accumulate=accumulate)
    w = rng.standard_normal((3, 4))
    gx, gv = grad_of(out, [x, v], w)
    expected_x = w.copy()
    if not accumulate:
        expected_x[rows, cols] = 0
    np.testing.assert_allclose(gx, expected_x)
    np.testing.assert_allclose(gv, w[rows, cols])


def test_index_put_broadcast_values_sum_over_broadcast(rng):
    x, v = leaf(rng.standard_normal((3, 2))), leaf(rng.standard_normal(2))
    out = x.index_put((long([2, 0]),), v)
    w = rng.standard_normal((3, 2))
    gx, gv = grad_of(out, [x, v], w)
    np.testing.assert_allclose(gv, w[[2, 0]].sum(0))
    np.testing.assert_allclose(gx, w * np.array([[0.0], [1.0], [0.0]]))


# ---------------------------------------------------------------------------------------- masks


def test_masked_ops(rng):
    a = rng.standard_normal((2, 3))
    m = np.array([[True, False, True], [False, False, True]])
    x = leaf(a)
    w = rng.standard_normal(3)
    out = x[from_np(m)]
    np.testing.assert_allclose(to_np(out), a[m])
    expected = np.zeros_like(a)
    expected[m] = w
    np.testing.assert_allclose(grad_of(out, [x], w)[0], expected)
    np.testing.assert_allclose(grad_of(ember.masked_select(x, from_np(m)), [x], w)[0], expected)

    w = rng.standard_normal((2, 3))
    np.testing.assert_allclose(grad_of(ember.masked_fill(x, from_np(m), 2.0), [x], w)[0], np.where(m, 0, w))

    src = leaf(rng.standard_normal(5))
    out = ember.masked_scatter(x, from_np(m), src)
    gx, gs = grad_of(out, [x, src], w)
    np.testing.assert_allclose(gx, np.where(m, 0, w))
    np.testing.assert_allclose(gs, np.concatenate([w[m], np.zeros(2)]))


def test_masked_fill_in_place_on_nonleaf(rng):
    a = rng.standard_normal((3, 2))
    m = np.array([True, False])
    x = leaf(a)
    y = x * 2
    y.masked_fill_(from_np(m), 0.0)
    w = rng.standard_normal((3, 2))
    np.testing.assert_allclose(grad_of(y, [x], w)[0], np.where(m, 0, 2 * w))
    assert y.grad_fn.name() == "MaskedFillBackward0"  # PyTorch's node


# ---------------------------------------------------------------------------------------- in-place and views


def test_setitem_on_view_of_zeros(rng):
    x = leaf(rng.standard_normal(2))
    y = ember.zeros(3, 2, dtype=ember.float64)
    y[1] = x * 2
    w = rng.standard_normal((3, 2))
    np.testing.assert_allclose(to_np(y), np.stack([np.zeros(2), 2 * to_np(x.detach()), np.zeros(2)]))
    np.testing.assert_allclose(grad_of(y, [x], w)[0], 2 * w[1])


def test_setitem_advanced_and_mask_on_nonleaf(rng):
    a = rng.standard_normal((3, 4))
    x, v = leaf(a), leaf(rng.standard_normal(4))
    y = x * 1
    y[[0, 2]] = v
    y[y > 0.5] = 0
    w = rng.standard_normal((3, 4))
    ref = a.copy()
    ref[[0, 2]] = to_np(v.detach())
    keep = ref <= 0.5
    np.testing.assert_allclose(to_np(y), np.where(keep, ref, 0))
    gx, gv = grad_of(y, [x, v], w)
    np.testing.assert_allclose(gx, np.where(keep, w, 0) * np.array([[0.0], [1.0], [0.0]]))
    np.testing.assert_allclose(gv, (np.where(keep, w, 0))[[0, 2]].sum(0))


def test_index_put_through_a_view_rewrites_the_base(rng):
    base_leaf = leaf(rng.standard_normal((2, 3)))
    v = leaf(rng.standard_normal(2))
    base = base_leaf * 1
    base[1].index_put_((long([2, 0]),), v)  # in place on a view: the base gets CopySlices
    w = rng.standard_normal((2, 3))
    gb, gv = grad_of(base, [base_leaf, v], w)
    expected = w.copy()
    expected[1, [2, 0]] = 0
    np.testing.assert_allclose(gb, expected)
    np.testing.assert_allclose(gv, w[1, [2, 0]])
    assert base.grad_fn.name() == "CopySlices"


@pytest.mark.parametrize(
    "op",
    [
        "scatter_",
        "scatter_add_",
        "index_add_",
        "index_copy_",
        "index_fill_",
        "index_put_",
        "masked_scatter_",
        "masked_fill_",
        "tril_",
        "triu_",
        "scatter_reduce_",
    ],
)
def test_in_place_on_leaf_requiring_grad_raises(op):
    x = ember.ones(2, 2, dtype=ember.float64, requires_grad=True)
    idx, m, src = long([[0, 1]]), ember.tensor([True, False]), ember.ones(2, 2, dtype=ember.float64)
    calls = {
        "scatter_": lambda: x.scatter_(0, idx, src),
        "scatter_add_": lambda: x.scatter_add_(0, idx, src),
        "scatter_reduce_": lambda: x.scatter_reduce_(0, idx, src, "sum"),
        "index_add_": lambda: x.index_add_(0, long([0, 1]), src),
        "index_copy_": lambda: x.index_copy_(0, long([1, 0]), src),
        "index_fill_": lambda: x.index_fill_(0, long([0]), 1.0),
        "index_put_": lambda: x.index_put_((long([0]),), src[0]),
        "masked_scatter_": lambda: x.masked_scatter_(m, src),
        "masked_fill_": lambda: x.masked_fill_(m, 0.0),
        "tril_": lambda: x.tril_(),
        "triu_": lambda: x.triu_(),
    }
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        calls[op]()
    with ember.no_grad():
        calls[op]()  # allowed without recording
    assert x.grad_fn is None


def test_in_place_keeps_old_self_for_prod(rng):
    a, s = rng.uniform(0.5, 2, 3), rng.uniform(0.5, 2, 3)
    x, src = leaf(a), leaf(s)
    y = x * 1
    y.scatter_reduce_(0, long([1, 1, 0]), src, "prod")
    w = rng.standard_normal(3)
    gx, gs = grad_of(y, [x, src], w)
    np.testing.assert_allclose(gx, w * np.array([s[2], s[0] * s[1], 1.0]))
    np.testing.assert_allclose(gs, [w[1] * a[1] * s[1], w[1] * a[1] * s[0], w[0] * a[0]])
    assert y.grad_fn.name() == "ScatterReduceBackward0"


# ---------------------------------------------------------------------------------------- scatter_reduce


def test_scatter_reduce_amax_ties_share_the_gradient():
    x = leaf([1.0, 5.0, 0.0])
    src = leaf([5.0, 2.0, 5.0, 3.0])
    out = ember.scatter_reduce(x, 0, long([1, 1, 1, 2]), src, "amax")
    np.testing.assert_allclose(to_np(out), [1.0, 5.0, 3.0])
    gx, gs = grad_of(out, [x, src], [1.0, 3.0, 2.0])
    np.testing.assert_allclose(gx, [1.0, 1.0, 0.0])  # self[1] ties with two src values: a third each
    np.testing.assert_allclose(gs, [1.0, 0.0, 1.0, 2.0])
    out = ember.scatter_reduce(x, 0, long([1, 1, 1, 2]), src, "amax", include_self=False)
    gx, gs = grad_of(out, [x, src], [1.0, 3.0, 2.0])
    np.testing.assert_allclose(gx, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(gs, [1.5, 0.0, 1.5, 2.0])


def test_scatter_reduce_prod_with_zeros():
    x = leaf([2.0, 3.0])
    src = leaf([0.0, 4.0, 5.0])
    out = ember.scatter_reduce(x, 0, long([0, 0, 1]), src, "prod")
    np.testing.assert_allclose(to_np(out), [0.0, 15.0])
    gx, gs = grad_of(out, [x, src], [1.0, 1.0])
    np.testing.assert_allclose(gx, [0.0, 5.0])
    np.testing.assert_allclose(gs, [8.0, 0.0, 3.0])
    # Two zeros at one place: the first derivative is zero; its derivative is PyTorch's DelayedError.
    src2 = leaf([0.0, 0.0, 5.0])
    out = ember.scatter_reduce(x, 0, long([0, 0, 1]), src2, "prod")
    gx, gs = ember.autograd.grad([out], [x, src2], [ember.ones(2, dtype=ember.float64)], create_graph=True)
    np.testing.assert_allclose(to_np(gs), [0.0, 0.0, 3.0])
    with pytest.raises(RuntimeError, match="Double backward is unsupported"):
        gs.backward(ember.ones(3, dtype=ember.float64))


def test_scatter_reduce_mean_counts():
    x, src = leaf([1.0, 2.0, 3.0]), leaf([4.0, 6.0, 8.0])
    out = ember.scatter_reduce(x, 0, long([0, 0, 2]), src, "mean", include_self=False)
    np.testing.assert_allclose(to_np(out), [5.0, 2.0, 8.0])
    gx, gs = grad_of(out, [x, src], [2.0, 3.0, 4.0])
    np.testing.assert_allclose(gx, [0.0, 3.0, 0.0])
    np.testing.assert_allclose(gs, [1.0, 1.0, 4.0])


def test_scatter_with_reduce_has_no_gradient():
    x, src = leaf([1.0, 2.0]), leaf([3.0])
    out = ember.scatter(x, 0, long([1]), src, reduce="multiply")
    np.testing.assert_allclose(to_np(out), [1.0, 6.0])
    with pytest.raises(NotImplementedError, match="scatter with reduce"):
        out.backward(ember.ones(2, dtype=ember.float64))
    y = x * 1
    y.scatter_(0, long([0]), 2.0, reduce="add")
    with pytest.raises(NotImplementedError):
        y.backward(ember.ones(2, dtype=ember.float64))


def test_scatter_src_larger_than_index(rng):
    a, s = rng.standard_normal((3, 3)), rng.standard_normal((4, 5))
    x, src = leaf(a), leaf(s)
    idx = np.array([[2, 0], [0, 1]])
    out = ember.scatter(x, 0, from_np(idx), src)
    w = rng.standard_normal((3, 3))
    gx, gs = grad_of(out, [x, src], w)
    expected_x = w.copy()
    expected_x[idx, np.arange(2)[None, :]] = 0
    np.testing.assert_allclose(gx, expected_x)
    expected_s = np.zeros((4, 5))
    expected_s[:2, :2] = np.take_along_axis(w[:, :2], idx, 0)
    np.testing.assert_allclose(gs, expected_s)


# ---------------------------------------------------------------------------------------- shape ops


def test_cat_splits_the_gradient(rng):
    a, b = leaf(rng.standard_normal((2, 3))), leaf(rng.standard_normal((2, 1)))
    e = ember.zeros(0, dtype=ember.float64, requires_grad=True)
    out = ember.cat([a, e, b], 1)
    w = rng.standard_normal((2, 4))
    ga, ge, gb = grad_of(out, [a, e, b], w)
    np.testing.assert_allclose(ga, w[:, :3])
    np.testing.assert_allclose(gb, w[:, 3:])
    assert ge.shape == (0,)
    assert out.grad_fn.name() == "CatBackward0"
    for name, args in [("cat", ([a, b], 1)), ("stack", ([a, a],)), ("hstack", ([a, b],))]:
        with pytest.raises(RuntimeError, match=name + r"\(\): functions with out=... arguments don't support"):
            getattr(ember, name)(*args, out=ember.empty(2, 4, dtype=ember.float64))


def test_repetition_sums_the_copies(rng):
    a = rng.standard_normal((2, 3))
    x = leaf(a)
    w = rng.standard_normal((4, 6))
    np.testing.assert_allclose(grad_of(x.repeat(2, 2), [x], w)[0], w.reshape(2, 2, 2, 3).sum((0, 2)))
    w = rng.standard_normal((2, 9))
    np.testing.assert_allclose(grad_of(ember.repeat_interleave(x, 3, dim=1), [x], w)[0], w.reshape(2, 3, 3).sum(2))
    w = rng.standard_normal(5)
    out = x.repeat_interleave(long([2, 0, 3]), dim=1)[0]
    np.testing.assert_allclose(grad_of(out, [x], w)[0], [[w[0] + w[1], 0, w[2:].sum()], [0, 0, 0]])


def test_unfold_overlapping_windows(rng):
    x = leaf(rng.standard_normal(6))
    out = x.unfold(0, 3, 1)
    w = rng.standard_normal((4, 3))
    expected = np.zeros(6)
    for i in range(4):
        expected[i : i + 3] += w[i]
    np.testing.assert_allclose(grad_of(out, [x], w)[0], expected)


def test_flip_roll_tril(rng):
    a = rng.standard_normal((3, 4))
    x = leaf(a)
    w = rng.standard_normal((3, 4))
    np.testing.assert_allclose(grad_of(ember.flip(x, (0, 1)), [x], w)[0], w[::-1, ::-1])
    np.testing.assert_allclose(grad_of(ember.roll(x, (1, 3), (0, 1)), [x], w)[0], np.roll(w, (-1, -3), (0, 1)))
    np.testing.assert_allclose(grad_of(ember.roll(x, 5), [x], w)[0], np.roll(w, -5))
    np.testing.assert_allclose(grad_of(ember.tril(x, 1), [x], w)[0], np.tril(w, 1))
    np.testing.assert_allclose(grad_of(ember.triu(x, -1), [x], w)[0], np.triu(w, -1))
    y = x * 1
    y.tril_()
    np.testing.assert_allclose(grad_of(y, [x], w)[0], np.tril(w))
    assert y.grad_fn.name() == "TrilBackward0"


# ---------------------------------------------------------------------------------------- recording rules


def test_no_history_without_grad_or_for_integers():
    x = ember.ones(2, 3, dtype=ember.float64, requires_grad=True)
    with ember.no_grad():
        for out in [
            ember.gather(x, 1, long([[0], [1]])),
            x[[0, 1]],
            ember.cat([x, x]),
            ember.flip(x, (0,)),
            ember.index_add(x, 0, long([0]), x[:1]),
        ]:
            assert not out.requires_grad and out.grad_fn is None
    i = ember.ones(2, 3, dtype=ember.int64)
    assert not ember.gather(i, 1, long([[0], [1]])).requires_grad
    assert not ember.nn.functional.one_hot(long([0, 2])).requires_grad
    assert ember.index_select(x, 0, long([1])).requires_grad


def test_modified_index_is_detected():
    x = leaf([1.0, 2.0, 3.0])
    idx = long([0, 2])
    out = ember.index_select(x, 0, idx)
    idx.fill_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward(ember.ones(2, dtype=ember.float64))


def test_index_errors_with_autograd_on():
    x = ember.ones(2, 3, dtype=ember.float64, requires_grad=True)
    y = x * 1
    with pytest.raises(RuntimeError, match="gather"):  # PyTorch's type for gather
        ember.gather(x, 1, long([[3], [0]]))
    with pytest.raises(IndexError):
        ember.index_select(x, 0, long([2]))
    with pytest.raises(IndexError):
        x[[5]]
    with pytest.raises(IndexError):
        x[ember.tensor([True, False, True])]
    with pytest.raises(IndexError):
        y[[0, 7]] = x[0]
    with pytest.raises(IndexError):
        y.index_add_(1, long([3]), x[:, :1])
    with pytest.raises(IndexError):
        ember.take(x, long([6]))
    # a failed in-place op leaves y's value and history as they were
    np.testing.assert_allclose(to_np(y.detach()), np.ones((2, 3)))
    assert y.grad_fn.name() == "MulBackward0"


def test_whole_tensor_indexes_are_new_views_with_history():
    x = leaf([1.0, 2.0])
    for v in (x[...], x[:]):
        assert v is not x and v.requires_grad
        v.backward(ember.tensor([3.0, 4.0], dtype=ember.float64))
    assert x.grad.tolist() == [6.0, 8.0]
