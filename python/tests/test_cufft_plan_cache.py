"""ember.backends.cuda.cufft_plan_cache (docs/cuda.md, "FFTs (cuFFT) and the plan cache"): PyTorch's classes and
errors everywhere, the cache's behaviour where a GPU is (the cache's logic itself is tested without one in
tests/test_plan_cache.cpp)."""

import numpy as np
import pytest
from both_libraries import needs_torch, run_ember, run_torch

import ember
from ember.backends import cuda as backends_cuda

HAS_GPU = ember.cuda.is_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")
no_gpu = pytest.mark.skipif(HAS_GPU, reason="checks the errors of a machine without a CUDA device")


def test_pytorchs_names():
    for name in ("cuFFTPlanCache", "cuFFTPlanCacheManager", "cuFFTPlanCacheAttrContextProp", "cufft_plan_cache"):
        assert hasattr(backends_cuda, name), name
    assert isinstance(backends_cuda.cufft_plan_cache, backends_cuda.cuFFTPlanCacheManager)


def test_size_is_read_only_with_pytorchs_message():
    cache = backends_cuda.cuFFTPlanCache(0)  # setting size raises before any device is touched
    with pytest.raises(RuntimeError, match=r"^\.size is a read-only property showing the number of plans") as e:
        cache.size = 3
    assert "To change the cache capacity, set cufft_plan_cache.max_size." in str(e.value)


@needs_torch
def test_errors_are_pytorchs():
    program = """
result = []
def attempt(f):
    try:
        f()
        result.append("no error")
    except Exception as e:
        result.append([type(e).__name__, str(e) if isinstance(e, RuntimeError) else ""])

def set_size():
    torch.backends.cuda.cuFFTPlanCache(0).size = 1

attempt(set_size)
attempt(lambda: torch.backends.cuda.cufft_plan_cache["cpu"])
attempt(lambda: torch.backends.cuda.cufft_plan_cache[torch.cuda.device_count()])
result.append(sorted(n for n in dir(torch.backends.cuda.cuFFTPlanCache) if not n.startswith("_")))
"""
    ours, theirs = run_ember(program), run_torch(program)
    assert ours[0] == theirs[0]
    assert ours[1][0] == theirs[1][0] == "ValueError"
    assert ours[2] == theirs[2]  # "cufft_plan_cache: expected 0 <= device index < N, but got device with index N"
    assert ours[3] == theirs[3] == ["clear", "max_size", "size"]


def test_index_must_be_a_cuda_device():
    with pytest.raises(ValueError, match="Expected a cuda device"):
        backends_cuda.cufft_plan_cache["cpu"]
    with pytest.raises(ValueError, match="with a specified index"):
        backends_cuda.cufft_plan_cache[None]


@no_gpu
def test_without_a_device_every_access_raises():
    with pytest.raises(
        RuntimeError, match=r"cufft_plan_cache: expected 0 <= device index < 0, but got device with index 0"
    ):
        backends_cuda.cufft_plan_cache[0]
    with pytest.raises(RuntimeError, match="device index < 0, but got device with index 1"):
        backends_cuda.cufft_plan_cache["cuda:1"]
    with pytest.raises(RuntimeError):
        backends_cuda.cufft_plan_cache.size  # the current device: none
    # The C++ functions themselves refuse a device that is not there (or a build without CUDA).
    with pytest.raises(RuntimeError, match="cufft_plan_cache"):
        backends_cuda.cuFFTPlanCache(0).max_size
    with pytest.raises(RuntimeError, match="cufft_plan_cache"):
        backends_cuda.cuFFTPlanCache(0).clear()


@pytest.fixture
def cache():
    c = backends_cuda.cufft_plan_cache[0]
    before = c.max_size
    c.clear()
    yield c
    c.max_size = before
    c.clear()


def _fft_matches_numpy(x):
    got = ember.fft.fft(x).cpu().numpy()
    np.testing.assert_allclose(got, np.fft.fft(x.cpu().numpy()), rtol=1e-4, atol=1e-4)


@needs_gpu
def test_plans_are_made_once_per_layout(cache):
    assert cache.size == 0 and cache.max_size == 4096
    x = ember.randn(4, 64, device="cuda")
    _fft_matches_numpy(x)
    assert cache.size == 1
    _fft_matches_numpy(x * 2)  # the same layout: found in the cache
    assert cache.size == 1
    _fft_matches_numpy(ember.randn(4, 48, device="cuda"))  # another length
    assert cache.size == 2
    ember.fft.rfft(x)  # another kind
    assert cache.size == 3
    assert backends_cuda.cufft_plan_cache.size == 3  # the current device's
    assert backends_cuda.cufft_plan_cache[0] is cache
    assert backends_cuda.cufft_plan_cache["cuda:0"] is cache


@needs_gpu
def test_max_size_evicts_the_least_recently_used(cache):
    cache.max_size = 2
    assert cache.max_size == 2
    for n in (8, 16, 32):
        _fft_matches_numpy(ember.randn(3, n, device="cuda"))
    assert cache.size == 2
    cache.max_size = 1
    assert cache.size == 1
    backends_cuda.cufft_plan_cache.max_size = 5  # through the manager: the current device's
    assert cache.max_size == 5
    cache.clear()
    assert cache.size == 0


@needs_gpu
def test_max_size_zero_caches_nothing_and_still_computes(cache):
    cache.max_size = 0
    for n in (8, 8, 13):
        _fft_matches_numpy(ember.randn(2, n, device="cuda"))
    assert cache.size == 0


@needs_gpu
def test_negative_max_size_raises(cache):
    with pytest.raises(RuntimeError, match="cuFFT plan cache size must be non-negative, but got -1"):
        cache.max_size = -1
    assert cache.max_size == 4096
    with pytest.raises(RuntimeError, match="expected 0 <= device index"):
        backends_cuda.cufft_plan_cache[ember.cuda.device_count()]


@needs_gpu
def test_cuda_fft_matches_numpy_on_strided_layouts(cache):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((6, 10, 7)) + 1j * rng.standard_normal((6, 10, 7))).astype(np.complex128)
    x = ember.tensor(a, device="cuda")
    for dim in (0, 1, 2):
        np.testing.assert_allclose(ember.fft.fft(x, dim=dim).cpu().numpy(), np.fft.fft(a, axis=dim), rtol=1e-10)
    t = x.transpose(0, 2)[:, ::2]
    np.testing.assert_allclose(
        ember.fft.ifftn(t, norm="ortho").cpu().numpy(),
        np.fft.ifftn(a.transpose(2, 1, 0)[:, ::2], norm="ortho"),
        rtol=1e-10,
    )
    r = rng.standard_normal((5, 12))
    xr = ember.tensor(r, device="cuda")
    np.testing.assert_allclose(ember.fft.rfft(xr, dim=0).cpu().numpy(), np.fft.rfft(r, axis=0), rtol=1e-10)
    spec = ember.fft.rfft(xr)
    np.testing.assert_allclose(ember.fft.irfft(spec, n=12).cpu().numpy(), r, rtol=1e-10, atol=1e-12)
