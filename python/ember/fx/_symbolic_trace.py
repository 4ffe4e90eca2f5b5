"""Tracer and symbolic_trace: run a module's forward on Proxies and record what it does (torch.fx's tracer)."""

import builtins
import inspect
import math
import types
import warnings

from .. import _C
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from . import _pytree
from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate
from .proxy import Attribute, ParameterProxy, Proxy, TraceError

__all__ = ["PH", "PHBase", "PHWithMeta", "Tracer", "symbolic_trace", "wrap"]

# (id of a module's globals, function name) -> those globals: the functions `wrap` registered.
_wrapped_fns_to_patch = {}
_BASE_TYPES = (str, int, float, bool, complex, type(None), type(Ellipsis), range)


# Note [pytree codegen]: when concrete_args puts containers of PH among the inputs, the graph's placeholders are
# the containers' leaves, and the generated forward takes the original parameters, flattens them with
# `fx_pytree.tree_flatten_spec(..., self._in_spec)` and rebuilds the output with `pytree.tree_unflatten(...,
# self._out_spec)` (graph._pytree_info holds the names and specs; GraphModule.recompile copies the specs).
class _PyTreeInfo:
    def __init__(self, orig_args, in_spec, out_spec):
        self.orig_args, self.in_spec, self.out_spec = list(orig_args), in_spec, out_spec


class PHBase:
    """A placeholder in ``concrete_args``: that leaf of the argument stays an input of the traced graph."""

    def __repr__(self):
        return "PH"


PH = PHBase()


class PHWithMeta(PHBase):
    """A PH whose attributes are copied onto the placeholder node it becomes (``ph_key`` identifies it)."""

    def __init__(self, ph_key=None):
        super().__init__()
        self.ph_key = ph_key


def _assert(condition, message=""):
    """``assert condition, message`` as a function a graph can call (torch._assert); traced, it is recorded."""
    if isinstance(condition, Proxy):
        return condition.tracer.create_proxy("call_function", _assert, (condition, message), {})
    assert condition, message  # noqa: S101
    return None


def _assert_is_none(value, msg):
    if isinstance(value, Proxy):
        return value.tracer.create_proxy("call_function", _assert_is_none, (value, msg), {})
    assert value is None, msg  # noqa: S101
    return None


