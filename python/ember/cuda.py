"""ember.cuda: device management. Issue 8 adds streams, events and the caching allocator's full API."""
from . import _C


def is_available():
    """True when ember was built with CUDA and a CUDA device is present (never raises)."""
    return _C._cuda_device_count() > 0


def is_built():
    return _C._cuda_is_built()


def device_count():
    return _C._cuda_device_count()


def current_device():
    return _C._cuda_current_device()


def set_device(device):
    from . import device as _device

    if isinstance(device, (str, _device)):
        device = _device(device).index or 0
    _C._cuda_set_device(int(device))


def synchronize(device=None):
    _C._cuda_synchronize(-1 if device is None else int(device))


def get_device_name(device=None):
    return _C._cuda_device_name(current_device() if device is None else int(device))


def memory_stats(device=None):
    return _C._cuda_memory_stats(current_device() if device is None else int(device))


def memory_allocated(device=None):
    return memory_stats(device)["allocated_bytes"]


def max_memory_allocated(device=None):
    return memory_stats(device)["peak_allocated_bytes"]


def memory_reserved(device=None):
    return memory_stats(device)["reserved_bytes"]


def empty_cache():
    _C._cuda_empty_cache()


def manual_seed(seed):
    """Seeds the current CUDA device's generator (a no-op without CUDA, as in PyTorch)."""
    _C._cuda_manual_seed(seed, False)


def manual_seed_all(seed):
    """Seeds every CUDA device's generator. ember.manual_seed does this too."""
    _C._cuda_manual_seed(seed, True)
