"""ember.overrides: PyTorch's ``torch.overrides``, the Python side of ``__torch_function__``.

A Tensor subclass, a tensor-like class (any class with a ``__torch_function__``), or a :class:`TorchFunctionMode` on
the mode stack takes over every call of an ember function or Tensor method that it reaches. The check runs in C in
front of each function (Note [Dispatching __torch_function__] in python/src/torch_function.cpp); when it finds
something to dispatch to, it calls :func:`_dispatch` here, which applies PyTorch's rules. See docs/extending.md.
"""

import contextlib
import functools
import inspect
import types as _types
import warnings

from . import _C, _tensor

__all__ = [
    "BaseTorchFunctionMode",
    "TorchFunctionMode",
    "enable_reentrant_dispatch",
    "get_ignored_functions",
    "get_overridable_functions",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "wrap_torch_function",
]

_NO_OVERRIDE = object()  # what _dispatch returns when nothing overrides a call: the original runs

# Binary operators whose TypeError becomes NotImplemented, so that Python tries the reflected operator (as PyTorch's
# Tensor operators do).
_BINARY_DUNDERS = frozenset(
    "__%s__" % op
    for base in (
        "add",
        "sub",
        "mul",
        "truediv",
        "floordiv",
        "mod",
        "pow",
        "matmul",
        "and",
        "or",
        "xor",
        "lshift",
        "rshift",
        "div",
    )
    for op in (base, "r" + base)
)


# ---- finding the arguments that override a call ----------------------------------------------------------------------


def _overrides_type(t):
    """Whether instances of type `t` take over calls: it has a __torch_function__ that is not the disabled one."""
    tf = getattr(t, "__torch_function__", None)
    return tf is not None and tf is not _C._disabled_torch_function_impl


def _get_overloaded_args(relevant_args, include_tensor=True):
    """The arguments whose types override __torch_function__, one per type, in the order their handlers are tried:
    a subclass before its superclasses, otherwise from left to right. Plain Tensors count from Python (as in PyTorch's
    handle_torch_function) but not from the C++ check, which passes include_tensor=False."""
    seen = set()
    overloaded = []
    for arg in relevant_args:
        t = type(arg)
        if t in seen or (t is _C.Tensor and not include_tensor) or not _overrides_type(t):
            continue
        seen.add(t)
        index = len(overloaded)
        for i, other in enumerate(overloaded):
            if issubclass(t, type(other)):
                index = i
                break
        overloaded.insert(index, arg)
    return overloaded


def _relevant(args, kwargs):
    """What the C++ check looks at: the arguments and keyword values, and the items of those that are lists/tuples."""
    values = list(args) + (list(kwargs.values()) if kwargs else [])
    out = []
    for v in values:
        out.append(v)
        if isinstance(v, (list, tuple)):
            out.extend(v)
    return out


def _func_name(func):
    name = _PUBLIC_NAMES.get(_key(func))
    if name is not None:
        return name
    owner = getattr(func, "__self__", None)  # Tensor.<property>.__get__
    if isinstance(owner, property):
        for prop_name, value in vars(_C.Tensor).items():
            if value is owner:
                return "ember.Tensor.%s.%s" % (prop_name, func.__name__)
    return "%s.%s" % (getattr(func, "__module__", None) or "ember", getattr(func, "__qualname__", repr(func)))


def _not_implemented_error(func, overloaded, mode):
    handlers = ["  - tensor subclass %s" % type(a) for a in overloaded]
    if mode is not None:
        handlers.insert(0, "  - mode object %r" % (mode,))
    return TypeError(
        "Multiple dispatch failed for '%s'; all __torch_function__ handlers returned NotImplemented:\n\n%s\n"
        % (_func_name(func), "\n".join(handlers))
    )


