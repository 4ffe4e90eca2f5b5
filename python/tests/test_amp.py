"""Automatic mixed precision: ember.autocast (CPU policies, state, cache, threads, backward) and GradScaler.

The expected dtypes follow PyTorch's autocast op reference (docs/amp.md); the values are compared with a float64
NumPy reference within bfloat16's tolerance.
"""

import pickle
import threading
import warnings

import numpy as np
import pytest
from conftest import from_np, to_np

import ember
import ember.nn.functional as F

bf16, f16, f32, f64 = ember.bfloat16, ember.float16, ember.float32, ember.float64
has_cuda = ember.cuda.is_available()


def r(*shape, dtype=f32, seed=0):
    rng = np.random.default_rng(seed + sum(shape))
    return from_np(rng.standard_normal(shape).astype(np.float64)).to(dtype)


def pos(*shape, dtype=f32):
    return r(*shape, dtype=f64).abs().add(0.5).to(dtype)


# ---- output dtypes under CPU autocast (bfloat16): PyTorch's CPU lists

# Ops that run in the lower-precision dtype: float32 inputs give bfloat16.
LOWER_CPU = {
    "mm": lambda: ember.mm(r(4, 5), r(5, 3)),
    "matmul": lambda: r(2, 4, 5) @ r(5, 3),
    "bmm": lambda: ember.bmm(r(2, 3, 4), r(2, 4, 5)),
    "addmm": lambda: ember.addmm(r(4, 3), r(4, 5), r(5, 3)),
    "baddbmm": lambda: ember.baddbmm(r(2, 3, 5), r(2, 3, 4), r(2, 4, 5)),
    "addbmm": lambda: ember.addbmm(r(3, 5), r(2, 3, 4), r(2, 4, 5)),
    "linear": lambda: F.linear(r(4, 5), r(3, 5), r(3)),
    "conv1d": lambda: F.conv1d(r(1, 2, 8), r(3, 2, 3)),
    "conv2d": lambda: F.conv2d(r(1, 2, 6, 6), r(3, 2, 3, 3), r(3)),
    "conv3d": lambda: F.conv3d(r(1, 2, 4, 4, 4), r(3, 2, 3, 3, 3)),
    "conv_transpose1d": lambda: F.conv_transpose1d(r(1, 2, 5), r(2, 3, 3)),
    "conv_transpose2d": lambda: F.conv_transpose2d(r(1, 2, 4, 4), r(2, 3, 3, 3)),
    "conv_transpose3d": lambda: F.conv_transpose3d(r(1, 2, 3, 3, 3), r(2, 3, 2, 2, 2)),
    "prelu": lambda: F.prelu(r(2, 3, 4), r(3)),
    "scaled_dot_product_attention": lambda: F.scaled_dot_product_attention(r(2, 3, 4), r(2, 3, 4), r(2, 3, 4)),
    "linalg_vecdot": lambda: ember.linalg.vecdot(r(3, 4), r(3, 4)),
    # composites of the above (PyTorch decomposes them into mm/bmm as well)
    "einsum": lambda: ember.einsum("ij,jk->ik", r(4, 5), r(5, 3)),
    "multi_dot": lambda: ember.linalg.multi_dot([r(4, 5), r(5, 3), r(3, 2)]),
    "tensordot": lambda: ember.tensordot(r(4, 5), r(5, 3), 1),
    "Linear module": lambda: ember.nn.Linear(5, 3)(r(4, 5)),
    "Conv2d module": lambda: ember.nn.Conv2d(2, 3, 3)(r(1, 2, 5, 5)),
}

