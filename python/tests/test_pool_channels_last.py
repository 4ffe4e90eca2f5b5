"""Pooling of channels-last inputs: the CPU kernels read and write NHWC (NDHWC) directly (Note [Channels-last
pooling] in ember/backend/cpu/pool.cpp). Each case compares with the row-major kernels (values, indices, gradients),
with NumPy for max pooling, and with PyTorch's values and output strides when the reference PyTorch is installed."""

import json
import os
import subprocess

import numpy as np
import pytest
from conftest import to_np

import ember
import ember.nn.functional as F

CL, CL3 = ember.channels_last, ember.channels_last_3d
TORCH_PY = "/opt/torch2/py"

# (kwargs of max_pool2d) over odd sizes: padding, stride, ceil_mode's overhang, dilation, non-square windows
MAX2D = [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(2, 3), stride=(2, 1), dilation=2, ceil_mode=True),
    dict(kernel_size=(3, 2), stride=(1, 3), padding=(1, 0), dilation=(1, 2)),
    dict(kernel_size=1),
]
AVG2D = [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(3, 2), padding=(1, 1), divisor_override=5),
    dict(kernel_size=(4, 3), stride=1, padding=(2, 0), ceil_mode=True, count_include_pad=False),
]


def cl_pair(rng, shape, dtype=np.float64, fmt=CL):
    """The same values as a channels-last and a row-major leaf tensor that require grad."""
    a = rng.standard_normal(shape).astype(dtype)
    x = ember.tensor(a).contiguous(memory_format=fmt).detach().requires_grad_()
    return x, ember.tensor(a, requires_grad=True)


def assert_cl(t, fmt=CL):
    assert t.is_contiguous(memory_format=fmt) and not t.is_contiguous(), t.stride()


def grads(f, x, xr, rng):
    """Gradients of sum(w * f(.)) for both inputs, with the same random w."""
    y, yr = f(x), f(xr)
    w = ember.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float64)).to(y.dtype)
    (y * w).sum().backward()
    (yr * w).sum().backward()
    return y, yr


