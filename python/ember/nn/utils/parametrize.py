"""ember.nn.utils.parametrize: parametrizations of a module's parameters and buffers (torch.nn.utils.parametrize).

register_parametrization(module, "weight", P) moves the tensor to module.parametrizations.weight.original (or
original0, original1, ... when P.right_inverse returns several tensors) and swaps the module's class for a
dynamically created subclass "Parametrized<Class>" with a property `weight` that returns P(original). State dict
keys are PyTorch's: "parametrizations.weight.original". The math of the parametrizations runs in ember's ops."""

import collections.abc
import copyreg
from contextlib import contextmanager
from copy import deepcopy

from ..._C import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "cached",
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Within the context, each parametrized tensor is computed once (on first access) and reused."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, X):
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _set_data(original, value):
    """PyTorch's original.set_(value): the same tensor object (a Parameter stays the same Parameter) now holds
    value's data, whatever its shape."""
    original.data = value.detach() if isinstance(value, Tensor) else value


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, and its unconstrained original(s). Type of
    module.parametrizations[tensor_name]; not to be created by the user."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape = original.shape
        original_dtype = original.dtype

        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                "Got %s" % type(new).__name__
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    "original.dtype: %s\nright_inverse(original).dtype: %s" % (original.dtype, new.dtype)
                )
            if new is not original:
                with no_grad():
                    _set_data(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                        "tuple...). Got element %d of the sequence with type %s." % (i, type(originali).__name__)
                    )
                if isinstance(original, Parameter):
                    originali = Parameter(originali)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, "original%d" % i, originali)

        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError("A parametrization must return a tensor. Got %s." % type(Z).__name__)
            if Z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless "
                    "`unsafe` flag is enabled.\nunparametrized dtype: %s\nparametrized dtype: %s"
                    % (original_dtype, Z.dtype)
                )
            if tuple(Z.shape) != tuple(original_shape):
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless "
                    "`unsafe` flag is enabled.\nunparametrized shape: %s\nparametrized shape: %s"
                    % (original_shape, Z.shape)
                )

    def right_inverse(self, value):
        """Sets the original(s) so that the parametrized tensor equals `value` (every parametrization must have
        right_inverse)."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError("parametrization %s does not implement right_inverse." % type(module).__name__)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError("`right_inverse` should return a tensor. Got %s" % type(value).__name__)
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        "The tensor returned by `right_inverse` has dtype %s while `original` has "
                        "dtype %s" % (value.dtype, self.original.dtype)
                    )
                _set_data(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors. Got %s." % type(value).__name__
                    )
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length %d. Got a "
                        "sequence of length %d." % (self.ntensors, len(value))
                    )
                for i, tensor in enumerate(value):
                    original_i = getattr(self, "original%d" % i)
                    if not isinstance(tensor, Tensor):
                        raise ValueError(
                            "`right_inverse` must return a sequence of tensors. Got element %d of "
                            "type %s" % (i, type(tensor).__name__)
                        )
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(
                            "Tensor %d returned by `right_inverse` has dtype %s while `original%d` "
                            "has dtype %s" % (i, tensor.dtype, i, original_i.dtype)
                        )
                    _set_data(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, "original%d" % i) for i in range(self.ntensors)))
        for i in range(1, len(self)):
            x = self[i](x)
        return x


def _inject_new_class(module):
    """Replaces module's class by a subclass Parametrized<Class> that can hold the properties."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = deepcopy(self.__dict__, memo)
        for slot in copyreg._slotnames(self.__class__):
            if hasattr(self, slot):
                setattr(replica, slot, deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError("Serialization of parametrized modules is only supported through state_dict().")

    dct = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    module.__class__ = type("Parametrized" + cls.__name__, (cls,), dct)


def _inject_property(module, tensor_name):
    assert not hasattr(module, tensor_name)

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_consistency(module, tensor_name, parametrization):
    Y = getattr(module, tensor_name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError("A parametrization must return a tensor. Got %s." % type(X).__name__)
    if X.dtype != Y.dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless the "
            "`unsafe` flag is enabled.\nmodule.%s.dtype: %s\nparametrization(module.%s).dtype: %s"
            % (tensor_name, Y.dtype, tensor_name, X.dtype)
        )
    if tuple(X.shape) != tuple(Y.shape):
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless the "
            "`unsafe` flag is enabled.\nmodule.%s.shape: %s\nparametrization(module.%s).shape: %s"
            % (tensor_name, Y.shape, tensor_name, X.shape)
        )
    if hasattr(parametrization, "right_inverse"):
        try:
            Z = parametrization.right_inverse(X)
        except NotImplementedError:
            return
        if not isinstance(Z, Tensor):
            raise ValueError("parametrization.right_inverse must return a tensor. Got: %s" % type(Z).__name__)
        if Z.dtype != Y.dtype:
            raise ValueError(
                "The tensor returned by parametrization.right_inverse must have the same dtype as "
                "module.%s, unless the `unsafe` flag is enabled.\nmodule.%s.dtype: %s\nreturned "
                "dtype: %s" % (tensor_name, tensor_name, Y.dtype, Z.dtype)
            )
        if tuple(Z.shape) != tuple(Y.shape):
            raise ValueError(
                "The tensor returned by parametrization.right_inverse must have the same shape as "
                "module.%s, unless the `unsafe` flag is enabled.\nmodule.%s.shape: %s\nreturned "
                "shape: %s" % (tensor_name, tensor_name, Y.shape, Z.shape)
            )


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """module.<tensor_name> becomes parametrization(original); several registrations on one tensor chain.
    The parametrization takes the module's training mode. Returns module."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_consistency(module, tensor_name, parametrization)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            "Module '%s' does not have a parameter, a buffer, or a parametrized element with name "
            "'%s'" % (module, tensor_name)
        )
    return module


def is_parametrized(module, tensor_name=None):
    """Whether module has any parametrization (tensor_name None) or one on tensor_name."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Removes the parametrizations on tensor_name; the tensor becomes a plain parameter (buffer) again holding the
    parametrized value (leave_parametrized=True) or the original. The module gets its class back when no
    parametrization is left."""
    if not is_parametrized(module, tensor_name):
        raise ValueError("Module %s does not have a parametrization on %s" % (module, tensor_name))
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _set_data(original, t)
    else:
        if leave_parametrized:
            t = getattr(module, tensor_name)
            original = Parameter(t.detach()) if t.requires_grad else t
        else:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before parametrizations were registered."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers from_module's parametrizations (all, or tensor_name's) on to_module, sharing the originals."""
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
            for param_func in from_module.parametrizations[name]:
                register_parametrization(to_module, name, param_func)
            src = from_module.parametrizations[name]
            if hasattr(src, "original"):
                to_module.parametrizations[name].original = src.original
            else:
                num = 0
                while hasattr(src, "original%d" % num):
                    setattr(to_module.parametrizations[name], "original%d" % num, getattr(src, "original%d" % num))
                    num += 1
    return to_module
