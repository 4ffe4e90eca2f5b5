"""Module: the base class of layers and models, with PyTorch's registration, traversal, state_dict, hooks and
conversion semantics. The math of every layer runs in C++ (ember.nn.functional)."""

import itertools
import threading
import warnings
from collections import OrderedDict, namedtuple

from ... import _C
from ..._C import Tensor
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter, is_lazy

_loading = threading.local()  # .dry_run: Module.load_state_dict's checking pass (no copies)
_loading.dry_run = False


def _clear_grads(params, set_to_none):
    """Module.zero_grad and Optimizer.zero_grad: drop each .grad, or zero it in place (detached from any graph)."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _type_name(x):
    return type(x).__module__.replace("ember._C", "ember") + "." + type(x).__name__ if x is not None else "None"


class Module:
    """Base class for all neural network modules (torch.nn.Module)."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError("Module.__init__() takes no arguments (got %s)" % (list(args) + list(kwargs)))
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", OrderedDict())
        set_(self, "_buffers", OrderedDict())
        set_(self, "_non_persistent_buffers_set", set())
        set_(self, "_modules", OrderedDict())
        set_(self, "_forward_pre_hooks", OrderedDict())
        set_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        set_(self, "_forward_hooks", OrderedDict())
        set_(self, "_forward_hooks_with_kwargs", OrderedDict())
        set_(self, "_backward_hooks", OrderedDict())
        set_(self, "_state_dict_hooks", OrderedDict())
        set_(self, "_load_state_dict_pre_hooks", OrderedDict())

    def forward(self, *input):
        raise NotImplementedError('Module [%s] is missing the required "forward" function' % type(self).__name__)

    # ---- registration

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError("buffer name should be a string. Got %s" % type(name).__name__)
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '%s' already exists" % name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                "cannot assign '%s' object to buffer '%s' (ember Tensor or None required)" % (_type_name(tensor), name)
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError("parameter name should be a string. Got %s" % type(name).__name__)
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '%s' already exists" % name)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                "cannot assign '%s' object to parameter '%s' (ember.nn.Parameter or None required)"
                % (_type_name(param), name)
            )
        if param.grad_fn is not None:
            raise ValueError(
                "Cannot assign non-leaf Tensor to parameter '%s'. Model parameters must be created "
                "explicitly. To express '%s' as a function of another Tensor, compute the value in "
                "the forward() method." % (name, name)
            )
        self._parameters[name] = param

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError("%s is not a Module subclass" % _type_name(module))
        if not isinstance(name, str):
            raise TypeError("module name should be a string. Got %s" % type(name).__name__)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '%s' already exists" % name)
        if "." in name:
            raise KeyError('module name can\'t contain ".", got: %s' % name)
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return mod._buffers[name]

    # ---- attributes

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    "cannot assign '%s' as parameter '%s' (ember.nn.Parameter or None expected)"
                    % (_type_name(value), name)
                )
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        "cannot assign '%s' as child module '%s' (ember.nn.Module or None expected)"
                        % (_type_name(value), name)
                    )
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            "cannot assign '%s' as buffer '%s' (ember.Tensor or None expected)"
                            % (_type_name(value), name)
                        )
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            d = self.__dict__.get(store)
            if d is not None and name in d:
                del d[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ---- traversal

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # ---- modes and conversions

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        _clear_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        """Replaces every parameter's and buffer's data with fn(data), keeping the Parameter objects (and their
        grads converted the same way), as PyTorch does; in submodules too unless recurse is False."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                new = fn(param)
                grad = fn(param.grad) if param.grad is not None else None
                if new is not param:
                    param.data = new  # drops a .grad that no longer fits; the converted one is set next
                if grad is not None and grad is not param.grad:
                    param.grad = grad
            for key, buf in self._buffers.items():
                if buf is None:
                    continue
                if is_lazy(buf):
                    buf.data = fn(buf)  # an uninitialized buffer stays one, on the new device / in the new dtype
                else:
                    self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        device, dtype, non_blocking, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point dtypes, but got desired dtype=%s" % dtype)

        def convert(t):
            if dtype is not None and t.is_floating_point():
                t = t.to(device if device is not None else t.device, dtype)
            elif device is not None:
                t = t.to(device)
            if memory_format is not None and t.dim() in (4, 5):  # PyTorch converts 4-d and 5-d tensors only
                t = t.contiguous(memory_format=memory_format)
            return t

        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Moves the parameters and buffers to `device` without copying their data: each gets new, uninitialised
        memory of its shape and dtype there (the step after building a model on the meta device). Returns self.

        Args:
            device (:class:`ember.device`): the device of the new parameters and buffers.
            recurse (bool): whether submodules' parameters and buffers move too.
        """
        return self._apply(lambda t: _C.empty_like(t, device=device), recurse=recurse)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_() if hasattr(t, "share_memory_") else t)

    # ---- state dict

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # the positional form (destination, prefix, keep_vars) PyTorch still accepts
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, {})
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local = itertools.chain(self._parameters.items(), persistent.items())
        for name, param in local:
            if param is None:
                continue
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    'While copying the parameter named "%s", expected ember.Tensor or Tensor-like '
                    "object from checkpoint but received %s" % (key, type(value))
                )
                continue
            if tuple(value.shape) != tuple(param.shape):
                error_msgs.append(
                    "size mismatch for %s: copying a param with shape %s from checkpoint, the shape "
                    "in current model is %s." % (key, value.shape, param.shape)
                )
                continue
            if _loading.dry_run:
                continue
            if local_metadata.get("assign_to_params_buffers", False):
                # assign=True keeps the loaded tensor itself (a Parameter keeps the module's requires_grad).
                if isinstance(param, Parameter):
                    if isinstance(value, Parameter):
                        value.requires_grad_(param.requires_grad)
                    else:
                        value = Parameter(value, requires_grad=param.requires_grad)
                setattr(self, name, value)
                continue
            if param.is_meta and not value.is_meta:
                warnings.warn(
                    "for %s: copying from a non-meta parameter in the checkpoint to a meta parameter in the current "
                    "model, which is a no-op. (Did you mean to pass `assign=True` to assign items in the state "
                    "dictionary to their corresponding key in the module instead of copying them in place?)" % key
                )
                continue
            try:
                with no_grad():
                    param.copy_(value)
            except Exception as ex:  # noqa: BLE001 (reported like PyTorch, with the key)
                error_msgs.append(
                    'While copying the parameter named "%s", whose dimensions in the model are %s '
                    "and whose dimensions in the checkpoint are %s, an exception occurred : %s."
                    % (key, param.shape, value.shape, ex.args)
                )
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix):
                    input_name = key[len(prefix) :].split(".", 1)[0]
                    if (
                        input_name not in self._modules
                        and input_name not in self._parameters
                        and input_name not in persistent
                    ):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies the parameters and buffers of `state_dict` into this module and its descendants; with
        ``assign=True`` the module keeps the state dict's tensors themselves instead (so a model built on the meta
        device gets real ones; each Parameter keeps the module's ``requires_grad``). Returns the missing and
        unexpected keys (raises on them when `strict`)."""
        if not isinstance(state_dict, dict):
            raise TypeError("Expected state_dict to be dict-like, got %s." % type(state_dict))

        # Two passes over the same code: a dry run that only checks (keys, shapes, types), then, when it found
        # nothing wrong, the one that copies. So a bad state dict leaves the model as it was (PyTorch copies the
        # good entries before raising).
        def load(dry_run):
            missing, unexpected, errors = [], [], []
            sd = OrderedDict(state_dict)

            def visit(module, prefix=""):
                metadata = {"assign_to_params_buffers": assign}
                module._load_from_state_dict(sd, prefix, metadata, True, missing, unexpected, errors)
                for name, child in module._modules.items():
                    if child is not None:
                        visit(child, prefix + name + ".")

            previous, _loading.dry_run = _loading.dry_run, dry_run
            try:
                visit(self)
            finally:
                _loading.dry_run = previous
            return missing, unexpected, errors

        missing_keys, unexpected_keys, error_msgs = load(dry_run=True)
        if not error_msgs and not (strict and (missing_keys or unexpected_keys)):
            missing_keys, unexpected_keys, error_msgs = load(dry_run=False)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0, "Unexpected key(s) in state_dict: %s. " % ", ".join('"%s"' % k for k in unexpected_keys)
                )
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: %s. " % ", ".join('"%s"' % k for k in missing_keys))
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for %s:\n\t%s" % (self.__class__.__name__, "\n\t".join(error_msgs))
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def _register_state_dict_hook(self, hook):
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = (lambda *a: hook(self, *a)) if with_module else hook
        return handle

    # ---- hooks and calling

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = RemovableHandle(self._forward_hooks, extra_dict=self._forward_hooks_with_kwargs)
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> None or a replacement grad_input, as PyTorch."""
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        return self.register_full_backward_hook(hook)

    def _call_impl(self, *args, **kwargs):
        for hook_id, hook in itertools.chain(_global_forward_pre_hooks.items(), self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            "new_kwargs), but got %s." % (result,)
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        bw = _BackwardHookState(self) if self._backward_hooks else None
        if bw is not None:
            args = bw.setup_inputs(args)
        result = self.forward(*args, **kwargs)
        for hook_id, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                out = hook(self, args, kwargs, result)
            else:
                out = hook(self, args, result)
            if out is not None:
                result = out
        if bw is not None:
            result = bw.setup_outputs(result)
        return result

    __call__ = _call_impl

    # ---- printing

    def extra_repr(self):
        return ""

    def _get_name(self):
        return self.__class__.__name__

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) from Module.to's arguments: to(device), to(dtype), to(tensor),
    to(device, dtype), to(memory_format=)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError("to() got unexpected keyword arguments %s" % list(kwargs))
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, bool):
            non_blocking = a
        elif a is not None:
            device = _C.device(a) if not isinstance(a, _C.device) else a
    if device is not None and not isinstance(device, _C.device):
        device = _C.device(device)
    return device, dtype, non_blocking, memory_format