def max_pool2d_numpy(a, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Max pooling of [N, C, H, W] with PyTorch's indices (flat position in H*W), written independently."""
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    k, s, p, d = pair(kernel_size), pair(stride or kernel_size), pair(padding), pair(dilation)
    n, c, h, w = a.shape
    outs = []
    for i, size in enumerate((h, w)):
        num = size + 2 * p[i] - d[i] * (k[i] - 1) - 1 + (s[i] - 1 if ceil_mode else 0)
        o = num // s[i] + 1
        if ceil_mode and (o - 1) * s[i] >= size + p[i]:
            o -= 1
        outs.append(o)
    val = np.full((n, c, *outs), -np.inf)
    idx = np.zeros((n, c, *outs), np.int64)
    for oh in range(outs[0]):
        for ow in range(outs[1]):
            for kh in range(k[0]):
                for kw in range(k[1]):
                    ih, iw = oh * s[0] - p[0] + kh * d[0], ow * s[1] - p[1] + kw * d[1]
                    if 0 <= ih < h and 0 <= iw < w:
                        v = a[:, :, ih, iw]
                        take = v > val[:, :, oh, ow]
                        val[:, :, oh, ow] = np.where(take, v, val[:, :, oh, ow])
                        idx[:, :, oh, ow] = np.where(take, ih * w + iw, idx[:, :, oh, ow])
    return val, idx


@pytest.mark.parametrize("kw", MAX2D)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool2d_channels_last(rng, kw, dtype):
    x, xr = cl_pair(rng, (2, 5, 9, 11), dtype)
    y, yr = grads(lambda t: F.max_pool2d(t, **kw), x, xr, rng)
    (v, i), (vr, ir) = F.max_pool2d(x, return_indices=True, **kw), F.max_pool2d(xr, return_indices=True, **kw)
    assert_cl(y)
    assert_cl(v)
    assert_cl(i)
    assert_cl(x.grad)
    np.testing.assert_array_equal(to_np(y), to_np(yr))
    np.testing.assert_array_equal(to_np(v), to_np(vr))
    np.testing.assert_array_equal(to_np(i), to_np(ir))
    want_v, want_i = max_pool2d_numpy(to_np(xr).astype(np.float64), **kw)
    np.testing.assert_array_equal(to_np(v).astype(np.float64), want_v)
    np.testing.assert_array_equal(to_np(i), want_i)
    np.testing.assert_array_equal(to_np(x.grad), to_np(xr.grad))


@pytest.mark.parametrize("kw", AVG2D)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool2d_channels_last(rng, kw, dtype):
    x, xr = cl_pair(rng, (2, 5, 9, 11), dtype)
    y, yr = grads(lambda t: F.avg_pool2d(t, **kw), x, xr, rng)
    assert_cl(y)
    assert_cl(x.grad)
    tol = 1e-5 if dtype == np.float32 else 1e-13  # float32 sums in float32 (as PyTorch's)
    np.testing.assert_allclose(to_np(y), to_np(yr), rtol=tol, atol=tol)
    np.testing.assert_allclose(to_np(x.grad), to_np(xr.grad), rtol=tol, atol=tol)


@pytest.mark.parametrize("out", [(4, 3), (1, 1), (9, 11), (12, 5)])
def test_adaptive_pool2d_channels_last(rng, out):
    x, xr = cl_pair(rng, (3, 6, 9, 11))
    y, yr = grads(lambda t: F.adaptive_avg_pool2d(t, out), x, xr, rng)
    # PyTorch's channels-last strides (for [N, C, 1, 1] also row-major ones)
    assert y.stride() == (6 * out[0] * out[1], 1, 6 * out[1], 6)
    np.testing.assert_allclose(to_np(y), to_np(yr), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(to_np(x.grad), to_np(xr.grad), rtol=1e-13, atol=1e-13)
    (v, i), (vr, ir) = F.adaptive_max_pool2d(x, out, return_indices=True), F.adaptive_max_pool2d(xr, out, True)
    assert i.stride() == v.stride() == y.stride()
    np.testing.assert_array_equal(to_np(v), to_np(vr))
    np.testing.assert_array_equal(to_np(i), to_np(ir))
    x.grad = xr.grad = None
    grads(lambda t: F.adaptive_max_pool2d(t, out), x, xr, rng)
    np.testing.assert_array_equal(to_np(x.grad), to_np(xr.grad))


def test_pool3d_channels_last_3d(rng):
    x, xr = cl_pair(rng, (2, 4, 5, 7, 6), fmt=CL3)
    # (op, whether PyTorch keeps the channels_last_3d layout): only max_pool3d does
    cases = [
        (lambda t: F.max_pool3d(t, 3, 2, 1, ceil_mode=True), True),
        (lambda t: F.max_pool3d(t, (2, 3, 2), dilation=(2, 1, 2)), True),
        (lambda t: F.avg_pool3d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), False),
        (lambda t: F.avg_pool3d(t, (2, 3, 3), 1, (1, 1, 0), divisor_override=7), False),
        (lambda t: F.adaptive_avg_pool3d(t, (2, 3, 4)), False),
        (lambda t: F.adaptive_max_pool3d(t, (3, 5, 4)), False),
    ]
    for f, keeps in cases:
        x.grad = xr.grad = None
        y, yr = grads(f, x, xr, rng)
        if keeps:
            assert_cl(y, CL3)
            assert_cl(ember.autograd.grad(f(x).sum(), x)[0], CL3)
        else:
            assert y.is_contiguous()
        np.testing.assert_allclose(to_np(y), to_np(yr), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(to_np(x.grad), to_np(xr.grad), rtol=1e-13, atol=1e-13)
    (_, i), (_, ir) = F.max_pool3d(x, 3, 2, 1, return_indices=True), F.max_pool3d(xr, 3, 2, 1, return_indices=True)
    assert_cl(i, CL3)
    np.testing.assert_array_equal(to_np(i), to_np(ir))


def test_many_channels_one_image(rng):
    # more channels than the backward's block of 64, a batch of one
    x, xr = cl_pair(rng, (1, 70, 6, 5), np.float32)
    grads(lambda t: F.avg_pool2d(t, 3, 2, 1), x, xr, rng)
    assert_cl(x.grad)
    np.testing.assert_allclose(to_np(x.grad), to_np(xr.grad), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(to_np(F.max_pool2d(x, 2, 1)), to_np(F.max_pool2d(xr, 2, 1)))


def test_nan_propagates_with_row_major_indices(rng):
    a = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    a[0, 1, 2, 3] = a[1, 2, 5, 6] = a[1, 2, 4, 6] = np.nan
    x, xr = ember.tensor(a).contiguous(memory_format=CL), ember.tensor(a)
    (v, i), (vr, ir) = F.max_pool2d(x, 3, 2, 1, return_indices=True), F.max_pool2d(xr, 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(to_np(v), to_np(vr))  # NaNs in the same places
    # (2, 3) lies in two windows, (4, 6) and (5, 6) in one: the last NaN read names it, as in PyTorch
    assert np.isnan(to_np(v)).sum() == 3
    assert to_np(i)[1, 2, 2, 3] == 5 * 7 + 6 and to_np(i)[0, 1, 1, 1] == to_np(i)[0, 1, 1, 2] == 2 * 7 + 3
    np.testing.assert_array_equal(to_np(i), to_np(ir))


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_half_precision_keeps_layout(rng, dtype):
    a = rng.standard_normal((2, 4, 7, 9)).astype(np.float32)
    x, xr = ember.tensor(a).to(dtype).contiguous(memory_format=CL), ember.tensor(a).to(dtype)
    for f in (lambda t: F.max_pool2d(t, 3, 2, 1), lambda t: F.avg_pool2d(t, 2), lambda t: F.adaptive_avg_pool2d(t, 3)):
        y = f(x)
        assert y.dtype == dtype
        assert_cl(y)
        np.testing.assert_array_equal(to_np(y.float()), to_np(f(xr).float()))


def test_double_backward_channels_last(rng):
    x, xr = cl_pair(rng, (2, 3, 7, 8))
    for f in (lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True), lambda t: F.max_pool2d(t, 3, 1, 1)):
        g = ember.autograd.grad(f(x).square().sum(), x, create_graph=True)[0]
        gr = ember.autograd.grad(f(xr).square().sum(), xr, create_graph=True)[0]
        np.testing.assert_allclose(to_np(g), to_np(gr), rtol=1e-13, atol=1e-13)
        gg = ember.autograd.grad((g * g).sum(), x)[0]
        ggr = ember.autograd.grad((gr * gr).sum(), xr)[0]
        np.testing.assert_allclose(to_np(gg), to_np(ggr), rtol=1e-12, atol=1e-12)


def test_strided_channels_last_view_is_pooled_right(rng):
    # a channels-last tensor's non-dense view takes the row-major kernels: same values
    x, xr = cl_pair(rng, (2, 5, 10, 11))
    v, vr = x.detach()[:, :, ::2], xr.detach()[:, :, ::2]
    np.testing.assert_array_equal(to_np(F.max_pool2d(v, 2)), to_np(F.max_pool2d(vr, 2)))
    np.testing.assert_allclose(to_np(F.avg_pool2d(v, 2)), to_np(F.avg_pool2d(vr, 2)), rtol=1e-13, atol=1e-13)
    # a slice of the batch is channels-last at an offset into its storage: the channels-last kernels
    v, vr = x.detach()[1:], xr.detach()[1:]
    (p, i), (pr, ir) = F.max_pool2d(v, 3, 2, 1, return_indices=True), F.max_pool2d(vr, 3, 2, 1, return_indices=True)
    assert_cl(p)
    np.testing.assert_array_equal(to_np(p), to_np(pr))
    np.testing.assert_array_equal(to_np(i), to_np(ir))


# The same program in ember and PyTorch: each result's strides and values.
TORCH_CASES = """
def pool_cases(lib):
    import numpy as np
    F = lib.nn.functional
    a = np.sin(np.arange(2 * 5 * 9 * 11, dtype=np.float64) / 7).reshape(2, 5, 9, 11)
    x = lib.tensor(a).contiguous(memory_format=lib.channels_last).requires_grad_()
    x3 = lib.tensor(a.reshape(2, 5, 9, 11, 1)[..., :1].repeat(3, -1)).contiguous(memory_format=lib.channels_last_3d)
    p, i = F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True)
    out = {
        "max_pool2d": p, "max_pool2d indices": i,
        "max_pool2d dilation": F.max_pool2d(x, (2, 3), (2, 1), dilation=2, ceil_mode=True),
        "avg_pool2d": F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        "avg_pool2d divisor": F.avg_pool2d(x, (2, 3), (3, 2), (1, 1), divisor_override=5),
        "adaptive_avg_pool2d": F.adaptive_avg_pool2d(x, (4, 3)),
        "adaptive_avg_pool2d 1": F.adaptive_avg_pool2d(x, 1),
        "adaptive_max_pool2d": F.adaptive_max_pool2d(x, (4, 3), return_indices=True)[0],
        "adaptive_max_pool2d indices": F.adaptive_max_pool2d(x, (4, 3), return_indices=True)[1],
        "max_pool3d": F.max_pool3d(x3, 2, 1, return_indices=True)[0],
        "max_pool3d indices": F.max_pool3d(x3, 2, 1, return_indices=True)[1],
        "avg_pool3d": F.avg_pool3d(x3, 3, 2, 1),
        "adaptive_avg_pool3d": F.adaptive_avg_pool3d(x3, (2, 3, 2)),
        "adaptive_avg_pool3d 1": F.adaptive_avg_pool3d(x3, 1),
        "adaptive_max_pool3d": F.adaptive_max_pool3d(x3, (4, 3, 2)),
    }
    gm = lib.autograd.grad((p * p).sum(), x, retain_graph=True)[0]
    ga = lib.autograd.grad(out["avg_pool2d"].square().sum(), x)[0]
    out["max_pool2d grad"], out["avg_pool2d grad"] = gm, ga
    x3.requires_grad_()
    out["max_pool3d grad"] = lib.autograd.grad(F.max_pool3d(x3, 2, 1).square().sum(), x3)[0]
    out["adaptive_avg_pool2d grad"] = lib.autograd.grad(F.adaptive_avg_pool2d(x, (4, 3)).square().sum(), x)[0]
    return out
"""


def pool_cases(lib):
    scope = {}
    exec(TORCH_CASES, scope)
    return scope["pool_cases"](lib)


@pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
def test_strides_and_values_match_pytorch():
    code = (
        "import json, sys, torch; scope = {}; exec(sys.stdin.read(), scope); "
        "out = scope['pool_cases'](torch); "
        "print(json.dumps({k: [list(v.stride()), v.detach().double().flatten().tolist()] for k, v in out.items()}))"
    )
    res = subprocess.run([TORCH_PY, "-c", code], input=TORCH_CASES, capture_output=True, text=True, check=True)
    want = json.loads(res.stdout.strip().splitlines()[-1])
    got = pool_cases(ember)
    assert set(got) == set(want)
    for name, (strides, values) in want.items():
        assert list(got[name].stride()) == strides, name
        np.testing.assert_allclose(got[name].detach().double().flatten().tolist(), values, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "f, shape",
    [
        (lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), (2, 3, 5, 4)),
        (lambda t: F.max_pool2d(t, (2, 3), 1, dilation=(2, 1)), (2, 3, 5, 4)),
        (lambda t: F.adaptive_avg_pool2d(t, (2, 3)), (2, 3, 5, 4)),
        (lambda t: F.adaptive_max_pool2d(t, (3, 2)), (2, 3, 5, 4)),
        (lambda t: F.max_pool3d(t, 2, 1), (1, 3, 3, 4, 3)),
    ],
)
def test_gradcheck_channels_last(rng, f, shape):
    x = ember.tensor(rng.standard_normal(shape)).contiguous(memory_format=CL if len(shape) == 4 else CL3)
    x.requires_grad_()
    assert ember.autograd.gradcheck(f, (x,))
    assert ember.autograd.gradgradcheck(f, (x,))


def test_empty_batch_backward():
    # an empty batch pools and differentiates to empty results (max pooling's gradient used to fail to reshape)
    for fmt, shape in ((CL, (0, 3, 5, 4)), (CL3, (0, 3, 3, 4, 3)), (None, (0, 3, 5))):
        x = ember.randn(*shape)
        x = (x.contiguous(memory_format=fmt) if fmt else x).requires_grad_()
        pool = {4: F.max_pool2d, 5: F.max_pool3d, 3: F.max_pool1d}[len(shape)]
        y = pool(x, 2)
        assert y.shape[0] == 0
        y.sum().backward()
        assert x.grad.shape == x.shape