# Ops that run in float32: bfloat16 inputs give float32.
FP32_CPU = {
    "prod": lambda x: x.prod(),
    "cdist": lambda x: ember.cdist(x, x),
    "mse_loss": lambda x: F.mse_loss(x, x * 0.5),
    "l1_loss": lambda x: F.l1_loss(x, x * 0.5),
    "smooth_l1_loss": lambda x: F.smooth_l1_loss(x, x * 0.5),
    "huber_loss": lambda x: F.huber_loss(x, x * 0.5),
    "cross_entropy": lambda x: F.cross_entropy(x, ember.tensor([0, 1, 2, 3])),
    "nll_loss": lambda x: F.nll_loss(x, ember.tensor([0, 1, 2, 3])),
    "kl_div": lambda x: F.kl_div(x, x.sigmoid(), reduction="batchmean"),
    "binary_cross_entropy": lambda x: F.binary_cross_entropy(x.sigmoid(), (x * 0.5).sigmoid()),
    "binary_cross_entropy_with_logits": lambda x: F.binary_cross_entropy_with_logits(x, x.sigmoid()),
    "poisson_nll_loss": lambda x: F.poisson_nll_loss(x, x.abs()),
    "soft_margin_loss": lambda x: F.soft_margin_loss(x, x.sign()),
    "hinge_embedding_loss": lambda x: F.hinge_embedding_loss(x, x.sign()),
    "margin_ranking_loss": lambda x: F.margin_ranking_loss(x, x * 0.5, x.sign()),
    "cosine_embedding_loss": lambda x: F.cosine_embedding_loss(x, x * 0.5, ember.tensor([1, -1, 1, -1])),
    "triplet_margin_loss": lambda x: F.triplet_margin_loss(x, x * 0.5, x * 0.25),
    "multi_margin_loss": lambda x: F.multi_margin_loss(x, ember.tensor([0, 1, 2, 3])),
    "grid_sample": lambda x: F.grid_sample(x.reshape(1, 1, 4, 5), x.reshape(1, 2, 5, 2).tanh(), align_corners=False),
    "avg_pool3d": lambda x: F.avg_pool3d(x.reshape(1, 1, 2, 2, 5), 2),
    "linalg.inv": lambda x: ember.linalg.inv(x[:, :4] + ember.eye(4, dtype=x.dtype) * 4),
}

# Ops PyTorch leaves alone on the CPU: the input dtype is kept.
UNCHANGED_CPU = {
    "relu": lambda x: F.relu(x),
    "add": lambda x: x + x,
    "softmax": lambda x: F.softmax(x, 1),
    "log_softmax": lambda x: F.log_softmax(x, 1),
    "exp": lambda x: x.exp(),
    "sum": lambda x: x.sum(),
    "layer_norm": lambda x: F.layer_norm(x, (5,)),
}


@pytest.mark.parametrize("name", sorted(LOWER_CPU))
def test_cpu_lower_precision_ops(name):
    with ember.autocast("cpu"):
        out = LOWER_CPU[name]()
    assert out.dtype is bf16
    with ember.autocast("cpu", dtype=f16):
        assert LOWER_CPU[name]().dtype is f16
    assert LOWER_CPU[name]().dtype is f32  # outside the region


@pytest.mark.parametrize("name", sorted(FP32_CPU))
def test_cpu_fp32_ops(name):
    x = r(4, 5, dtype=bf16)
    with ember.autocast("cpu"):
        assert FP32_CPU[name](x).dtype is f32
        assert FP32_CPU[name](x.float()).dtype is f32


@pytest.mark.parametrize("name", sorted(UNCHANGED_CPU))
def test_cpu_unlisted_ops_keep_dtype(name):
    with ember.autocast("cpu"):
        assert UNCHANGED_CPU[name](r(4, 5)).dtype is f32
        assert UNCHANGED_CPU[name](r(4, 5, dtype=bf16)).dtype is bf16


def test_cpu_promote_ops():
    a, b = r(3, 4), r(3, 4, dtype=bf16)
    with ember.autocast("cpu"):
        assert ember.cat([a, b]).dtype is f32
        assert ember.stack([a, b]).dtype is f32
        assert ember.stack([b, b]).dtype is bf16
        assert ember.cat([b, b]).dtype is bf16
        assert ember.cat([a.double(), b]).dtype is f64  # float64 is left to the op's own promotion
        idx = ember.tensor([0, 2])
        assert ember.index_copy(a, 0, idx, b[:2]).dtype is f32


