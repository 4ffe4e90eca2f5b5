"""Convolution and pooling (ember/nn/conv.cpp, ember/nn/pooling.cpp, backend/cpu/{conv,dnnl,pool}.cpp): values
against NumPy references written here (direct sums over kernel offsets of strided windows, scatter-form transposed
convolutions, window loops for pooling) over many shape/stride/padding/dilation/groups combinations in float32
(oneDNN) and float64 (im2col + dgemm); float32 gradients against float64 ones and against NumPy; half precision;
zero-size inputs; error messages. Gradcheck and gradgradcheck run over gradcases/conv.py."""

import itertools

import numpy as np
import pytest
from conftest import to_np

import ember
import ember.nn.functional as F

TOL = {ember.float32: 2e-5, ember.float64: 1e-12}
MIB = 1 << 20


def tup(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


# ---- NumPy references


def np_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """x [N, C, *in], w [O, C/groups, *k]; padding an int, a tuple, 'valid', 'same' or per-dim (left, right)
    pairs. A sum over kernel offsets of strided windows of the zero-padded input."""
    nsp = w.ndim - 2
    stride, dilation = tup(stride, nsp), tup(dilation, nsp)
    ks = w.shape[2:]
    if padding == "valid":
        pads = [(0, 0)] * nsp
    elif padding == "same":
        pads = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for d, k in zip(dilation, ks)]
    elif isinstance(padding, list):
        pads = padding
    else:
        pads = [(p, p) for p in tup(padding, nsp)]
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    outs = [(xp.shape[2 + i] - dilation[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nsp)]
    N, O = x.shape[0], w.shape[0]
    cg, og = w.shape[1], O // groups
    out = np.zeros((N, O) + tuple(outs), dtype=np.float64)
    for kpos in itertools.product(*[range(k) for k in ks]):
        sl = tuple(slice(kp * d, kp * d + (o - 1) * s + 1, s) for kp, d, o, s in zip(kpos, dilation, outs, stride))
        patch = xp[(slice(None), slice(None)) + sl]
        for g in range(groups):
            wk = w[(slice(g * og, (g + 1) * og), slice(None)) + kpos]
            out[:, g * og : (g + 1) * og] += np.einsum("nc...,oc->no...", patch[:, g * cg : (g + 1) * cg], wk)
    if b is not None:
        out += b.reshape((1, O) + (1,) * nsp)
    return out


def np_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """x [N, C_in, *in], w [C_in, C_out/groups, *k]: every input element scatters its kernel-weighted copy into the
    (uncropped) output at i * stride + k * dilation; then `padding` is cut from each side."""
    nsp = w.ndim - 2
    stride, padding, output_padding, dilation = (tup(v, nsp) for v in (stride, padding, output_padding, dilation))
    ks, ins = w.shape[2:], x.shape[2:]
    N, cig, cog = x.shape[0], x.shape[1] // groups, w.shape[1]
    full = [(i - 1) * s + d * (k - 1) + 1 + op for i, s, d, k, op in zip(ins, stride, dilation, ks, output_padding)]
    out = np.zeros((N, cog * groups) + tuple(full), dtype=np.float64)
    for kpos in itertools.product(*[range(k) for k in ks]):
        sl = tuple(slice(kp * d, kp * d + (i - 1) * s + 1, s) for kp, d, i, s in zip(kpos, dilation, ins, stride))
        for g in range(groups):
            wk = w[(slice(g * cig, (g + 1) * cig), slice(None)) + kpos]
            out[(slice(None), slice(g * cog, (g + 1) * cog)) + sl] += np.einsum(
                "nc...,co->no...", x[:, g * cig : (g + 1) * cig], wk
            )
    crop = tuple(slice(p, f - p) for p, f in zip(padding, full))
    out = out[(slice(None), slice(None)) + crop]
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nsp)
    return out


