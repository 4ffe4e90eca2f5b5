"""ember._dynamo: the parts of torch._dynamo that programs call at start-up, for an eager-only library.

ember has no graph capture (docs/differences.md): functions run eagerly, so `disable`, `allow_in_graph` and the like
return what they are given; `config` holds PyTorch's settings (Note [Compiler settings]); `reset()` has no caches to
clear. The helpers validate their arguments as PyTorch does, so a wrong call still fails.
"""

from .. import _C
from . import _config, _config_defaults
from ._stance import set_stance

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "config",
    "disable",
    "disallow_in_graph",
    "forbid_in_graph",
    "graph_break",
    "is_compiling",
    "list_backends",
    "mark_dynamic",
    "mark_static",
    "mark_static_address",
    "maybe_mark_dynamic",
    "nonstrict_trace",
    "optimize",
    "reset",
    "set_stance",
    "skip_frame",
    "substitute_in_graph",
]

config = _config.install(
    __name__ + ".config",
    _config_defaults.DYNAMO,
    aliases={"cache_size_limit": "recompile_limit", "accumulated_cache_size_limit": "accumulated_recompile_limit"},
)


def _decorator_or(fn, what):
    if fn is None:
        return lambda f: _decorator_or(f, what)
    if not callable(fn):
        raise TypeError(f"{what}: expected a callable, got {type(fn).__name__}")
    return fn


def disable(fn=None, recursive=True, *, reason=None, wrapping=True):
    """Marks ``fn`` to run without compilation: in ember (always eager) returns ``fn`` itself, or a decorator
    without ``fn``."""
    return _decorator_or(fn, "disable")


def allow_in_graph(fn):
    """Tells the compiler to put ``fn`` in the graph as a call; ember runs it eagerly and returns ``fn``."""
    return _decorator_or(fn, "allow_in_graph")


def disallow_in_graph(fn):
    """Tells the compiler to leave ``fn`` out of graphs; ember returns ``fn``."""
    return _decorator_or(fn, "disallow_in_graph")


def forbid_in_graph(fn):
    """Tells the compiler to fail if ``fn`` is traced; ember traces nothing and returns ``fn``."""
    return _decorator_or(fn, "forbid_in_graph")


def nonstrict_trace(traceable_fn):
    """Tells the compiler to trace ``traceable_fn`` non-strictly; ember returns it."""
    return _decorator_or(traceable_fn, "nonstrict_trace")


def assume_constant_result(fn):
    """Tells the compiler that ``fn``'s result is constant; ember calls it every time and returns ``fn``."""
    return _decorator_or(fn, "assume_constant_result")


def substitute_in_graph(original_fn, *, can_constant_fold_through=False, skip_signature_check=False, **kwargs):
    """Registers a traceable substitute for ``original_fn``; ember runs ``original_fn`` and the decorator returns
    the substitute unchanged."""
    _decorator_or(original_fn, "substitute_in_graph")
    return lambda fn: _decorator_or(fn, "substitute_in_graph")


def is_compiling() -> bool:
    """False: ember code never runs inside a compiler."""
    return False


def reset() -> None:
    """Clears the compiler's caches; ember compiles nothing, so there are none."""


def graph_break(msg: str = "") -> None:
    """Ends the current graph; ember builds none, so the program just goes on."""


def skip_frame(msg: str = "") -> None:
    """Tells the compiler to skip the current frame; ember compiles no frame."""


def _check_tensor(t, what):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(t).__name__}")


def _check_dims(t, index, what):
    dims = [] if index is None else [index] if isinstance(index, int) else list(index)
    for d in dims:
        if not -t.dim() <= d < max(t.dim(), 1):
            raise IndexError(f"{what}: dimension {d} is out of range for a {t.dim()}-d tensor")


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None):  # noqa: A002
    """Marks dimensions of ``t`` as dynamic for the compiler (checked, no effect in ember)."""
    _check_tensor(t, "mark_dynamic")
    _check_dims(t, index, "mark_dynamic")


def maybe_mark_dynamic(t, index, *, min=None, max=None):  # noqa: A002
    """As mark_dynamic, as a hint (checked, no effect in ember)."""
    _check_tensor(t, "maybe_mark_dynamic")
    _check_dims(t, index, "maybe_mark_dynamic")


def mark_static(t, index=None):
    """Marks dimensions of ``t`` (all when ``index`` is None) as static for the compiler (no effect in ember)."""
    if isinstance(t, _C.Tensor):
        _check_dims(t, index, "mark_static")


def mark_static_address(t, guard=False):
    """Marks ``t``'s storage address as static for CUDA graphs (checked, no effect in ember)."""
    _check_tensor(t, "mark_static_address")


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The compiler backends: none, since ember runs every program eagerly (``ember.compile`` accepts any backend
    name and returns the model)."""
    return []


def optimize(*args, **kwargs):
    """torch._dynamo.optimize(backend): a decorator that, in ember, returns the function unchanged."""
    return lambda fn: _decorator_or(fn, "optimize")
