"""The Optimizer base class, with PyTorch's param groups, state and state_dict layout.

Subclasses gather a group's parameters, gradients and state tensors and hand them to one fused C++ call
(ember/optim/fused.h); no Python loop touches tensor data.
"""

import functools
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import ember
from ember.utils.hooks import RemovableHandle


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks = OrderedDict()
_global_step_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """hook(optimizer, args, kwargs) before every optimizer's step; may return (args, kwargs) to replace them."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """hook(optimizer, args, kwargs) after every optimizer's step."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _typename(x):
    from ember.nn.modules.container import _tensor_type

    return _tensor_type(x) if isinstance(x, ember.Tensor) else type(x).__name__


def _check_range(name, value, low=0.0, high=None):
    """PyTorch's ValueError for an out-of-range hyper-parameter ("Invalid learning rate: -1")."""
    if value < low or (high is not None and value >= high):
        raise ValueError(f"Invalid {name}: {value}")


def _check_betas(betas):
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")


def _check_not_differentiable(defaults):
    if defaults.get("differentiable"):
        raise NotImplementedError(
            "ember.optim: differentiable=True (autograd through the optimizer step) is not supported; "
            "the step runs as one fused C++ update"
        )


def _step_wrapper(step):
    """Runs the step hooks around a subclass's step, under no_grad (the closure runs with grad enabled)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if ember._C._profiler_enabled():  # the step as one scope, named as PyTorch names it
            with ember.autograd.profiler.record_function(f"Optimizer.step#{type(self).__name__}.step"):
                return _run_step(step, self, args, kwargs)
        return _run_step(step, self, args, kwargs)

    wrapper._ember_step_wrapped = True
    return wrapper


def _run_step(step, self, args, kwargs):
    if "_optimizer_step_pre_hooks" not in self.__dict__:
        # A subclass that never called Optimizer.__init__ (torch-optimizer's Lookahead wraps another optimizer so):
        # PyTorch wraps step in __init__, so such a step runs as written, without hooks or no_grad; so here.
        return step(self, *args, **kwargs)
    for hook in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
        result = hook(self, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), but got {result}.")
            args, kwargs = result
    with ember.no_grad():
        out = step(self, *args, **kwargs)
    self._opt_called = True
    for hook in chain(self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()):
        hook(self, args, kwargs)
    return out


class Optimizer:
    """Base class of all optimizers: `params` is an iterable of tensors or of dicts (param groups)."""

    _cpu_state_keys = ("step",)  # per-parameter state kept as 0-d CPU tensors whatever the parameter's device

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_ember_step_wrapped", False):
            cls.step = _step_wrapper(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        if isinstance(params, ember.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {_typename(params)}"
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        # A state dict from an older PyTorch may lack newer options (foreach, fused...): give them the defaults;
        # and older optimizers kept the step count as a Python number: make it the 0-d tensor the step expects.
        for group in self.param_groups:
            for k, v in self.defaults.items():
                if v is not required:
                    group.setdefault(k, v)
        for st in self.state.values():
            if isinstance(st, dict) and isinstance(st.get("step"), (int, float)):
                st["step"] = ember.tensor(float(st["step"]))

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def add_param_group(self, param_group):
        """Adds a group of parameters with its own options (missing ones take the optimizer's defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, ember.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of "
                "tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, ember.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will "
                "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Clears the gradients of every parameter (to None by default, as PyTorch 2 does)."""
        from ember.nn.modules.module import _clear_grads

        _clear_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    @_step_wrapper
    def step(self, closure=None):
        """One update of every parameter that has a gradient; `closure` (re-evaluates the model and returns the
        loss) runs first, with grad enabled. One fused C++ call per group."""
        loss = None
        if closure is not None:
            with ember.enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._update_group(group)
        return loss

    def _update_group(self, group):
        raise NotImplementedError

    # -- hooks ------------------------------------------------------------------------------------------------

    def register_step_pre_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    @staticmethod
    def _add_hook(hooks, hook, prepend):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    # -- state dict -------------------------------------------------------------------------------------------

    def state_dict(self):
        """{'state': {index: {name: value}}, 'param_groups': [{option: value, 'params': [index, ...]}]}, parameters
        numbered in order across groups, as PyTorch does. The state's tensors are returned, not copied."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, ember.Tensor) else k): v for k, v in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            out = hook(self, result)
            if out is not None:
                result = out
        return result

    def load_state_dict(self, state_dict):
        """Restores options and state saved by state_dict() (ember's or PyTorch's). Everything is checked before
        anything changes: on an error the optimizer is left as it was."""
        state_dict = dict(state_dict)
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            out = hook(self, state_dict)
            if out is not None:
                state_dict = out
        if "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError(
                f"optimizer state dict must have the keys 'state' and 'param_groups', got {sorted(state_dict)}"
            )
        groups = self.param_groups
        saved_groups = [dict(g) for g in state_dict["param_groups"]]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(s["params"] for s in saved_groups), chain.from_iterable(g["params"] for g in groups)
            )
        )
        problems = []
        for key, value in state_dict["state"].items():
            p = id_map.get(key)
            if p is None or not isinstance(value, dict):
                continue
            for name, v in value.items():
                if isinstance(v, ember.Tensor) and v.dim() > 0 and tuple(v.shape) != tuple(p.shape):
                    problems.append(
                        f"state '{name}' of parameter {key} has shape {list(v.shape)} but the "
                        f"parameter has shape {list(p.shape)}"
                    )
        if problems:
            raise ValueError(
                "Error(s) in loading state_dict for " + self.__class__.__name__ + ":\n\t" + "\n\t".join(problems)
            )

        def cast(param, value, key=None):
            if isinstance(value, ember.Tensor):
                # The step counter (and ASGD's eta and mu) stay CPU float tensors; the rest follows the
                # parameter's dtype and device.
                if key in self._cpu_state_keys:
                    return value.to(device="cpu", copy=True)
                if param.is_floating_point():
                    return value.to(dtype=param.dtype, device=param.device, copy=True)
                return value.to(device=param.device, copy=True)
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                state[id_map[key]] = cast(id_map[key], value)
            else:
                state[key] = value
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # -- for subclasses ---------------------------------------------------------------------------------------

    def _gather(self, group, init):
        """The group's parameters that have a gradient, their gradients, and for each state name in `init` (a dict
        name -> factory(param)) the list of that state's tensors, created on first use."""
        params, grads = [], []
        lists = {name: [] for name in init}
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            state = self.state[p]
            for name, make in init.items():
                t = state.get(name)
                if t is None:
                    t = state[name] = make(p)
                lists[name].append(t)
            params.append(p)
            grads.append(g)
        return params, grads, lists


def _zeros(p):
    return ember.zeros_like(p)


def _step_counter(p):
    return ember.tensor(0.0)