def test_ineligible_inputs_untouched():
    with ember.autocast("cpu"):
        assert ember.mm(r(3, 4, dtype=f64), r(4, 2, dtype=f64)).dtype is f64
        i = ember.arange(12).reshape(3, 4)
        assert ember.mm(i, i.t()).dtype is ember.int64
        assert ember.mm(r(3, 4, dtype=bf16), r(4, 2)).dtype is bf16
        assert ember.mm(r(3, 4, dtype=f16), r(4, 2)).dtype is bf16  # every 16/32-bit float is cast
        # explicit dtype= and out= calls are not eligible
        assert r(3, 4, dtype=bf16).sum(dtype=bf16).dtype is bf16
        out = ember.empty(6, 4)
        assert ember.cat([r(3, 4), r(3, 4)], out=out).dtype is f32


def test_values_match_float64_reference():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((16, 32)), rng.standard_normal((32, 8))
    x, w = rng.standard_normal((2, 3, 9, 9)), rng.standard_normal((4, 3, 3, 3))
    with ember.autocast("cpu"):
        mm = ember.mm(from_np(a, f32), from_np(b, f32))
        lin = F.linear(from_np(a, f32), from_np(b.T, f32), from_np(np.ones(8), f32))
        conv = F.conv2d(from_np(x, f32), from_np(w, f32), padding=1)
    # bfloat16 has an 8-bit mantissa: inputs and output each round to ~2**-9 relative
    tol = dict(rtol=3e-2, atol=3e-2 * np.sqrt(32))
    np.testing.assert_allclose(to_np(mm), a @ b, **tol)
    np.testing.assert_allclose(to_np(lin), a @ b + 1, **tol)
    ref = np.zeros((2, 4, 9, 9))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    for i in range(9):
        for j in range(9):
            ref[:, :, i, j] = np.einsum("nchw,ochw->no", xp[:, :, i : i + 3, j : j + 3], w)
    np.testing.assert_allclose(to_np(conv), ref, rtol=3e-2, atol=0.2)
    # an fp32 op on bfloat16 input computes in float32
    z = rng.standard_normal((4, 6))
    with ember.autocast("cpu"):
        loss = F.mse_loss(from_np(z, bf16), from_np(z * 0.5, bf16))
    zb = to_np(from_np(z, bf16)).astype(np.float64)
    np.testing.assert_allclose(loss.item(), np.mean((zb - to_np(from_np(z * 0.5, bf16))) ** 2), rtol=1e-5)


# ---- the state and the context manager


def test_state_functions_and_nesting():
    assert not ember.is_autocast_cpu_enabled() and not ember.is_autocast_enabled("cpu")
    assert ember.get_autocast_cpu_dtype() is bf16 and ember.get_autocast_gpu_dtype() is f16
    assert ember.get_autocast_dtype("cuda") is f16
    with ember.autocast(device_type="cpu"):
        assert ember.is_autocast_cpu_enabled() and ember.is_autocast_enabled("cpu")
        assert not ember.is_autocast_enabled()  # no argument: CUDA's flag, as PyTorch
        with ember.autocast("cpu", dtype=f16):
            assert ember.get_autocast_cpu_dtype() is f16
            assert ember.mm(r(2, 2), r(2, 2)).dtype is f16
            with ember.autocast("cpu", enabled=False):
                assert not ember.is_autocast_cpu_enabled()
                assert ember.mm(r(2, 2), r(2, 2)).dtype is f32
            assert ember.is_autocast_cpu_enabled()
        assert ember.get_autocast_cpu_dtype() is bf16
        assert ember.mm(r(2, 2), r(2, 2)).dtype is bf16
    assert not ember.is_autocast_cpu_enabled()
    ember.set_autocast_cpu_enabled(True)
    try:
        assert ember.mm(r(2, 2), r(2, 2)).dtype is bf16
        ember.set_autocast_cpu_dtype(f16)
        assert ember.get_autocast_dtype("cpu") is f16
    finally:
        ember.set_autocast_cpu_enabled(False)
        ember.set_autocast_cpu_dtype(bf16)
    ember.set_autocast_enabled("cpu", True)
    assert ember.is_autocast_cpu_enabled()
    ember.set_autocast_enabled("cpu", False)
    assert ember.mm(r(2, 2), r(2, 2)).dtype is f32


