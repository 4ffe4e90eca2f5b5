"""The thread budget (Note [Intra-op parallelism]): the default thread count follows the CPU affinity mask, and
convolutions and poolings split over the batch on ember's pool (Note [Primitives on ember's threads]) give the
results of the unsplit float64 computation."""

import os
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.nn.functional as F


def _run(code, **env):
    full = {k: v for k, v in os.environ.items() if k not in ("EMBER_NUM_THREADS", "OMP_NUM_THREADS")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, check=True)
    return out.stdout.strip()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")
def test_default_thread_count_follows_the_affinity_mask():
    cpu = sorted(os.sched_getaffinity(0))[0]
    code = f"import os; os.sched_setaffinity(0, {{{cpu}}}); import ember; print(ember.get_num_threads())"
    assert _run(code) == "1"
    assert _run("import os, ember; print(ember.get_num_threads() == len(os.sched_getaffinity(0)))") == "True"


def test_environment_overrides_the_default():
    assert _run("import ember; print(ember.get_num_threads())", OMP_NUM_THREADS="3,2") == "3"
    assert _run("import ember; print(ember.get_num_threads())", EMBER_NUM_THREADS="5", OMP_NUM_THREADS="3") == "5"


@pytest.mark.parametrize("batch", [1, 2, 3, 7])
def test_conv_split_over_the_batch_matches_float64(four_threads, batch):
    ember.manual_seed(batch)
    x = ember.randn(batch, 3, 9, 8, requires_grad=True)
    w = ember.randn(5, 3, 3, 3, requires_grad=True)
    b = ember.randn(5, requires_grad=True)
    out = F.conv2d(x, w, b, stride=(2, 1), padding=1)
    g = ember.randn(out.shape)
    out.backward(g)
    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, w, b))
    ref = F.conv2d(x64, w64, b64, stride=(2, 1), padding=1)
    ref.backward(g.double())
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    for got, want in ((x.grad, x64.grad), (w.grad, w64.grad), (b.grad, b64.grad)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)


def test_pooling_split_over_planes_matches_a_numpy_reference(four_threads):
    ember.manual_seed(0)
    x = ember.randn(4, 6, 8, 10, requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    xn = x.detach().numpy()
    want = xn.reshape(4, 6, 4, 2, 5, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(out.detach().numpy(), want)
    flat = xn.reshape(4, 6, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.numpy().reshape(4, 6, -1), 2), want.reshape(4, 6, -1))
    avg = F.avg_pool2d(x, 2)
    np.testing.assert_allclose(
        avg.detach().numpy(), xn.reshape(4, 6, 4, 2, 5, 2).mean(axis=(3, 5)), rtol=1e-5, atol=1e-6
    )
    avg.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(xn.shape, 0.25), rtol=1e-6)


@pytest.mark.parametrize("m,n,k", [(1024, 48, 300), (40, 1100, 260), (515, 517, 129), (2048, 1, 256), (1, 2048, 256)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_gemm_split_into_blocks_matches_numpy(four_threads, m, n, k, ta, tb):
    rng = np.random.default_rng(m + n + k)
    an = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    bn = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    a = ember.from_numpy(an).t() if ta else ember.from_numpy(an)
    b = ember.from_numpy(bn).t() if tb else ember.from_numpy(bn)
    want = (an.T if ta else an).astype(np.float64) @ (bn.T if tb else bn).astype(np.float64)
    np.testing.assert_allclose((a @ b).numpy(), want, rtol=1e-4, atol=1e-3)
    c = ember.from_numpy(np.ones((m, n), np.float32))
    np.testing.assert_allclose(ember.addmm(c, a, b, beta=0.5, alpha=2.0).numpy(), 0.5 + 2 * want, rtol=1e-4, atol=2e-3)


def test_batched_and_broadcast_gemm_split_matches_numpy(four_threads):
    rng = np.random.default_rng(0)
    an = rng.standard_normal((3, 4, 200, 96)).astype(np.float32)
    bn = rng.standard_normal((4, 96, 300)).astype(np.float32)
    got = ember.matmul(ember.from_numpy(an), ember.from_numpy(bn)).numpy()
    np.testing.assert_allclose(got, an.astype(np.float64) @ bn.astype(np.float64), rtol=1e-4, atol=1e-3)
    dn = rng.standard_normal((7, 513, 64))
    np.testing.assert_allclose(
        ember.bmm(ember.from_numpy(dn), ember.from_numpy(dn).transpose(1, 2)).numpy(),
        dn @ dn.transpose(0, 2, 1),
        rtol=1e-10,
        atol=1e-10,
    )


@pytest.mark.parametrize("groups", [1, 4, 32])
def test_batch_of_one_split_over_channels_matches_float64(four_threads, groups):
    ember.manual_seed(groups)
    x = ember.randn(1, 32, 24, 20)
    w = ember.randn(64, 32 // groups, 3, 3)
    b = ember.randn(64)
    out = F.conv2d(x, w, b, padding=1, groups=groups)
    ref = F.conv2d(x.double(), w.double(), b.double(), padding=1, groups=groups)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("batch,groups,out_ch", [(1, 1, 100), (3, 1, 100), (3, 4, 96), (2, 1, 33)])
def test_weight_heavy_conv_split_over_channels_matches_float64(four_threads, batch, groups, out_ch):
    """A weight bigger than the activations splits channels in both directions (Note [Splitting a convolution]):
    output channels for the forward and the weight gradient, input channels for grad_input, whole groups when
    grouped; a count of channels that is no multiple of oneDNN's 16 leaves a partial block."""
    ember.manual_seed(batch + groups)
    x = ember.randn(batch, 128, 6, 5, requires_grad=True)
    w = ember.randn(out_ch, 128 // groups, 3, 3, requires_grad=True)
    b = ember.randn(out_ch, requires_grad=True)
    out = F.conv2d(x, w, b, padding=1, groups=groups)
    g = ember.randn(out.shape)
    out.backward(g)
    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, w, b))
    ref = F.conv2d(x64, w64, b64, padding=1, groups=groups)
    ref.backward(g.double())
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    for got, want in ((x.grad, x64.grad), (w.grad, w64.grad), (b.grad, b64.grad)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-3)
    # grad_input alone (the transposed convolution's forward) and grad_weight alone
    gx = F.conv_transpose2d(g, w.detach(), padding=1, groups=groups)
    np.testing.assert_allclose(gx.numpy(), x64.grad.numpy(), rtol=1e-4, atol=1e-3)
    w.grad = None
    F.conv2d(x.detach(), w, padding=1, groups=groups).backward(g)
    np.testing.assert_allclose(w.grad.numpy(), w64.grad.numpy(), rtol=1e-4, atol=1e-3)
