"""The converter tables: how each traced operation becomes ONNX operators.

A traced node names its operation by a function (``ember.relu``, ``ember.nn.functional.linear``, ``operator.add``),
a Tensor method (``"view"``) or a submodule (``nn.LSTM``). Functions and methods share one table keyed by the short
name (``relu``, ``add``, ``view``; a function and the method of the same name take the same arguments), modules have
their own keyed by class. A converter is ``fn(ctx, args, kwargs, out)``: ``args``/``kwargs`` hold the node's inputs
(Sym for traced values, plain Python values and tensors for constants), ``out`` is the value the node computed on
the example inputs; it returns the node's value as Syms (see _exporter.Sym).
"""

OPS = {}
MODULES = {}


def op(*names):
    """Registers a converter for the functions and methods named `names`."""

    def deco(fn):
        for n in names:
            OPS[n] = fn
        return fn

    return deco


def module(*classes):
    """Registers a converter ``fn(ctx, mod, qualname, args, kwargs, out)`` for leaf modules of `classes`."""

    def deco(fn):
        for c in classes:
            MODULES[c] = fn
        return fn

    return deco


def module_converter(m):
    """The converter of module `m`'s class or of a base class whose forward it keeps (a subclass that overrides
    forward, as torchvision's LayerNorm2d, is traced through instead)."""
    for cls in type(m).__mro__:
        fn = MODULES.get(cls)
        if fn is not None:
            return fn if type(m).forward is cls.forward else None
    return None


def short_name(target):
    """The table key of a call_function target: its name without the ember./operator./builtins. prefix."""
    from ..fx.node import _qualified_name

    name = _qualified_name(target)
    for prefix in ("ember.nn.functional.", "ember.special.", "ember.linalg.", "ember.", "operator.", "builtins."):
        if name.startswith(prefix) and "." not in name[len(prefix) :]:
            return name[len(prefix) :]
    if name.startswith("math."):
        return name
    return name