def _handle(func, overloaded, args, kwargs, from_python):
    types = tuple(type(a) for a in overloaded)
    mode = None
    if _C._is_torch_function_mode_enabled():
        # The mode runs with itself popped, so that what it calls goes to the modes below it (or the types).
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        method = arg.__torch_function__
        if getattr(method, "__self__", None) is arg and method is not _C._disabled_torch_function_impl:
            warnings.warn(
                "Defining your `__torch_function__` as a plain method is deprecated and will be an error in future, "
                "please define it as a classmethod.",
                DeprecationWarning,
                stacklevel=3,
            )
        result = method(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if from_python:
        msg = "no implementation found for '%s' on types that implement __torch_function__: %s" % (
            _func_name(func),
            [type(a) for a in overloaded],
        )
        if mode is not None:
            msg += " nor in mode %r" % (mode,)
        raise TypeError(msg)
    raise _not_implemented_error(func, overloaded, mode)


def _dispatch(func, args, kwargs, use_types):
    """Called from C when a call may be overridden (see the module's docstring)."""
    overloaded = _get_overloaded_args(_relevant(args, kwargs), include_tensor=False) if use_types else []
    if not overloaded and not _C._is_torch_function_mode_enabled():
        return _NO_OVERRIDE
    if getattr(func, "__name__", None) in _BINARY_DUNDERS and _key(func) in _TENSOR_METHODS:
        try:
            return _handle(_OPERATOR_AS.get(_key(func), func), overloaded, args, kwargs, False)
        except TypeError:
            return NotImplemented
    return _handle(_OPERATOR_AS.get(_key(func), func), overloaded, args, kwargs, False)


# The operators that PyTorch implements in C reach __torch_function__ as the method they run (x * 2 as Tensor.mul,
# x += 1 as Tensor.add_), so handlers and modes see the same functions in ember.
_OPERATOR_METHODS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div", "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_", "__mod__": "remainder", "__imod__": "remainder_", "__matmul__": "matmul",
    "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor", "__ne__": "ne", "__lt__": "lt",
    "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__neg__": "neg", "__pos__": "positive", "__abs__": "abs",
}  # fmt: skip
_OPERATOR_AS = {}  # key of Tensor.__add__ -> Tensor.add (filled by _install)


# ---- the public functions --------------------------------------------------------------------------------------------


def has_torch_function(relevant_args):
    """Whether any of `relevant_args` (a sequence) overrides ``__torch_function__`` (a plain Tensor does not), or a
    mode is active; False while :class:`ember._C.DisableTorchFunction` is in effect."""
    return _C._has_torch_function(relevant_args)


