"""LazyModuleMixin: modules whose parameters' shapes come from their first input (LazyLinear, LazyConv*,
LazyBatchNorm*, ...), as torch.nn.modules.lazy. Until then the parameters are UninitializedParameter /
UninitializedBuffer objects (device and dtype only); a forward pre-hook calls initialize_parameters(*args) on the first
call, which materializes them, and the module then becomes its cls_to_become (LazyLinear -> Linear). A state dict
with real tensors can be loaded into a lazy module: the load pre-hook materializes the parameters it finds."""

import itertools
import warnings

from ..parameter import is_lazy


class LazyModuleMixin:
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)
        warnings.warn(
            "Lazy modules are a new feature under heavy development so changes to the API or "
            "functionality can happen at any moment."
        )

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if (is_lazy(param) or keep_vars) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if (is_lazy(buf) or keep_vars) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        from ...autograd.grad_mode import no_grad

        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    with no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError("initialize_parameters is not implemented for {}".format(self.__class__.__name__))

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError("module {} has not been fully initialized".format(self._get_name()))
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
            "forward pass to correctly initialize the modules"
        )


def lazy_class(name, lazy_base, eager, module):
    """class <name>(lazy_base, eager) that becomes `eager` once initialized (LazyConv2d = lazy_class("LazyConv2d",
    _LazyConvNd, Conv2d, __name__))."""
    return type(name, (lazy_base, eager), {"cls_to_become": eager, "__module__": module, "__qualname__": name})
