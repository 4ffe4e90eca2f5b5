"""PyTorch 2 entry points that ordinary programs call: compile, jit, the default device, asarray, Variable, RMSNorm,
and the backends' availability queries (docs/differences.md says what ember does instead of compiling)."""

import warnings

import numpy as np
import pytest
from conftest import to_np

import ember
import ember.nn.functional as F


def test_compile_returns_the_callable_and_checks_its_arguments():
    m = ember.nn.Linear(3, 2)
    assert ember.compile(m) is m
    assert ember.compile(mode="max-autotune")(m) is m  # the decorator form

    @ember.compile(fullgraph=True)
    def f(x):
        return x * 2

    np.testing.assert_array_equal(to_np(f(ember.ones(2))), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        ember.compile(m, mode="fast")
    with pytest.raises(RuntimeError, match="Either mode or options"):
        ember.compile(m, mode="default", options={})
    with pytest.raises(RuntimeError, match="must be callable"):
        ember.compile(3)


def test_jit_runs_eagerly_and_refuses_archives(tmp_path):
    m = ember.nn.Linear(3, 2)
    x = ember.randn(4, 3)
    assert ember.jit.script(m) is m
    traced = ember.jit.trace(m, x)
    np.testing.assert_array_equal(to_np(traced(x)), to_np(m(x)))

    @ember.jit.script
    def relu_sum(t):
        return t.relu().sum()

    assert relu_sum(ember.tensor([-1.0, 2.0])).item() == 2.0

    @ember.jit.ignore
    def a(t):
        return t

    @ember.jit.ignore(drop=True)
    def b(t):
        return t + 1

    assert a(1) == 1 and b(1) == 2
    assert ember.jit.is_scripting() is False and ember.jit.is_tracing() is False
    assert ember.jit.annotate(list, [1]) == [1]
    fut = ember.jit.fork(lambda t: t * 3, ember.ones(1))
    assert ember.jit.wait(fut).item() == 3.0
    assert isinstance(fut, ember.futures.Future) and fut.done() and fut.then(lambda f: f.value() + 1).wait().item() == 4
    with pytest.raises(NotImplementedError, match="state_dict"):
        ember.jit.save(m, str(tmp_path / "m.pt"))
    with pytest.raises(NotImplementedError, match="TorchScript"):
        ember.jit.load(str(tmp_path / "m.pt"))
    with pytest.raises(TypeError, match="trace"):
        ember.jit.trace(3, x)


def test_default_device_applies_to_factories_only():
    assert ember.get_default_device() == ember.device("cpu")
    x = ember.ones(2)
    ember.set_default_device("cuda")
    assert ember.get_default_device() == ember.device("cuda")
    # Tensors made from tensors keep their device: this works without a GPU.
    assert ember.zeros_like(x).device.type == "cpu" and (x + 1).device.type == "cpu"
    assert x.new_zeros(3).device.type == "cpu"
    if not ember.cuda.is_available():
        # Factories now target CUDA: without one they fail clearly instead of silently making CPU tensors.
        for make in (
            lambda: ember.zeros(2),
            lambda: ember.tensor([1.0]),
            lambda: ember.randn(2),
            lambda: ember.nn.Linear(2, 2),
        ):
            with pytest.raises(RuntimeError, match="(?i)cuda"):
                make()
    ember.set_default_device(None)
    assert ember.zeros(2).device.type == "cpu"


def test_device_context_nests_and_restores_on_errors():
    with ember.device("cuda"):
        assert ember.get_default_device().type == "cuda"
        with ember.device("cpu"):
            assert ember.get_default_device().type == "cpu"
            assert ember.zeros(1).device.type == "cpu"
            assert ember.nn.Linear(2, 2).weight.device.type == "cpu"
        assert ember.get_default_device().type == "cuda"
    assert ember.get_default_device().type == "cpu"
    with pytest.raises(ValueError):
        with ember.device("cuda:0"):
            raise ValueError("inside")
    assert ember.get_default_device().type == "cpu"


def test_as_tensor_and_asarray_share_numpy_memory():
    a = np.arange(4.0)
    t = ember.as_tensor(a)
    a[0] = 9.0
    assert t[0].item() == 9.0  # torch.as_tensor views a NumPy array of a dtype it has
    t32 = ember.as_tensor(a, dtype=ember.float32)
    a[1] = 7.0
    assert t32[1].item() == 1.0 and t32.dtype == ember.float32  # a conversion copies
    s = ember.asarray(a)
    assert s.data_ptr() == a.ctypes.data
    c = ember.asarray(a, copy=True)
    assert c.data_ptr() != a.ctypes.data
    np.testing.assert_array_equal(to_np(c), a)
    with pytest.raises(ValueError, match="copy=False"):
        ember.asarray(a, dtype=ember.float32, copy=False)
    with pytest.raises(ValueError, match="alias"):
        ember.asarray([1, 2], copy=False)
    lst = ember.asarray([[1, 2], [3, 4]])
    assert lst.dtype == ember.int64
    np.testing.assert_array_equal(to_np(lst), [[1, 2], [3, 4]])
    x = ember.randn(3)
    assert ember.asarray(x) is x
    assert ember.asarray(x, dtype=ember.float64).dtype == ember.float64
    y = ember.asarray(x, copy=True)
    y[0] = 100.0
    assert x[0].item() != 100.0
    g = ember.asarray(a, requires_grad=True)
    assert g.requires_grad and g.is_leaf
    b = ember.asarray(bytearray(b"\x01\x02"))
    np.testing.assert_array_equal(to_np(b), [1, 2])


def test_variable_is_a_tensor():
    t = ember.ones(2)
    v = ember.autograd.Variable(t, requires_grad=True)
    assert isinstance(v, ember.Tensor) and isinstance(t, ember.autograd.Variable)
    assert v.requires_grad and not t.requires_grad
    v.data[0] = 5.0
    assert t[0].item() == 5.0  # shares the data
    (v * 2).sum().backward()
    np.testing.assert_array_equal(to_np(v.grad), [2.0, 2.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ember.autograd.Variable(t, volatile=True)
    assert any("volatile" in str(x.message) for x in w)
    with pytest.raises(TypeError, match="tensor"):
        ember.autograd.Variable([1.0])


@pytest.mark.parametrize("dtype,tol", [(ember.float32, 1e-6), (ember.float64, 1e-12), (ember.bfloat16, 1e-2)])
def test_rms_norm_matches_numpy(rng, dtype, tol):
    x = rng.standard_normal((3, 4, 5))
    w = rng.standard_normal((4, 5))
    xt = ember.tensor(x).to(dtype)
    wt = ember.tensor(w).to(dtype)
    xr = to_np(xt.double())
    wr = to_np(wt.double())
    eps = {ember.float32: 2.0**-23, ember.float64: 2.0**-52, ember.bfloat16: 2.0**-7}[dtype]
    ref = xr / np.sqrt((xr**2).mean(axis=(1, 2), keepdims=True) + eps) * wr
    got = F.rms_norm(xt, (4, 5), wt)
    assert got.dtype == dtype
    np.testing.assert_allclose(to_np(got.double()), ref, rtol=tol, atol=tol)
    ref1 = xr / np.sqrt((xr**2).mean(axis=-1, keepdims=True) + 0.5)
    np.testing.assert_allclose(to_np(ember.rms_norm(xt, [5], eps=0.5).double()), ref1, rtol=tol, atol=tol)
    xs = xt.transpose(0, 2)  # non-contiguous
    refs = to_np(xs.double()) / np.sqrt((to_np(xs.double()) ** 2).mean(axis=-1, keepdims=True) + eps)
    np.testing.assert_allclose(to_np(F.rms_norm(xs, (3,)).double()), refs, rtol=tol, atol=tol)


def test_rms_norm_module_gradcheck_and_errors():
    m = ember.nn.RMSNorm([3], eps=1e-5, dtype=ember.float64)
    assert repr(m) == "RMSNorm((3,), eps=1e-05, elementwise_affine=True)"
    np.testing.assert_array_equal(to_np(m.weight), [1.0, 1.0, 1.0])
    assert ember.nn.RMSNorm(3, elementwise_affine=False).weight is None
    x = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    w = ember.randn(3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda a, b: F.rms_norm(a, (3,), b, 1e-3), (x, w))
    assert ember.autograd.gradgradcheck(lambda a, b: F.rms_norm(a, (3,), b, 1e-3), (x, w))
    assert F.rms_norm(ember.zeros(0, 3), (3,)).shape == (0, 3)
    with pytest.raises(RuntimeError, match=r"normalized_shape=\[4\], expected input with shape \[\*, 4\]"):
        F.rms_norm(ember.randn(2, 3), (4,))
    with pytest.raises(RuntimeError, match="weight to be of same shape"):
        F.rms_norm(ember.randn(2, 3), (3,), ember.ones(4))
    with pytest.raises(RuntimeError, match="rms_norm: expected a floating point input"):
        F.rms_norm(ember.ones(2, 3, dtype=ember.int64), (3,))


def test_backends_availability():
    assert ember.backends.mkldnn.is_available() is True
    assert ember.backends.openmp.is_available() is True
    assert ember.backends.mkl.is_available() is False
    assert ember.backends.mps.is_available() is False


def test_data_parallel_wraps_the_module():
    m = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.ReLU())
    dp = ember.nn.DataParallel(m)
    assert dp.module is m
    x = ember.randn(4, 3)
    np.testing.assert_array_equal(to_np(dp(x)), to_np(m(x)))
    assert sorted(dp.state_dict()) == ["module.0.bias", "module.0.weight"]  # PyTorch's keys
    dp(x).sum().backward()
    assert m[0].weight.grad is not None
    assert "DataParallel(\n  (module): Sequential(" in repr(dp)
    if not ember.cuda.is_available():
        assert dp.device_ids == [] and dp.output_device is None


def test_sdp_backend_switches_are_recorded_and_results_unchanged(rng):
    from ember.nn.attention import SDPBackend, sdpa_kernel

    cuda = ember.backends.cuda
    q, k, v = (ember.tensor(rng.standard_normal((2, 3, 4)).astype(np.float32)) for _ in range(3))
    ref = to_np(F.scaled_dot_product_attention(q, k, v))
    s = to_np(q) @ to_np(k).transpose(0, 2, 1) / 2.0
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(ref, (p / p.sum(-1, keepdims=True)) @ to_np(v), rtol=1e-5, atol=1e-6)
    with cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
        assert cuda.flash_sdp_enabled() and not cuda.math_sdp_enabled() and not cuda.mem_efficient_sdp_enabled()
        np.testing.assert_array_equal(to_np(F.scaled_dot_product_attention(q, k, v)), ref)
    assert cuda.math_sdp_enabled() and cuda.mem_efficient_sdp_enabled()
    with sdpa_kernel([SDPBackend.MATH]):
        assert cuda.math_sdp_enabled() and not cuda.flash_sdp_enabled() and not cuda.cudnn_sdp_enabled()
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        assert cuda.mem_efficient_sdp_enabled() and not cuda.math_sdp_enabled()
    assert cuda.flash_sdp_enabled() and cuda.cudnn_sdp_enabled()
    with pytest.raises(AssertionError, match="SDPBackend"):
        with sdpa_kernel(["math"]):
            pass
    cuda.enable_flash_sdp(False)
    assert not cuda.flash_sdp_enabled()
    cuda.enable_flash_sdp(True)
    assert cuda.preferred_linalg_library() == "default"
    assert cuda.preferred_linalg_library("cusolver") == "cusolver"
    cuda.preferred_linalg_library("default")
    with pytest.raises(RuntimeError, match="Choose from"):
        cuda.preferred_linalg_library("lapack")


def test_conjugate_transposes_and_vmap_alias(rng):
    a = rng.standard_normal((2, 3, 4))
    t = ember.tensor(a)
    np.testing.assert_array_equal(to_np(t.mH), a.transpose(0, 2, 1))
    np.testing.assert_array_equal(to_np(t.adjoint()), a.transpose(0, 2, 1))
    np.testing.assert_array_equal(to_np(ember.adjoint(t)), a.transpose(0, 2, 1))
    np.testing.assert_array_equal(to_np(t[0].H), a[0].T)
    assert ember.tensor(2.0).H.item() == 2.0
    with pytest.raises(RuntimeError, match="tensor.H is only supported on matrices"):
        t.H
    with pytest.raises(RuntimeError, match="tensor.mH is only supported on matrices"):
        ember.ones(3).mH
    assert ember.vmap is ember.func.vmap


def test_total_norm_and_clipping_with_it(rng):
    ps = [ember.tensor(rng.standard_normal(s), requires_grad=True) for s in ((3,), (2, 2))]
    gs = [rng.standard_normal(s) for s in ((3,), (2, 2))]
    for p, g in zip(ps, gs):
        p.grad = ember.tensor(g)
    total = np.sqrt(sum((g**2).sum() for g in gs))
    n = ember.nn.utils.get_total_norm([p.grad for p in ps])
    np.testing.assert_allclose(n.item(), total, rtol=1e-12)
    np.testing.assert_allclose(
        ember.nn.utils.get_total_norm([p.grad for p in ps], 1.0).item(), sum(np.abs(g).sum() for g in gs), rtol=1e-12
    )
    ember.nn.utils.clip_grads_with_norm_(ps, 0.5, n)
    for p, g in zip(ps, gs):
        np.testing.assert_allclose(to_np(p.grad), g * 0.5 / (total + 1e-6), rtol=1e-12)
    with pytest.raises(RuntimeError, match="non-finite"):
        ember.nn.utils.get_total_norm([ember.tensor([float("inf")])], error_if_nonfinite=True)
