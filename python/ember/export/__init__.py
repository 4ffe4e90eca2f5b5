"""``ember.export``: the parts of ``torch.export`` that describe dynamic shapes: ``Dim`` (a named, bounded dynamic
axis), ``Dim.AUTO``/``Dim.DYNAMIC``/``Dim.STATIC`` and ``dims``. ember's ONNX exporter takes them in
``ember.onnx.export(..., dynamic_shapes=...)`` (docs/onnx.md); ember has no ``torch.export.export`` (its exporter
traces with ember.fx)."""

import sys

__all__ = ["Dim", "dims"]

_INT_OO = sys.maxsize - 1  # the unbounded maximum


class _DimHint:
    """``Dim.AUTO``, ``Dim.DYNAMIC``, ``Dim.STATIC``: an axis to treat as dynamic (AUTO, DYNAMIC) or static (STATIC)
    without naming it."""

    __slots__ = ("type",)

    def __init__(self, type_):
        self.type = type_

    def __repr__(self):
        return "DimHint(%s)" % self.type

    def __eq__(self, other):
        return isinstance(other, _DimHint) and other.type == self.type

    def __hash__(self):
        return hash(("DimHint", self.type))


class Dim:
    """A dynamic axis: ``Dim("batch", min=1, max=64)``. The same Dim on several axes says they are equal; its name
    becomes the ONNX graph's symbolic dimension."""

    AUTO = _DimHint("AUTO")
    DYNAMIC = _DimHint("DYNAMIC")
    STATIC = _DimHint("STATIC")

    def __init__(self, name, *, min=None, max=None):  # noqa: A002  (PyTorch's names)
        _min = 0 if min is None else min
        _max = _INT_OO if max is None else max
        if not (_max > _min):
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        if not isinstance(name, str) or not name.isidentifier():
            raise AssertionError(f"Dim name must be a valid identifier, got {name}")
        self.__name__ = name
        self.min = _min
        self.max = _max

    def __repr__(self):
        lo = None if self.min == 2 else self.min
        hi = None if self.max == _INT_OO else self.max
        if lo is None and hi is None:
            return f"Dim('{self.__name__}')"
        if lo is None:
            return f"Dim('{self.__name__}', max={hi})"
        if hi is None:
            return f"Dim('{self.__name__}', min={lo})"
        return f"Dim('{self.__name__}', min={lo}, max={hi})"


def dims(*names, min=None, max=None):  # noqa: A002
    """Several Dims with the same bounds: ``batch, seq = dims("batch", "seq")``."""
    return tuple(Dim(name, min=min, max=max) for name in names)
