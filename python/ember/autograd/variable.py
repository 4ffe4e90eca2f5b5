"""Variable: PyTorch's pre-0.4 wrapper, kept for old programs. Variables and tensors are one type since then:
`Variable(t, requires_grad=True)` gives a tensor sharing t's data, and isinstance(x, Variable) holds for every
tensor."""

import warnings

from .._C import Tensor


class _ExecutionEngine:
    """Variable._execution_engine: what code written for PyTorch's engine (DDP-style reducers) calls."""

    @staticmethod
    def queue_callback(callback):
        """Runs `callback` once the running backward pass has finished its graph, before backward() returns."""
        from .. import _C

        _C._queue_callback(callback)


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with ember.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            from .. import _C

            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError("Variable data has to be a tensor, but got %s" % type(data).__name__)
        return data.detach().requires_grad_(requires_grad)