def has_torch_function_unary(arg):
    """:func:`has_torch_function` of one argument."""
    return _C._has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """:func:`has_torch_function` of the arguments given."""
    return _C._has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the ``__torch_function__`` of the active mode and of the arguments of `relevant_args` that override it,
    in PyTorch's order, until one returns something other than ``NotImplemented``; raises TypeError if none does.

    Args:
        public_api (function): the function the user called, passed to the handlers as ``func``.
        relevant_args (iterable): the arguments to look at for ``__torch_function__``.
        *args, **kwargs: the arguments of the call.
    """
    overloaded = _get_overloaded_args(relevant_args)
    return _handle(public_api, overloaded, args, kwargs, True)


def is_tensor_like(inp):
    """Whether `inp` is a Tensor or an object of a type with a ``__torch_function__``."""
    return type(inp) is _C.Tensor or hasattr(inp, "__torch_function__")


def wrap_torch_function(dispatcher):
    """A decorator that makes a Python function overridable: ``dispatcher`` takes the function's arguments and
    returns those to look at for ``__torch_function__``.

    Example::

        >>> def dispatcher(a):
        ...     return (a,)
        >>> @ember.overrides.wrap_torch_function(dispatcher)
        ... def double(a):
        ...     return a * 2
    """

    def decorator(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return decorator


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """PyTorch restores its dispatcher's Python state here for ``__torch_dispatch__`` code that calls back into
    the dispatcher. ember's dispatch hook (ember.utils._python_dispatch) keeps no such state, so this context manager
    changes nothing; it exists so that programs written for PyTorch run."""
    yield


# ---- modes -----------------------------------------------------------------------------------------------------------


def _push_mode(mode):
    _C._push_on_torch_function_stack(mode)


def _pop_mode():
    return _C._pop_torch_function_stack()


def _len_torch_function_stack():
    return _C._len_torch_function_stack()


def _get_current_function_mode():
    n = _C._len_torch_function_stack()
    return _C._get_function_stack_at(n - 1) if n else None


def _get_current_function_mode_stack():
    return [_C._get_function_stack_at(i) for i in range(_C._len_torch_function_stack())]


@contextlib.contextmanager
def _pop_mode_temporarily():
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)


class TorchFunctionMode:
    """A context manager that sees every ember function and Tensor method called while it is active, before any
    Tensor subclass does: ``with Mode():`` pushes it on this thread's mode stack. Subclasses override
    ``__torch_function__(self, func, types, args=(), kwargs=None)``; while it runs, the mode is popped, so that the
    functions it calls reach the modes below it. Modes nest: the innermost runs first."""

    inner: "TorchFunctionMode"

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`", stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every function unchanged: a base for modes that override only some."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


# ---- the registry of overridable functions, and installing the checks ------------------------------------------------

# Functions that PyTorch leaves out of __torch_function__ (torch.overrides.get_ignored_functions): settings, queries
# and tools that take no tensors.
_IGNORED_NAMES = frozenset(
    """are_deterministic_algorithms_enabled autocast_decrement_nesting autocast_increment_nesting clear_autocast_cache
    compile get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype get_default_device get_default_dtype
    get_deterministic_debug_mode get_float32_matmul_precision get_num_interop_threads get_num_threads
    is_anomaly_check_nan_enabled is_anomaly_enabled is_autocast_cache_enabled is_autocast_cpu_enabled
    is_autocast_enabled is_autocast_available is_deterministic_algorithms_warn_only_enabled is_grad_enabled
    is_inference_mode_enabled is_storage is_tensor is_warn_always_enabled set_anomaly_enabled
    set_autocast_cache_enabled set_autocast_cpu_dtype set_autocast_cpu_enabled set_autocast_dtype
    set_autocast_enabled set_autocast_gpu_dtype set_default_device set_default_dtype set_default_tensor_type
    set_deterministic_debug_mode set_float32_matmul_precision set_flush_denormal set_num_interop_threads
    set_num_threads set_warn_always typename use_deterministic_algorithms set_printoptions manual_seed seed
    initial_seed get_rng_state set_rng_state install_as_torch save load promote_types can_cast result_type
    set_grad_enabled broadcast_shapes get_file_path vmap finfo iinfo""".split()
)
# Functions PyTorch lists as ignored (they take no tensor) whose calls modes still see, as in PyTorch.
_FACTORY_NAMES = frozenset(
    """arange as_strided as_tensor asarray bartlett_window blackman_window empty empty_strided eye fill from_numpy
    frombuffer full hamming_window hann_window kaiser_window linspace logspace normal ones rand rand_like randint
    randint_like randn randn_like randperm range scalar_tensor tensor tril_indices triu_indices vander zeros""".split()
)
# ember's own machinery, never dispatched.
_MACHINERY = frozenset(
    """_disabled_torch_function_impl _torch_function_hook _torch_function_wrap _torch_function_dispatch_as
    _torch_function_set_dispatcher _note_torch_function_type _torch_function_active _torch_function_overrides
    _has_torch_function    _is_torch_function_enabled _is_torch_function_all_disabled _is_torch_function_mode_enabled
    _push_on_torch_function_stack _pop_torch_function_stack _len_torch_function_stack _get_function_stack_at
    __init__ __new__ __init_subclass__ __torch_function__ _make_subclass _make_wrapper_subclass __torch_dispatch__
    as_subclass __getattribute__ __setattr__ __class__ __signature__ __get__""".split()
)

_OVERRIDABLE = {}  # namespace object -> [callables]
_IGNORED = set()  # keys of the ignored callables
_PUBLIC_NAMES = {}  # key of a callable -> "ember.add", "ember.Tensor.add"
_TENSOR_METHODS = set()  # keys of Tensor's methods and property accessors


def _key(f):
    # method-wrappers (Tensor.shape.__get__) are new objects at each access; they compare by (descriptor, name)
    owner = getattr(f, "__self__", None)
    if isinstance(owner, property):
        return (id(owner), f.__name__)
    return id(f)


def _is_python_function(f):
    return isinstance(f, _types.FunctionType) and (getattr(f, "__module__", None) or "").startswith("ember")


def _install():
    """Puts the check in front of every ember function and Tensor method (at the end of ember's import)."""
    import ember
    import ember.fft
    import ember.linalg
    import ember.nn.functional
    import ember.special

    _C._torch_function_set_dispatcher(_dispatch, _NO_OVERRIDE)
    nb_types = (type(_C.get_num_threads), type(_C.Tensor.__dict__["dim"]))
    wrapped = {}  # id(python function) -> its wrapper, so that one function has one wrapper everywhere

    def wrap(f):
        w = wrapped.get(id(f))
        if w is None:
            w = wrapped[id(f)] = (f, _C._torch_function_wrap(f))
        return w[1]

    # The C++ functions, wherever they are bound.
    modules = [_C] + [m for m in vars(_C).values() if isinstance(m, _types.ModuleType)]
    for module in modules:
        for name, obj in list(vars(module).items()):
            if type(obj) in nb_types and name not in _MACHINERY and name not in _IGNORED_NAMES:
                _C._torch_function_hook(obj)

    # Tensor's methods and properties.
    Tensor = _C.Tensor
    methods = []
    for name, obj in list(vars(Tensor).items()):
        if name in _MACHINERY:
            continue
        if type(obj) in nb_types:
            _C._torch_function_hook(obj)
            methods.append(obj)
            _PUBLIC_NAMES[_key(obj)] = "ember.Tensor." + name
        elif _is_python_function(obj):
            w = wrap(obj)
            _tensor._reattach(name, w)
            methods.append(w)
            _PUBLIC_NAMES[_key(w)] = "ember.Tensor." + name
        elif isinstance(obj, property):
            accessors = [obj.fget, obj.fset, obj.fdel]
            if any(_is_python_function(a) for a in accessors):
                accessors = [wrap(a) if _is_python_function(a) else a for a in accessors]
                obj = property(*accessors, obj.__doc__)
                _tensor._reattach(name, obj)
            for accessor, kind in zip(accessors, ("__get__", "__set__", "__delete__")):
                if accessor is None:
                    continue
                if type(accessor) in nb_types:
                    _C._torch_function_hook(accessor)
                as_ = getattr(obj, kind)
                _C._torch_function_dispatch_as(accessor, as_)
                methods.append(as_)
    _OVERRIDABLE[Tensor] = methods
    for dunder, method in _OPERATOR_METHODS.items():
        if dunder in vars(Tensor) and method in vars(Tensor):
            _OPERATOR_AS[_key(vars(Tensor)[dunder])] = vars(Tensor)[method]
    _TENSOR_METHODS.update(_key(m) for m in methods)

    # The public functions of ember's namespaces; those written in Python get the wrapper.
    for ns, prefix in (
        (ember, "ember"),
        (ember.nn.functional, "ember.nn.functional"),
        (ember.linalg, "ember.linalg"),
        (ember.special, "ember.special"),
        (ember.fft, "ember.fft"),
    ):
        funcs = []
        for name in getattr(ns, "__all__", [n for n in vars(ns) if not n.startswith("_")]):
            obj = getattr(ns, name, None)
            if _is_python_function(obj):
                if name in _IGNORED_NAMES:
                    _IGNORED.add(id(obj))
                    continue
                obj = wrap(obj)
                setattr(ns, name, obj)
            elif type(obj) not in nb_types:
                continue
            if name in _IGNORED_NAMES:
                _IGNORED.add(id(obj))
                continue
            _C._torch_function_hook(obj)  # (done above for those bound in ember._C's modules; idempotent)
            if name in _FACTORY_NAMES and ns is ember:
                _IGNORED.add(id(obj))  # PyTorch lists factories as ignored; modes still see them
            else:
                funcs.append(obj)
            _PUBLIC_NAMES.setdefault(_key(obj), prefix + "." + name)
        _OVERRIDABLE[ns] = funcs


def get_overridable_functions():
    """The functions that can be overridden with ``__torch_function__``: a dict from namespace (``ember``,
    ``ember.nn.functional``, ``ember.linalg``, ``ember.special``, ``ember.fft``, ``ember.Tensor``) to a list of its
    functions (for ``ember.Tensor``: its methods and its properties' ``__get__``/``__set__``)."""
    return {ns: list(funcs) for ns, funcs in _OVERRIDABLE.items()}


def get_ignored_functions():
    """The public functions of ember that PyTorch does not let ``__torch_function__`` override: settings and
    queries that take no tensor, and the factory functions (which modes still see)."""
    import ember
    import ember.nn.functional

    out = set()
    for ns in (ember, ember.nn.functional):
        for name in dir(ns):
            obj = getattr(ns, name, None)
            if callable(obj) and id(obj) in _IGNORED:
                out.add(obj)
    return out


def _dummy_with_signature(func):
    def dummy(*args, **kwargs):
        return -1

    try:
        dummy.__signature__ = inspect.signature(func)
    except (TypeError, ValueError):
        pass
    dummy.__name__ = getattr(func, "__name__", "dummy")
    return dummy


def get_testing_overrides():
    """A dict from each overridable function to a dummy of the same signature that returns -1, for testing that a
    tensor-like type overrides them all (as PyTorch's)."""
    return {f: _dummy_with_signature(f) for funcs in _OVERRIDABLE.values() for f in funcs}


def is_tensor_method_or_property(func):
    """Whether `func` is a method of ember.Tensor or the ``__get__`` of one of its properties (the ``func`` that
    ``__torch_function__`` sees for ``t.shape``)."""
    return _key(func) in _TENSOR_METHODS or getattr(func, "__name__", None) == "__get__"
