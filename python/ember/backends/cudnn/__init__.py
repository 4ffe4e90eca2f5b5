"""ember.backends.cudnn: enabled, benchmark, deterministic, allow_tf32 (module attributes that read and write the C++
switches), is_available(), version() and the flags(...) context manager."""

import contextlib
import sys
import types

from ... import _C


def version():
    """cuDNN's version (e.g. 90100) when its library can be loaded, else None."""
    v = _C._cudnn_version()
    return v or None


def is_available():
    """True when ember was built with CUDA and cuDNN can be loaded (as PyTorch, whether or not a GPU is present)."""
    return _C._cuda_is_built() and version() is not None


def is_acceptable(tensor):
    return bool(_C._cuda_get_flag("cudnn_enabled")) and tensor.is_cuda and is_available()


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None):
    """Sets the given switches; returns the previous values (enabled, benchmark, benchmark_limit, deterministic,
    allow_tf32)."""
    orig = (
        _C._cuda_get_flag("cudnn_enabled"),
        _C._cuda_get_flag("cudnn_benchmark"),
        None,
        _C._cuda_get_flag("cudnn_deterministic"),
        _C._cuda_get_flag("cudnn_allow_tf32"),
    )
    for name, v in (
        ("cudnn_enabled", _enabled),
        ("cudnn_benchmark", _benchmark),
        ("cudnn_deterministic", _deterministic),
        ("cudnn_allow_tf32", _allow_tf32),
    ):
        if v is not None:
            _C._cuda_set_flag(name, bool(v))
    return orig


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """with flags(enabled=..., ...): the switches hold these values for the block and are restored after."""
    orig = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    try:
        yield
    finally:
        set_flags(*orig)


def _flag_property(name):
    return property(lambda self: _C._cuda_get_flag(name), lambda self, v: _C._cuda_set_flag(name, bool(v)))


class _CudnnModule(types.ModuleType):
    enabled = _flag_property("cudnn_enabled")
    benchmark = _flag_property("cudnn_benchmark")
    deterministic = _flag_property("cudnn_deterministic")
    allow_tf32 = _flag_property("cudnn_allow_tf32")
    benchmark_limit = 10


sys.modules[__name__].__class__ = _CudnnModule
