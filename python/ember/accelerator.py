"""ember.accelerator: PyTorch 2's device-generic API (torch.accelerator), over ember's one accelerator, CUDA.

As in PyTorch, `current_accelerator()` names the accelerator compiled in (cuda for a build with CUDA, None for a
CPU-only build) and `is_available()` whether it can be used now (a GPU and a driver present). The functions that
need a device raise ember.cuda's RuntimeError when there is none; the memory statistics read 0 before any device
memory was used, as PyTorch's. ember has no graph capture, so there is no `Graph` (docs/differences.md).
"""

from . import _C, cuda
from ._C import device as _device

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "current_stream",
    "device_count",
    "device_index",
    "empty_cache",
    "empty_host_cache",
    "get_device_capability",
    "get_memory_info",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_device_idx",
    "set_device_index",
    "set_stream",
    "synchronize",
]


def _require(what):
    """Raises unless an accelerator was compiled in (a CPU-only build has none)."""
    if not cuda.is_built():
        raise RuntimeError(f"ember.accelerator.{what}: this build of ember has no accelerator (it is CPU-only)")


def _index(device, what):
    """A device index from an int, 'cuda:1', device('cuda', 1) or None (the current device)."""
    if device is None:
        return None
    if isinstance(device, str):
        device = _device(device)
    if isinstance(device, _device):
        if device.type != "cuda":
            raise ValueError(f"ember.accelerator.{what}: expected a device of the accelerator (cuda), got {device}")
        return device.index
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    raise TypeError(f"ember.accelerator.{what}: expected an int, str or ember.device, got {type(device).__name__}")


def current_accelerator(check_available: bool = False) -> _device | None:
    """Returns the device of the accelerator available at compilation time (``device(type='cuda')`` for a build
    with CUDA), or None for a CPU-only build. With ``check_available=True`` it also returns None when the
    accelerator cannot be used now (no GPU or no driver).

    Example::

        >>> import ember
        >>> device = ember.accelerator.current_accelerator() if ember.accelerator.is_available() else "cpu"
        >>> ember.ones(2, device=device).device.type in ("cpu", "cuda")
        True
    """
    if not cuda.is_built() or (check_available and not cuda.is_available()):
        return None
    return _device("cuda")


def is_available() -> bool:
    """True when the accelerator was built in and a device can be used now (as ``ember.cuda.is_available()``)."""
    return current_accelerator(check_available=True) is not None


def device_count() -> int:
    """The number of accelerator devices visible (0 without one); never initialises the device."""
    return cuda.device_count() if cuda.is_built() else 0


def current_device_index() -> int:
    """The index of the current accelerator device; raises RuntimeError when no device can be used."""
    _require("current_device_index")
    return cuda.current_device()


def current_device_idx() -> int:
    """(Deprecated) ``current_device_index()``."""
    return current_device_index()


def set_device_index(device, /) -> None:
    """Makes ``device`` (an int, 'cuda:N' or a device) the current accelerator device; None leaves it."""
    _require("set_device_index")
    idx = _index(device, "set_device_index")
    if idx is not None:
        cuda.set_device(idx)


def set_device_idx(device, /) -> None:
    """(Deprecated) ``set_device_index(device)``."""
    set_device_index(device)


class device_index:
    """Context manager that makes ``device`` (an int) the current accelerator device inside the block and restores
    the previous one after it; ``None`` changes nothing.

    Example::

        >>> import ember
        >>> with ember.accelerator.device_index(None):
        ...     pass
    """

    def __init__(self, device: int | None, /) -> None:
        self.idx = device
        self.prev_idx = None

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc_info) -> None:
        if self.idx is not None:
            set_device_index(self.prev_idx)


def current_stream(device=None, /):
    """The current stream of ``device`` (default: the current device), an ``ember.cuda.Stream``."""
    _require("current_stream")
    return cuda.current_stream(_index(device, "current_stream"))


def set_stream(stream) -> None:
    """Makes ``stream`` the current stream of its device."""
    _require("set_stream")
    cuda.set_stream(stream)


def synchronize(device=None, /) -> None:
    """Waits for all work on ``device`` (default: the current device) to finish."""
    _require("synchronize")
    cuda.synchronize(_index(device, "synchronize"))


def get_device_capability(device=None, /) -> dict:
    """What the device supports: ``{'supported_dtypes': set of dtypes}``, the dtypes ember can allocate and convert
    between on it."""
    _require("get_device_capability")
    cuda.get_device_properties(_index(device, "get_device_capability"))  # raises without a device
    return {"supported_dtypes": {d for d in vars(_C).values() if isinstance(d, _C.dtype)}}


def get_memory_info(device_index=None, /) -> tuple[int, int]:
    """(free, total) bytes of the device, as the driver reports them."""
    _require("get_memory_info")
    return cuda.mem_get_info(_index(device_index, "get_memory_info"))


def empty_cache() -> None:
    """Returns the caching allocator's unused blocks to the driver (no effect without an accelerator)."""
    if cuda.is_built():
        cuda.empty_cache()


def empty_host_cache() -> None:
    """Returns the unused pinned host memory to the driver. ember's ``ember.cuda.empty_cache()`` releases the pinned
    host cache together with the device cache, so this does the same."""
    if cuda.is_built():
        cuda.empty_cache()


def _stat(fn):
    def stat(device_index=None, /):
        return fn(_index(device_index, fn.__name__)) if cuda.is_built() else 0

    stat.__name__ = stat.__qualname__ = fn.__name__
    stat.__doc__ = f"As ``ember.cuda.{fn.__name__}`` for the accelerator device (0 in a CPU-only build)."
    return stat


memory_allocated = _stat(cuda.memory_allocated)
max_memory_allocated = _stat(cuda.max_memory_allocated)
memory_reserved = _stat(cuda.memory_reserved)
max_memory_reserved = _stat(cuda.max_memory_reserved)


def memory_stats(device_index=None, /):
    """The caching allocator's statistics for the device, as ``ember.cuda.memory_stats`` (empty in a CPU-only
    build)."""
    import collections

    return cuda.memory_stats(_index(device_index, "memory_stats")) if cuda.is_built() else collections.OrderedDict()


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    """Resets the accumulated (historical) allocator statistics of the device."""
    if cuda.is_built():
        cuda.reset_accumulated_memory_stats(_index(device_index, "reset_accumulated_memory_stats"))


def reset_peak_memory_stats(device_index=None, /) -> None:
    """Resets the peak allocator statistics of the device."""
    if cuda.is_built():
        cuda.reset_peak_memory_stats(_index(device_index, "reset_peak_memory_stats"))
