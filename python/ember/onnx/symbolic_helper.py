"""Helpers for symbolic functions (torch.onnx.symbolic_helper): ``parse_args`` turns a symbolic's arguments into
the Python values its descriptors name. ember already gives symbolics constants as Python values (Note [custom
symbolics]), so this converts them and checks that a descriptor other than "v" and "none" gets no traced value."""

import functools

from .. import _C
from ._symbolic import Value
from .errors import OnnxExporterError

__all__ = ["parse_args"]


def _convert(v, desc, fn_name, i):
    if desc in ("v", "none"):
        return v
    if isinstance(v, Value):
        raise OnnxExporterError(
            "ember.onnx: %s: argument %d is a traced value, but parse_args asks for a constant ('%s')"
            % (fn_name, i, desc)
        )
    if v is None:
        return None
    if isinstance(v, _C.Tensor) and desc in ("i", "f", "b"):
        v = v.item()
    if desc == "i":
        return int(v)
    if desc == "f":
        return float(v)
    if desc == "b":
        return bool(v)
    if desc == "s":
        return str(v)
    if desc == "t":
        return v
    if desc == "is":
        return [int(x) for x in (v if isinstance(v, (list, tuple)) else v.tolist())]
    if desc == "fs":
        return [float(x) for x in (v if isinstance(v, (list, tuple)) else v.tolist())]
    raise ValueError("parse_args: unknown descriptor '%s' (v, i, f, b, s, t, is, fs, none)" % desc)


def parse_args(*arg_descriptors):
    """Decorator: converts the symbolic's arguments (after ``g``) by descriptor: "v" a graph value as it is, "i"
    int, "f" float, "b" bool, "s" str, "t" tensor, "is"/"fs" lists, "none" unchanged."""

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(g, *args, **kwargs):
            if len(args) > len(arg_descriptors) and kwargs:
                raise ValueError("parse_args: %s got more arguments than descriptors" % fn.__name__)
            conv = [_convert(a, d, fn.__name__, i) for i, (a, d) in enumerate(zip(args, arg_descriptors))]
            return fn(g, *conv, *args[len(arg_descriptors) :], **kwargs)

        return wrapper

    return decorator


def _get_tensor_sizes(x, allow_nonstatic=True):
    """The example's sizes of graph value `x` (None when unknown)."""
    return x.type().sizes() if isinstance(x, Value) else None
