"""ember.backends.cuda: matmul.allow_tf32 and the reduced-precision reduction switches of cuBLAS, and the cuFFT plan
caches (cufft_plan_cache)."""

from ... import _C

_MATMUL_FLAGS = {
    "allow_tf32": "allow_tf32_matmul",
    "allow_fp16_reduced_precision_reduction": "allow_fp16_reduced_precision_reduction",
    "allow_bf16_reduced_precision_reduction": "allow_bf16_reduced_precision_reduction",
}


class cuBLASModule:
    def __getattr__(self, name):
        if name in _MATMUL_FLAGS:
            return _C._cuda_get_flag(_MATMUL_FLAGS[name])
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name not in _MATMUL_FLAGS:
            raise AttributeError(f"Unknown attribute {name}")
        _C._cuda_set_flag(_MATMUL_FLAGS[name], bool(value))


matmul = cuBLASModule()


class cuFFTPlanCacheAttrContextProp:
    """A property of a cuFFTPlanCache whose getter and setter take the cache's device index (a string setter: the
    message of the RuntimeError that setting it raises)."""

    def __init__(self, getter, setter):
        self.getter = getter
        self.setter = setter

    def __get__(self, obj, objtype):
        return self.getter(obj.device_index)

    def __set__(self, obj, val):
        if isinstance(self.setter, str):
            raise RuntimeError(self.setter)
        self.setter(obj.device_index, val)


class cuFFTPlanCache:
    """The cuFFT plan cache of one device: `size` (plans held, read-only), `max_size` (capacity, settable; 4096 by
    default, 0 caches nothing) and `clear()`. Least recently used plans are evicted first (docs/cuda.md)."""

    def __init__(self, device_index):
        self.device_index = device_index

    size = cuFFTPlanCacheAttrContextProp(
        _C._cufft_get_plan_cache_size,
        ".size is a read-only property showing the number of plans currently in the "
        "cache. To change the cache capacity, set cufft_plan_cache.max_size.",
    )

    max_size = cuFFTPlanCacheAttrContextProp(_C._cufft_get_plan_cache_max_size, _C._cufft_set_plan_cache_max_size)

    def clear(self):
        return _C._cufft_clear_plan_cache(self.device_index)


class cuFFTPlanCacheManager:
    """All devices' cuFFT plan caches: `cufft_plan_cache[i]` is device i's; used directly (`.size`, `.max_size`,
    `.clear()`), it is the current device's."""

    __initialized = False

    def __init__(self):
        self.caches = []
        self.__initialized = True

    def __getitem__(self, device):
        from ...cuda import device_count
        from ...cuda._utils import _device_index

        index = _device_index(device)
        if index < 0:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        count = device_count()
        if index >= count:
            raise RuntimeError(
                f"cufft_plan_cache: expected 0 <= device index < {count}, but got device with index {index}"
            )
        if len(self.caches) == 0:
            self.caches.extend(cuFFTPlanCache(i) for i in range(count))
        return self.caches[index]

    def __getattr__(self, name):
        from ...cuda import current_device

        return getattr(self[current_device()], name)

    def __setattr__(self, name, value):
        if self.__initialized:
            from ...cuda import current_device

            return setattr(self[current_device()], name, value)
        return super().__setattr__(name, value)


cufft_plan_cache = cuFFTPlanCacheManager()


def is_built():
    """True when ember was built with CUDA (whether or not a GPU is present)."""
    return _C._cuda_is_built()


# Scaled dot-product attention backends. ember has one implementation of F.scaled_dot_product_attention on every
# device, the composition PyTorch calls MATH (ember/nn/attention.cpp); these switches are kept and read back so that
# programs choosing a backend run unchanged, and select nothing (docs/differences.md), as optimizers' `fused=`.
_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def enable_flash_sdp(enabled):
    _SDP["flash"] = bool(enabled)


def flash_sdp_enabled():
    return _SDP["flash"]


def enable_mem_efficient_sdp(enabled):
    _SDP["mem_efficient"] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _SDP["mem_efficient"]


def enable_math_sdp(enabled):
    _SDP["math"] = bool(enabled)


def math_sdp_enabled():
    return _SDP["math"]


def enable_cudnn_sdp(enabled):
    _SDP["cudnn"] = bool(enabled)


def cudnn_sdp_enabled():
    return _SDP["cudnn"]


class sdp_kernel:
    """Context manager setting the four switches for a block and restoring them after (PyTorch's deprecated form of
    ember.nn.attention.sdpa_kernel)."""

    def __init__(self, enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
        self._new = {
            "flash": enable_flash,
            "math": enable_math,
            "mem_efficient": enable_mem_efficient,
            "cudnn": enable_cudnn,
        }

    def __enter__(self):
        self._old = dict(_SDP)
        _SDP.update({k: bool(v) for k, v in self._new.items()})
        return self

    def __exit__(self, *exc):
        _SDP.update(self._old)
        return False


_LINALG_LIBRARIES = ("default", "cusolver", "magma")
_linalg_library = "default"


def preferred_linalg_library(backend=None):
    """Reads (and with a name, sets) the preferred CUDA linear algebra library; ember's CUDA linalg is cuSOLVER
    whatever is preferred (there is no MAGMA)."""
    global _linalg_library
    if backend is not None:
        name = backend.lower() if isinstance(backend, str) else str(backend)
        if name not in _LINALG_LIBRARIES:
            raise RuntimeError("Unknown input value. Choose from: %s." % ", ".join(_LINALG_LIBRARIES))
        _linalg_library = name
    return _linalg_library
