"""ember.jit: TorchScript's entry points, for programs that decorate or wrap code with them.

ember has no graph compiler (docs/differences.md): `script` and `trace` return what they are given, which then runs
eagerly with the same results as before (ember's per-op overhead is already low); the decorators that only steer the
TorchScript compiler (`ignore`, `unused`, `export`, `interface`) return the function unchanged. Saving or loading a
TorchScript archive raises NotImplementedError naming the alternative (`ember.save(model.state_dict())`).
"""

import warnings

__all__ = [
    "script",
    "trace",
    "trace_module",
    "ignore",
    "unused",
    "export",
    "interface",
    "is_scripting",
    "is_tracing",
    "annotate",
    "Final",
    "fork",
    "wait",
    "save",
    "load",
    "freeze",
    "optimize_for_inference",
    "enable_onednn_fusion",
    "onednn_fusion_enabled",
    "Attribute",
    "ScriptModule",
    "ScriptFunction",
    "script_if_tracing",
]


def script(obj=None, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Returns obj unchanged: ember runs it eagerly (TorchScript compiles it)."""
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect.", FutureWarning, stacklevel=2)
    return obj


def trace(
    func,
    example_inputs=None,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-5,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_kwarg_inputs=None,
    _store_inputs=True,
):
    """Returns func (a function or a module) unchanged: ember runs it eagerly. Unlike a TorchScript trace, Python
    control flow keeps depending on the inputs."""
    if not callable(func):
        raise TypeError("trace: expected a function or an nn.Module, got %s" % type(func).__name__)
    return func


def script_if_tracing(fn):
    """Returns fn (nothing is ever traced)."""
    return fn


def trace_module(
    mod,
    inputs,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-5,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_inputs_is_kwarg=False,
    _store_inputs=True,
):
    """Returns mod unchanged (see trace)."""
    return trace(mod)


def _identity_decorator(fn=None, **kwargs):
    if fn is None:  # used as @ignore(drop=True)
        return lambda f: f
    return fn


ignore = _identity_decorator
unused = _identity_decorator
export = _identity_decorator
interface = _identity_decorator


def is_scripting():
    """False: ember code never runs inside the TorchScript compiler."""
    return False


def is_tracing():
    """False: ember never traces."""
    return False


def annotate(the_type, the_value):
    """Returns the_value (a type hint for the TorchScript compiler)."""
    return the_value


class _FinalType:
    def __getitem__(self, item):
        return item


Final = _FinalType()


class Attribute:
    """`self.x = ember.jit.Attribute(value, type)` stores value (TorchScript's typed attribute)."""

    def __new__(cls, value, type=None):  # noqa: A002
        return value


def fork(func, *args, **kwargs):
    """Runs func(*args, **kwargs) now and returns a future holding its result (TorchScript may run it on another
    thread; ember's ops already use every core)."""
    from .futures import Future

    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """The result of a future from fork."""
    return future.wait()


def _no_archive(what):
    raise NotImplementedError(
        "ember.jit.%s: ember has no TorchScript archives; save the weights with ember.save(model.state_dict()) and "
        "rebuild the model in Python" % what
    )


def save(m, f, _extra_files=None):
    _no_archive("save")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    _no_archive("load")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Returns mod unchanged (it is not a ScriptModule; nothing to freeze)."""
    return mod


def optimize_for_inference(mod, other_methods=None):
    """Returns mod unchanged."""
    return mod


_onednn_fusion = False


def enable_onednn_fusion(enabled):
    global _onednn_fusion
    _onednn_fusion = bool(enabled)


def onednn_fusion_enabled():
    return _onednn_fusion


class ScriptModule:
    """Never instantiated by ember (script returns modules unchanged); exists for isinstance checks, which are
    False for every ember object."""


class ScriptFunction:
    """As ScriptModule: for isinstance checks only."""
