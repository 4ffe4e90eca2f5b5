"""Parameter: a Tensor that a Module registers as a parameter when assigned as an attribute."""
from .. import _C
from .._C import Tensor


class Parameter(Tensor):
    """A leaf tensor sharing `data`'s storage, with requires_grad (default True)."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        super().__init__(data)  # an alias of data: same storage, no history
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class UninitializedParameter(Parameter):
    """Accepted for API compatibility; ember has no lazy modules."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("ember has no lazy modules (UninitializedParameter)")


def is_lazy(param):
    return False