def wrap(fn_or_name):
    """Makes calls of a module-level function (or of a builtin, by name) a single ``call_function`` node when traced,
    instead of tracing into it. Call it at the top level of the module that uses the function."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise AssertionError("Unsupported type for global function! Must be either a callable or string name")
    if callable(fn_or_name):
        if fn_or_name.__name__ == "<lambda>":
            raise AssertionError("wrap can't be used on a lambda")
        name = fn_or_name.__name__
    else:
        name = fn_or_name
    frame = inspect.currentframe().f_back
    try:
        if frame.f_code.co_name != "<module>":
            raise NotImplementedError("wrap must be called at the top level of a module")
        _wrapped_fns_to_patch[(id(frame.f_globals), name)] = frame.f_globals
    finally:
        del frame
    return fn_or_name


def _create_wrapped_func(orig_fn):
    def wrapped(*args, **kwargs):
        proxies = []
        map_aggregate((args, kwargs), lambda a: proxies.append(a) if isinstance(a, Proxy) else None)
        if proxies:
            proxy = proxies[0].tracer.create_proxy("call_function", orig_fn, args, kwargs)
            proxy.node.meta["is_wrapped"] = True  # the generated code wraps it again (Graph.python_code)
            return proxy
        return orig_fn(*args, **kwargs)

    wrapped.__name__ = getattr(orig_fn, "__name__", "wrapped")
    return wrapped


class _Patcher:
    """Sets attributes and dict entries for the duration of a trace, and puts them back."""

    def __init__(self):
        self._undo = []

    def patch(self, d, name, value):
        self._undo.append((d, name, d.get(name), name in d))
        d[name] = value

    def patch_method(self, cls, name, value):
        self._undo.append((cls, name, cls.__dict__.get(name), name in cls.__dict__))
        setattr(cls, name, value)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for target, name, value, existed in reversed(self._undo):
            if isinstance(target, dict):
                if existed:
                    target[name] = value
                else:
                    target.pop(name, None)
            elif existed:
                setattr(target, name, value)
            else:
                delattr(target, name)
        self._undo = []


class Tracer:
    """Turns a module or function into a Graph by running it on Proxies (see :func:`symbolic_trace`).

    Args:
        autowrap_modules (tuple of modules): the functions of these modules (``math`` by default) are recorded as
            ``call_function`` nodes when called on Proxies.
        autowrap_functions (tuple of callables): functions recorded the same way.
        param_shapes_constant (bool): parameters' shape, size(), dim() ... are the parameters' own values
            (constants) rather than traced.

    Subclasses change what is traced through: ``is_leaf_module(m, qualified_name)`` says which submodules stay
    ``call_module`` nodes (by default those of ember.nn, except Sequential).
    """

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        _C._note_torch_function_type()  # Proxies reach ember's functions through __torch_function__
        self._autowrap_function_ids = {
            id(value)
            for module in autowrap_modules
            for name, value in vars(module).items()
            if not name.startswith("_") and callable(value)
        }
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_modules = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.proxy_buffer_attributes = True
        self.submodule_paths = None
        self.graph = None
        self.root = None
        self.tensor_attrs = {}

    # ---- what tracing records

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """Records a node whose inputs are `args`/`kwargs` (Proxies become their nodes) and returns its Proxy."""
        node = self.create_node(kind, target, self.create_arg(args), self.create_arg(kwargs), name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """A value as a node argument: Proxies become nodes, parameters and tensors of the module get_attr nodes,
        containers are mapped, and other constants stay as they are."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Parameter):
            for name, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, _C.Tensor):
            for name, b in self.root.named_buffers():
                if a is b:
                    return self.create_node("get_attr", name, (), {})
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                i = 0
                while hasattr(self.root, "_tensor_constant%d" % i):
                    i += 1
                qualname = "_tensor_constant%d" % i
                setattr(self.root, qualname, a)
                self.tensor_attrs[id(a)] = qualname
            return self.create_node("get_attr", qualname, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*[self.create_arg(e) for e in a])
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(e) for e in a)
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Proxy) or type(k).__name__ == "Node":
                    raise RuntimeError(
                        "Keys for dictionaries used as an argument cannot contain a Node. Got key: %s" % k
                    )
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        import ember

        if isinstance(a, _BASE_TYPES) or isinstance(a, (ember.dtype, ember.device, ember.memory_format, ember.layout)):
            return a
        if callable(a):
            return a
        raise NotImplementedError("argument of type: %s" % type(a))

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def _len(self, obj):
        raise RuntimeError(
            "'len' is not supported in symbolic tracing by default. If you want this call to be recorded, please "
            "call ember.fx.wrap('len') at module scope"
        )

    def iter(self, obj):
        raise TraceError(
            "Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a *args or "
            "**kwargs function argument. See the torch.fx docs on pytorch.org for a more detailed explanation of "
            "what types of control flow can be traced, and check out the Proxy docstring for help troubleshooting "
            "Proxy iteration errors"
        )

    def keys(self, obj):
        return Attribute(obj, "keys")()

    # ---- modules

    def is_leaf_module(self, m, module_qualified_name):
        """Whether submodule `m` is recorded as one ``call_module`` node rather than traced through: ember.nn's
        modules are, except Sequential."""
        return type(m).__module__.startswith("ember.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod):
        """The qualified name of submodule `mod` in the traced root."""
        if self.submodule_paths is not None:
            path = self.submodule_paths.get(id(mod))
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for name, m in self.root.named_modules():
            if m is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A call of submodule `m`: a ``call_module`` node for a leaf module, else its forward traced through."""
        qualname = self.path_of_module(m)
        if not self.is_leaf_module(m, qualname):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", qualname, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """What reading attribute `attr` of a module gives while tracing: a get_attr Proxy for the root's
        parameters (and buffers), else the value."""

        def proxy_for(collection):
            for name, p in collection:
                if attr_val is p:
                    if name not in parameter_proxy_cache:
                        factory = None
                        if self.param_shapes_constant and isinstance(attr_val, Parameter):

                            def factory(node, name=name):
                                return ParameterProxy(self, node, name, attr_val)

                        parameter_proxy_cache[name] = self.create_proxy(
                            "get_attr", name, (), {}, proxy_factory_fn=factory
                        )
                    return parameter_proxy_cache[name]
            return None

        if isinstance(attr_val, Parameter):
            found = proxy_for(self.root.named_parameters())
            if found is not None:
                return found
        if self.proxy_buffer_attributes and isinstance(attr_val, _C.Tensor):
            found = proxy_for(self.root.named_buffers())
            if found is not None:
                return found
        return attr_val

    # ---- tracing

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """The arguments the root is traced with: a placeholder Proxy per parameter, or what `concrete_args` gives
        (containers with ``PH`` leaves become one placeholder per PH, and the generated code flattens them)."""
        # As torch.fx: the parameters in the code object's order (keyword-only ones become positional), then
        # `*args` and `**kwargs` as placeholders "*args"/"**kwargs" whose values the code indexes.
        fn = inspect.unwrap(root_fn)
        co = fn.__code__
        sig = inspect.signature(fn)
        total = co.co_argcount + co.co_kwonlyargcount
        names = list(co.co_varnames[:total])
        args = []
        if is_module:
            if total == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            names = names[1:]
            args.append(self.root)
        if isinstance(concrete_args, tuple):
            if len(names) != len(concrete_args):
                raise RuntimeError(
                    "Tracing expected %d arguments but got %d concrete arguments" % (len(names), len(concrete_args))
                )
            concrete_args = dict(zip(names, concrete_args))
        for name in names:
            args.append(self._proxy_placeholder(name, concrete_args, sig))
        varstuff = co.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        if co.co_kwonlyargcount or varstuff:
            extra = iter(co.co_varnames[total:])
            if co.co_flags & inspect.CO_VARARGS:
                names.append("*" + next(extra))
                args.append(self._proxy_placeholder(names[-1], concrete_args, sig))
            if co.co_flags & inspect.CO_VARKEYWORDS:
                names.append("**" + next(extra))
                args.append(self._proxy_placeholder(names[-1], concrete_args, sig))
            root_fn = _patch_function(fn, len(args))
        skip = 1 if is_module else 0
        flat_args, in_spec = _pytree.tree_flatten(tuple(args[skip:]))
        if all(child.is_leaf() for child in in_spec.children()):
            return root_fn, args
        # Containers among the inputs: forward takes the containers and flattens them (Note [pytree codegen]).
        info = _PyTreeInfo((["self"] if is_module else []) + names, in_spec, None)
        self.graph._pytree_info = info
        head = args[:skip]

        def flatten_fn(*flat):
            tree_out = root_fn(*head, *_pytree.tree_unflatten(list(flat[skip:]), in_spec))
            out_args, info.out_spec = _pytree.tree_flatten(tree_out)
            return out_args

        return flatten_fn, head + flat_args

    def _proxy_placeholder(self, name, concrete_args, sig):
        if name.startswith("*"):
            return self.create_proxy("placeholder", name, (), {})
        param = sig.parameters[name]
        default = () if param.default is inspect.Parameter.empty else (param.default,)
        if concrete_args is None or name not in concrete_args:
            ann = (
                param.annotation if param.annotation is not param.empty and isinstance(param.annotation, type) else None
            )
            return self.create_proxy("placeholder", name, default, {}, type_expr=ann)
        cnt = 0

        def replace_ph(x):
            # Each leaf gets a placeholder; a PH leaf is traced with it, a concrete leaf is specialized: the graph
            # checks that the input equals it (torch.fx's behaviour) and tracing goes on with the constant.
            nonlocal cnt
            cnt += 1
            out = self.create_proxy("placeholder", "%s_%d" % (name, cnt), default, {})
            if isinstance(x, PHBase):
                if x is not PH:
                    for attr, value in vars(x).items():
                        setattr(out.node, attr, value)
                return out
            msg = "%s has been specialized to have value %s but got another value" % (name, x)
            if type(x) is bool or type(x) in _BASE_TYPES:
                self.create_proxy("call_function", _assert, (out == x, msg), {})
            elif x is None:
                self.create_proxy("call_function", _assert_is_none, (out, msg), {})
            else:
                warnings.warn(
                    "Was not able to add assertion to guarantee correct input %s to specialized function. It is up "
                    "to the user to make sure that your inputs match the inputs you specialized the function with."
                    % name
                )
            return x

        return _pytree.tree_map(replace_ph, concrete_args[name])

    def trace(self, root, concrete_args=None):
        """Traces `root` (a Module's forward, or a function) and returns the Graph."""
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
        else:
            self.root = Module()
            fn = root
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}

        def collect_tensor_attrs(m, prefix):
            for k, v in vars(m).items():
                if isinstance(v, _C.Tensor):
                    self.tensor_attrs[id(v)] = ".".join(prefix + [k])
            for k, child in m.named_children():
                collect_tensor_attrs(child, prefix + [k])

        collect_tensor_attrs(self.root, [])
        self.submodule_paths = {id(m): name for name, m in self.root.named_modules()}
        fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
        parameter_proxy_cache = {}
        orig_getattr = Module.__getattr__
        orig_call = Module.__call__
        tracer = self

        def module_getattr(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

        def module_call(mod, *args, **kwargs):
            def forward(*a, **k):
                return orig_call(mod, *a, **k)

            _autowrap_check(
                patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}), tracer._autowrap_function_ids
            )
            return tracer.call_module(mod, forward, args, kwargs)

        try:
            with _Patcher() as patcher:
                patcher.patch_method(Module, "__getattr__", module_getattr)
                patcher.patch_method(Module, "__call__", module_call)
                for globals_, name in [(g, n) for (_, n), g in _wrapped_fns_to_patch.items()]:
                    orig = globals_[name] if name in globals_ else getattr(builtins, name)
                    patcher.patch(globals_, name, _create_wrapped_func(orig))
                _autowrap_check(patcher, fn.__globals__, self._autowrap_function_ids)
                for module in self._autowrap_modules:  # math.sqrt(x) as well as sqrt(x)
                    _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                result = fn(*args)
                ret = fn.__annotations__.get("return", None)
                self.create_node(
                    "output", "output", (self.create_arg(result),), {}, type_expr=ret if isinstance(ret, type) else None
                )
        finally:
            self.submodule_paths = None
        return self.graph