def pool_out(size, k, s, p, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = num // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def np_max_pool(x, k, stride=None, padding=0, dilation=1, ceil_mode=False):
    """(values, flat indices within each plane); NaN wins, as in PyTorch."""
    nsp = len(k) if isinstance(k, tuple) else {3: 1, 4: 2, 5: 3}[x.ndim]
    k = tup(k, nsp)
    stride = k if stride is None else tup(stride, nsp)
    padding, dilation = tup(padding, nsp), tup(dilation, nsp)
    sp = x.shape[-nsp:]
    outs = [pool_out(sp[i], k[i], stride[i], padding[i], dilation[i], ceil_mode) for i in range(nsp)]

    def taps(o):
        tt = [[o[i] * stride[i] - padding[i] + j * dilation[i] for j in range(k[i])] for i in range(nsp)]
        return [[t for t in tt[i] if 0 <= t < sp[i]] for i in range(nsp)]

    return np_window_max(x, outs, taps)


def np_window_max(x, outs, taps):
    """(values, flat indices within each plane) of the windows taps(o) (per dim, the input positions) of each output
    o: the first maximum in window order wins, and the last NaN."""
    nsp = len(outs)
    sp = x.shape[-nsp:]
    planes = x.reshape((-1,) + sp)
    vals = np.full((planes.shape[0],) + tuple(outs), -np.inf)
    idx = np.zeros(vals.shape, dtype=np.int64)
    for o in np.ndindex(*outs):
        window = taps(o)
        for pl in range(planes.shape[0]):
            best, at = -np.inf, None
            for pos in itertools.product(*window):
                v = planes[(pl,) + pos]
                if at is None or v > best or np.isnan(v):
                    best, at = v, np.ravel_multi_index(pos, sp)
            vals[(pl,) + o], idx[(pl,) + o] = best, at
    shape = x.shape[:-nsp] + tuple(outs)
    return vals.reshape(shape), idx.reshape(shape)


def np_avg_pool(x, nsp, k, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    k = tup(k, nsp)
    stride = k if stride is None else tup(stride, nsp)
    padding = tup(padding, nsp)
    sp = x.shape[-nsp:]
    outs = [pool_out(sp[i], k[i], stride[i], padding[i], 1, ceil_mode) for i in range(nsp)]
    planes = x.reshape((-1,) + sp)
    out = np.zeros((planes.shape[0],) + tuple(outs))
    for o in np.ndindex(*outs):
        lo = [o[i] * stride[i] - padding[i] for i in range(nsp)]
        hi = [min(lo[i] + k[i], sp[i] + padding[i]) for i in range(nsp)]
        padded_count = np.prod([hi[i] - lo[i] for i in range(nsp)])
        lo_c = [max(v, 0) for v in lo]
        hi_c = [min(hi[i], sp[i]) for i in range(nsp)]
        window = planes[(slice(None),) + tuple(slice(a, b) for a, b in zip(lo_c, hi_c))]
        count = np.prod([b - a for a, b in zip(lo_c, hi_c)])
        div = divisor_override or (padded_count if count_include_pad else count)
        out[(slice(None),) + o] = window.reshape(planes.shape[0], -1).sum(1) / div
    return out.reshape(x.shape[:-nsp] + tuple(outs))


def np_adaptive(x, out_size, reduce):
    """reduce(window [planes, -1]) -> [planes]; windows [floor(i * in / out), ceil((i + 1) * in / out))."""
    nsp = len(out_size)
    sp = x.shape[-nsp:]
    planes = x.reshape((-1,) + sp)
    res = np.zeros((planes.shape[0],) + tuple(out_size))
    for o in np.ndindex(*out_size):
        sl = tuple(slice(o[i] * sp[i] // out_size[i], -(-(o[i] + 1) * sp[i] // out_size[i])) for i in range(nsp))
        res[(slice(None),) + o] = reduce(planes[(slice(None),) + sl].reshape(planes.shape[0], -1))
    return res.reshape(x.shape[:-nsp] + tuple(out_size))


def arr(rng, *shape):
    return rng.standard_normal(shape)


def t(a, dtype=ember.float64, requires_grad=False):
    r = ember.from_numpy(np.ascontiguousarray(a)).to(dtype)
    return r.requires_grad_() if requires_grad else r


def close(tensor, expected, dtype=None, tol=None):
    expected = np.asarray(expected)
    assert tuple(tensor.shape) == expected.shape, (tuple(tensor.shape), expected.shape)
    tol = tol or TOL[dtype or tensor.dtype]
    np.testing.assert_allclose(to_np(tensor).astype(np.float64), expected, rtol=tol, atol=tol * 10)


# ---- convolution forward

CONV_CASES = [
    # (nsp, N, C, O, in, k, kwargs)
    (2, 2, 3, 4, (7, 6), (3, 3), {}),
    (2, 2, 3, 4, (7, 6), (3, 2), dict(stride=2, padding=1)),
    (2, 1, 4, 6, (9, 8), (3, 3), dict(stride=(2, 1), padding=(0, 2), dilation=(2, 1), groups=2)),
    (2, 2, 4, 4, (6, 6), (3, 3), dict(padding=1, groups=4)),  # depthwise
    (2, 2, 4, 8, (6, 5), (3, 3), dict(padding=1, groups=4)),  # depthwise with multiplier 2
    (2, 1, 3, 2, (8, 7), (4, 2), dict(padding="same", dilation=(1, 3))),  # asymmetric 'same'
    (2, 2, 3, 2, (5, 5), (2, 3), dict(padding="valid")),
    (2, 2, 5, 3, (6, 4), (1, 1), {}),  # 1x1 (im2col skipped)
    (2, 2, 3, 5, (6, 5), (1, 1), dict(stride=2)),
    (2, 1, 2, 3, (3, 3), (3, 3), dict(padding=2, stride=3)),  # trailing input not read
    (1, 2, 3, 4, (11,), (3,), dict(stride=2, padding=1)),
    (1, 3, 4, 2, (10,), (4,), dict(dilation=3, groups=2)),
    (1, 2, 2, 2, (9,), (2,), dict(padding="same")),
    (3, 2, 2, 3, (5, 4, 6), (3, 2, 3), dict(stride=(1, 2, 2), padding=(1, 0, 1))),
    (3, 1, 4, 4, (4, 5, 5), (2, 3, 3), dict(dilation=(1, 2, 1), groups=2)),
]


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("bias", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("case", CONV_CASES, ids=[str(i) for i in range(len(CONV_CASES))])
def test_conv_forward(rng, case, bias, dtype):
    nsp, N, C, O, ins, ks, kw = case
    groups = kw.get("groups", 1)
    x, w = arr(rng, N, C, *ins), arr(rng, O, C // groups, *ks)
    b = arr(rng, O) if bias else None
    fn = getattr(F, "conv%dd" % nsp)
    out = fn(t(x, dtype), t(w, dtype), t(b, dtype) if bias else None, **kw)
    assert out.dtype is dtype
    close(out, np_conv(x, w, b, **kw), dtype)
    # the top-level form is the same function
    close(
        getattr(ember, "conv%dd" % nsp)(t(x, dtype), t(w, dtype), t(b, dtype) if bias else None, **kw),
        np_conv(x, w, b, **kw),
        dtype,
    )


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_conv_unbatched_and_positional(rng, dtype):
    x, w, b = arr(rng, 3, 7, 6), arr(rng, 4, 3, 3, 3), arr(rng, 4)
    out = F.conv2d(t(x, dtype), t(w, dtype), t(b, dtype), 2, 1, 1, 1)  # PyTorch's positional order
    close(out, np_conv(x[None], w, b, stride=2, padding=1)[0], dtype)
    x1, w1 = arr(rng, 2, 9), arr(rng, 3, 2, 2)
    close(F.conv1d(t(x1, dtype), t(w1, dtype)), np_conv(x1[None], w1)[0], dtype)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_conv_non_contiguous_operands(rng, dtype):
    x, w = arr(rng, 2, 6, 7, 3), arr(rng, 4, 3, 3, 3)
    xt = t(x, dtype).permute(0, 3, 1, 2)  # [2, 3, 6, 7], channels-last strides
    wt = t(np.ascontiguousarray(w.transpose(0, 1, 3, 2)), dtype).transpose(2, 3)
    close(F.conv2d(xt, wt, padding=1), np_conv(x.transpose(0, 3, 1, 2), w, padding=1), dtype)
    stepped = t(arr(rng, 2, 3, 12, 7), dtype)[:, :, ::2]
    close(F.conv2d(stepped, wt), np_conv(to_np(stepped).astype(np.float64), w), dtype)


TRANSPOSE_CASES = [
    # (nsp, N, C_in, C_out, in, k, kwargs)
    (2, 2, 3, 4, (4, 5), (3, 3), {}),
    (2, 2, 4, 2, (4, 3), (3, 2), dict(stride=2, padding=1, output_padding=1)),
    (2, 1, 4, 6, (3, 4), (3, 3), dict(stride=(2, 3), padding=(1, 0), output_padding=(0, 2), groups=2)),
    (2, 2, 2, 3, (4, 4), (3, 3), dict(dilation=2, output_padding=1)),  # output_padding >= stride: the crop path
    (2, 1, 2, 2, (3, 3), (2, 2), dict(stride=1, padding=1, dilation=3, output_padding=2)),
    (2, 2, 4, 4, (5, 5), (3, 3), dict(padding=1, groups=4)),
    (1, 2, 3, 2, (6,), (3,), dict(stride=3, padding=1, output_padding=2)),
    (1, 1, 4, 4, (5,), (2,), dict(dilation=2, groups=2)),
    (3, 1, 2, 3, (3, 2, 3), (2, 3, 2), dict(stride=2, padding=(0, 1, 0), output_padding=(1, 0, 0))),
]


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("bias", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=[str(i) for i in range(len(TRANSPOSE_CASES))])
def test_conv_transpose_forward(rng, case, bias, dtype):
    nsp, N, C, O, ins, ks, kw = case
    groups = kw.get("groups", 1)
    x, w = arr(rng, N, C, *ins), arr(rng, C, O // groups, *ks)
    b = arr(rng, O) if bias else None
    fn = getattr(ember, "conv_transpose%dd" % nsp)
    out = fn(t(x, dtype), t(w, dtype), t(b, dtype) if bias else None, **kw)
    close(out, np_conv_transpose(x, w, b, **kw), dtype)


def test_conv_transpose_is_adjoint_of_conv(rng):
    """<conv(x, w), y> == <x, conv_transpose(y, w)> for matching geometry."""
    x, w, y = arr(rng, 2, 4, 9, 8), arr(rng, 6, 2, 3, 2), arr(rng, 2, 6, 5, 4)
    kw = dict(stride=2, padding=1, dilation=(1, 2), groups=2)
    lhs = (np_conv(x, w, **kw) * y).sum()
    out = F.conv_transpose2d(t(y), t(w), output_padding=(0, 1), **kw)
    assert tuple(out.shape) == x.shape
    np.testing.assert_allclose((to_np(out) * x).sum(), lhs, rtol=1e-12)


# ---- convolution gradients

GRAD_CASES = [
    ("conv2d", (2, 4, 7, 6), (6, 2, 3, 3), dict(stride=2, padding=1, dilation=(1, 2), groups=2)),
    ("conv2d", (2, 3, 8, 7), (4, 3, 4, 2), dict(padding="same", dilation=(1, 3))),
    ("conv2d", (3, 4, 6, 6), (4, 1, 3, 3), dict(padding=1, groups=4)),
    ("conv2d", (2, 3, 5, 5), (5, 3, 1, 1), {}),
    ("conv1d", (2, 4, 12), (4, 2, 3), dict(stride=3, padding=2, groups=2)),
    ("conv3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=1)),
    ("conv_transpose2d", (2, 4, 4, 3), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
    ("conv_transpose2d", (2, 2, 4, 4), (2, 3, 3, 3), dict(dilation=2, output_padding=1)),
    ("conv_transpose1d", (2, 3, 5), (3, 2, 4), dict(stride=2, padding=1)),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] + "_%d" % i for i, c in enumerate(GRAD_CASES)])
def test_float32_gradients_match_float64(rng, case):
    """The oneDNN backward primitives (float32) against the im2col path (float64, which gradcheck verifies)."""
    name, xs, ws, kw = case
    x, w, b = arr(rng, *xs), arr(rng, *ws), arr(rng, ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0])
    grads = {}
    for dtype in (ember.float32, ember.float64):
        xt, wt, bt = t(x, dtype, True), t(w, dtype, True), t(b, dtype, True)
        out = getattr(F, name)(xt, wt, bt, **kw)
        gy = t(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)), dtype)
        out.backward(gy)
        grads[dtype] = [to_np(v.grad).astype(np.float64) for v in (xt, wt, bt)]
    for g32, g64 in zip(grads[ember.float32], grads[ember.float64]):
        np.testing.assert_allclose(g32, g64, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_conv_gradients_against_numpy(rng, dtype):
    x, w, b = arr(rng, 2, 4, 7, 6), arr(rng, 6, 2, 3, 2), arr(rng, 6)
    kw = dict(stride=2, padding=1, dilation=(2, 1), groups=2)
    xt, wt, bt = t(x, dtype, True), t(w, dtype, True), t(b, dtype, True)
    out = F.conv2d(xt, wt, bt, **kw)
    gy = arr(rng, *out.shape)
    out.backward(t(gy, dtype))
    assert out.grad_fn.name() == "ConvolutionBackward0"
    # dx: the transposed convolution of gy
    dx = np_conv_transpose(gy, w, stride=2, padding=1, dilation=(2, 1), groups=2)
    close(xt.grad, dx, dtype, tol=1e-4 if dtype is ember.float32 else None)
    # dw[o, c, k] = sum over n and output positions of gy * the input element that tap k read
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    dw = np.zeros_like(w)
    for kh, kw_ in itertools.product(range(3), range(2)):
        patch = xp[:, :, kh * 2 : kh * 2 + 2 * (out.shape[2] - 1) + 1 : 2, kw_ : kw_ + 2 * (out.shape[3] - 1) + 1 : 2]
        for g in range(2):
            dw[g * 3 : (g + 1) * 3, :, kh, kw_] = np.einsum(
                "nopq,ncpq->oc", gy[:, g * 3 : (g + 1) * 3], patch[:, g * 2 : (g + 1) * 2]
            )
    close(wt.grad, dw, dtype, tol=1e-4 if dtype is ember.float32 else None)
    close(bt.grad, gy.sum((0, 2, 3)), dtype, tol=1e-4 if dtype is ember.float32 else None)


def test_conv_double_backward_values(rng):
    """d/dx of <grad_w, v> where grad_w = dL/dw: the mixed second derivative, against finite differences."""
    x, w, gy, v = arr(rng, 1, 2, 5, 5), arr(rng, 3, 2, 3, 3), arr(rng, 1, 3, 3, 3), arr(rng, 3, 2, 3, 3)
    xt, wt = t(x, requires_grad=True), t(w, requires_grad=True)
    (gw,) = ember.autograd.grad(F.conv2d(xt, wt), (wt,), t(gy), create_graph=True)
    (gx,) = ember.autograd.grad((gw * t(v)).sum(), (xt,))
    # <grad_w(x), v> is linear in x: its gradient is conv_transpose(gy, v)
    close(gx, np_conv_transpose(gy, v))


def test_conv_grad_fn_and_only_needed_grads(rng):
    x, w = t(arr(rng, 1, 2, 4, 4)), t(arr(rng, 3, 2, 2, 2), requires_grad=True)
    out = F.conv2d(x, w)
    assert out.requires_grad and out.grad_fn.name() == "ConvolutionBackward0"
    out.sum().backward()
    assert x.grad is None
    with ember.no_grad():
        assert not F.conv2d(x, w).requires_grad


# ---- other dtypes, sizes and threads


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=["float16", "bfloat16"])
def test_conv_half_precision_computes_in_float32(rng, dtype):
    x, w, b = arr(rng, 2, 3, 6, 6), arr(rng, 4, 3, 3, 3), arr(rng, 4)
    xt, wt, bt = (t(a, dtype) for a in (x, w, b))
    out = F.conv2d(xt, wt, bt, padding=1)
    assert out.dtype is dtype
    ref = np_conv(*(to_np(v).astype(np.float64) for v in (xt, wt, bt)), padding=1)
    np.testing.assert_allclose(to_np(out).astype(np.float64), ref, rtol=2e-2, atol=5e-2)
    xt.requires_grad_()
    F.conv_transpose2d(xt, t(arr(rng, 3, 2, 2, 2), dtype)).sum().backward()
    assert xt.grad.dtype is dtype


def test_conv_zero_size(rng):
    w, b = t(arr(rng, 4, 3, 3, 3)), t(arr(rng, 4))
    out = F.conv2d(ember.zeros(0, 3, 5, 5, dtype=ember.float64), w, b)
    assert tuple(out.shape) == (0, 4, 3, 3)
    # no input channels: the output is the bias
    out = F.conv2d(ember.zeros(2, 0, 5, 5, dtype=ember.float64), ember.zeros(4, 0, 3, 3, dtype=ember.float64), b)
    close(out, np.broadcast_to(to_np(b)[None, :, None, None], (2, 4, 3, 3)))
    x = t(arr(rng, 0, 3, 5, 5), ember.float32, True)
    wt = t(arr(rng, 4, 3, 3, 3), ember.float32, True)
    F.conv2d(x, wt).sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 5, 5)
    np.testing.assert_array_equal(to_np(wt.grad), 0)


def test_conv_results_do_not_depend_on_thread_count(rng):
    x, w = t(arr(rng, 4, 8, 12, 12), ember.float32), t(arr(rng, 8, 8, 3, 3), ember.float32)
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = to_np(F.conv2d(x, w, padding=1))
        ember.set_num_threads(2)
        two = to_np(F.conv2d(x, w, padding=1))
    finally:
        ember.set_num_threads(before)
    np.testing.assert_allclose(one, two, rtol=1e-5, atol=1e-5)
    close(
        F.conv2d(x, w, padding=1),
        np_conv(to_np(x).astype(np.float64), to_np(w).astype(np.float64), padding=1),
        tol=1e-4,
    )


@pytest.mark.parametrize("n,cout,size", [(32, 16, 16), (9, 32, 12), (13, 32, 12)])
def test_conv_gradients_over_batch_slices(rng, n, cout, size):
    """At two threads a batch runs in up to kChunksPerThread slices per thread (of two sizes for 9 and 13), which
    share one reordered weight and sum their weight-gradient partials in oneDNN's layout, in slice order (Note [One
    weight for all slices]): the output and all three gradients against float64 (ember's own loops), and the same
    bits on a second run."""
    x, w, b = arr(rng, n, 16, size, size), arr(rng, cout, 16, 3, 3), arr(rng, cout)
    g = arr(rng, n, cout, size, size)
    before = ember.get_num_threads()

    def run(dtype):
        xs, ws, bs = t(x, dtype, True), t(w, dtype, True), t(b, dtype, True)
        out = F.conv2d(xs, ws, bs, padding=1)
        out.backward(t(g, dtype))
        return [to_np(v) for v in (out, xs.grad, ws.grad, bs.grad)]

    try:
        ember.set_num_threads(2)
        first, again = run(ember.float32), run(ember.float32)
    finally:
        ember.set_num_threads(before)
    for a, r, ref in zip(first, again, run(ember.float64)):
        np.testing.assert_array_equal(a, r)
        np.testing.assert_allclose(a, ref, rtol=1e-4, atol=1e-3 * np.abs(ref).max())


@pytest.mark.parametrize(
    "dims,cin,cout,k,groups",
    [
        (2, 24, 72, 1, 1),
        (2, 16, 40, 3, 1),
        (2, 40, 120, 1, 1),
        (2, 72, 24, 1, 1),
        (1, 24, 40, 3, 1),
        (3, 32, 40, 3, 1),
        (2, 200, 200, 3, 200),  # depthwise: pieces of whole channel blocks, the last one partial
        (1, 192, 192, 5, 192),
        (2, 48, 48, 3, 24),  # 2 channels per group: 8 groups fill a block
        (2, 45, 45, 3, 15),  # 3 per group: pieces cannot start on blocks
    ],
)
def test_conv_batch_of_one_split_by_output_channels(rng, dims, cin, cout, k, groups):
    """A batch of one at two threads splits the output channels (whole groups of a grouped convolution, with their
    input channels); the pieces read one reordered copy of the input and write one blocked output, reordered once
    (Note [One output for all pieces]; channel counts that are not multiples of 16 pad the blocked layout, and 24
    splits into 16 + 8): against float64, at 1 and 2 threads, for 1-D, 2-D and 3-D convolutions."""
    size = {1: (3136,), 2: (56, 56), 3: (6, 20, 20)}[dims]
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[dims]
    x, w, b = arr(rng, 1, cin, *size), arr(rng, cout, cin // groups, *(k,) * dims), arr(rng, cout)
    ref = to_np(conv(t(x), t(w), t(b), padding=k // 2, groups=groups))
    before = ember.get_num_threads()
    try:
        for threads in (1, 2):
            ember.set_num_threads(threads)
            out = conv(t(x, ember.float32), t(w, ember.float32), t(b, ember.float32), padding=k // 2, groups=groups)
            np.testing.assert_allclose(to_np(out), ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize(
    "cin,cout,k,groups,size,channels_last",
    [
        (24, 72, 1, 1, 56, False),
        (16, 40, 3, 1, 56, False),
        (72, 24, 1, 1, 56, True),
        (200, 200, 3, 200, 28, False),
        (48, 48, 3, 24, 56, True),
        (45, 45, 3, 15, 56, False),
        (1024, 512, 1, 1, 14, False),  # ResNet-50's layer4.0.conv1: its pieces sum in another order than the whole
    ],
)
def test_conv_batch_of_one_same_bits_whether_or_not_workers_come(rng, cin, cout, k, groups, size, channels_last):
    """Where no worker is expected (a loaded machine), a batch-1 forward runs whole instead of in channel pieces only
    if that gives the same bits (Note [Exact splits]): at two threads, expecting one thread and expecting two give
    identical outputs, both against float64."""
    x, w, b = arr(rng, 1, cin, size, size), arr(rng, cout, cin // groups, k, k), arr(rng, cout)
    ref = to_np(F.conv2d(t(x), t(w), t(b), padding=k // 2, groups=groups))
    xs = t(x, ember.float32)
    if channels_last:
        xs = xs.to(memory_format=ember.channels_last)
    before = ember.get_num_threads()
    got = {}
    try:
        ember.set_num_threads(2)
        for expected in (1, 2, 1):
            ember._C._set_expected_threads(expected)
            got.setdefault(expected, []).append(
                to_np(F.conv2d(xs, t(w, ember.float32), t(b, ember.float32), padding=k // 2, groups=groups))
            )
    finally:
        ember._C._set_expected_threads(0)
        ember.set_num_threads(before)
    np.testing.assert_allclose(got[2][0], ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    for out in got[1]:
        np.testing.assert_array_equal(out, got[2][0])


@pytest.mark.parametrize("channels,groups", [(72, 72), (120, 120), (96, 24)])
def test_grouped_conv_batch_of_one_split_on_channel_blocks(rng, channels, groups):
    """A grouped convolution over a batch of one splits whole groups, on oneDNN's 16-channel blocks where the groups
    allow it: forward and both gradients against float64, at 1 and 2 threads."""
    cg = channels // groups
    x, w, g = arr(rng, 1, channels, 56, 56), arr(rng, channels, cg, 3, 3), arr(rng, 1, channels, 56, 56)

    def run(dtype):
        xs, ws = t(x, dtype, True), t(w, dtype, True)
        out = F.conv2d(xs, ws, padding=1, groups=groups)
        out.backward(t(g, dtype))
        return [to_np(v) for v in (out, xs.grad, ws.grad)]

    ref = run(ember.float64)
    before = ember.get_num_threads()
    try:
        for threads in (1, 2):
            ember.set_num_threads(threads)
            for got, want in zip(run(ember.float32), ref):
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize("cin,cout,k,groups", [(24, 40, 3, 1), (20, 36, 1, 1), (40, 40, 3, 40), (8, 24, 3, 1)])
def test_conv_blocked_padding_is_zeroed_in_reused_memory(rng, cin, cout, k, groups):
    """Channel counts that are not multiples of 16 are reordered into oneDNN's blocked layouts with padded channel
    blocks, which oneDNN requires to be zero (Note [Reorders as copies] in dnnl_reorder.cpp). The allocator's blocks
    are first filled with NaN and freed, so padding left unwritten poisons every output: forward and both gradients
    against float64, batch 1 and 4."""
    for n in (1, 4):
        x, w, g = arr(rng, n, cin, 14, 14), arr(rng, cout, cin // groups, k, k), arr(rng, n, cout, 14, 14)

        def run(dtype):
            xs, ws = t(x, dtype, True), t(w, dtype, True)
            out = F.conv2d(xs, ws, padding=k // 2, groups=groups)
            out.backward(t(g, dtype))
            return [to_np(v) for v in (out, xs.grad, ws.grad)]

        ref = run(ember.float64)
        for _ in range(3):
            poison = [ember.full((size,), float("nan")) for size in (4096, 16384, 65536, 262144) for _ in range(4)]
            del poison
            for got, want in zip(run(ember.float32), ref):
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_conv_larger_float32(rng):
    """A benchmark-sized layer (blocked layouts, several threads) against float64."""
    x, w, b = arr(rng, 4, 16, 32, 32), arr(rng, 32, 16, 3, 3), arr(rng, 32)
    out32 = F.conv2d(t(x, ember.float32), t(w, ember.float32), t(b, ember.float32), padding=1)
    out64 = F.conv2d(t(x), t(w), t(b), padding=1)
    np.testing.assert_allclose(to_np(out32), to_np(out64), rtol=1e-4, atol=1e-3)


# ---- convolution errors


def x4(*shape, dtype=ember.float32):
    return ember.ones(*shape, dtype=dtype)


@pytest.mark.parametrize(
    "fn, args, kwargs, exc, msg",
    [
        (
            F.conv2d,
            (x4(2, 3), x4(64, 3, 3, 3)),
            {},
            RuntimeError,
            r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[2, 3\]",
        ),
        (
            F.conv1d,
            (x4(1, 3, 8, 8), x4(2, 3, 3)),
            {},
            RuntimeError,
            r"Expected 2D \(unbatched\) or 3D \(batched\) input to conv1d, but got input of size: \[1, 3, 8, 8\]",
        ),
        (
            F.conv_transpose2d,
            (x4(3, 8), x4(3, 4, 3, 3)),
            {},
            RuntimeError,
            r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv_transpose2d",
        ),
        (
            F.conv2d,
            (x4(32, 4, 32, 32), x4(64, 3, 3, 3)),
            {},
            RuntimeError,
            r"Given groups=1, weight of size \[64, 3, 3, 3\], expected input\[32, 4, 32, 32\] to have 3 channels, "
            r"but got 4 channels instead",
        ),
        (
            F.conv2d,
            (x4(4, 8, 8), x4(64, 3, 3, 3)),
            {},
            RuntimeError,
            r"expected input\[1, 4, 8, 8\] to have 3 channels, but got 4 channels instead",
        ),
        (
            F.conv_transpose2d,
            (x4(32, 4, 32, 32), x4(3, 64, 3, 3)),
            {},
            RuntimeError,
            r"Given transposed=1, weight of size \[3, 64, 3, 3\], expected input\[32, 4, 32, 32\] to have 3 channels",
        ),
        (
            F.conv2d,
            (x4(1, 3, 2, 2), x4(64, 3, 3, 3)),
            {},
            RuntimeError,
            r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\). Kernel size can't "
            r"be greater than actual input size",
        ),
        (
            F.conv2d,
            (x4(1, 3, 4, 4), x4(2, 3, 3, 3)),
            dict(dilation=2),
            RuntimeError,
            r"Calculated padded input size per channel: \(4 x 4\). Kernel size: \(5 x 5\)",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3)),
            dict(padding=-1),
            RuntimeError,
            "negative padding is not supported",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3)),
            dict(stride=0),
            RuntimeError,
            "non-positive stride is not supported",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3)),
            dict(dilation=0),
            RuntimeError,
            "dilation should be greater than zero",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3)),
            dict(groups=0),
            RuntimeError,
            "non-positive groups is not supported",
        ),
        (
            F.conv2d,
            (x4(1, 6, 8, 8), x4(3, 3, 3, 3)),
            dict(groups=2),
            RuntimeError,
            r"Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size "
            r"\[3, 3, 3, 3\]",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(0, 3, 3, 3)),
            {},
            RuntimeError,
            r"Given groups=1, expected weight to be at least 1 at dimension 0",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3)),
            dict(stride=(1, 1, 1)),
            RuntimeError,
            r"expected stride to be a single integer value or a list of 2 values to match the convolution "
            r"dimensions, but got stride=\[1, 1, 1\]",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3)),
            dict(padding=(1, 1, 1)),
            RuntimeError,
            r"expected padding to be a single integer value or a list of 2 values",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3)),
            {},
            RuntimeError,
            r"Expected 3-dimensional input for 3-dimensional weight \[2, 3, 3\], but got 4-dimensional input",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3)),
            dict(stride=2, padding="same"),
            RuntimeError,
            "padding='same' is not supported for strided convolutions",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3)),
            dict(padding="foo"),
            RuntimeError,
            "Invalid padding string: 'foo'",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8, dtype=ember.float64), x4(2, 3, 3, 3)),
            {},
            RuntimeError,
            "expected scalar type Double but found Float",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3, dtype=ember.float64)),
            {},
            RuntimeError,
            "expected scalar type Float but found Double",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(2, 3, 3, 3), x4(2, dtype=ember.float64)),
            {},
            RuntimeError,
            r"Input type \(float\) and bias type \(double\) should be the same",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8), x4(64, 3, 3, 3), x4(32)),
            {},
            RuntimeError,
            r"Given weight of size \[64, 3, 3, 3\], expected bias to be 1-dimensional with 64 elements, but got "
            r"bias of size \[32\] instead",
        ),
        (
            F.conv2d,
            (x4(1, 3, 8, 8, dtype=ember.int64), x4(2, 3, 3, 3, dtype=ember.int64)),
            {},
            NotImplementedError,
            "\"conv2d\" not implemented for 'Long'",
        ),
        (
            F.conv_transpose2d,
            (x4(1, 3, 8, 8), x4(3, 4, 3, 3)),
            dict(output_padding=1),
            RuntimeError,
            "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 "
            "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1",
        ),
        (
            F.conv_transpose2d,
            (x4(1, 3, 2, 2), x4(3, 4, 3, 3)),
            dict(padding=3),
            RuntimeError,
            r"Given input size per channel: \(2 x 2\). Calculated output size per channel: \(-2 x -2\). Output size "
            r"is too small",
        ),
        (
            F.conv_transpose2d,
            (x4(1, 4, 8, 8), x4(3, 4, 3, 3)),
            dict(groups=2),
            RuntimeError,
            "expected weight to be divisible by 2 at dimension 0",
        ),
        (F.conv2d, (x4(1, 3, 8, 8), x4(2, 3, 3, 3), 5), {}, TypeError, "argument 'bias' must be Tensor"),
        # sizes past int64 are refused, not wrapped into a negative (or small) size
        (F.conv1d, (x4(1, 2, 6), x4(2, 2, 3)), dict(dilation=2**62), RuntimeError, "dilated kernel size overflowed"),
        (F.conv1d, (x4(1, 2, 6), x4(2, 2, 3)), dict(padding=2**62), RuntimeError, "convolution: padding overflowed"),
        (
            F.conv_transpose1d,
            (x4(1, 2, 6), x4(2, 2, 3)),
            dict(stride=2**62),
            RuntimeError,
            "conv_transpose: transposed output size overflowed",
        ),
    ],
)
def test_conv_errors(fn, args, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(*args, **kwargs)


# ---- pooling forward

MAX_POOL_CASES = [
    # (spatial dims, input shape, kernel, kwargs)
    (2, (2, 3, 7, 6), 2, {}),
    (2, (2, 3, 7, 6), (3, 2), dict(stride=(2, 1), padding=(1, 1))),
    (2, (1, 2, 9, 9), 3, dict(stride=2, padding=1, dilation=2)),
    (2, (1, 2, 5, 5), 2, dict(ceil_mode=True)),
    (2, (1, 2, 6, 7), 3, dict(stride=2, padding=1, ceil_mode=True)),
    (2, (2, 5, 6), 3, dict(stride=1)),  # unbatched
    (1, (2, 3, 11), 3, dict(stride=2, padding=1)),
    (1, (2, 3, 10), 2, dict(dilation=3, ceil_mode=True)),
    (1, (3, 10), 4, dict(stride=3, padding=2)),  # unbatched
    (3, (1, 2, 5, 6, 7), 2, dict(stride=(1, 2, 2), padding=(1, 0, 1))),
    (3, (1, 2, 6, 5, 5), (3, 2, 2), dict(dilation=(1, 2, 1), ceil_mode=True)),
    (2, (1, 2, 4, 5), 7, dict(padding=3)),  # windows longer than the input (mostly padding)
    (1, (2, 3, 6), 9, dict(stride=2, padding=4)),
]


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", MAX_POOL_CASES, ids=[str(i) for i in range(len(MAX_POOL_CASES))])
def test_max_pool_forward(rng, case, dtype):
    nsp, shape, k, kw = case
    x = arr(rng, *shape)
    fn = getattr(F, "max_pool%dd" % nsp)
    vals, idx = fn(t(x, dtype), k, return_indices=True, **kw)
    ref_v, ref_i = np_max_pool(x.astype(np.float32 if dtype is ember.float32 else np.float64), tup(k, nsp), **kw)
    close(vals, ref_v, dtype)
    assert idx.dtype is ember.int64
    np.testing.assert_array_equal(to_np(idx), ref_i)
    close(fn(t(x, dtype), k, **kw), ref_v, dtype)
    close(getattr(ember, "max_pool%dd" % nsp)(t(x, dtype), k, **kw), ref_v, dtype)  # torch.max_pool*d


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.bfloat16], ids=["f32", "f64", "bf16"])
@pytest.mark.parametrize("nsp", [1, 2, 3])
def test_max_pool_huge_window_visits_only_the_input(rng, nsp, dtype):
    # A 2^40-tap window, half of it padding on each side, covers the whole input from every output position: each
    # output is the global maximum. (oneDNN would visit all 2^40 taps; the call must return at once.)
    k = 2**40
    x = arr(rng, 1, 2, *([5] * nsp))
    vals, idx = getattr(F, "max_pool%dd" % nsp)(t(x, dtype), k, 1, k // 2, return_indices=True)
    assert tuple(vals.shape) == (1, 2) + (6,) * nsp
    flat = t(x, dtype).float().numpy().reshape(2, -1)
    np.testing.assert_array_equal(to_np(vals.float()).reshape(2, -1), np.repeat(flat.max(1, keepdims=True), 6**nsp, 1))
    np.testing.assert_array_equal(to_np(idx).reshape(2, -1), np.repeat(flat.argmax(1)[:, None], 6**nsp, 1))


def test_pool_output_size_arithmetic_does_not_wrap():
    # dilation * (kernel - 1) is 2^68 here: computed in 64 bits it wrapped to a positive size and the kernels ran
    # 2^62-tap windows (a hang the API fuzzer found); the output size is negative, so this is a clear error.
    x = x4(1, 2, 6, 6, dtype=ember.bfloat16)
    with pytest.raises(RuntimeError, match=r"max_pool3d: Given input size: .*Output size is too small"):
        F.max_pool3d(x, 2**62, 3, 3, dilation=[64], return_indices=True)
    # in + 2 * padding is past 2^63 here, yet the output size (6) is valid: every window holds the whole input.
    x = x4(1, 2, 6, dtype=ember.float64)
    y = F.avg_pool1d(x, 2**63 - 1, 1, 2**62 - 1, count_include_pad=False)
    np.testing.assert_allclose(to_np(y), np.repeat(to_np(x).mean(2, keepdims=True), 6, 2), rtol=1e-12)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_max_pool_nan_propagates_and_ties_pick_the_first(rng, dtype):
    x = arr(rng, 2, 16, 4, 4)
    x[0, 0, 1, 2] = np.nan
    x[1, 3, 0, 0] = np.nan
    out, idx = F.max_pool2d(t(x, dtype), 2, return_indices=True)
    ref_v, ref_i = np_max_pool(x, (2, 2))
    np.testing.assert_array_equal(np.isnan(to_np(out)), np.isnan(ref_v))
    np.testing.assert_array_equal(to_np(idx), ref_i)
    assert np.isnan(to_np(F.max_pool2d(t(x, dtype), 2))[0, 0, 0, 1])
    # equal values: the first position of each window, as PyTorch
    _, idx = F.max_pool2d(ember.ones(2, 16, 4, 6, dtype=dtype), (2, 3), return_indices=True)
    np.testing.assert_array_equal(to_np(idx)[0, 0], [[0, 3], [12, 15]])


# Note [Separable max pooling] (ember/backend/cpu/pool.cpp): rows pooled along the width, then folded in window order.
# Values from {-2, ..., 2} tie often; NaNs (two in some windows: the last one's index wins) and -inf mixed in. Few
# planes, so oneDNN declines the float32 cases with NaN or without a JIT kernel and ember's loops run.
SEPARABLE_CASES = [
    (1, (3, 2, 17), 2, {}),
    (1, (3, 2, 17), 3, {}),
    (1, (2, 1, 30), 4, dict(ceil_mode=True)),
    (1, (2, 3, 19), 3, dict(stride=2, padding=1)),
    (1, (2, 3, 19), 4, dict(stride=1, padding=2)),
    (1, (2, 2, 16), 2, dict(stride=3, dilation=2)),
    (2, (2, 3, 9, 10), 2, {}),
    (2, (1, 3, 9, 11), 3, dict(stride=2, padding=1)),
    (2, (1, 2, 8, 9), (2, 4), dict(stride=(1, 4), ceil_mode=True)),
    (2, (1, 2, 7, 8), (3, 5), dict(stride=(2, 2), padding=(1, 2))),
    (3, (1, 2, 5, 6, 7), 2, dict(stride=(1, 2, 2), padding=(1, 0, 1))),
    (3, (1, 1, 4, 6, 9), 3, dict(stride=(2, 1, 3))),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", SEPARABLE_CASES, ids=[str(i) for i in range(len(SEPARABLE_CASES))])
def test_separable_max_pool_ties_nan_and_infinities(rng, case, dtype, threads):
    nsp, shape, k, kw = case
    x = rng.integers(-2, 3, size=shape).astype(np.float64)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, max(1, flat.size // 40), replace=False)] = np.nan
    flat[rng.choice(flat.size, max(1, flat.size // 20), replace=False)] = -np.inf
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        fn = getattr(F, "max_pool%dd" % nsp)
        for data in (x, np.where(np.isnan(x), 0.0, x)):  # with NaNs, and without (oneDNN may take float32)
            vals, idx = fn(t(data, dtype), k, return_indices=True, **kw)
            ref_v, ref_i = np_max_pool(data, tup(k, nsp), **kw)
            np.testing.assert_array_equal(to_np(vals), ref_v.astype(to_np(vals).dtype))
            np.testing.assert_array_equal(to_np(idx), ref_i)
            np.testing.assert_array_equal(to_np(fn(t(data, dtype), k, **kw)), ref_v.astype(to_np(vals).dtype))
    finally:
        ember.set_num_threads(old)


def np_adaptive_max_pool(x, outs):
    """PyTorch's adaptive windows [floor(o * in / out), ceil((o + 1) * in / out)), ties and NaNs as np_max_pool."""
    sp = x.shape[-len(outs) :]
    return np_window_max(
        x, outs, lambda o: [range(o[i] * sp[i] // outs[i], -(-(o[i] + 1) * sp[i] // outs[i])) for i in range(len(outs))]
    )


# Adaptive windows (and other uneven ones) go four at a time as vector lanes (four_windows in pool.cpp), the last four
# of a row redoing some: values and indices against NumPy, with ties, NaNs and -inf.
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize(
    "shape, outs", [((2, 3, 31), (7,)), ((2, 3, 30), (4,)), ((1, 3, 13, 32), (5, 7)), ((1, 2, 5, 9, 17), (2, 3, 6))]
)
def test_adaptive_max_pool_ties_nan_and_infinities(rng, shape, outs, dtype):
    x = rng.integers(-2, 3, size=shape).astype(np.float64)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, max(1, flat.size // 40), replace=False)] = np.nan
    flat[rng.choice(flat.size, max(1, flat.size // 20), replace=False)] = -np.inf
    fn = getattr(F, "adaptive_max_pool%dd" % len(outs))
    vals, idx = fn(t(x, dtype), outs, return_indices=True)
    ref_v, ref_i = np_adaptive_max_pool(x, outs)
    np.testing.assert_array_equal(to_np(vals), ref_v.astype(to_np(vals).dtype))
    np.testing.assert_array_equal(to_np(idx), ref_i)


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", [c for c in SEPARABLE_CASES if "dilation" not in c[3]], ids=str)
def test_separable_avg_pool(rng, case, dtype, count_include_pad):
    # averages by rows (ember's loops: few planes, or geometries oneDNN has no JIT kernel for) against NumPy
    nsp, shape, k, kw = case
    x = arr(rng, *shape)
    y = getattr(F, "avg_pool%dd" % nsp)(t(x, dtype), k, count_include_pad=count_include_pad, **kw)
    close(y, np_avg_pool(x, nsp, k, count_include_pad=count_include_pad, **kw), dtype)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_separable_max_pool_takes_the_last_nan_in_window_order(dtype):
    x = np.zeros((1, 1, 4, 6))
    x[0, 0, 0, 1] = x[0, 0, 1, 0] = np.nan  # window (0, 0): NaN at rows 0 and 1, the later row's column earlier
    x[0, 0, 2, 2] = x[0, 0, 2, 3] = np.nan  # window (1, 1): two NaNs in one row
    x[0, 0, 3, 4], x[0, 0, 2, 5] = 5.0, 5.0  # window (1, 2): a tie, the first in row order wins
    vals, idx = F.max_pool2d(t(x, dtype), 2, return_indices=True)
    np.testing.assert_array_equal(to_np(idx)[0, 0], [[6, 2, 4], [12, 15, 17]])
    assert np.isnan(to_np(vals)[0, 0, 0, 0]) and np.isnan(to_np(vals)[0, 0, 1, 1]) and to_np(vals)[0, 0, 1, 2] == 5


def test_top_level_max_pool1d_with_indices(rng):
    x1 = arr(rng, 2, 3, 9)
    v, i = ember.max_pool1d_with_indices(t(x1), 3, 2, 1)
    rv, ri = np_max_pool(x1, (3,), stride=2, padding=1)
    close(v, rv)
    np.testing.assert_array_equal(to_np(i), ri)


AVG_POOL_CASES = [
    ((2, 3, 7, 6), 2, {}),
    ((2, 3, 7, 6), (3, 2), dict(stride=(2, 1), padding=(1, 1))),
    ((1, 2, 5, 5), 2, dict(padding=1, ceil_mode=True)),
    ((1, 2, 5, 5), 3, dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((1, 2, 6, 7), 3, dict(stride=2, padding=1, count_include_pad=False)),
    ((1, 2, 6, 7), (3, 2), dict(stride=2, padding=1, divisor_override=5)),
    ((2, 5, 6), 3, dict(stride=1, padding=1)),
    ((1, 2, 4, 5, 6), 2, dict(stride=(1, 2, 2), padding=(1, 0, 1), count_include_pad=False)),
]


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", AVG_POOL_CASES, ids=[str(i) for i in range(len(AVG_POOL_CASES))])
def test_avg_pool_forward(rng, case, dtype):
    shape, k, kw = case
    nsp = 3 if len(shape) == 5 else 2
    x = arr(rng, *shape)
    out = getattr(F, "avg_pool%dd" % nsp)(t(x, dtype), k, **kw)
    close(out, np_avg_pool(x, nsp, k, **kw), dtype)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_avg_pool1d(rng, dtype):
    x = arr(rng, 2, 3, 11)
    for kw in (dict(), dict(stride=2, padding=1), dict(stride=3, padding=1, ceil_mode=True, count_include_pad=False)):
        close(F.avg_pool1d(t(x, dtype), 3, **kw), np_avg_pool(x, 1, 3, **kw), dtype)
        close(ember.avg_pool1d(t(x, dtype), 3, **kw), np_avg_pool(x, 1, 3, **kw), dtype)
    close(F.avg_pool1d(t(x[0], dtype), 2), np_avg_pool(x[0], 1, 2), dtype)  # unbatched


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize(
    "shape, size",
    [
        ((2, 3, 7), (3,)),
        ((2, 3, 10), (10,)),
        ((3, 8), (5,)),
        ((2, 3, 8, 9), (4, 3)),
        ((2, 3, 7, 9), (3, 4)),
        ((2, 5, 5), (7, 2)),
        ((1, 2, 5, 6, 7), (2, 3, 4)),
    ],
)
def test_adaptive_pools(rng, shape, size, dtype):
    nsp = len(size)
    x = arr(rng, *shape)
    xt = t(x, dtype)
    close(
        getattr(F, "adaptive_avg_pool%dd" % nsp)(xt, size if nsp > 1 else size[0]),
        np_adaptive(x, size, lambda w: w.mean(1)),
        dtype,
    )
    vals, idx = getattr(F, "adaptive_max_pool%dd" % nsp)(xt, size, return_indices=True)
    maxima = np_adaptive(x, size, lambda w: w.max(1))
    close(vals, maxima, dtype)
    # the indices point at the maxima
    flat = x.reshape(x.shape[:-nsp] + (-1,))
    picked = np.take_along_axis(flat, to_np(idx).reshape(flat.shape[:-1] + (-1,)), -1)
    np.testing.assert_array_equal(picked.reshape(maxima.shape), maxima)
    if nsp == 1:
        close(ember.adaptive_avg_pool1d(xt, size), np_adaptive(x, size, lambda w: w.mean(1)), dtype)
        v1, _ = ember.adaptive_max_pool1d(xt, size)
        close(v1, np_adaptive(x, size, lambda w: w.max(1)), dtype)


def test_adaptive_output_size_none_and_zero(rng):
    x = arr(rng, 2, 3, 8, 6)
    out = F.adaptive_avg_pool2d(t(x), (None, 3))
    close(out, np_adaptive(x, (8, 3), lambda w: w.mean(1)))
    assert tuple(F.adaptive_avg_pool1d(t(x[0]), 0).shape) == (3, 8, 0)


@pytest.mark.parametrize(
    "nsp, shape, k, kw",
    [
        (2, (2, 3, 6, 7), 2, {}),
        (2, (1, 2, 7, 7), 3, dict(stride=2, padding=1)),
        (1, (2, 3, 9), 3, dict(stride=2)),
        (3, (1, 2, 4, 4, 6), 2, {}),
    ],
)
def test_max_unpool_round_trip(rng, nsp, shape, k, kw):
    x = arr(rng, *shape)
    vals, idx = getattr(F, "max_pool%dd" % nsp)(t(x), k, return_indices=True, **kw)
    out = getattr(F, "max_unpool%dd" % nsp)(vals, idx, k, output_size=x.shape[-nsp:], **kw)
    ref = np.zeros(x.shape).reshape(x.shape[:-nsp] + (-1,))
    np.put_along_axis(ref, to_np(idx).reshape(ref.shape[:-1] + (-1,)), to_np(vals).reshape(ref.shape[:-1] + (-1,)), -1)
    close(out, ref.reshape(x.shape))


def test_max_unpool_default_size_and_gradient(rng):
    x = t(arr(rng, 1, 1, 2, 2), requires_grad=True)
    idx = ember.tensor([[[[0, 3], [9, 14]]]])
    out = F.max_unpool2d(x, idx, 2)
    assert tuple(out.shape) == (1, 1, 4, 4)
    ref = np.zeros(16)
    ref[[0, 3, 9, 14]] = to_np(x).ravel()
    close(out, ref.reshape(1, 1, 4, 4))
    g = arr(rng, 1, 1, 4, 4)
    out.backward(t(g))
    close(x.grad, g.ravel()[[0, 3, 9, 14]].reshape(1, 1, 2, 2))


# ---- pooling gradients


def test_max_pool_gradient_sums_over_overlapping_windows(rng):
    x = arr(rng, 2, 2, 5, 5)
    xt = t(x, ember.float32, True)
    out, idx = F.max_pool2d(xt, 3, stride=1, padding=1, return_indices=True)
    g = arr(rng, *out.shape)
    out.backward(t(g, ember.float32))
    ref = np.zeros((4, 25))
    np.add.at(ref, (np.arange(4)[:, None], to_np(idx).reshape(4, -1)), g.reshape(4, -1))
    close(xt.grad, ref.reshape(x.shape), tol=1e-5)
    assert out.grad_fn.name() == "MaxPool2DWithIndicesBackward0"


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_avg_pool_gradient_is_the_adjoint(rng, dtype):
    """<avg_pool(x), g> == <x, grad>: the backward kernel spreads each output's gradient as the forward summed."""
    for k, kw in (
        (3, dict(stride=2, padding=1, ceil_mode=True)),
        (2, dict(count_include_pad=False, padding=1)),
        ((3, 2), dict(divisor_override=4)),
    ):
        xt = t(arr(rng, 2, 3, 7, 6), dtype, True)
        out = F.avg_pool2d(xt, k, **kw)
        g = arr(rng, *out.shape)
        out.backward(t(g, dtype))
        x = to_np(xt).astype(np.float64)
        lhs = (np_avg_pool(x, 2, k, **kw) * g).sum()
        np.testing.assert_allclose((to_np(xt.grad) * x).sum(), lhs, rtol=1e-5)


def test_adaptive_avg_pool_gradient(rng):
    x = t(arr(rng, 2, 3, 7, 5), requires_grad=True)
    out = F.adaptive_avg_pool2d(x, (3, 2))
    g = arr(rng, 2, 3, 3, 2)
    out.backward(t(g))
    xs = to_np(x)
    np.testing.assert_allclose(
        (to_np(x.grad) * xs).sum(), (np_adaptive(xs, (3, 2), lambda w: w.mean(1)) * g).sum(), rtol=1e-12
    )
    assert out.grad_fn.name() == "AdaptiveAvgPool2DBackward0"


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=["float16", "bfloat16"])
def test_pool_half_precision(rng, dtype):
    x = t(arr(rng, 2, 3, 6, 6), dtype)
    xs = to_np(x).astype(np.float64)
    out = F.max_pool2d(x, 2)
    assert out.dtype is dtype
    close(out, np_max_pool(xs, (2, 2))[0], tol=1e-2)
    avg = F.avg_pool2d(x, 2)
    assert avg.dtype is dtype
    np.testing.assert_allclose(to_np(avg).astype(np.float64), np_avg_pool(xs, 2, 2), rtol=1e-2, atol=1e-2)


def test_pool_zero_batch():
    x = ember.zeros(0, 3, 8, 8)
    assert tuple(F.max_pool2d(x, 2).shape) == (0, 3, 4, 4)
    assert tuple(F.avg_pool2d(x, 2).shape) == (0, 3, 4, 4)
    assert tuple(F.adaptive_avg_pool2d(x, 3).shape) == (0, 3, 3, 3)


# ---- pooling errors


@pytest.mark.parametrize(
    "fn, args, kwargs, exc, msg",
    [
        (
            F.max_pool2d,
            (x4(8, 8), 2),
            {},
            RuntimeError,
            r"max_pool2d: Expected 3D or 4D \(batch mode\) tensor with optional 0 dim batch size for input, but got:"
            r"\[8, 8\]",
        ),
        (F.max_pool2d, (x4(1, 3, 0, 8), 2), {}, RuntimeError, r"Expected 3D or 4D \(batch mode\) tensor"),
        (F.max_pool1d, (x4(8), 2), {}, RuntimeError, r"max_pool1d: Expected 2D or 3D \(batch mode\) tensor"),
        (
            F.max_pool2d,
            (x4(2, 3, 8, 8), 2),
            dict(padding=2),
            RuntimeError,
            "pad should be at most half of kernel size, but got pad=2 and kernel_size=2",
        ),
        (F.max_pool2d, (x4(2, 3, 8, 8), 0), {}, RuntimeError, "kernel_size must be greater than zero"),
        (F.max_pool2d, (x4(2, 3, 8, 8), 2), dict(stride=0), RuntimeError, "stride must be greater than zero"),
        (F.max_pool2d, (x4(2, 3, 8, 8), 2), dict(dilation=0), RuntimeError, "dilation should be greater than zero"),
        (F.max_pool2d, (x4(2, 3, 8, 8), 2), dict(padding=-1), RuntimeError, "pad must be non-negative"),
        (
            F.max_pool2d,
            (x4(1, 1, 2, 2), 3),
            {},
            RuntimeError,
            r"Given input size: \(1x2x2\). Calculated output size: \(1x0x0\). Output size is too small",
        ),
        (
            F.max_pool2d,
            (x4(2, 3, 8, 8), (2, 2, 2)),
            {},
            RuntimeError,
            "max_pool2d: kernel_size must either be a single int, or a tuple of two ints",
        ),
        (
            F.max_pool2d,
            (x4(2, 3, 8, 8, dtype=ember.int64), 2),
            {},
            NotImplementedError,
            "\"max_pool2d\" not implemented for 'Long'",
        ),
        (F.avg_pool2d, (x4(2, 3, 8, 8), 2), dict(padding=2), RuntimeError, "pad should be at most half of kernel size"),
        (F.avg_pool2d, (x4(1, 1, 2, 2), 3), {}, RuntimeError, "Output size is too small"),
        (F.avg_pool2d, (x4(2, 3, 8, 8), 2), dict(divisor_override=0), RuntimeError, "divisor must be not zero"),
        (F.avg_pool1d, (x4(1, 2, 3, 8), 2), {}, RuntimeError, r"avg_pool1d: Expected 2D or 3D \(batch mode\) tensor"),
        (
            F.adaptive_avg_pool2d,
            (x4(8), 2),
            {},
            RuntimeError,
            r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, but got \[8\]",
        ),
        (
            F.adaptive_avg_pool2d,
            (x4(1, 3, 0, 8), 2),
            {},
            RuntimeError,
            r"adaptive_avg_pool2d\(\): Expected input to have non-zero size for non-batch dimensions, but input "
            r"has sizes \[1, 3, 0, 8\] with dimension 2 being empty",
        ),
        (
            F.adaptive_avg_pool2d,
            (x4(2, 3, 8, 8), (2, 2, 2)),
            {},
            RuntimeError,
            "adaptive_avg_pool2d: output_size must be 2",
        ),
        (
            F.adaptive_avg_pool2d,
            (x4(2, 3, 8, 8), -1),
            {},
            RuntimeError,
            r"elements of output_size must be greater than or equal to 0 but received \{-1, -1\}",
        ),
        (F.adaptive_max_pool2d, (x4(8), 2), {}, RuntimeError, r"adaptive_max_pool2d\(\): Expected 3D or 4D tensor"),
        (
            F.max_unpool2d,
            (x4(8, 8), ember.zeros(8, 8, dtype=ember.int64), 2),
            {},
            RuntimeError,
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 dimensions.",
        ),
        (
            F.max_unpool2d,
            (x4(1, 1, 2, 2), ember.full((1, 1, 2, 2), 100)),
            dict(kernel_size=2),
            RuntimeError,
            r"Found an invalid max index: 100 \(output volumes are of size 4x4\)",
        ),
        (
            F.max_unpool2d,
            (x4(1, 1, 2, 2), ember.zeros(1, 1, 2, 3, dtype=ember.int64), 2),
            {},
            RuntimeError,
            r"Expected shape of indices to be same as that of the input tensor \(\[1, 1, 2, 2\]\) but got "
            r"indices tensor with shape: \[1, 1, 2, 3\]",
        ),
        (
            F.max_unpool2d,
            (x4(1, 1, 2, 2), ember.zeros(1, 1, 2, 2, dtype=ember.int32), 2),
            {},
            RuntimeError,
            "elements in indices should be type int64 but got: Int",
        ),
        (
            F.max_unpool2d,
            (x4(1, 1, 2, 2), ember.zeros(1, 1, 2, 2, dtype=ember.int64), 2),
            dict(output_size=(9, 9)),
            ValueError,
            r"invalid output_size \"\[9, 9\]\" \(dim 0 must be between 2 and 6\)",
        ),
        (
            F.max_unpool2d,
            (x4(1, 1, 2, 2), ember.zeros(1, 1, 2, 2, dtype=ember.int64), 2),
            dict(output_size=(5,)),
            ValueError,
            "output_size should be a sequence containing 2 or 4 elements, but it has a length of '1'",
        ),
    ],
)
def test_pool_errors(fn, args, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(*args, **kwargs)


def test_max_unpool_accepts_full_output_size(rng):
    vals, idx = F.max_pool2d(t(arr(rng, 1, 1, 5, 5)), 2, return_indices=True)
    assert tuple(F.max_unpool2d(vals, idx, 2, output_size=(1, 1, 5, 5)).shape) == (1, 1, 5, 5)


def test_onednn_convolutions_run_one_openmp_thread(rng):
    """oneDNN runs on OpenMP; ember runs its convolutions with one OpenMP thread per call and splits the work on its own
    pool instead (Note [Primitives on ember's threads]), so OpenMP's threads never start for them."""
    import ctypes

    try:
        gomp = ctypes.CDLL("libgomp.so.1")
    except OSError:
        pytest.skip("libgomp not found")
    x, w = t(arr(rng, 1, 2, 5, 5), ember.float32), t(arr(rng, 3, 2, 3, 3), ember.float32)
    before = ember.get_num_threads()
    try:
        for n in (1, 3):
            ember.set_num_threads(n)
            F.conv2d(x, w)
            assert gomp.omp_get_max_threads() == 1
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize("threads, bound_mib", [(1, 24), (2, 48)])
def test_conv_forward_bounds_its_reordered_copies(rng, threads, bound_mib):
    # Note [Bounded reorder buffers] (backend/cpu/dnnl.cpp): a batch whose input and output take 66 MiB runs in slices
    # whose blocked copies stay under 16 MiB each; as one slice per thread they took 64 MiB or more.
    xn = rng.standard_normal((16, 8, 64, 64), dtype=np.float32)  # 2 MiB
    wn = rng.standard_normal((256, 8), dtype=np.float32)
    x, w = ember.from_numpy(xn), ember.from_numpy(wn).reshape(256, 8, 1, 1)
    before = ember.get_num_threads()
    stats = ember._C._cpu_memory_stats
    try:
        ember.set_num_threads(threads)
        ember._C._cpu_reset_peak_memory_stats()
        base = stats()["allocated_bytes"]
        out = F.conv2d(x, w)  # 64 MiB
        temporaries = stats()["peak_allocated_bytes"] - base - out.nbytes
    finally:
        ember.set_num_threads(before)
    assert temporaries < bound_mib * MIB
    # every sample, whichever slice it fell in; every 17th output channel (the whole output takes seconds to check)
    ref = np.matmul(wn[::17].astype(np.float64), xn.reshape(16, 8, -1)).reshape(16, -1, 64, 64)
    np.testing.assert_allclose(out.numpy()[:, ::17], ref, rtol=1e-4, atol=1e-4)


# ---- taps that read only padding (Note [Taps that see only padding] in nn/functional/conv.cpp)


def np_conv_grads(x, w, gy, stride, padding, dilation):
    """(dx, dw) of <gy, conv(x, w)> for groups=1: per kernel offset, the strided window of the padded input it read."""
    nsp = w.ndim - 2
    stride, padding, dilation = tup(stride, nsp), tup(padding, nsp), tup(dilation, nsp)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    for kpos in itertools.product(*[range(k) for k in w.shape[2:]]):
        sl = (slice(None), slice(None)) + tuple(
            slice(k * d, k * d + (o - 1) * s + 1, s) for k, d, o, s in zip(kpos, dilation, gy.shape[2:], stride)
        )
        window = xp[sl]
        dw[(slice(None), slice(None)) + kpos] = np.einsum(
            "nop,ncp->oc", gy.reshape(*gy.shape[:2], -1), window.reshape(*window.shape[:2], -1)
        )
        dxp[sl] += np.einsum("no...,oc->nc...", gy, w[(slice(None), slice(None)) + kpos])
    return dxp[(slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in zip(padding, x.shape[2:]))], dw


TAP_CASES = [
    # (in, k, kwargs, the kernel the kernels see)
    ((1, 1), (3, 3), dict(padding=1), (1, 1)),  # ResNet's last stage on CIFAR: the centre tap alone
    ((2, 2), (3, 3), dict(padding=1, stride=2), (2, 2)),  # its downsampling: taps 1 and 2
    ((1, 3), (5, 5), dict(padding=2), (1, 5)),  # rows only
    ((1, 2), (3, 3), dict(padding=2, dilation=2), (1, 1)),  # dilated: the middle tap
    # the columns' first live tap reads past the input's start (pad_l would go negative): they stay whole
    ((1, 2), (3, 2), dict(padding=(1, 2), dilation=(1, 3), stride=(1, 10)), (1, 2)),
    ((1, 1, 2), (3, 3, 3), dict(padding=1), (1, 1, 3)),
]


@pytest.mark.parametrize("n", [1, 3])  # a batch of one splits channels (Note [Splitting a convolution])
@pytest.mark.parametrize("channels_last", [False, True], ids=["rowmajor", "channels_last"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", TAP_CASES, ids=[str(i) for i in range(len(TAP_CASES))])
def test_conv_taps_that_read_only_padding(rng, case, dtype, channels_last, n):
    ins, ks, kw, seen = case
    nsp = len(ins)
    if channels_last and nsp != 2:
        pytest.skip("channels_last is 4-d")
    x, w, b = arr(rng, n, 5, *ins), arr(rng, 70, 5, *ks), arr(rng, 70)
    xt, wt, bt = t(x, dtype, True), t(w, dtype, True), t(b, dtype, True)
    fn = getattr(F, "conv%dd" % nsp)
    with ember.profiler.profile(record_shapes=True) as prof:
        xin = xt.to(memory_format=ember.channels_last) if channels_last else xt
        out = fn(xin, wt, bt, **kw)
        gy = arr(rng, *out.shape)
        out.backward(t(gy, dtype))
    close(out, np_conv(x, w, b, **kw), dtype)
    dx, dw = np_conv_grads(x, w, gy, kw.get("stride", 1), kw["padding"], kw.get("dilation", 1))
    tol = 1e-4 if dtype is ember.float32 else None
    close(xt.grad, dx, dtype, tol=tol)
    close(wt.grad, dw, dtype, tol=tol)
    close(bt.grad, gy.sum((0,) + tuple(range(2, 2 + nsp))), dtype, tol=tol)
    # the kernels were handed the live taps: the forward's weight operand, and the backward's weight gradient
    kernels = {
        e.name: e.input_shapes for e in prof.events() if e.name in ("ember::conv_forward", "ember::conv_backward")
    }
    assert kernels["ember::conv_forward"][2] == [70, 5, *seen]
    assert kernels["ember::conv_backward"][1] == [70, 5, *seen]


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_conv_transpose_taps_that_write_only_padding(rng, dtype):
    # its input gradient's geometry: a 1x1 output of a 3x3 kernel with padding 1 is written by the centre tap alone
    x, w, b = arr(rng, 2, 6, 1, 1), arr(rng, 6, 4, 3, 3), arr(rng, 4)
    xt, wt = t(x, dtype, True), t(w, dtype, True)
    out = F.conv_transpose2d(xt, wt, t(b, dtype), padding=1)
    close(out, np_conv_transpose(x, w, b, padding=1), dtype)
    gy = arr(rng, *out.shape)
    out.backward(t(gy, dtype))
    # conv_transpose is conv's input gradient: its gradients are conv(gy, w) and conv's weight gradient with x, gy
    tol = 1e-4 if dtype is ember.float32 else None
    close(xt.grad, np_conv(gy, w, padding=1), dtype, tol=tol)
    close(wt.grad, np_conv_grads(gy, w, x, 1, 1, 1)[1], dtype, tol=tol)


def test_conv_live_taps_of_a_cached_weight_see_writes(rng):
    """Inference reuses a blocked copy of the centre taps (a view at an offset into the weight's storage, Note [Blocked
    weights]); a write to the weight between calls is seen."""
    x, w = t(arr(rng, 1, 16, 1, 1), ember.float32), t(arr(rng, 32, 16, 3, 3), ember.float32)
    for _ in range(2):
        with ember.no_grad():
            for _ in range(3):
                close(F.conv2d(x, w, padding=1), np_conv(to_np(x), to_np(w), padding=1), tol=1e-4)
            w[:, :, 1, 1].mul_(-3.0)
