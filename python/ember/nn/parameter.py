"""Parameter: a Tensor that a Module registers as a parameter when assigned as an attribute."""

from .. import _C
from .._C import Tensor


class Parameter(Tensor):
    """A leaf tensor sharing `data`'s storage, with requires_grad (default True)."""

    # As PyTorch's: Parameters take no part in __torch_function__, and ops on them return plain Tensors.
    __torch_function__ = _C._disabled_torch_function_impl

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


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: a 0-element tensor holding only a device, a dtype
    (and requires_grad) until materialize(shape) gives it data and turns it into a Parameter / Tensor (lazy modules
    call it on their first forward). Its shape cannot be read before that."""

    __slots__ = ()  # so that materialize can change __class__ to the plain class
    cls_to_become = None
    # Ops on the 0-element placeholder run as on a plain Tensor (ember does not raise there, unlike PyTorch's
    # mixin): disabling __torch_function__ keeps ember's fast path for every program (Note [Dispatching
    # __torch_function__]).
    __torch_function__ = _C._disabled_torch_function_impl

    def materialize(self, shape, device=None, dtype=None):
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _C.empty(*_shape_tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
            "the parameters before calling `module.share_memory()`."
        )

    def __repr__(self):
        return "<{}>".format(self.__class__.__name__)

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


def _shape_tuple(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def is_lazy(param):
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (lazy modules' weights); materialize(shape) makes it a Parameter."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        Parameter.__init__(self, _C.empty(0, device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (lazy norms' running statistics); materialize(shape) makes it a
    Tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None):
        Tensor.__init__(self, _C.empty(0, device=device, dtype=dtype))
        self.requires_grad_(requires_grad)