def _patch_function(fn, nargs):
    """`fn` with its keyword-only, *args and **kwargs parameters made plain positional ones, so that the tracer can
    pass a Proxy for each (torch.fx's _patch_function)."""
    co = fn.__code__
    flags = co.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    new_co = co.replace(co_argcount=nargs, co_posonlyargcount=0, co_kwonlyargcount=0, co_flags=flags)
    return types.FunctionType(new_co, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _autowrap_check(patcher, frame_dict, function_ids):
    for name, value in list(frame_dict.items()):
        if not name.startswith("_") and callable(value) and id(value) in function_ids:
            patcher.patch(frame_dict, name, _create_wrapped_func(value))


class GraphAppendingTracer(Tracer):
    """The tracer of a Proxy made for a node of an existing graph: new nodes are appended to that graph."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph


def symbolic_trace(root, concrete_args=None):
    """Records what a Module's forward (or a function) does as a Graph, by running it on Proxies, and returns a
    GraphModule of it. Submodules of ember.nn stay single ``call_module`` nodes; control flow that depends on traced
    values raises TraceError.

    Args:
        root (Module or callable): what to trace.
        concrete_args (dict, optional): parameters given fixed values instead of Proxies.

    Example::

        >>> gm = ember.fx.symbolic_trace(ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.ReLU()))
        >>> [n.op for n in gm.graph.nodes]
        ['placeholder', 'call_module', 'call_module', 'output']
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
