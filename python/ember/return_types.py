"""ember.return_types (torch.return_types): the named-tuple types of the ops that return several tensors, so that
`isinstance(r, ember.return_types.max)` works. The types are those the bindings (python/src) build; each also has
its `<name>_out` alias, as in PyTorch."""

import collections as _collections

from . import _C

histogram = _collections.namedtuple("histogram", ("hist", "bin_edges"))
histogramdd = _collections.namedtuple("histogramdd", ("hist", "bin_edges"))


def _binding_types():
    la = _C._linalg
    groups = (_C._return_types, _C._sort_return_types, (_C._frexp_return_type,), la._return_types)
    return [t for group in groups for t in group]


def _doc(t):
    """The docstring of the named tuple type `t`: which function returns it, and its fields."""
    name = t.__name__
    op = "linalg." + name[len("linalg_") :] if name.startswith("linalg_") else name
    return "The named tuple that :func:`ember.%s` returns: (%s)." % (op, ", ".join(t._fields))


__all__ = []
for _t in _binding_types() + [histogram, histogramdd]:
    _t.__module__ = __name__  # pickles by reference to this module; repr shows ember.return_types.<name>
    _t.__qualname__ = _t.__name__
    _t.__doc__ = _doc(_t)
    globals()[_t.__name__] = _t
    globals()[_t.__name__ + "_out"] = _t
    __all__ += [_t.__name__, _t.__name__ + "_out"]
del _t
