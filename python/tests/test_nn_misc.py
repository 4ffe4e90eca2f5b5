"""Dropout, embeddings and padding (ember/nn/dropout.cpp, embedding.cpp, padding.cpp): dropout's statistics and its
determinism under manual_seed, the fused kernel's mask (bernoulli's numbers), values and gradients against NumPy in
every floating dtype and the memory its backward keeps, embedding and embedding_bag against NumPy with their gradient
options, pad against np.pad in every mode, and PyTorch's error messages."""

import gc
import math

import numpy as np
import pytest
from conftest import FLOAT_DTYPES, assert_equal, bf16_round, dtype_name, from_np, np_dtype, to_np

import ember
import ember.nn.functional as F

# ---------------------------------------------------------------------------------------------------- dropout


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_statistics(p):
    n = 200_000
    x = ember.ones(n)
    ember.manual_seed(0)
    y = to_np(F.dropout(x, p))
    kept = y != 0
    # the dropped fraction is p within 5 standard deviations; kept elements are scaled by 1 / (1 - p)
    assert abs((~kept).mean() - p) < 5 * math.sqrt(p * (1 - p) / n)
    np.testing.assert_allclose(y[kept], 1 / (1 - p), rtol=1e-6)
    assert abs(y.mean() - 1) < 5 * math.sqrt(p / (1 - p) / n)


def test_dropout_is_deterministic_under_manual_seed_and_its_gradient_is_the_mask():
    x = ember.randn(50, 40)
    ember.manual_seed(7)
    a = F.dropout(x, 0.3)
    ember.manual_seed(7)
    b = F.dropout(x, 0.3)
    assert_equal(a, to_np(b))
    c = F.dropout(x, 0.3)  # the generator moved on
    assert not np.array_equal(to_np(a), to_np(c))
    xg = x.clone().requires_grad_()
    ember.manual_seed(7)
    y = F.dropout(xg, 0.3)
    y.backward(ember.ones(50, 40))
    mask = to_np(a) != 0
    np.testing.assert_allclose(to_np(xg.grad), np.where(mask, 1 / 0.7, 0.0), rtol=1e-6)


def test_dropout_modes_and_inplace():
    x = ember.randn(10, 10)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert_equal(F.dropout(x, 1.0), np.zeros((10, 10), np.float32))
    assert F.alpha_dropout(x, 0.5) is x  # training=False by default
    y = x.clone()
    v = y._version
    ember.manual_seed(1)
    r = F.dropout(y, 0.4, inplace=True)
    assert r is y and y._version > v
    ember.manual_seed(1)
    assert_equal(y, to_np(F.dropout(x, 0.4)))
    ember.manual_seed(1)
    z = x.clone()
    assert ember.dropout_(z, 0.4, True) is z
    assert_equal(z, to_np(y))
    assert_equal(ember.dropout(x, 0.4, False), to_np(x))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        F.alpha_dropout(x, -0.1, True)


