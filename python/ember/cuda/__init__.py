"""ember.cuda: devices, streams, events and the caching allocator, with PyTorch's names (docs/cuda.md).

CUDA is initialised lazily: importing ember, is_available() and device_count() never start it; the first function
that needs a device does. A process forked after that cannot use CUDA (use the 'spawn' start method).
"""
from .. import _C
from .._C import OutOfMemoryError  # a RuntimeError, as PyTorch's torch.cuda.OutOfMemoryError

from ._utils import _device_index
from . import amp  # noqa: F401
from .streams import Event, Stream, StreamContext, current_stream, default_stream, set_stream, stream  # noqa: F401
from .memory import (empty_cache, host_memory_stats, max_memory_allocated, max_memory_cached,  # noqa: F401
                     max_memory_reserved, mem_get_info, memory_allocated, memory_cached, memory_reserved,
                     memory_stats, memory_summary, reset_accumulated_memory_stats, reset_max_memory_allocated,
                     reset_peak_memory_stats)


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
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


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


def manual_seed(seed):
    """Seeds the current CUDA device's generator (a no-op without CUDA, as in PyTorch)."""
    _C._cuda_manual_seed(seed, False)


def manual_seed_all(seed):
    """Seeds every CUDA device's generator. ember.manual_seed does this too."""
    _C._cuda_manual_seed(seed, True)
