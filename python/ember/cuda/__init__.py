"""ember.cuda: devices, streams, events and the caching allocator, with PyTorch's names (docs/cuda.md).

CUDA is initialised lazily: importing ember, is_available() and device_count() never start it; the first function
that needs a device does. A process forked after that cannot use CUDA (use the 'spawn' start method).
"""

from .. import _C
from .._C import OutOfMemoryError  # a RuntimeError, as PyTorch's torch.cuda.OutOfMemoryError
from .._tensor_types import cuda_types as _legacy_types
from . import (
    amp,  # noqa: F401
    nvtx,  # noqa: F401
)
from ._utils import _device_index
from .memory import (  # noqa: F401
    caching_allocator_alloc,
    caching_allocator_delete,
    clock_rate,
    device_memory_used,
    empty_cache,
    get_allocator_backend,
    host_memory_stats,
    list_gpu_processes,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    memory_usage,
    power_draw,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
    temperature,
    utilization,
)
from .random import (  # noqa: F401
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from .streams import Event, ExternalStream, Stream, StreamContext, current_stream, default_stream, set_stream, stream  # noqa: F401

globals().update(_legacy_types)  # FloatTensor, LongTensor, ... (CUDA tensors of those dtypes)

has_half = True
has_magma = False  # ember's CUDA linear algebra is cuSOLVER's


class DeferredCudaCallError(Exception):
    pass


class CudaError(RuntimeError):
    """A CUDA runtime error code, with the runtime's description."""

    def __init__(self, code):
        self.code = code
        super().__init__(f"{_C._cuda_error_string(code)} ({code})")


def check_error(res):
    """Raises CudaError unless `res` is cudaSuccess (0)."""
    if res != 0:
        raise CudaError(res)


def __getattr__(name):
    # default_generators: a tuple of each device's ember.Generator, looked up when asked for, so that importing ember
    # never touches the driver (Note [Lazy CUDA initialisation]).
    if name == "default_generators":
        return _C._cuda_default_generators()
    raise AttributeError(f"module 'ember.cuda' has no attribute '{name}'")


def is_available():
    """True when ember was built with CUDA and a CUDA device is present (never raises, never initialises CUDA)."""
    return _C._cuda_device_count() > 0


def is_built():
    return _C._cuda_is_built()


def device_count():
    return _C._cuda_device_count()


def is_initialized():
    """True once CUDA has been initialised in this process (False in a child forked after that)."""
    return _C._cuda_is_initialized()


def init():
    """Initialises CUDA now (otherwise the first function that needs a device does)."""
    _C._cuda_init()


_lazy_init = init


def current_device():
    return _C._cuda_current_device()


def set_device(device):
    """Sets the current device; a negative index or None does nothing (as PyTorch)."""
    idx = _device_index(device)
    if idx >= 0:
        _C._cuda_set_device(idx)


class device:
    """Context manager that makes `device` current for its block (None or a negative index: no change)."""

    def __init__(self, device):
        self.idx = _device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return
        _C._cuda_check("device")
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            _C._cuda_set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev_idx >= 0 and self.prev_idx != self.idx:
            _C._cuda_set_device(self.prev_idx)
        return False


class device_of(device):
    """device(...) for the device of a tensor (no change for a CPU tensor)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class _CudaDeviceProperties:
    def __init__(self, name, major, minor, total_memory, multi_processor_count):
        self.name, self.major, self.minor = name, major, minor
        self.total_memory, self.multi_processor_count = total_memory, multi_processor_count

    def __repr__(self):
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def _current_or(device, what):
    _C._cuda_check(what)
    idx = _device_index(device)
    return current_device() if idx < 0 else idx


def get_device_properties(device=None):
    return _CudaDeviceProperties(*_C._cuda_device_properties(_current_or(device, "get_device_properties")))


def get_device_name(device=None):
    return _C._cuda_device_name(_current_or(device, "get_device_name"))


def get_device_capability(device=None):
    p = get_device_properties(_current_or(device, "get_device_capability"))
    return p.major, p.minor


def synchronize(device=None):
    """Waits for all work on the device (raises what kernels reported, Note [Deferred device errors])."""
    _C._cuda_synchronize(_current_or(device, "synchronize"))


def get_arch_list():
    """The architectures this build's kernels were compiled for (['sm_90']); [] without CUDA."""
    if not is_available():
        return []
    return [f"sm_{a}" for a in _C._cuda_arch_list()]


def get_gencode_flags():
    """nvcc's -gencode flags for get_arch_list() ('' without CUDA)."""
    return " ".join(f"-gencode compute=compute_{a[3:]},code=sm_{a[3:]}" for a in get_arch_list())


def is_bf16_supported(including_emulation=True):
    """True when the current device computes in bfloat16 natively (compute capability 8.0 or later)."""
    if not is_available():
        return False
    return get_device_capability()[0] >= 8


def is_tf32_supported():
    """True when the current device has TF32 tensor cores (compute capability 8.0 or later)."""
    return is_available() and get_device_capability()[0] >= 8


def get_stream_from_external(data_ptr, device=None):
    """An ExternalStream around the cudaStream_t `data_ptr` (an int) made outside ember."""
    return ExternalStream(data_ptr, device)


def can_device_access_peer(device, peer):
    """Whether `device` can access the memory of `peer` directly (cudaDeviceCanAccessPeer)."""
    _C._cuda_check("can_device_access_peer")
    device, peer = (current_device() if i < 0 else i for i in (_device_index(device), _device_index(peer)))
    if device < 0 or device >= device_count():
        raise AssertionError("Invalid device id")
    if peer < 0 or peer >= device_count():
        raise AssertionError("Invalid peer device id")
    return _C._cuda_can_device_access_peer(device, peer)


def current_blas_handle():
    """The calling thread's cuBLAS handle (cublasHandle_t) of the current device, as an int."""
    return _C._cuda_current_blas_handle()


def ipc_collect():
    """Frees CUDA memory shared with other processes that they no longer use. ember shares no CUDA memory between
    processes (docs/differences.md), so there is nothing to free."""
    _C._cuda_check("ipc_collect")


def is_current_stream_capturing():
    """False: ember has no CUDA graph capture (docs/differences.md)."""
    return False


def set_sync_debug_mode(debug_mode):
    """What to do when an operation makes the host wait for the GPU (item(), copies to the host, nonzero, ...):
    0 or "default": nothing; 1 or "warn": a UserWarning; 2 or "error": a RuntimeError. Explicit waits
    (synchronize(), Stream.synchronize(), Event.synchronize()) are exempt."""
    _C._cuda_check("set_sync_debug_mode")
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        debug_mode = modes[debug_mode]
    _C._cuda_set_sync_debug_mode(debug_mode)


def get_sync_debug_mode():
    """The sync debug mode: 0 (default), 1 (warn) or 2 (error)."""
    _C._cuda_check("get_sync_debug_mode")
    return _C._cuda_get_sync_debug_mode()
