"""Dropout, embeddings and padding (ember/nn/dropout.cpp, embedding.cpp, padding.cpp): dropout's statistics and its
determinism under manual_seed, embedding and embedding_bag against NumPy with their gradient options, pad against
np.pad in every mode, and PyTorch's error messages."""
import math

import numpy as np
import pytest
from conftest import assert_equal, from_np, to_np

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
    a = 1 / math.sqrt((alpha ** 2 * p + 1) * (1 - p))
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
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one of the following "
                                           "scalar types: Long, Int; but got torch.FloatTensor instead"):
        F.embedding(ember.tensor([1.0]), w)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(ember.tensor([1]), w, padding_idx=5)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(ember.tensor([1]), w, padding_idx=-4)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(ember.tensor([1]), ember.ones(3))


def _bags(idx, offsets, n, include_last):
    ends = list(offsets[1:]) + ([] if include_last else [n])
    starts = list(offsets[:len(ends)])
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


@pytest.mark.parametrize("mode,shape,pad", [
    ("constant", (2, 3, 4), (1, 2)), ("constant", (2, 3, 4), (1, -1, 0, 2, 3, 1)), ("constant", (5,), (-2, -2)),
    ("reflect", (1, 3), (2, 2)), ("reflect", (2, 3, 5), (4, 1)), ("reflect", (2, 3, 4, 5), (1, 3, 2, 3)),
    ("reflect", (1, 2, 3, 4, 5), (1, 2, 2, 1, 1, 2)), ("reflect", (2, 2, 6), (-2, 3)),
    ("replicate", (2, 4), (3, 1)), ("replicate", (1, 2, 3, 4), (2, -1, 0, 3)),
    ("replicate", (1, 2, 3, 3, 3), (1, 1, 2, 2, 3, 3)), ("circular", (1, 2, 5), (2, 3)),
    ("circular", (1, 2, 3, 4), (-1, 2, 3, 0)), ("circular", (1, 1, 2, 3, 4), (1, 1, 1, 2, 2, 2)),
])
def test_pad_matches_numpy(mode, shape, pad, rng):
    a = rng.standard_normal(shape)
    got = F.pad(from_np(a), pad, mode=mode)
    assert_equal(got, _np_pad(a, pad, mode))
    if mode == "constant":
        assert_equal(F.pad(from_np(a), pad, value=2.5), _np_pad(a, pad, mode, 2.5))
        assert_equal(ember.constant_pad_nd(from_np(a), list(pad), -1.0), _np_pad(a, pad, mode, -1.0))
        i = F.pad(ember.tensor([[1, 2]]), [1, 1], value=7)
        assert i.dtype is ember.int64 and i.tolist() == [[7, 1, 2, 7]]


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
    with pytest.raises(RuntimeError, match=r"Argument #4: Padding size should be less than the corresponding input "
                                           r"dimension, but got: padding \(3, 3\) at dimension 1 of input \[1, 3\]"):
        F.pad(ember.ones(1, 3), (3, 3), mode="reflect")
    with pytest.raises(RuntimeError, match=r"Argument #6: .* padding \(3, 3\) at dimension 1"):
        F.pad(ember.ones(2, 3, 3), (1, 1, 3, 3), mode="reflect")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(ember.ones(2, 3), (1, 1, 1))
    with pytest.raises(RuntimeError, match="Padding length too large"):
        F.pad(ember.ones(2, 3), (1, 1, 1, 1, 1, 1))
    with pytest.raises(NotImplementedError,
                       match="Only 2D, 3D, 4D, 5D padding with non-constant padding are supported"):
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
