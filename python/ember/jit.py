"""ember.jit: the parts of torch.jit that model code calls in eager programs. ember has no TorchScript: `script` and
`trace` return what they are given (the eager function or module, which computes the same values), so code decorated
with @torch.jit.script runs; `is_scripting()` and `is_tracing()` are False; `ignore`, `unused`, `export` leave
functions as they are; `annotate(T, v)` is v; `Final` is typing.Final. Saving or loading TorchScript raises."""
import typing
import warnings

Final = typing.Final


def is_scripting():
    return False


def is_tracing():
    return False


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Returns `obj` unchanged: ember runs it eagerly (no TorchScript compilation)."""
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect.", stacklevel=2)
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """Returns `func` unchanged: ember runs it eagerly, so data-dependent control flow is not frozen as a trace
    would freeze it."""
    return func


def script_if_tracing(fn):
    return fn


def _identity_decorator(drop_or_fn=None, **kwargs):
    if callable(drop_or_fn):
        return drop_or_fn
    return lambda fn: fn


ignore = _identity_decorator
unused = _identity_decorator


def export(fn):
    return fn


def annotate(the_type, the_value):
    return the_value


def _no_torchscript(what):
    def fn(*args, **kwargs):
        raise NotImplementedError("ember.jit.%s: ember has no TorchScript (save the state_dict with ember.save)"
                                  % what)
    fn.__name__ = what
    return fn


save = _no_torchscript("save")
load = _no_torchscript("load")
freeze = _no_torchscript("freeze")
