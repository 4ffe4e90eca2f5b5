"""Memory formats: channels_last conversions give channels-last strides (NumPy's NHWC layout), ops accept them and
agree with the row-major results, modules convert their 4-d parameters."""

import json
import os
import subprocess

import numpy as np
import pytest
from conftest import to_np

import ember
import ember.nn.functional as F

CL, CL3, CF, PF = ember.channels_last, ember.channels_last_3d, ember.contiguous_format, ember.preserve_format


def nhwc_strides(shape):
    """The element strides of an (N, C, *spatial) tensor stored as (N, *spatial, C), from NumPy."""
    perm = [0] + list(range(2, len(shape))) + [1]
    a = np.empty([shape[p] for p in perm], np.float32)
    inv = np.argsort(perm)
    return tuple(s // 4 for s in np.transpose(a, inv).strides)


def test_conversions_give_channels_last_strides(rng):
    x = ember.tensor(rng.standard_normal((2, 3, 4, 5)).astype(np.float32))
    c = x.contiguous(memory_format=CL)
    assert c.stride() == nhwc_strides((2, 3, 4, 5)) == (60, 1, 15, 3)
    np.testing.assert_array_equal(to_np(c), to_np(x))
    assert c.is_contiguous(memory_format=CL) and not c.is_contiguous() and x.is_contiguous(memory_format=CF)
    assert not x.is_contiguous(memory_format=CL)
    assert c.contiguous(memory_format=CL) is c  # already in that format: itself
    assert c.contiguous().stride() == (60, 20, 5, 1)
    for made in (
        ember.empty(2, 3, 4, 5, memory_format=CL),
        ember.zeros_like(c),
        ember.empty_like(c),
        c.clone(),
        x.clone(memory_format=CL),
        x.to(memory_format=CL),
        x.double(memory_format=CL),
        ember.rand_like(c),
    ):
        assert made.stride() == (60, 1, 15, 3), made.stride()
    assert c.clone(memory_format=CF).stride() == (60, 20, 5, 1)
    assert ember.zeros_like(c, memory_format=CF).stride() == (60, 20, 5, 1)
    assert ember.ones(2, 3, 4, 5, memory_format=CL, requires_grad=True).is_leaf
    v = ember.tensor(rng.standard_normal((2, 3, 2, 4, 5)).astype(np.float32))
    v3 = v.contiguous(memory_format=CL3)
    assert v3.stride() == nhwc_strides((2, 3, 2, 4, 5))
    np.testing.assert_array_equal(to_np(v3), to_np(v))
    one = ember.randn(1, 3, 1, 1).contiguous(memory_format=CL)  # size-1 dims take any stride, as in PyTorch
    assert one.is_contiguous(memory_format=CL) and one.is_contiguous()


def test_conversion_errors():
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        ember.randn(3, 4, 5).contiguous(memory_format=CL)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        ember.randn(2, 3, 4, 5).to(memory_format=CL3)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        ember.randn(2, 2).contiguous(memory_format=PF)
    with pytest.raises(TypeError, match="memory_format must be"):
        ember.randn(2, 2).contiguous(memory_format="channels_last")
    with pytest.raises(RuntimeError, match="required rank 4"):
        ember.empty(2, 3, memory_format=CL)
    assert not ember.randn(3, 4).is_contiguous(memory_format=CL)


def test_gradients_flow_through_conversions(rng):
    x = ember.tensor(rng.standard_normal((2, 3, 2, 2)), requires_grad=True)
    w = rng.standard_normal((2, 3, 2, 2))
    (x.contiguous(memory_format=CL) * ember.tensor(w)).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), w)
    x.grad = None
    (x.clone(memory_format=CL) ** 2).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), 2 * to_np(x.detach()))