def test_nesting_and_cache_functions():
    assert ember.is_autocast_cache_enabled()
    ember.set_autocast_cache_enabled(False)
    with ember.autocast("cpu"):
        assert not ember.is_autocast_cache_enabled()  # a region takes the current setting by default
    with ember.autocast("cpu", cache_enabled=True):
        assert ember.is_autocast_cache_enabled()
    assert not ember.is_autocast_cache_enabled()
    ember.set_autocast_cache_enabled(True)
    assert ember.autocast_increment_nesting() == 1
    assert ember.autocast_increment_nesting() == 2
    assert ember.autocast_decrement_nesting() == 1
    assert ember.autocast_decrement_nesting() == 0
    ember.clear_autocast_cache()
    assert ember.amp.is_autocast_available("cpu") and not ember.amp.is_autocast_available("xpu")


def test_state_restored_after_exception():
    with pytest.raises(ZeroDivisionError):
        with ember.autocast("cpu"):
            1 / 0
    assert not ember.is_autocast_cpu_enabled()
    assert ember._C._autocast_cache_size() == 0


def test_aliases_and_decorator():
    with ember.cpu.amp.autocast():
        assert ember.mm(r(2, 2), r(2, 2)).dtype is bf16
    with ember.amp.autocast("cpu"):
        assert ember.mm(r(2, 2), r(2, 2)).dtype is bf16
    with ember.cpu.amp.autocast(dtype=f16):
        assert ember.mm(r(2, 2), r(2, 2)).dtype is f16

    @ember.autocast("cpu")
    def f(a, b):
        return ember.mm(a, b), ember.is_autocast_cpu_enabled()

    out, on = f(r(2, 2), r(2, 2))
    assert out.dtype is bf16 and on
    assert not ember.is_autocast_cpu_enabled()

    @ember.cpu.amp.autocast(enabled=False)
    def g():
        return ember.mm(r(2, 2), r(2, 2))

    with ember.autocast("cpu"):
        assert g().dtype is f32


def test_cast_cache():
    w = r(5, 5).requires_grad_()
    x = r(3, 5)
    assert ember._C._autocast_cache_size() == 0
    with ember.autocast("cpu"):
        ember.mm(x, w)
        assert ember._C._autocast_cache_size() == 1  # the weight (a leaf that requires grad), not x
        ember.mm(x, w)
        F.linear(x, w)
        assert ember._C._autocast_cache_size() == 1  # cast once, reused
        with ember.autocast("cpu"):  # a nested region keeps the outer region's cache
            ember.mm(x, w)
        assert ember._C._autocast_cache_size() == 1
        ember.mm(x, w.detach())  # not a leaf requiring grad: cast, not cached
        assert ember._C._autocast_cache_size() == 1
    assert ember._C._autocast_cache_size() == 0  # cleared when the outermost region ends
    with ember.autocast("cpu", cache_enabled=False):
        ember.mm(x, w)
        assert ember._C._autocast_cache_size() == 0


def test_cache_reuses_the_cast_and_sees_inplace_updates():
    w = r(4, 4).requires_grad_()
    x = ember.eye(4)
    with ember.autocast("cpu"):
        y1 = ember.mm(x, w)
        y2 = ember.mm(x, w)
        assert ember._C._autocast_cache_size() == 1
        np.testing.assert_array_equal(to_np(y1.float()), to_np(y2.float()))
        with ember.no_grad():
            w.add_(1.0)  # the cached copy is stale now
        y3 = ember.mm(x, w)
    np.testing.assert_allclose(to_np(y3.float()), to_np(y1.float()) + 1, atol=2e-2)


def test_cast_cache_gradient_accumulates_once_per_use():
    w = r(3, 3).requires_grad_()
    x = ember.ones(2, 3)
    with ember.autocast("cpu"):
        loss = ember.mm(x, w).float().sum() + ember.mm(x, w).float().sum()
    loss.backward()
    assert w.grad.dtype is f32
    np.testing.assert_allclose(to_np(w.grad), np.full((3, 3), 4.0))


