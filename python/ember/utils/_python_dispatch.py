"""``__torch_dispatch__``: TorchDispatchMode and Tensor subclasses that see the ATen-level ops that run.

The C++ ops that take part offer each call to ``_dispatch_from_cpp`` while dispatch is enabled (Note [Python dispatch]
in ember/dispatch_hook.h); the counter that enables it counts the modes pushed (on any thread) plus one once a class
with ``__torch_dispatch__`` was defined, so that nothing is paid while nobody uses it. The ops called by gradient
formulas are ember ops too, so a mode sees a backward's ops as it sees the forward's.

Rules, PyTorch's: the innermost mode of this thread's stack gets the call first, popped while its handler runs (so
the ops it calls reach the next mode, or run); with no mode, the arguments' types that define ``__torch_dispatch__``
are tried, a subclass before its superclass, else from left to right, until one returns something other than
``NotImplemented``.
"""

import collections
import contextlib
import threading
import weakref

import ember
from ember import _C
from ember._ops import OpOverload, ops
from ember._tensor import _disabled_torch_dispatch_impl

__all__ = [
    "TorchDispatchMode",
    "_disable_current_modes",
    "_get_current_dispatch_mode",
    "_get_current_dispatch_mode_stack",
    "_pop_mode",
    "_pop_mode_temporarily",
    "_push_mode",
    "is_traceable_wrapper_subclass",
]

_NOT_HANDLED = object()
_state = threading.local()


def _stack():
    s = getattr(_state, "modes", None)
    if s is None:
        s = _state.modes = []
    return s


def _dispatch_type(t):
    td = getattr(t, "__torch_dispatch__", None)
    if td is None:
        return False
    return getattr(td, "__func__", td) is not _tensor_default


def _overloaded_types(args, kwargs):
    types = []

    def visit(a):
        if isinstance(a, (list, tuple)):
            for x in a:
                visit(x)
            return
        t = type(a)
        if t is ember.Tensor or t in types or not isinstance(a, ember.Tensor):
            return
        if _dispatch_type(t):
            types.append(t)

    visit(args)
    if kwargs:
        visit(tuple(kwargs.values()))
    return types


def _needs_dispatch(args, kwargs):
    if not _C._python_dispatch_enabled() or getattr(_state, "meta_run", False):
        return False
    return bool(_stack()) or bool(_overloaded_types(args, kwargs))


def _dispatch_from_cpp(name, values):
    """Called by the C++ ops while dispatch is enabled: the handler's result, or _NOT_HANDLED to run the op."""
    if getattr(_state, "meta_run", False):
        return _NOT_HANDLED  # a wrapper op's autograd recording (_with_autograd): the op itself runs
    if _wrappers:
        values = _resurrect_all(values)
    stack = _stack()
    op = None
    if not stack:
        types = _overloaded_types(values, None)
        if not types:
            recent = getattr(_state, "recent", None)
            if recent:
                # An op of plain tensors: the subclass results held below have reached their callers (what a C++
                # composite op returns after one is the exception). Letting them go lets their classes go, and with
                # the last of those the hook turns off.
                recent.clear()
            return _NOT_HANDLED
    try:
        op = ops._lookup(name)
    except (RuntimeError, AttributeError):
        return _NOT_HANDLED  # an op with no Python form (an in-place variant ember has only in C++): it just runs
    args, kwargs = op._normalize(values)
    r = _dispatch(op, args, kwargs)
    # The C++ op returns the handler's tensor to its caller; when that is Python, the tensor finds its Python object
    # (a subclass instance) only while that object is alive, so the last few results are held a little longer.
    recent = getattr(_state, "recent", None)
    if recent is None:
        recent = _state.recent = collections.deque(maxlen=16)
    recent.append(r)
    return r