def test_ops_on_channels_last_inputs_match_row_major(rng):
    x = ember.tensor(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
    c = x.contiguous(memory_format=CL)
    conv = ember.nn.Conv2d(3, 4, 3, padding=1)
    bn = ember.nn.BatchNorm2d(3)
    for f in (
        conv,
        bn,
        lambda t: F.max_pool2d(t, 2),
        lambda t: F.avg_pool2d(t, 2),
        F.relu,
        lambda t: t + 1,
        lambda t: t.sum((2, 3)),
        lambda t: F.interpolate(t, scale_factor=2),
        lambda t: F.adaptive_avg_pool2d(t, 1),
    ):
        np.testing.assert_allclose(to_np(f(c).detach()), to_np(f(x).detach()), rtol=1e-5, atol=1e-5)


def test_module_to_channels_last(rng):
    m = ember.nn.Sequential(
        ember.nn.Conv2d(3, 4, 3), ember.nn.BatchNorm2d(4), ember.nn.Flatten(), ember.nn.Linear(4 * 6 * 6, 2)
    )
    x = ember.tensor(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
    before = to_np(m(x).detach())
    w = m[0].weight
    assert m.to(memory_format=CL) is m
    assert m[0].weight is w and w.is_contiguous(memory_format=CL)  # the Parameter keeps its identity
    assert m[3].weight.is_contiguous()  # 2-d parameters are left alone
    np.testing.assert_allclose(to_np(m(x.contiguous(memory_format=CL)).detach()), before, rtol=1e-5, atol=1e-6)
    m(x).sum().backward()
    assert w.grad.shape == w.shape


def test_like_functions_preserve_dense_strides():
    t = ember.randn(4, 6).t()
    for made in (ember.zeros_like(t), ember.rand_like(t), ember.randn_like(t), ember.randint_like(t, 5)):
        assert made.stride() == t.stride()
    assert ember.rand_like(t, memory_format=CF).is_contiguous()
    sliced = ember.randn(4, 6)[:, ::2]  # not dense: row-major results
    assert ember.zeros_like(sliced).is_contiguous() and ember.rand_like(sliced).is_contiguous()


# Elementwise outputs follow their operands' layout (ember/ops/memory_format.h: empty_like_operands). The strides are
# NumPy's for the same permuted layout; the values are the row-major results. The cases are source text so that the
# reference PyTorch can run the very same expressions.
LAYOUT_CASES = """
def layout_cases(lib):
    cl = lib.channels_last
    x = lib.arange(120.0).reshape(2, 3, 4, 5)
    xc = x.contiguous(memory_format=cl)
    t = lib.arange(20.0).reshape(4, 5).t()
    bias = lib.arange(3.0).reshape(3, 1, 1)
    return {
        "cl + 1": xc + 1,
        "1 + cl": 1 + xc,
        "cl * rowmajor": xc * x,
        "rowmajor * cl": x * xc,
        "cl + bias[C,1,1]": xc + bias,
        "bias[C,1,1] + cl": bias + xc,
        "t + 1": t + 1,
        "t * t": t * t,
        "t + col [5, 1]": t + lib.arange(5.0).reshape(5, 1),
        "addcmul(cl, x, x)": lib.addcmul(xc, x, x),
        "where(cl > 3, cl, 0)": lib.where(xc > 3, xc, lib.zeros(())),
        "lerp(t, t, 0.5)": lib.lerp(t, t, 0.5),
    }
"""


def layout_cases(lib):
    scope = {}
    exec(LAYOUT_CASES, scope)
    return scope["layout_cases"](lib)


def test_elementwise_outputs_keep_their_operands_layout():
    got = layout_cases(ember)
    assert got["cl + 1"].stride() == nhwc_strides((2, 3, 4, 5))
    assert got["1 + cl"].stride() == nhwc_strides((2, 3, 4, 5))
    assert got["cl * rowmajor"].stride() == nhwc_strides((2, 3, 4, 5))  # the first operand decides
    assert got["rowmajor * cl"].stride() == (60, 20, 5, 1)
    assert got["cl + bias[C,1,1]"].stride() == nhwc_strides((2, 3, 4, 5))  # a broadcast operand tells nothing
    assert got["t + 1"].stride() == tuple(s // 4 for s in np.empty((4, 5), np.float32).T.strides)
    x = np.arange(120.0).reshape(2, 3, 4, 5)
    np.testing.assert_array_equal(to_np(got["cl * rowmajor"]), x * x)
    np.testing.assert_array_equal(to_np(got["cl + bias[C,1,1]"]), x + np.arange(3.0).reshape(3, 1, 1))
    want = np.arange(20.0).reshape(4, 5).T + np.arange(5.0).reshape(5, 1)
    np.testing.assert_array_equal(to_np(got["t + col [5, 1]"]), want)


TORCH_PY = "/opt/torch2/py"


@pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
def test_elementwise_output_strides_match_pytorch():
    code = (
        "import json, sys, torch; scope = {}; exec(sys.stdin.read(), scope); "
        "print(json.dumps({k: list(v.stride()) for k, v in scope['layout_cases'](torch).items()}))"
    )
    out = subprocess.run([TORCH_PY, "-c", code], input=LAYOUT_CASES, capture_output=True, text=True, check=True)
    want = json.loads(out.stdout.strip().splitlines()[-1])
    assert {k: list(v.stride()) for k, v in layout_cases(ember).items()} == want


# Convolution, batch norm and pooling keep a channels-last input's layout (PyTorch's), with the row-major results.
NN_LAYOUT_CASES = """
def nn_layout_cases(lib):
    F = lib.nn.functional
    cl = lib.channels_last
    lib.manual_seed(0)
    x = lib.arange(4 * 6 * 9 * 8, dtype=lib.float32).reshape(4, 6, 9, 8).div(100).sin()
    x = x.contiguous(memory_format=cl).requires_grad_()
    w = lib.arange(10 * 6 * 3 * 3, dtype=lib.float32).reshape(10, 6, 3, 3).div(50).cos().requires_grad_()
    y = F.conv2d(x, w, padding=1)
    z = F.batch_norm(y, None, None, training=True)
    p, idx = F.max_pool2d(z.relu(), 2, return_indices=True)
    out = {"conv2d": y, "batch_norm": z, "max_pool2d": p, "max_pool2d indices": idx,
           "avg_pool2d": F.avg_pool2d(z, 3, 2), "adaptive_avg_pool2d": F.adaptive_avg_pool2d(p, 1),
           "conv2d stride 2": F.conv2d(z, lib.ones(4, 10, 1, 1), stride=2)}
    (p.square().sum() + out["avg_pool2d"].sum()).backward()
    out["x.grad"], out["w.grad"] = x.grad, w.grad
    return out
"""


def nn_layout_cases(lib):
    scope = {}
    exec(NN_LAYOUT_CASES, scope)
    return scope["nn_layout_cases"](lib)


def test_conv_batchnorm_and_pooling_keep_channels_last():
    got = nn_layout_cases(ember)
    for name in ("conv2d", "batch_norm", "max_pool2d", "avg_pool2d", "conv2d stride 2", "x.grad"):
        assert got[name].is_contiguous(memory_format=CL), name
    # the same computation on a row-major input gives the same values
    import ember as lib

    F = lib.nn.functional
    x = got["x.grad"].new_tensor(np.sin(np.arange(4 * 6 * 9 * 8, dtype=np.float32).reshape(4, 6, 9, 8) / 100))
    x.requires_grad_()
    w = lib.tensor(np.cos(np.arange(10 * 6 * 3 * 3, dtype=np.float32).reshape(10, 6, 3, 3) / 50), requires_grad=True)
    z = F.batch_norm(F.conv2d(x, w, padding=1), None, None, training=True)
    p = F.max_pool2d(z.relu(), 2)
    (p.square().sum() + F.avg_pool2d(z, 3, 2).sum()).backward()
    np.testing.assert_allclose(to_np(got["max_pool2d"]), to_np(p), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(to_np(got["x.grad"]), to_np(x.grad), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(to_np(got["w.grad"]), to_np(w.grad), rtol=1e-4, atol=1e-3)


@pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
def test_nn_output_strides_match_pytorch():
    code = (
        "import json, sys, torch; scope = {}; exec(sys.stdin.read(), scope); "
        "out = scope['nn_layout_cases'](torch); "
        "print(json.dumps({k: [list(v.stride()), v.detach().double().sum().item()] for k, v in out.items()}))"
    )
    res = subprocess.run([TORCH_PY, "-c", code], input=NN_LAYOUT_CASES, capture_output=True, text=True, check=True)
    want = json.loads(res.stdout.strip().splitlines()[-1])
    got = nn_layout_cases(ember)
    for name, (strides, total) in want.items():
        assert list(got[name].stride()) == strides, name
        assert abs(float(got[name].detach().double().sum()) - total) <= 1e-3 * max(1.0, abs(total)), name


@pytest.mark.parametrize(
    "n,cin,cout,k,groups",
    [
        (1, 24, 40, 3, 1),
        (4, 16, 32, 1, 1),
        (2, 32, 32, 3, 32),
        (1, 3, 16, 3, 1),
        # grouped, not depthwise: the [G, O/G, C/G, k, k] view of a channels-last weight keeps its strides
        (1, 32, 32, 3, 16),
        (4, 48, 96, 3, 24),
        (2, 64, 64, 1, 4),
    ],
)
def test_channels_last_convolution_runs_on_nhwc_and_matches_float64(rng, n, cin, cout, k, groups):
    """A channels-last convolution hands oneDNN its NHWC tensors as they are (no reorder of the activations); batch
    slices stay NHWC, channel pieces (a batch of one at two threads) go through blocked copies. Forward and both
    gradients, laid out channels-last, against float64 on row-major tensors, at 1 and 2 threads."""
    x, w, g = (
        rng.standard_normal((n, cin, 12, 10)),
        rng.standard_normal((cout, cin // groups, k, k)),
        rng.standard_normal((n, cout, 12, 10)),
    )

    def run(dtype, fmt):
        xs = ember.tensor(x, dtype=dtype).contiguous(memory_format=fmt).requires_grad_()
        ws = ember.tensor(w, dtype=dtype).contiguous(memory_format=fmt).requires_grad_()
        out = F.conv2d(xs, ws, padding=k // 2, groups=groups)
        out.backward(ember.tensor(g, dtype=dtype).contiguous(memory_format=fmt))
        return out, xs.grad, ws.grad

    ref = [to_np(t) for t in run(ember.float64, CF)]
    before = ember.get_num_threads()
    try:
        for threads in (1, 2):
            ember.set_num_threads(threads)
            got = run(ember.float32, CL)
            for t, want in zip(got, ref):
                assert t.is_contiguous(memory_format=CL)
                np.testing.assert_allclose(to_np(t), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    finally:
        ember.set_num_threads(before)


@pytest.mark.parametrize("act", ["relu", "gelu", "silu", "hardswish"])
def test_activation_gradient_of_a_channels_last_input_stays_channels_last(rng, act):
    # The gradient as the activation's backward makes it (a hook on a non-leaf input sees it before any leaf's
    # .grad is laid out by the accumulation), and the leaf's .grad.
    a = rng.standard_normal((2, 8, 5, 6)).astype(np.float32)
    x = ember.tensor(a).contiguous(memory_format=CL).requires_grad_()
    h, seen = x * 1, []
    h.register_hook(seen.append)
    getattr(F, act)(h).backward(ember.ones(2, 8, 5, 6).contiguous(memory_format=CL))
    assert seen[0].is_contiguous(memory_format=CL)
    assert x.grad.is_contiguous(memory_format=CL)
    r = ember.tensor(a).requires_grad_()
    getattr(F, act)(r).backward(ember.ones(2, 8, 5, 6))
    np.testing.assert_allclose(to_np(x.grad), to_np(r.grad), rtol=1e-6, atol=1e-6)
