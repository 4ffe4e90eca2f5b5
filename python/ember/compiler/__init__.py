"""ember.compiler: torch.compiler's functions for an eager-only library (docs/torch_programs.md).

`compile` is ember.compile (returns the model); the decorators return what they decorate; `is_compiling()` is
False; `config` holds PyTorch's settings (Note [Compiler settings]); `set_stance` is kept and nests.
"""

from .. import _dynamo
from .._compile import compile  # noqa: A004
from .._dynamo import (
    _config,
    _config_defaults,
    allow_in_graph,
    assume_constant_result,
    disable,
    list_backends,
    nonstrict_trace,
    reset,
    set_stance,
    substitute_in_graph,
)

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "compile",
    "config",
    "cudagraph_mark_step_begin",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "list_backends",
    "nonstrict_trace",
    "reset",
    "set_stance",
    "substitute_in_graph",
    "wrap_numpy",
]

config = _config.install(__name__ + ".config", _config_defaults.COMPILER)


def is_compiling() -> bool:
    """False: ember code never runs inside a compiler or an exporter."""
    return False


def is_dynamo_compiling() -> bool:
    """False: ember code is never traced by a compiler."""
    return _dynamo.is_compiling()


def is_exporting() -> bool:
    """False: ember has no exporter."""
    return False


def cudagraph_mark_step_begin() -> None:
    """Marks the start of an iteration for CUDA graph trees; ember records no CUDA graphs."""


def wrap_numpy(fn):
    """Makes a NumPy function take and return tensors: arrays in, tensors out (on ``ember.from_numpy``), so that
    ``wrap_numpy(f)(x)`` works eagerly as it does compiled in PyTorch."""
    import functools

    import numpy as np

    from .. import _C, from_numpy

    def to_np(x):
        return x.numpy(force=True) if isinstance(x, _C.Tensor) else x

    def to_tensor(y):
        if isinstance(y, np.ndarray):
            return from_numpy(y)
        if isinstance(y, (list, tuple)):
            return type(y)(to_tensor(v) for v in y)
        if isinstance(y, dict):
            return {k: to_tensor(v) for k, v in y.items()}
        return y

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return to_tensor(fn(*[to_np(a) for a in args], **{k: to_np(v) for k, v in kwargs.items()}))

    return wrapper