def test_thread_local():
    seen = {}

    def worker():
        seen["enabled"] = ember.is_autocast_cpu_enabled()
        seen["dtype"] = ember.mm(r(2, 2), r(2, 2)).dtype

    with ember.autocast("cpu"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert ember.mm(r(2, 2), r(2, 2)).dtype is bf16
    assert seen == {"enabled": False, "dtype": f32}


def test_backward_gives_float32_grads_for_float32_leaves():
    rng = np.random.default_rng(3)
    xa, wa = rng.standard_normal((4, 6)), rng.standard_normal((6, 3))
    x, w = from_np(xa, f32).requires_grad_(), from_np(wa, f32).requires_grad_()
    with ember.autocast("cpu"):
        y = x @ w
        assert y.dtype is bf16
        loss = F.mse_loss(y, ember.zeros(4, 3))  # fp32 policy
        assert loss.dtype is f32
        loss.backward()  # backward inside the region runs with autocast off
    assert w.grad.dtype is f32 and x.grad.dtype is f32
    yb = to_np(y.float()).astype(np.float64)
    gy = 2 * yb / yb.size
    np.testing.assert_allclose(to_np(w.grad), xa.T @ gy, rtol=5e-2, atol=5e-2)
    np.testing.assert_allclose(to_np(x.grad), gy @ wa.T, rtol=5e-2, atol=5e-2)


def test_custom_fwd_bwd():
    class MyMM(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu", cast_inputs=f32)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.inside = ember.is_autocast_cpu_enabled()
            return a.mm(b)

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g.mm(b.t()), a.t().mm(g)

    class Plain(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a, b):
            return a.mm(b)

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            ctx.bwd_autocast = ember.is_autocast_cpu_enabled()
            return g, g

    a = r(3, 3, dtype=bf16).requires_grad_()
    b = r(3, 3).requires_grad_()
    with ember.autocast("cpu"):
        out = MyMM.apply(a, b)
        assert out.dtype is f32  # inputs cast to float32 and autocast off inside
        out2 = Plain.apply(r(3, 3), r(3, 3))
        assert out2.dtype is bf16  # runs in the region
    out.sum().backward()
    assert a.grad.dtype is bf16 and b.grad.dtype is f32
    assert ember.cuda.amp.custom_fwd is not None and ember.cuda.amp.custom_bwd is not None


def test_training_with_autocast_and_grad_scaler_reduces_loss():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(8, 32), ember.nn.ReLU(), ember.nn.Linear(32, 1))
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    scaler = ember.amp.GradScaler("cpu", init_scale=2.0**8)
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((64, 8))
    x, y = from_np(xa, f32), from_np(xa[:, :1] * 2 - xa[:, 1:2], f32)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with ember.autocast("cpu"):
            out = model(x)
            assert out.dtype is bf16
            loss = F.mse_loss(out, y)
        scaler.scale(loss).backward()
        for p in model.parameters():
            assert p.grad.dtype is f32
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    assert all(p.dtype is f32 for p in model.parameters())


# ---- GradScaler


def _one_param_opt(grad_value):
    p = ember.nn.Parameter(ember.ones(3))
    opt = ember.optim.SGD([p], lr=1.0)
    p.grad = ember.full((3,), grad_value)
    return p, opt


def test_grad_scaler_scales_and_unscales():
    scaler = ember.amp.GradScaler("cpu")
    assert scaler.is_enabled() and scaler.get_scale() == 2.0**16
    loss = ember.tensor(3.0)
    assert scaler.scale(loss).item() == 3.0 * 2**16
    outs = scaler.scale([ember.tensor(1.0), (ember.tensor(2.0),)])
    assert outs[0].item() == 2**16 and outs[1][0].item() == 2**17
    p, opt = _one_param_opt(2.0**16)
    scaler.unscale_(opt)
    np.testing.assert_allclose(to_np(p.grad), [1.0, 1.0, 1.0])
    with pytest.raises(
        RuntimeError,
        match=r"unscale_\(\) has already been called on this optimizer since the "
        r"last update\(\)\.",
    ):
        scaler.unscale_(opt)
    scaler.step(opt)  # not unscaled again
    np.testing.assert_allclose(to_np(p), [0.0, 0.0, 0.0])
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)\."):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)\."):
        scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 2.0**16 and scaler._get_growth_tracker() == 1


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), float("-inf")])
def test_grad_scaler_skips_step_and_backs_off(bad):
    scaler = ember.amp.GradScaler("cpu", init_scale=1024.0)
    scaler.scale(ember.tensor(1.0))
    p, opt = _one_param_opt(1.0)
    p.grad[1] = bad
    assert scaler.step(opt) is None
    np.testing.assert_allclose(to_np(p), [1.0, 1.0, 1.0])  # skipped
    scaler.update()
    assert scaler.get_scale() == 512.0 and scaler._get_growth_tracker() == 0


