"""frobenius_norm, nuclear_norm, native_layer_norm/batch_norm/group_norm and the batch_norm_* pieces of SyncBatchNorm,
against NumPy and against full-batch batch norm (a batch split into simulated processes)."""

import numpy as np
import pytest
from conftest import to_np

import ember
import ember.nn.functional as F


def _t(a, grad=False):
    return ember.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_frobenius_norm():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 4, 5))
    x = _t(a)
    np.testing.assert_allclose(ember.frobenius_norm(x).item(), np.sqrt((a**2).sum()), rtol=1e-12)
    np.testing.assert_allclose(
        to_np(ember.frobenius_norm(x, (1, 2))), np.linalg.norm(a, "fro", axis=(1, 2)), rtol=1e-12
    )
    np.testing.assert_allclose(to_np(ember.frobenius_norm(x, 1)), np.sqrt((a**2).sum(1)), rtol=1e-12)
    assert ember.frobenius_norm(x, [1], keepdim=True).shape == (3, 1, 5)
    assert ember.frobenius_norm(x, (), keepdim=False).shape == ()
    np.testing.assert_allclose(
        to_np(ember.frobenius_norm(x.transpose(0, 2), (0, 1))),
        np.linalg.norm(a.transpose(2, 1, 0), axis=(0, 1)),
        rtol=1e-12,
    )
    with pytest.raises(RuntimeError, match="at most 2 dimensions"):
        ember.frobenius_norm(x, (0, 1, 2))
    assert ember.autograd.gradcheck(lambda t: ember.frobenius_norm(t, (0, 1)), (_t(a[:, :2, :2], grad=True),))


def test_nuclear_norm():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(2, 4, 3))
    x = _t(a)
    np.testing.assert_allclose(ember.nuclear_norm(x[0]).item(), np.linalg.norm(a[0], "nuc"), rtol=1e-10)
    np.testing.assert_allclose(to_np(ember.nuclear_norm(x, (1, 2))), [np.linalg.norm(m, "nuc") for m in a], rtol=1e-10)
    assert ember.nuclear_norm(x[0], keepdim=True).shape == (1, 1)
    assert ember.nuclear_norm(x[0], True).shape == (1, 1)
    assert ember.nuclear_norm(x, (1, 2), keepdim=True).shape == (2, 1, 1)
    with pytest.raises(RuntimeError, match="2 dimensions, but got a tensor with 3"):
        ember.nuclear_norm(x)
    with pytest.raises(RuntimeError, match="'dim' argument of size 2"):
        ember.nuclear_norm(x, (0,))


def test_native_layer_norm():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(2, 3, 4))
    w, b = rng.normal(size=4), rng.normal(size=4)
    out, mean, rstd = ember.native_layer_norm(_t(a), [4], _t(w), _t(b), 1e-5)
    m = a.mean(-1, keepdims=True)
    r = 1 / np.sqrt(a.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(to_np(mean), m, rtol=1e-12)
    np.testing.assert_allclose(to_np(rstd), r, rtol=1e-12)
    np.testing.assert_allclose(to_np(out), (a - m) * r * w + b, rtol=1e-10, atol=1e-12)
    out, mean, rstd = ember.native_layer_norm(_t(a), (3, 4), None, None, 1e-5)
    assert mean.shape == (2, 1, 1) and rstd.shape == (2, 1, 1)
    np.testing.assert_allclose(to_np(mean).ravel(), a.reshape(2, -1).mean(1), rtol=1e-12)
    x = _t(a, grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.native_layer_norm(t, [4], None, None, 1e-5)[0], (x,))


def test_native_group_norm():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 6, 5))
    out, mean, rstd = ember.native_group_norm(_t(a), None, None, 2, 6, 5, 3, 1e-5)
    g = a.reshape(2, 3, -1)
    np.testing.assert_allclose(to_np(mean), g.mean(-1), rtol=1e-12)
    np.testing.assert_allclose(to_np(rstd), 1 / np.sqrt(g.var(-1) + 1e-5), rtol=1e-12)
    expected = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(a.shape)
    np.testing.assert_allclose(to_np(out), expected, rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        ember.native_group_norm(_t(a), None, None, 2, 6, 5, 4, 1e-5)


def test_native_batch_norm():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(4, 3, 5))
    rm, rv = _t(np.zeros(3)), _t(np.ones(3))
    out, save_mean, save_invstd = ember.native_batch_norm(_t(a), None, None, rm, rv, True, 0.1, 1e-5)
    m, v = a.mean((0, 2)), a.var((0, 2))
    np.testing.assert_allclose(to_np(save_mean), m, rtol=1e-12)
    np.testing.assert_allclose(to_np(save_invstd), 1 / np.sqrt(v + 1e-5), rtol=1e-12)
    np.testing.assert_allclose(to_np(rm), 0.1 * m, rtol=1e-12)
    np.testing.assert_allclose(to_np(rv), 0.9 + 0.1 * a.var((0, 2), ddof=1), rtol=1e-12)
    np.testing.assert_allclose(to_np(out), (a - m[:, None]) / np.sqrt(v[:, None] + 1e-5), rtol=1e-10, atol=1e-12)
    out, sm, si = ember.native_batch_norm(_t(a), None, None, rm, rv, False, 0.1, 1e-5)
    assert sm.shape == (0,) and si.shape == (0,)
    np.testing.assert_allclose(to_np(out), (a - to_np(rm)[:, None]) / np.sqrt(to_np(rv)[:, None] + 1e-5), rtol=1e-10)
    _, sm, _ = ember.native_batch_norm(_t(a), None, None, None, None, True, 0.1, 1e-5)
    assert sm.shape == (3,)


