"""torch.autocast for ember: a context manager (and decorator) that saves, sets and restores the thread-local
autocast state kept in C++ (ember/autocast.h, Note [Autocast]); the casts happen in the ops' C++ entry points."""

import collections.abc
import functools
import warnings

from .. import _C

_SUPPORTED_DTYPES = {"cpu": (_C.bfloat16, _C.float16), "cuda": (_C.float16, _C.bfloat16)}


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _SUPPORTED_DTYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


# ---- the state functions PyTorch has at top level (torch.is_autocast_enabled, ...)


def is_autocast_available(device_type):
    """Returns whether autocast can run on `device_type` ("cpu" and "cuda" can).

    Args:
        device_type (str): the device type, e.g. ``"cuda"``.
    """
    return device_type in _SUPPORTED_DTYPES


def is_autocast_enabled(device_type=None):
    """Returns whether autocast is on for `device_type` on this thread (without an argument: CUDA, as PyTorch).

    Args:
        device_type (str, optional): ``"cpu"`` or ``"cuda"``.
    """
    return _C._autocast_is_enabled(_check_device_type("cuda" if device_type is None else device_type))


def set_autocast_enabled(*args):
    """Turns autocast on or off for a device type on this thread: ``set_autocast_enabled(device_type, enabled)``, or
    ``set_autocast_enabled(enabled)`` for CUDA (PyTorch's older form).

    Args:
        device_type (str, optional): ``"cpu"`` or ``"cuda"``. Default: ``"cuda"``.
        enabled (bool): the new state.
    """
    if len(args) == 1:
        device_type, enabled = "cuda", args[0]
    elif len(args) == 2:
        device_type, enabled = args
    else:
        raise TypeError("set_autocast_enabled() takes (enabled) or (device_type, enabled)")
    _C._autocast_set_enabled(_check_device_type(device_type), bool(enabled))


def get_autocast_dtype(device_type):
    """Returns the dtype autocast casts to on `device_type` on this thread (float16 on CUDA, bfloat16 on the CPU by
    default).

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.
    """
    return _C._autocast_get_dtype(_check_device_type(device_type))


def set_autocast_dtype(device_type, dtype):
    """Sets the dtype autocast casts to on `device_type` on this thread (the autocast class's `dtype`).

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.
        dtype (ember.dtype): float16 or bfloat16.
    """
    _C._autocast_set_dtype(_check_device_type(device_type), dtype)


def is_autocast_cpu_enabled():
    """Returns whether autocast is on for the CPU on this thread (``is_autocast_enabled("cpu")``)."""
    return _C._autocast_is_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    """Turns autocast on the CPU on or off for this thread (``set_autocast_enabled("cpu", enabled)``).

    Args:
        enabled (bool): the new state.
    """
    _C._autocast_set_enabled("cpu", bool(enabled))


def get_autocast_cpu_dtype():
    """Returns the dtype autocast casts to on the CPU on this thread (``get_autocast_dtype("cpu")``)."""
    return _C._autocast_get_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    """Sets the dtype autocast casts to on the CPU on this thread (``set_autocast_dtype("cpu", dtype)``).

    Args:
        dtype (ember.dtype): float16 or bfloat16.
    """
    _C._autocast_set_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    """Returns the dtype autocast casts to on CUDA on this thread (``get_autocast_dtype("cuda")``)."""
    return _C._autocast_get_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    """Sets the dtype autocast casts to on CUDA on this thread (``set_autocast_dtype("cuda", dtype)``).

    Args:
        dtype (ember.dtype): float16 or bfloat16.
    """
    _C._autocast_set_dtype("cuda", dtype)


def is_autocast_cache_enabled():
    """Returns whether autocast keeps the low-precision copies of leaf weights it made for reuse within a region."""
    return _C._is_autocast_cache_enabled()


def set_autocast_cache_enabled(enabled):
    """Turns autocast's cache of casted leaf weights on or off for this thread (on by default; the cache is cleared
    when the outermost autocast region exits).

    Args:
        enabled (bool): the new state.
    """
    _C._set_autocast_cache_enabled(bool(enabled))


def autocast_increment_nesting():
    """Enters an autocast region (the autocast class does this); returns the new depth."""
    return _C._autocast_increment_nesting()


def autocast_decrement_nesting():
    """Leaves an autocast region; returns the new depth (the cast cache is cleared by the caller at 0)."""
    return _C._autocast_decrement_nesting()


def clear_autocast_cache():
    """Drops the low-precision copies of weights autocast cached on this thread."""
    _C._clear_autocast_cache()


def _cuda_unavailable():
    return not _C._cuda_device_count() > 0


class autocast:
    """Runs a region in mixed precision: on `device_type` ("cpu" or "cuda"), the ops that autocast lists run in
    `dtype` (CPU default bfloat16, CUDA default float16), float32-sensitive ones in float32 (docs/amp.md).

    Use as a context manager or a decorator; regions nest, and `enabled=False` turns autocast off inside an
    enabled region. `cache_enabled` keeps the lower-precision copies of weights for the outermost region.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _check_device_type(device_type)
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = _C._is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        enabled = bool(enabled)
        if enabled and self.device == "cuda" and _cuda_unavailable():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
            enabled = False
        if enabled and not any(self.fast_dtype is d for d in _SUPPORTED_DTYPES[self.device]):
            if self.device == "cpu":
                warnings.warn(
                    "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                    "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently."
                )
            else:
                warnings.warn(
                    "In CUDA autocast, but the target dtype is not supported. Disabling autocast.\n"
                    "CUDA Autocast only supports dtypes of torch.float16, torch.bfloat16 currently."
                )
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _C._is_autocast_cache_enabled()
        self.prev = _C._autocast_is_enabled(self.device)
        self.prev_fastdtype = _C._autocast_get_dtype(self.device)
        _C._autocast_set_enabled(self.device, self._enabled)
        if self._enabled:
            _C._autocast_set_dtype(self.device, self.fast_dtype)
        _C._autocast_increment_nesting()
        _C._set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if _C._autocast_decrement_nesting() == 0:
            _C._clear_autocast_cache()
        _C._autocast_set_enabled(self.device, self.prev)
        _C._autocast_set_dtype(self.device, self.prev_fastdtype)
        _C._set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        # A fresh context per call, so that a decorated function may recurse or run on several threads.
        args = (self.device, self.fast_dtype, self._enabled, self._cache_enabled)

        @functools.wraps(func)
        def decorate_autocast(*a, **kw):
            with autocast(args[0], dtype=args[1], enabled=args[2], cache_enabled=args[3]):
                return func(*a, **kw)

        return decorate_autocast


# ---- custom_fwd / custom_bwd for autograd.Function


def _cast(value, device_type, dtype):
    from .._C import Tensor

    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype is not _C.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    try:
        import numpy as np

        if isinstance(value, np.ndarray):
            return value
    except ImportError:
        pass
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom Function's forward: with cast_inputs, its floating inputs are cast to that dtype and it
    runs with autocast off when called in an autocast region; without, it runs in the region's state."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates a custom Function's backward: it runs in the autocast state its forward ran in."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