def test_grad_scaler_growth_interval():
    scaler = ember.amp.GradScaler("cpu", init_scale=4.0, growth_factor=3.0, backoff_factor=0.25, growth_interval=3)
    scaler.scale(ember.tensor(1.0))
    scales = []
    for step in range(7):
        p, opt = _one_param_opt(float("inf") if step == 4 else 1.0)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    assert scales == [4.0, 4.0, 12.0, 12.0, 3.0, 3.0, 3.0]
    assert scaler.get_growth_factor() == 3.0 and scaler.get_backoff_factor() == 0.25
    assert scaler.get_growth_interval() == 3
    scaler.update(100.0)
    assert scaler.get_scale() == 100.0
    scaler.update(ember.tensor(7.0))
    assert scaler.get_scale() == 7.0


def test_grad_scaler_state_dict_round_trip():
    a = ember.amp.GradScaler("cpu", init_scale=64.0, growth_interval=2)
    a.scale(ember.tensor(1.0))
    p, opt = _one_param_opt(1.0)
    a.step(opt)
    a.update()
    sd = a.state_dict()
    assert sd == {
        "scale": 64.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 2,
        "_growth_tracker": 1,
    }
    b = ember.amp.GradScaler("cpu")
    b.load_state_dict(sd)
    assert b.state_dict() == sd
    b.scale(ember.tensor(1.0))
    p, opt = _one_param_opt(1.0)
    b.step(opt)
    b.update()
    assert b.get_scale() == 128.0  # the tracker came across: growth after one more step
    c = pickle.loads(pickle.dumps(b))
    assert c.state_dict() == b.state_dict()
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        b.load_state_dict({})


def test_grad_scaler_disabled_passthrough():
    scaler = ember.amp.GradScaler("cpu", enabled=False)
    loss = ember.tensor(2.0)
    assert scaler.scale(loss) is loss
    p, opt = _one_param_opt(1.0)
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(to_np(p), [0.0, 0.0, 0.0])
    assert scaler.get_scale() == 1.0 and scaler.state_dict() == {} and not scaler.is_enabled()