def _sync_bn(parts, weight, bias, rm, rv, eps=1e-5, momentum=0.1):
    """What hand-written SyncBatchNorm forwards do, with the all_gather done by stacking."""
    stats = [ember.batch_norm_stats(p, eps) for p in parts]
    mean_all = ember.stack([s[0] for s in stats])
    invstd_all = ember.stack([s[1] for s in stats])
    counts = ember.tensor([float(p.numel() // p.size(1)) for p in parts], dtype=mean_all.dtype)
    mean, invstd = ember.batch_norm_gather_stats_with_counts(
        parts[0], mean_all, invstd_all, rm, rv, momentum, eps, counts
    )
    return [ember.batch_norm_elemt(p, weight, bias, mean, invstd, eps) for p in parts], mean, invstd, counts


def test_sync_batch_norm_pieces_equal_full_batch():
    rng = np.random.default_rng(5)
    a = rng.normal(size=(7, 3, 4)) * 2 + 1
    w, b = rng.normal(size=3), rng.normal(size=3)
    parts = [_t(a[:2]), _t(a[2:3]), _t(a[3:])]  # unequal counts
    rm, rv = _t(np.zeros(3)), _t(np.ones(3))
    outs, mean, invstd, counts = _sync_bn(parts, _t(w), _t(b), rm, rv)
    x = _t(a, grad=True)
    wt, bt = _t(w, grad=True), _t(b, grad=True)
    ref_rm, ref_rv = _t(np.zeros(3)), _t(np.ones(3))
    ref = F.batch_norm(x, ref_rm, ref_rv, wt, bt, training=True, momentum=0.1, eps=1e-5)
    np.testing.assert_allclose(to_np(ember.cat(outs)), to_np(ref.detach()), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_np(rm), to_np(ref_rm), rtol=1e-12)
    np.testing.assert_allclose(to_np(rv), to_np(ref_rv), rtol=1e-12)
    # backward: per-process reduce, an all_reduce (a sum here), elemt
    g = rng.normal(size=a.shape)
    ref.backward(_t(g))
    gparts = [_t(g[:2]), _t(g[2:3]), _t(g[3:])]
    reds = [
        ember.batch_norm_backward_reduce(gp, p, mean, invstd, _t(w), True, True, True) for gp, p in zip(gparts, parts)
    ]
    sum_dy = sum(r[0] for r in reds)
    sum_dy_xmu = sum(r[1] for r in reds)
    np.testing.assert_allclose(to_np(sum(r[2] for r in reds)), to_np(wt.grad), rtol=1e-10)
    np.testing.assert_allclose(to_np(sum(r[3] for r in reds)), to_np(bt.grad), rtol=1e-10)
    gin = [
        ember.batch_norm_backward_elemt(gp, p, mean, invstd, _t(w), sum_dy, sum_dy_xmu, counts.to(ember.int32))
        for gp, p in zip(gparts, parts)
    ]
    np.testing.assert_allclose(to_np(ember.cat(gin)), to_np(x.grad), rtol=1e-9, atol=1e-12)
    r = ember.batch_norm_backward_reduce(gparts[0], parts[0], mean, invstd, None, False, False, True)
    assert r[0] is None and r[1] is None and r[2] is None and r[3].shape == (3,)


def test_batch_norm_stats_gather_and_update():
    rng = np.random.default_rng(6)
    a = rng.normal(size=(4, 3, 5))
    mean, invstd = ember.batch_norm_stats(_t(a), 1e-3)
    np.testing.assert_allclose(to_np(mean), a.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(to_np(invstd), 1 / np.sqrt(a.var((0, 2)) + 1e-3), rtol=1e-12)
    assert ember.batch_norm_stats(ember.ones(2, 3, dtype=ember.float16), 1e-5)[0].dtype == ember.float32
    rm, rv = _t(np.zeros(3)), _t(np.ones(3))
    m, v = ember.batch_norm_update_stats(_t(a), rm, rv, 0.2)
    np.testing.assert_allclose(to_np(v), a.var((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(to_np(rv), 0.8 + 0.2 * a.var((0, 2), ddof=1), rtol=1e-12)
    # one value per channel: the unbiased running variance is 0 * (1 / 0), NaN as in PyTorch; no values: an error
    rv1 = _t(np.ones(3))
    ember.batch_norm_update_stats(_t(a[:1, :, :1]), None, rv1, 0.2)
    assert np.isnan(to_np(rv1)).all()
    with pytest.raises(
        RuntimeError, match=r"input tensor must have at least one element, but got input_sizes = \[0, 3\]"
    ):
        ember.batch_norm_update_stats(ember.zeros(0, 3), None, None, 0.1)
    halves = [ember.batch_norm_stats(_t(a[:2]), 1e-3), ember.batch_norm_stats(_t(a[2:]), 1e-3)]
    gm, gi = ember.batch_norm_gather_stats(
        _t(a), ember.stack([h[0] for h in halves]), ember.stack([h[1] for h in halves]), None, None, 0.1, 1e-3, 10
    )
    np.testing.assert_allclose(to_np(gm), a.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(to_np(gi), 1 / np.sqrt(a.var((0, 2)) + 1e-3), rtol=1e-10)
