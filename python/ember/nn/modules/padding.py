"""Padding modules."""

from .. import functional as F
from .module import Module


def _expand(padding, n):
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    return tuple(padding)


class _PadNd(Module):
    _mode = "constant"
    _n = 1

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = _expand(padding, self._n)
        if self._mode == "constant":
            self.value = value if value is not None else 0.0

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return (
            "padding={}, value={}".format(self.padding, self.value)
            if self._mode == "constant"
            else "{}".format(self.padding)
        )


def _make(name, mode, n, needs_value=False):
    def __init__(self, padding, value=None):
        if needs_value and value is None:
            raise TypeError("%s.__init__() missing 1 required positional argument: 'value'" % name)
        _PadNd.__init__(self, padding, value)

    cls = type(name, (_PadNd,), {"_mode": mode, "_n": n, "__init__": __init__, "__module__": __name__})
    return cls


ConstantPad1d = _make("ConstantPad1d", "constant", 1, True)
ConstantPad2d = _make("ConstantPad2d", "constant", 2, True)
ConstantPad3d = _make("ConstantPad3d", "constant", 3, True)
ReflectionPad1d = _make("ReflectionPad1d", "reflect", 1)
ReflectionPad2d = _make("ReflectionPad2d", "reflect", 2)
ReflectionPad3d = _make("ReflectionPad3d", "reflect", 3)
ReplicationPad1d = _make("ReplicationPad1d", "replicate", 1)
ReplicationPad2d = _make("ReplicationPad2d", "replicate", 2)
ReplicationPad3d = _make("ReplicationPad3d", "replicate", 3)
CircularPad1d = _make("CircularPad1d", "circular", 1)
CircularPad2d = _make("CircularPad2d", "circular", 2)
CircularPad3d = _make("CircularPad3d", "circular", 3)


class ZeroPad2d(_PadNd):
    _n = 2

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return "{}".format(self.padding)


class ZeroPad1d(ZeroPad2d):
    _n = 1