def _dispatch(op, args, kwargs):
    kwargs = kwargs or {}
    if op._decomposition is not None:
        # PyTorch decomposes these above its dispatcher (CompositeImplicitAutograd): modes see the parts.
        r = op._decomposition(*args, **kwargs)
        if r is not NotImplemented:
            return r
    types = _overloaded_types(args, kwargs)
    stack = _stack()
    if stack:
        mode = stack.pop()
        try:
            rule = _custom_rule(op, type(mode))
            if rule is not None:
                return rule(mode, op, tuple(types), args, kwargs)
            return mode.__torch_dispatch__(op, tuple(types), args, kwargs)
        finally:
            stack.append(mode)
    ordered = []
    for t in types:  # subclasses before their superclasses, else left to right
        pos = len(ordered)
        for i, u in enumerate(ordered):
            if issubclass(t, u):
                pos = i
                break
        ordered.insert(pos, t)
    if not ordered:
        return op._run(args, kwargs)
    if ember.is_grad_enabled() and _wrapper_needs_grad(args, kwargs):
        # Note [Wrapper subclass autograd]: the handler computes the result below autograd; the op itself, run on
        # the wrappers' meta geometry, records the graph node, whose tensor becomes the result's identity.
        with ember.no_grad():
            r = _call_handlers(ordered, op, types, args, kwargs)
        return _with_autograd(op, args, kwargs, r)
    return _call_handlers(ordered, op, types, args, kwargs)


def _custom_rule(op, cls):
    """The rule that ember.library.register_torch_dispatch gave a custom op for this mode or subclass, if any."""
    custom = getattr(op, "_custom", None)
    return None if custom is None else custom._dispatch_rules.get(cls)


def _call_handlers(ordered, op, types, args, kwargs):
    for t in ordered:
        rule = _custom_rule(op, t)
        r = (
            rule(t, op, tuple(types), args, kwargs)
            if rule is not None
            else t.__torch_dispatch__(op, tuple(types), args, kwargs)
        )
        if r is not NotImplemented:
            return r
    raise TypeError(
        f"Multiple dispatch failed for {op}; all __torch_dispatch__ handlers returned NotImplemented:\n\n"
        + "\n".join(f"  - tensor subclass {t}" for t in ordered)
        + "\n\nFor more information, try re-running with TORCH_LOGS=not_implemented"
    )


@contextlib.contextmanager
def _no_dispatch_modes():
    """Runs a block with this thread's dispatch modes out of the way (an op composed in Python runs as one op)."""
    stack = _stack()
    saved = stack[:]
    stack.clear()
    try:
        yield
    finally:
        stack[:] = saved


@contextlib.contextmanager
def _disable_current_modes():
    """Pops every dispatch mode of this thread for a block (yields them, innermost last) and pushes them back."""
    stack = _stack()
    saved = stack[:]
    stack.clear()
    try:
        yield saved
    finally:
        stack[:] = saved


# ---- wrapper subclasses: identity (Note [Wrapper subclass identity] in python/src/python_dispatch.cpp) and autograd


_wrappers = {}  # storage token -> {geometry: (class, the instances' shared __dict__)}


def _geometry(t):
    return (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.dtype)


def _register_wrapper(obj):
    token = _C._wrapper_mark(obj)
    _wrappers.setdefault(token, {})[_geometry(obj)] = (type(obj), obj.__dict__)


def _wrapper_storage_freed(token):
    _wrappers.pop(token, None)


def _is_wrapper(a):
    return isinstance(a, ember.Tensor) and "_ember_wrapper_device" in getattr(a, "__dict__", ())


def _resurrect(t):
    """A plain tensor that is a wrapper's (saved for backward, a gradient in flight) -> the wrapper again."""
    if type(t) is not ember.Tensor or not _wrappers or not t.is_meta:
        return t
    entry = _wrappers.get(_C._storage_token(t))
    hit = entry.get(_geometry(t)) if entry else None
    if hit is None:
        return t
    cls, state = hit
    obj = _C._adopt(cls, t)
    obj.__dict__ = state
    return obj