def test_grad_scaler_errors():
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        ember.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor must be < 1.0"):
        ember.amp.GradScaler("cpu", backoff_factor=1.0)
    scaler = ember.amp.GradScaler("cpu")
    p, opt = _one_param_opt(1.0)
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        scaler.step(opt)
    scaler.scale(ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    h = ember.nn.Parameter(ember.ones(3, dtype=f16))
    h.grad = ember.ones(3, dtype=f16)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        scaler.unscale_(ember.optim.SGD([h], lr=1.0))


def test_amp_ops_directly():
    g1 = ember.tensor([2.0, 4.0])
    g2 = ember.tensor([[8.0]], dtype=bf16)
    found = ember.zeros(())
    ember._amp_foreach_non_finite_check_and_unscale_([g1, g2], found, ember.tensor(0.5))
    assert g1.tolist() == [1.0, 2.0] and g2.tolist() == [[4.0]] and found.item() == 0.0
    g3 = ember.tensor([1.0, float("nan")])
    ember._amp_foreach_non_finite_check_and_unscale_([g3], found, ember.tensor(0.5))
    assert found.item() == 1.0
    ember._amp_foreach_non_finite_check_and_unscale_([g1], found, ember.tensor(0.5))
    assert found.item() == 1.0  # never reset
    scale, tracker = ember.tensor([2.0**127]), ember.tensor([0], dtype=ember.int32)
    ember._amp_update_scale_(scale, tracker, ember.zeros(1), 4.0, 0.5, 1)
    assert scale.item() == 2.0**127 and tracker.item() == 0  # the grown scale would be inf: kept
    ember._amp_update_scale_(scale, tracker, ember.ones(1), 4.0, 0.5, 1)
    assert scale.item() == 2.0**126
    with pytest.raises(RuntimeError, match="growth_tracker must be a"):
        ember._amp_update_scale_(scale, tracker.long(), ember.ones(1), 2.0, 0.5, 1)
    with pytest.raises(RuntimeError, match="must be a floating tensor"):
        ember._amp_foreach_non_finite_check_and_unscale_([ember.ones(2, dtype=ember.int64)], found, ember.tensor(1.0))


# ---- error paths


def test_bad_device_type():
    with pytest.raises(RuntimeError, match="User specified an unsupported autocast device_type 'xpu'"):
        ember.autocast("xpu")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.autocast(ember.device("cpu"))
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        ember.is_autocast_enabled("tpu")


def test_unsupported_cpu_dtype_warns_and_disables():
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported. Disabling"):
        ctx = ember.autocast("cpu", dtype=f32)
    with ctx:
        assert not ember.is_autocast_cpu_enabled()
        assert ember.mm(r(2, 2), r(2, 2)).dtype is f32
    with pytest.raises(TypeError):
        ember.set_autocast_cpu_dtype(ember.int32)


@pytest.mark.skipif(has_cuda, reason="checks the behaviour without CUDA")
def test_cuda_without_cuda_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available. Disabling"):
        ctx = ember.autocast("cuda")
    with ctx:
        assert not ember.is_autocast_enabled()
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."):
        scaler = ember.cuda.amp.GradScaler()
    assert not scaler.is_enabled()
    assert ember.cuda.amp.common.amp_definitely_not_available()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.cuda.amp.GradScaler(enabled=False)


def test_cuda_flag_leaves_cpu_tensors_alone():
    ember.set_autocast_enabled(True)  # CUDA's flag, settable without a GPU
    try:
        assert ember.is_autocast_enabled()
        assert ember.mm(r(2, 2), r(2, 2)).dtype is f32
    finally:
        ember.set_autocast_enabled(False)


# ---- CUDA (run where a GPU is present)

cuda = pytest.mark.skipif(not has_cuda, reason="needs CUDA")


@cuda
def test_cuda_policies():
    def c(*shape, dtype=f32):
        return r(*shape, dtype=dtype).cuda()

    with ember.autocast("cuda"):
        assert ember.mm(c(4, 5), c(5, 3)).dtype is f16
        assert F.linear(c(4, 5), c(3, 5), c(3)).dtype is f16
        assert F.conv2d(c(1, 2, 6, 6), c(3, 2, 3, 3)).dtype is f16
        assert ember.mv(c(4, 5), c(5)).dtype is f16
        assert ember.addr(c(4, 5), c(4), c(5)).dtype is f16
        x16 = c(4, 5, dtype=f16)
        for f in (
            lambda x: x.exp(),
            lambda x: x.log(),
            lambda x: x.sum(),
            lambda x: F.softmax(x, 1),
            lambda x: F.log_softmax(x, 1),
            lambda x: F.layer_norm(x, (5,)),
            lambda x: x.cumsum(0),
            lambda x: x.norm(),
            lambda x: x.pow(2),
            lambda x: 1 / x,
            lambda x: F.mse_loss(x, x),
        ):
            assert f(x16).dtype is f32
        assert ember.atan2(x16, c(4, 5)).dtype is f32
        assert ember.addcmul(x16, x16, c(4, 5)).dtype is f32
        assert ember.dot(c(3, dtype=f16), c(3, dtype=f16)).dtype is f16
        assert ember.mm(r(2, 2), r(2, 2)).dtype is f32  # CPU tensors: CUDA autocast leaves them alone
        with pytest.raises(RuntimeError, match="are unsafe to autocast"):
            F.binary_cross_entropy(c(4).sigmoid(), c(4).sigmoid())
        assert F.binary_cross_entropy_with_logits(x16, x16.sigmoid()).dtype is f32
    with ember.autocast("cuda", dtype=bf16):
        assert ember.mm(c(4, 5), c(5, 3)).dtype is bf16


@cuda
def test_cuda_grad_scaler_training():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(8, 32), ember.nn.ReLU(), ember.nn.Linear(32, 1)).cuda()
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    scaler = ember.cuda.amp.GradScaler()
    x = r(64, 8).cuda()
    y = (x[:, :1] * 2).contiguous()
    first = None
    for _ in range(30):
        opt.zero_grad()
        with ember.cuda.amp.autocast():
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        first = first if first is not None else loss.item()
    assert loss.item() < 0.5 * first