def test_feature_dropout_drops_whole_channels():
    x = ember.ones(40, 30, 5, 2)
    ember.manual_seed(2)
    y = to_np(F.dropout2d(x, 0.5))
    per_channel = y.reshape(40, 30, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    assert abs((per_channel[..., 0] == 0).mean() - 0.5) < 0.05
    assert ember.feature_dropout(x, 0.5, True).shape == (40, 30, 5, 2)
    # unbatched inputs of dropout1d / dropout3d: one draw per channel
    y1 = to_np(F.dropout1d(ember.ones(20, 7), 0.5))
    assert ((y1 == 0).all(-1) | (y1 == 2).all(-1)).all()
    y3 = F.dropout3d(ember.ones(6, 2, 2, 2), 0.5)
    assert y3.shape == (6, 2, 2, 2)
    y = ember.ones(8, 3)
    assert F.dropout1d(y, 0.5, inplace=True) is y
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(ember.ones(2, 2, 2, 2))
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d"):
        F.dropout2d(ember.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d, which is deprecated"):
        F.dropout3d(ember.ones(2, 3, 4))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        ember.feature_dropout(ember.ones(3), 0.5, True)


def test_alpha_dropout_keeps_mean_and_variance():
    alpha = 1.7580993408473766
    p = 0.3
    a = 1 / math.sqrt((alpha**2 * p + 1) * (1 - p))
    x = ember.randn(100_000)
    ember.manual_seed(4)
    y = F.alpha_dropout(x, p, training=True)
    xn, yn = to_np(x).astype(np.float64), to_np(y).astype(np.float64)
    dropped = np.isclose(yn, a * alpha * (p - 1), rtol=1e-6) & ~np.isclose(xn * a + alpha * a * p, yn, rtol=1e-6)
    np.testing.assert_allclose(yn[~dropped], a * xn[~dropped] + alpha * a * p, rtol=1e-5, atol=1e-6)
    assert abs(dropped.mean() - p) < 0.01
    assert abs(yn.mean()) < 0.02 and abs(yn.std() - 1) < 0.02
    f = to_np(F.feature_alpha_dropout(ember.zeros(50, 20, 3), 0.5, training=True))
    assert (f == f[..., :1]).all()  # constant over each channel


def dropped(x, mask, p, dtype):
    """The fused kernel's value in NumPy: x * (mask ? 1 / (1 - p) : 0) in the opmath type (float32 for the 16-bit
    dtypes, the scale rounded to it), rounded once to dtype (bfloat16 returned as float32)."""
    acc = np.float64 if dtype is ember.float64 else np.float32
    with np.errstate(invalid="ignore"):  # a dropped infinity is NaN
        r = np.asarray(x).astype(acc) * np.where(mask, acc(1 / (1 - p)), acc(0))
    if dtype is ember.float16:
        return r.astype(np.float16)
    return bf16_round(r) if dtype is ember.bfloat16 else r


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_native_dropout_draws_bernoullis_mask_in_one_pass(dtype):
    p = 0.3
    x = ember.randn(123, 45).to(dtype)
    ember.manual_seed(5)
    out, mask = ember.native_dropout(x, p, True)
    after = ember.rand(4)
    # the mask is bernoulli(1 - p) from the same generator state, and the generator moved past the same words
    ember.manual_seed(5)
    keep = ember.bernoulli(ember.full((123, 45), 1 - p, dtype=ember.float64))
    assert_equal(ember.rand(4), to_np(after))
    assert mask.dtype == ember.bool and out.dtype == dtype and mask.shape == x.shape
    m = to_np(mask)
    assert_equal(keep, m.astype(np.float64))
    assert_equal(out, dropped(to_np(x), m, p, dtype))
    ember.manual_seed(5)
    assert_equal(F.dropout(x, p), to_np(out))  # F.dropout is the same pass
    c = F.dropout(x, p)
    assert not np.array_equal(to_np(c), to_np(out))  # consecutive calls differ


def test_native_dropout_mask_statistics_and_thread_independence(four_threads):
    n, p = (1 << 20) + 1, 0.3
    ember.manual_seed(0)
    out, mask = ember.native_dropout(ember.ones(n), p, True)
    kept = mask.sum().item()
    assert abs(kept / n - (1 - p)) < 5 * math.sqrt(p * (1 - p) / n)
    assert out.sum().item() == pytest.approx(kept / (1 - p), rel=1e-5)
    ember.set_num_threads(1)  # the chunks the threads take do not change the numbers
    ember.manual_seed(0)
    assert ember.equal(ember.native_dropout(ember.ones(n), p, True)[1], mask)


def test_dropout_of_a_non_contiguous_input_uses_its_logical_order():
    x = ember.randn(30, 41).t()  # [41, 30], transposed
    ember.manual_seed(3)
    out, mask = ember.native_dropout(x, 0.5, True)
    ember.manual_seed(3)
    out_c, mask_c = ember.native_dropout(x.contiguous(), 0.5, True)
    assert_equal(mask, to_np(mask_c))
    assert_equal(out, dropped(to_np(x), to_np(mask_c), 0.5, ember.float32))
    # in place through the transposed view: the same values, written into the base
    base = x.t().clone()
    y = base.t()
    v = base._version
    ember.manual_seed(3)
    assert F.dropout(y, 0.5, inplace=True) is y
    assert_equal(y, to_np(out_c))
    assert base._version > v
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        F.dropout(ember.ones(1, 3).expand(4, 3), 0.5, inplace=True)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_dropout_gradient_is_the_mask_times_the_scale(dtype):
    p = 0.4
    x = ember.randn(64, 33).to(dtype).requires_grad_()
    g = ember.randn(64, 33).to(dtype)
    ember.manual_seed(9)
    y = F.dropout(x, p)
    assert y.grad_fn.name() == "NativeDropoutBackward0"
    ember.manual_seed(9)
    mask = to_np(ember.native_dropout(x.detach(), p, True)[1])
    y.backward(g)
    assert_equal(x.grad, dropped(to_np(g), mask, p, dtype))
    # in place on a non-leaf: the same node moves onto the written tensor
    x.grad = None
    ember.manual_seed(9)
    z = x * 1.0
    F.dropout(z, p, inplace=True)
    assert_equal(z.detach(), to_np(y.detach()))
    z.backward(g)
    assert_equal(x.grad, dropped(to_np(g), mask, p, dtype))


def test_dropout_double_backward():
    p = 0.25
    x = ember.randn(20, 7, dtype=ember.float64, requires_grad=True)
    g = ember.randn(20, 7, dtype=ember.float64, requires_grad=True)
    ember.manual_seed(2)
    y = F.dropout(x, p)
    ember.manual_seed(2)
    mask = to_np(ember.native_dropout(x.detach(), p, True)[1])
    (gx,) = ember.autograd.grad(y, x, g, create_graph=True)
    assert gx.grad_fn.name() == "NativeDropoutBackwardBackward0"
    assert_equal(gx.detach(), dropped(to_np(g.detach()), mask, p, ember.float64))
    h = ember.randn(20, 7, dtype=ember.float64)
    gx.backward(h)
    assert_equal(g.grad, dropped(to_np(h), mask, p, ember.float64))
    assert x.grad is None  # dropout's gradient does not depend on x

    def f(a):
        ember.manual_seed(2)
        return F.dropout(a, p)

    assert ember.autograd.gradgradcheck(f, (x,))


MIB = 1 << 20


def allocated():
    return ember._C._cpu_memory_stats()["allocated_bytes"]


def test_dropout_saves_only_a_bool_mask_for_backward():
    gc.collect()
    n = MIB
    x = ember.ones(n, requires_grad=True)  # 4 MiB
    base = allocated()
    y = F.dropout(x, 0.5)
    # y (4 MiB) and the mask its node saves (1 MiB, bool); the composed form kept a float32 noise tensor (4 MiB)
    assert 5 * MIB <= allocated() - base < 5 * MIB + 4096
    y.backward(ember.ones(n))
    del y
    gc.collect()
    assert allocated() - base < 4 * MIB + 4096  # x.grad
    x.grad = None
    with ember.no_grad():  # nothing recorded: no mask at all
        z = F.dropout(x, 0.5)
        assert allocated() - base < 4 * MIB + 4096
    del z


def test_native_dropout_follows_pytorch_at_the_edges():
    x = ember.randn(4, 5)
    out, mask = ember.native_dropout(x, 0.5, False)  # not training: a copy and an all-true mask
    assert out is not x
    assert_equal(out, to_np(x))
    assert_equal(mask, np.ones((4, 5), bool))
    e = ember.empty(0, 3)
    out, mask = ember.native_dropout(e, 0.5, True)  # empty: x itself, and an empty "mask" of x's dtype
    assert out is e and mask.dtype == ember.float32 and mask.shape == (0, 3)
    out, mask = ember.native_dropout(x, 1.0, True)
    assert_equal(out, np.zeros((4, 5), np.float32))
    assert_equal(mask, np.zeros((4, 5), bool))
    out, mask = ember.native_dropout(x, 0.0, True)
    assert_equal(out, to_np(x))
    assert_equal(mask, np.ones((4, 5), bool))
    ember.manual_seed(1)
    out, mask = ember.native_dropout(x, 0.5, None)  # train=None means training
    assert not to_np(mask).all()
    # x * mask * scale, as PyTorch: a dropped NaN or infinity is NaN, a dropped -2 is -0
    xn = ember.tensor([math.nan, math.inf, -2.0] * 200)
    out, mask = ember.native_dropout(xn, 0.5, True)
    o, m = to_np(out), to_np(mask)
    assert_equal(out, dropped(to_np(xn), m, 0.5, ember.float32))
    nonfinite = np.arange(600) % 3 < 2
    assert np.isnan(o[nonfinite & ~m]).all()
    assert (o[~nonfinite & ~m] == 0).all() and np.signbit(o[~nonfinite & ~m]).all()
    # dropout's backward as its own op
    g = ember.randn(4, 5)
    assert_equal(
        ember.native_dropout_backward(g, mask[:20].reshape(4, 5), 2.0),
        dropped(to_np(g), to_np(mask[:20].reshape(4, 5)), 0.5, ember.float32),
    )


def test_dropout_errors_match_pytorch():
    xi = ember.ones(3, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.dropout(xi, 0.5)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.native_dropout(xi, 0.5, True)
    assert F.dropout(xi, 0.5, training=False) is xi
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=-0.5"):
        ember.native_dropout(ember.ones(3), 1.5, True)
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=1.1"):
        ember.native_dropout(ember.ones(3), -0.1, True)
    with pytest.raises(RuntimeError, match="Mask should be Bool Scalar Type"):
        ember.native_dropout_backward(ember.ones(3), ember.ones(3), 2.0)


# ---------------------------------------------------------------------------------------------------- embedding


def test_embedding_matches_numpy(rng):
    w = rng.standard_normal((10, 4))
    idx = np.array([[1, 9, 1], [0, 3, 7]])
    tw = from_np(w)
    assert_equal(F.embedding(from_np(idx), tw), w[idx])
    assert_equal(F.embedding(from_np(idx.astype(np.int32)), tw), w[idx])
    assert_equal(ember.embedding(tw, from_np(idx[0])), w[idx[0]])
    assert_equal(F.embedding(ember.tensor(4), tw), w[4])
    assert F.embedding(ember.zeros(0, 2, dtype=ember.int64), tw).shape == (0, 2, 4)


def test_embedding_gradients(rng):
    w = from_np(rng.standard_normal((6, 3))).requires_grad_()
    idx = ember.tensor([[1, 4, 1], [2, 1, 0]])
    F.embedding(idx, w).sum().backward()
    assert_equal(w.grad, np.repeat(np.array([1, 3, 1, 0, 1, 0.0])[:, None], 3, axis=1))
    w.grad = None
    F.embedding(idx, w, padding_idx=1).sum().backward()  # the padding row gets no gradient
    assert_equal(w.grad, np.repeat(np.array([1, 0, 1, 0, 1, 0.0])[:, None], 3, axis=1))
    w.grad = None
    F.embedding(idx, w, padding_idx=-5, scale_grad_by_freq=True).sum().backward()  # -5 is row 1
    assert_equal(w.grad, np.repeat(np.array([1, 0, 1, 0, 1, 0.0])[:, None], 3, axis=1))
    w.grad = None
    F.embedding(idx, w, scale_grad_by_freq=True).sum().backward()  # each index's gradient divided by its count
    assert_equal(w.grad, np.repeat(np.array([1, 1, 1, 0, 1, 0.0])[:, None], 3, axis=1))


def test_embedding_max_norm_renormalizes_rows_in_place(rng):
    a = rng.standard_normal((5, 4)) * 3
    w = from_np(a).requires_grad_()
    v = w._version
    out = F.embedding(ember.tensor([0, 2, 2]), w, max_norm=1.5)
    norms = np.linalg.norm(a, axis=1)
    exp = a.copy()
    for r in (0, 2):
        if norms[r] > 1.5:
            exp[r] *= 1.5 / (norms[r] + 1e-7)
    np.testing.assert_allclose(to_np(w.detach()), exp, rtol=1e-12)
    np.testing.assert_allclose(to_np(out.detach()), exp[[0, 2, 2]], rtol=1e-12)
    assert w._version > v and w.is_leaf
    F.embedding(ember.tensor([3]), w, max_norm=1.0, norm_type=1.0)
    n1 = np.abs(a[3]).sum()
    np.testing.assert_allclose(to_np(w.detach())[3], a[3] * (1.0 / (n1 + 1e-7) if n1 > 1 else 1), rtol=1e-12)


def test_embedding_errors():
    w = ember.randn(3, 2)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(ember.tensor([5]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(ember.tensor([-1]), w)
    with pytest.raises(
        RuntimeError,
        match="Expected tensor for argument #1 'indices' to have one of the following "
        "scalar types: Long, Int; but got torch.FloatTensor instead",
    ):
        F.embedding(ember.tensor([1.0]), w)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(ember.tensor([1]), w, padding_idx=5)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(ember.tensor([1]), w, padding_idx=-4)
    # F.embedding_bag checks its padding_idx in the op itself: a RuntimeError in PyTorch, not an assert
    for bad in (3, -4):
        with pytest.raises(
            RuntimeError, match="padding_idx must be within the number of embeddings, -3 through 2, but got %d" % bad
        ):
            F.embedding_bag(ember.tensor([1]), w, ember.tensor([0]), padding_idx=bad)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(ember.tensor([1]), ember.ones(3))


def _bags(idx, offsets, n, include_last):
    ends = list(offsets[1:]) + ([] if include_last else [n])
    starts = list(offsets[: len(ends)])
    return [idx[s:e] for s, e in zip(starts, ends)]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("include_last", [False, True])
def test_embedding_bag_matches_numpy(mode, include_last, rng):
    w = rng.standard_normal((8, 3))
    idx = np.array([1, 2, 7, 7, 0, 5, 3, 2])
    offsets = np.array([0, 3, 3, 6] + ([8] if include_last else []))
    reduce = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    exp = np.array([reduce(w[b], axis=0) if len(b) else np.zeros(3) for b in _bags(idx, offsets, 8, include_last)])
    got = F.embedding_bag(from_np(idx), from_np(w), from_np(offsets), mode=mode, include_last_offset=include_last)
    np.testing.assert_allclose(to_np(got), exp, rtol=1e-14)
    # 2-d input: fixed-size bags
    got = F.embedding_bag(from_np(idx.reshape(2, 4)), from_np(w), mode=mode)
    np.testing.assert_allclose(to_np(got), reduce(w[idx.reshape(2, 4)], axis=1), rtol=1e-14)


def test_embedding_bag_weights_padding_and_gradient(rng):
    w = rng.standard_normal((6, 2))
    idx = np.array([0, 3, 3, 1, 4])
    psw = rng.standard_normal(5)
    got = F.embedding_bag(from_np(idx), from_np(w), ember.tensor([0, 2]), mode="sum", per_sample_weights=from_np(psw))
    exp = np.array([(w[idx[:2]] * psw[:2, None]).sum(0), (w[idx[2:]] * psw[2:, None]).sum(0)])
    np.testing.assert_allclose(to_np(got), exp, rtol=1e-14)
    # padding_idx: left out of the bags (and of the mean's count)
    got = F.embedding_bag(from_np(idx), from_np(w), ember.tensor([0, 2]), padding_idx=3)
    np.testing.assert_allclose(to_np(got), np.array([w[0], (w[1] + w[4]) / 2]), rtol=1e-14)
    tw = from_np(w).requires_grad_()
    F.embedding_bag(from_np(idx), tw, ember.tensor([0, 2]), mode="mean").sum().backward()
    np.testing.assert_allclose(to_np(tw.grad)[:, 0], [0.5, 1 / 3, 0, 0.5 + 1 / 3, 1 / 3, 0], rtol=1e-14)


def test_embedding_bag_errors():
    w = ember.randn(4, 2)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(ember.tensor([0, 1]), w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(ember.tensor([[0, 1]]), w, ember.tensor([0]))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(ember.tensor([[0, 1]]), w, mode="min")
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(ember.tensor([[0, 1]]), w, per_sample_weights=ember.ones(1, 2))
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient by the frequency"):
        F.embedding_bag(ember.tensor([[0, 1]]), w, mode="max", scale_grad_by_freq=True)
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(ember.tensor([0, 1]), w, ember.tensor([1]))
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding_bag(ember.tensor([[0, 9]]), w)


# ---------------------------------------------------------------------------------------------------- pad

NP_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _np_pad(a, pad, mode, value=0.0):
    """np.pad with PyTorch's pad list (last dim first); negative entries crop (before padding, for circular)."""
    k = len(pad) // 2
    widths = [(0, 0)] * (a.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(k))]
    crop = tuple(slice(max(-lo, 0), a.shape[d] - max(-hi, 0)) for d, (lo, hi) in enumerate(widths))
    pos = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    if mode == "constant":
        return np.pad(a[crop], pos, constant_values=value)
    if mode == "circular":
        return np.pad(a[crop], pos, mode="wrap")
    # reflect and replicate index the uncropped input, as PyTorch's kernels do
    full = np.pad(a, [(max(lo, 0), max(hi, 0)) for lo, hi in widths], mode=NP_MODES[mode])
    return full[tuple(slice(max(-lo, 0), full.shape[d] - max(-hi, 0)) for d, (lo, hi) in enumerate(widths))]


@pytest.mark.parametrize(
    "mode,shape,pad",
    [
        ("constant", (2, 3, 4), (1, 2)),
        ("constant", (2, 3, 4), (1, -1, 0, 2, 3, 1)),
        ("constant", (5,), (-2, -2)),
        ("reflect", (1, 3), (2, 2)),
        ("reflect", (2, 3, 5), (4, 1)),
        ("reflect", (2, 3, 4, 5), (1, 3, 2, 3)),
        ("reflect", (1, 2, 3, 4, 5), (1, 2, 2, 1, 1, 2)),
        ("reflect", (2, 2, 6), (-2, 3)),
        ("replicate", (2, 4), (3, 1)),
        ("replicate", (1, 2, 3, 4), (2, -1, 0, 3)),
        ("replicate", (1, 2, 3, 3, 3), (1, 1, 2, 2, 3, 3)),
        ("circular", (1, 2, 5), (2, 3)),
        ("circular", (1, 2, 3, 4), (-1, 2, 3, 0)),
        ("circular", (1, 1, 2, 3, 4), (1, 1, 1, 2, 2, 2)),
    ],
)
def test_pad_matches_numpy(mode, shape, pad, rng):
    a = rng.standard_normal(shape)
    got = F.pad(from_np(a), pad, mode=mode)
    assert_equal(got, _np_pad(a, pad, mode))
    if mode == "constant":
        assert_equal(F.pad(from_np(a), pad, value=2.5), _np_pad(a, pad, mode, 2.5))
        assert_equal(ember.constant_pad_nd(from_np(a), list(pad), -1.0), _np_pad(a, pad, mode, -1.0))
        i = F.pad(ember.tensor([[1, 2]]), [1, 1], value=7)
        assert i.dtype is ember.int64 and i.tolist() == [[7, 1, 2, 7]]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize(
    "dtype", [ember.float32, ember.float16, ember.int8, ember.bool, ember.complex128], ids=dtype_name
)
def test_pad_views_and_dtypes(mode, dtype, rng):
    # The kernel reads any strides and moves elements of every size; each padded dim is crossed in both directions.
    a = rng.standard_normal((3, 4, 6, 7)) * 5
    if dtype is ember.complex128:
        a = a + 1j * rng.standard_normal(a.shape)
    a = a.astype(np.complex128 if dtype is ember.complex128 else np_dtype(dtype))
    t = ember.tensor(a)
    pad = (2, 1, -1, 3) if mode != "circular" else (2, -1, 1, 3)
    for view, ref in [(t, a), (t.transpose(2, 3), a.swapaxes(2, 3)), (t[:, ::2, 1:, ::2], a[:, ::2, 1:, ::2])]:
        got = F.pad(view, pad, mode=mode)
        assert got.dtype is dtype and got.is_contiguous()
        np.testing.assert_array_equal(got.numpy(), _np_pad(ref, pad, mode))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_large_over_threads(mode, rng):
    a = rng.standard_normal((2, 40, 70, 90)).astype(np.float32)
    threads = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        np.testing.assert_array_equal(to_np(F.pad(from_np(a), (5, 4, 3, 6), mode=mode)), _np_pad(a, (5, 4, 3, 6), mode))
        v = rng.standard_normal((2, 3, 20, 30, 40)).astype(np.float32)
        pad = (2, 3, 1, 1, 4, 2)
        np.testing.assert_array_equal(to_np(F.pad(from_np(v), pad, mode=mode)), _np_pad(v, pad, mode))
    finally:
        ember.set_num_threads(threads)


@pytest.mark.parametrize(
    "mode,shape,pad,name",
    [
        ("reflect", (2, 5), (2, 3), "ReflectionPad1DBackward0"),
        ("reflect", (1, 2, 4, 5), (1, 2, 3, 1), "ReflectionPad2DBackward0"),
        ("replicate", (1, 2, 3, 4), (2, -1, 0, 3), "ReplicationPad2DBackward0"),
        ("replicate", (1, 1, 2, 3, 3), (1, 1, 2, 0, 1, 2), "ReplicationPad3DBackward0"),
        ("circular", (1, 2, 3, 4), (-1, 2, 3, 0), "CopySlices"),
    ],
)
def test_pad_gradients_of_first_and_second_order(mode, shape, pad, name, rng):
    x = from_np(rng.standard_normal(shape)).requires_grad_()
    assert F.pad(x, pad, mode=mode).grad_fn.name() == name
    assert ember.autograd.gradcheck(lambda t: F.pad(t, pad, mode=mode), (x,))
    assert ember.autograd.gradgradcheck(lambda t: F.pad(t, pad, mode=mode), (x,))


def test_pad_gradient_sums_the_positions_that_read_an_element():
    x = ember.zeros(1, 1, 4, dtype=ember.float64, requires_grad=True)
    F.pad(x, (3, 2), mode="reflect").sum().backward()
    # reflect of [a b c d] by (3, 2): d c b | a b c d | c b
    assert x.grad.tolist() == [[[1.0, 3.0, 3.0, 2.0]]]
    x.grad = None
    F.pad(x, (2, 1), mode="replicate").sum().backward()
    assert x.grad.tolist() == [[[3.0, 1.0, 1.0, 2.0]]]
    x.grad = None
    F.pad(x, (-1, 2)).sum().backward()
    assert x.grad.tolist() == [[[0.0, 1.0, 1.0, 1.0]]]


def test_pad_errors():
    with pytest.raises(
        RuntimeError,
        match=r"Argument #4: Padding size should be less than the corresponding input "
        r"dimension, but got: padding \(3, 3\) at dimension 1 of input \[1, 3\]",
    ):
        F.pad(ember.ones(1, 3), (3, 3), mode="reflect")
    with pytest.raises(RuntimeError, match=r"Argument #6: .* padding \(3, 3\) at dimension 1"):
        F.pad(ember.ones(2, 3, 3), (1, 1, 3, 3), mode="reflect")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(ember.ones(2, 3), (1, 1, 1))
    with pytest.raises(RuntimeError, match="Padding length too large"):
        F.pad(ember.ones(2, 3), (1, 1, 1, 1, 1, 1))
    with pytest.raises(
        NotImplementedError, match="Only 2D, 3D, 4D, 5D padding with non-constant padding are supported"
    ):
        F.pad(ember.ones(3), (1, 1), mode="reflect")
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode foo"):
        F.pad(ember.ones(2, 3), (1, 1), mode="foo")
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once."):
        F.pad(ember.ones(1, 2, 3), (4, 0), mode="circular")
    with pytest.raises(RuntimeError, match='Padding mode "replicate" doesn\'t take in value argument'):
        F.pad(ember.ones(1, 2, 3), (1, 0), mode="replicate", value=1.0)
    with pytest.raises(RuntimeError, match="resulted in a negative output size"):
        F.pad(ember.ones(1, 2, 3), (-2, -2))
    with pytest.raises(RuntimeError, match="Length of pad must be even but instead it equals 3"):
        ember.constant_pad_nd(ember.ones(2), [1, 2, 3])