def _resurrect_all(values):
    out = []
    for v in values:
        if isinstance(v, list):
            v = [_resurrect(x) for x in v]
        elif isinstance(v, ember.Tensor):
            v = _resurrect(v)
        out.append(v)
    return tuple(out)


def _wrapper_needs_grad(args, kwargs):
    flat = [*args, *(kwargs or {}).values()]
    flat = [x for a in flat for x in (a if isinstance(a, (list, tuple)) else (a,))]
    return any(_is_wrapper(a) for a in flat) and any(isinstance(a, ember.Tensor) and a.requires_grad for a in flat)


# Note [Wrapper subclass autograd]
# PyTorch records autograd on wrapper subclass instances above the Python dispatch key, then calls __torch_dispatch__
# below it. ember's ops offer their calls to Python at their entry, above the point where they record their node, so a
# wrapper op that needs grad runs twice: the handler computes the result under no_grad, then the op itself runs on the
# wrappers (meta tensors: no data is touched) with dispatch off, which checks the arguments, records the node with its
# gradient formula and gives a meta result with a grad_fn. That result, with the class and the state (__dict__) of the
# handler's result, is what the caller gets, so the graph's tensors are wrappers and a backward's formulas reach the
# handler again. Plain tensors beside the wrappers enter the recording as detached meta copies: no gradient for them.
def _with_autograd(op, args, kwargs, r):
    def to_meta(a):
        if isinstance(a, (list, tuple)):
            return type(a)(to_meta(x) for x in a)
        if isinstance(a, ember.Tensor) and not _is_wrapper(a):
            return a.detach().to("meta")  # plain tensors beside wrappers get no gradient (docs/extending.md)
        return a

    _state.meta_run = True
    was_recording = _C._set_wrapper_recording(True)  # the meta kernels let wrappers through (Note [Wrapper ... safety])
    try:
        with ember.enable_grad(), _C.DisableTorchFunctionSubclass():
            m = op._run(to_meta(tuple(args)), {k: to_meta(v) for k, v in kwargs.items()})
    finally:
        _C._set_wrapper_recording(was_recording)
        _state.meta_run = False

    def attach(mi, ri):
        # a differentiable output, or a fresh non-differentiable one (nll_loss_forward's total_weight, which its
        # backward reads from the recording): the graph reaches the handler's wrapper through it
        fresh = isinstance(mi, ember.Tensor) and (mi.grad_fn is not None or not _is_wrapper(mi))
        if fresh and _is_wrapper(ri):
            o = _C._adopt(type(ri), mi)
            o.__dict__ = ri.__dict__
            _register_wrapper(o)
            return o
        return ri

    if isinstance(r, (tuple, list)) and isinstance(m, (tuple, list)):
        return type(r)(attach(a, b) for a, b in zip(m, r))
    return attach(m, r)


# ---- the mode stack ------------------------------------------------------------------------------------------------


def _push_mode(mode):
    _stack().append(mode)
    _C._python_dispatch_enable(1)


def _pop_mode(k=None):
    stack = _stack()
    if not stack:
        raise AssertionError("Trying to pop from an empty mode stack")
    mode = stack.pop()
    _C._python_dispatch_enable(-1)
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily(k=None):
    old = _pop_mode(k)
    try:
        yield old
    finally:
        _push_mode(old)


def _get_current_dispatch_mode():
    stack = _stack()
    return stack[-1] if stack else None


def _get_current_dispatch_mode_stack():
    return list(_stack())


def _len_torch_dispatch_stack():
    return len(_stack())


class TorchDispatchMode:
    """A context manager whose ``__torch_dispatch__(self, func, types, args=(), kwargs=None)`` gets every ATen-level op
    that runs while it is active (``func`` is an ``ember.ops.aten`` overload), including the ops of a backward. The
    mode is popped while its handler runs, so ``func(*args, **kwargs)`` there runs the op (or reaches the next mode)."""

    def __init__(self, _dispatch_key=None):
        self.ancestors = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        stack = _stack()
        if not stack or stack[-1] is not self:
            raise RuntimeError("TorchDispatchMode exited out of order: the innermost mode must exit first")
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls):
        return False