class _BackwardHookState:
    """Full backward hooks: identity Functions around the module's tensor inputs and outputs see the gradients
    of both; when the inputs' gradients are known the hooks run and may replace them."""

    def __init__(self, module):
        self.module = module
        self.grad_outputs = None
        self.n_inputs = 0

    def setup_inputs(self, args):
        from ..._C import is_grad_enabled

        tensors = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        self.input_positions = tensors
        if not tensors or not is_grad_enabled():
            return args
        outs = _InputHook.apply(self, *[args[i] for i in tensors])
        outs = outs if isinstance(outs, tuple) else (outs,)
        args = list(args)
        for i, o in zip(tensors, outs):
            args[i] = o
        return tuple(args)

    def setup_outputs(self, result):
        single = isinstance(result, Tensor)
        items = (result,) if single else result
        if not isinstance(items, tuple):
            return result
        positions = [i for i, r in enumerate(items) if isinstance(r, Tensor) and r.requires_grad]
        if not positions:
            return result
        outs = _OutputHook.apply(self, *[items[i] for i in positions])
        outs = outs if isinstance(outs, tuple) else (outs,)
        items = list(items)
        for i, o in zip(positions, outs):
            items[i] = o
        return items[0] if single else tuple(items)

    def run_hooks(self, grad_inputs):
        grad_outputs = self.grad_outputs if self.grad_outputs is not None else ()
        for hook in self.module._backward_hooks.values():
            res = hook(self.module, grad_inputs, grad_outputs)
            if res is not None:
                res = res if isinstance(res, tuple) else (res,)
                if len(res) != len(grad_inputs):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, got %d, but "
                        "expected %d" % (len(res), len(grad_inputs))
                    )
                grad_inputs = res
        return grad_inputs


def _function():
    from ...autograd import Function

    return Function


class _InputHook(_function()):
    """Identity on the module's inputs; its backward sees their gradients and runs the hooks."""

    @staticmethod
    def forward(ctx, state, *inputs):
        ctx.state = state
        return inputs if len(inputs) > 1 else inputs[0]  # returned inputs become new tensors with this history

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.state.run_hooks(grads))


class _OutputHook(_function()):
    """Identity on the module's outputs; its backward records their gradients."""

    @staticmethod
    def forward(ctx, state, *outputs):
        ctx.state = state
        return outputs if len(outputs) > 1 else outputs[0]

    @staticmethod
    def backward(ctx, *grads):
        ctx.state.grad_outputs = grads
        if not ctx.state.input_positions:  # no input needs a gradient: the hooks see grad_input = (None,)
            ctx.state.run_hooks((None,))
        return (None,) + grads