def is_traceable_wrapper_subclass(t):
    """Whether t is a tensor subclass with ``__torch_dispatch__``, ``__tensor_flatten__`` and
    ``__tensor_unflatten__``."""
    tt = t if isinstance(t, type) else type(t)
    return (
        issubclass(tt, ember.Tensor)
        and tt is not ember.Tensor
        and _dispatch_type(tt)
        and hasattr(tt, "__tensor_flatten__")
        and hasattr(tt, "__tensor_unflatten__")
    )


def _no_init(self, *args, **kwargs):
    """Tensor.__init__ for a class with __torch_dispatch__: PyTorch's ignores the arguments when __new__ made the tensor
    (a wrapper's _make_wrapper_subclass); otherwise the class is built like Tensor (``Cls([1.0, 2.0])``)."""
    if not _C._tensor_is_ready(self):
        ember.Tensor.__init__(self, *args, **kwargs)


def _note_dispatch_type(cls):
    """Tensor.__init_subclass__: a class that defines __torch_dispatch__ turns the ops' check on while it exists."""
    if not any("__init__" in c.__dict__ for c in cls.__mro__[: cls.__mro__.index(ember.Tensor)]):
        cls.__init__ = _no_init  # PyTorch's Tensor.__init__ ignores the arguments __new__ took
    if _dispatch_type(cls):
        _C._python_dispatch_enable(1)
        weakref.finalize(cls, _C._python_dispatch_enable, -1)


def _wrapper_device(self):
    d = self.__dict__.get("_ember_wrapper_device")
    return d if d is not None else ember.Tensor.device.__get__(self)


def _make_wrapper_subclass(
    cls,
    size,
    strides=None,
    storage_offset=None,
    memory_format=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    dispatch_sizes_strides_policy=None,
    dispatch_device=False,
    dispatch_layout=False,
    _extra_dispatch_keys=None,
    storage_size=None,
):
    """A ``cls`` instance with the given sizes, strides, dtype and device but no data of its own (ember keeps its
    geometry on the meta device): what a wrapper subclass's ``__new__`` returns, its ``__torch_dispatch__`` computing
    every op on the tensors it wraps. Its ``device`` is the one given."""
    size = list(size)
    if strides is None:
        strides, acc = [], 1
        for n in reversed(size):
            strides.insert(0, acc)
            acc *= max(n, 1)
    geometry = ember.empty_strided(size, list(strides), dtype=dtype or ember.get_default_dtype(), device="meta")
    r = ember.Tensor._make_subclass(cls, geometry, requires_grad)
    r.__dict__["_ember_wrapper_device"] = ember.device(device) if device is not None else ember.device("cpu")
    if "device" not in cls.__dict__:
        cls.device = property(_wrapper_device)
    if "grad" not in cls.__dict__:
        cls.grad = property(_wrapper_grad, _set_wrapper_grad, _del_wrapper_grad)
    _register_wrapper(r)
    return r


_tensor_grad = ember.Tensor.grad


def _wrapper_grad(self):
    return _resurrect(_tensor_grad.__get__(self))


def _set_wrapper_grad(self, value):
    _tensor_grad.__set__(self, value)


def _del_wrapper_grad(self):
    _tensor_grad.__delete__(self)


_tensor_default = _disabled_torch_dispatch_impl  # Tensor.__torch_dispatch__ (attached in ember/_tensor.py)
_C._set_python_dispatch_hook(_dispatch_from_cpp, _NOT_HANDLED)
_C._set_wrapper_storage_freed(_wrapper_storage_freed)

__all__ += ["OpOverload"]
