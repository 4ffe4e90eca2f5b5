"""``ember.library``: custom operators defined in Python, with PyTorch's API (``torch.library``).

``custom_op("mylib::foo", mutates_args=())`` turns a function into the operator ``ember.ops.mylib.foo`` (an
``OpOverload`` with a schema inferred from the type annotations). Calls go through ``__torch_dispatch__`` like the
built-in ops (a dispatch mode sees ``mylib.foo.default``), then to the kernel of the inputs' device type: the function
itself, one given by ``register_kernel``, or on the meta device the ``register_fake`` function. ``register_autograd``
gives the op a gradient (an ``autograd.Function`` around the kernel); an op without one that gets inputs requiring
grad raises when its backward runs, as in PyTorch. ``Library(ns, "DEF"/"FRAGMENT"/"IMPL")`` defines ops from schema
strings and registers their kernels per dispatch key.
"""

import inspect
import typing

import ember
from ember._ops import _parse_schema, ops

__all__ = [
    "CustomOpDef",
    "Library",
    "custom_op",
    "define",
    "impl",
    "impl_abstract",
    "register_autograd",
    "register_fake",
    "register_kernel",
]

_DEVICE_KEYS = {"CPU": "cpu", "CUDA": "cuda", "Meta": "meta"}
_ANY_DEVICE_KEYS = ("CompositeExplicitAutograd", "Default", "")


def _type_name(ann):
    if ann is ember.Tensor:
        return "Tensor"
    origin = typing.get_origin(ann)
    targs = typing.get_args(ann)
    if origin is typing.Union and type(None) in targs:
        inner = [a for a in targs if a is not type(None)]
        return _type_name(inner[0]) + "?"
    if origin in (list, typing.List, tuple, typing.Sequence) and targs:  # noqa: UP006
        return _type_name(targs[0]) + "[]"
    names = {int: "SymInt", float: "float", bool: "bool", str: "str", ember.dtype: "ScalarType", ember.device: "Device"}
    if ann in names:
        return names[ann]
    raise ValueError(f"custom_op: unsupported type annotation {ann!r} (use Tensor, int, float, bool, str, ...)")


def infer_schema(fn, *, mutates_args=(), op_name=None):
    """The schema string of a function from its annotations: ``(Tensor x, float y) -> Tensor``."""
    sig = inspect.signature(fn)
    params = []
    for p in sig.parameters.values():
        if p.annotation is inspect.Parameter.empty:
            raise ValueError(f"custom_op(...)(func): Parameter {p.name} must have a type annotation.")
        t = _type_name(p.annotation)
        if p.name in mutates_args:
            t = "Tensor(a!)" if t == "Tensor" else t
        text = f"{t} {p.name}"
        if p.default is not inspect.Parameter.empty:
            text += "=" + repr(p.default)
        if p.kind is inspect.Parameter.KEYWORD_ONLY and "*" not in params:
            params.append("*")
        params.append(text)
    ret = sig.return_annotation
    if ret is None or ret is inspect.Signature.empty:
        rets = "()"
    elif typing.get_origin(ret) is tuple:
        rets = "(" + ", ".join(_type_name(a) for a in typing.get_args(ret)) + ")"
    else:
        rets = _type_name(ret)
    text = "(" + ", ".join(params) + ") -> " + rets
    return (op_name or "") + text


def _device_type(args):
    for a in args:
        if isinstance(a, ember.Tensor):
            return a.device.type
        if isinstance(a, (list, tuple)):
            d = _device_type(a)
            if d:
                return d
    return None


class CustomOpDef:
    """A custom operator: call it like the function it was made from; ``register_kernel``, ``register_fake``,
    ``register_autograd`` and ``register_torch_dispatch`` add to it. ``_opoverload`` is
    ``ember.ops.<ns>.<name>.default``."""

    def __init__(self, namespace, name, schema, fn, mutates_args=(), device_types=None):
        self._namespace, self._name = namespace, name
        self._fn = fn
        self._device_types = (
            None if device_types is None else ({device_types} if isinstance(device_types, str) else set(device_types))
        )
        self._mutates_args = tuple(mutates_args) if not isinstance(mutates_args, str) else mutates_args
        self._kernels = {}
        self._fake = None
        self._backward = None
        self._setup_context = None
        self._dispatch_rules = {}
        self._autograd_kernel = None  # Library.impl(..., "Autograd")
        self._signature = None
        _, overload, self._params, _ = _parse_schema(f"{name}{schema}")
        packet = getattr(ops, namespace)._packet(name)
        self._opoverload = packet._add(overload, f"{namespace}::{name}{schema}", self._call_kernel)
        self._opoverload._custom = self
        self._opoverload._run = self._run
        self.__name__ = name
        self.__doc__ = getattr(fn, "__doc__", None)
        if fn is not None:
            self._signature = inspect.signature(fn)

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def _bind(self, args, kwargs):
        if self._signature is None or not kwargs:
            return tuple(args)
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def __call__(self, *args, **kwargs):
        return self._opoverload(*self._bind(args, kwargs))

    # -- registration
    def register_kernel(self, device_types, fn=None):
        types = [device_types] if isinstance(device_types, str) or device_types is None else list(device_types)

        def reg(f):
            for t in types:
                self._kernels[t] = f
            return f

        return reg(fn) if fn is not None else reg

    def register_fake(self, fn=None):
        def reg(f):
            self._fake = f
            return f

        return reg(fn) if fn is not None else reg

    def register_autograd(self, backward, *, setup_context=None):
        self._backward = backward
        self._setup_context = setup_context

    def register_torch_dispatch(self, torch_dispatch_class, fn=None):
        def reg(f):
            self._dispatch_rules[torch_dispatch_class] = f
            return f

        return reg(fn) if fn is not None else reg

    # -- running
    def _kernel(self, args):
        dt = _device_type(args) or "cpu"
        if dt == "meta":
            if self._fake is None:
                raise NotImplementedError(
                    f"{self._namespace}::{self._name}: There was no fake impl registered for the meta device "
                    "(use ember.library.register_fake)"
                )
            return self._fake
        k = self._kernels.get(dt) or self._kernels.get(None)
        if k is not None:
            return k
        if self._fn is not None and (self._device_types is None or dt in self._device_types):
            return self._fn
        raise NotImplementedError(
            f"{self._namespace}::{self._name}: no kernel registered for device type '{dt}'"
            + (f" (device_types={sorted(self._device_types)})" if self._device_types else "")
        )

    def _call_kernel(self, *args):
        return self._kernel(args)(*args)

    def _run(self, args, kwargs):
        args = self._bind(args, kwargs)
        needs_grad = ember.is_grad_enabled() and any(
            isinstance(a, ember.Tensor) and a.requires_grad for a in _flat(args)
        )
        if needs_grad and self._autograd_kernel is not None:
            return self._autograd_kernel(*args)
        if not needs_grad:
            with ember.no_grad():
                return self._kernel(args)(*_detached(args))
        if self._backward is None:
            return _NoGradFunction.apply(self, *args)
        return _CustomFunction.apply(self, *args)


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _flat(a)
        else:
            yield a


def _detached(args):
    return tuple(
        a.detach() if isinstance(a, ember.Tensor) else type(a)(_detached(a)) if isinstance(a, (list, tuple)) else a
        for a in args
    )


class _CustomFunction(ember.autograd.Function):
    @staticmethod
    def forward(ctx, op, *args):
        out = op._kernel(args)(*_detached(args))  # the kernel runs below autograd
        ctx._op = op
        ctx._n = len(args)
        if op._setup_context is not None:
            op._setup_context(ctx, args, out)
        if isinstance(out, ember.Tensor):
            for a in args:
                if out is a:
                    return out.view_as(out)
        return out

    @staticmethod
    def backward(ctx, *grads):
        op = ctx._op
        r = op._backward(ctx, *grads)
        if not isinstance(r, tuple):
            r = (r,)
        if len(r) != ctx._n:
            raise RuntimeError(
                f"{op._namespace}::{op._name}: the backward returned {len(r)} gradients, but the op has {ctx._n} inputs"
            )
        return (None, *r)


class _NoGradFunction(ember.autograd.Function):
    @staticmethod
    def forward(ctx, op, *args):
        ctx._op = op
        return op._kernel(args)(*_detached(args))

    @staticmethod
    def backward(ctx, *grads):
        op = ctx._op
        raise RuntimeError(
            f"Trying to backward through {op._namespace}::{op._name} but no autograd formula was registered. "
            "Please use register_autograd to add one."
        )


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Makes ``fn`` the custom operator ``name`` ("namespace::name"); usable as a decorator."""
    if "::" not in name:
        raise ValueError(f"custom_op(name): expected name of the form 'namespace::opname', got '{name}'")
    ns, op_name = name.split("::", 1)
    if mutates_args is None:
        raise ValueError("custom_op: mutates_args must be given (a tuple of argument names, or 'unknown')")

    def make(f):
        muts = () if mutates_args == "unknown" else mutates_args
        s = schema if schema is not None else infer_schema(f, mutates_args=muts)
        return CustomOpDef(ns, op_name, s, f, mutates_args, device_types)

    return make(fn) if fn is not None else make


def _def_of(op):
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, str):
        ns, name = op.split("::", 1)
        name, _, overload = name.partition(".")
        op = getattr(getattr(getattr(ops, ns), name), overload or "default")
    custom = getattr(op, "_custom", None)
    if custom is None:
        raise ValueError(f"{op}: not a custom op defined with ember.library (built-in ops cannot be re-registered)")
    return custom


def register_fake(op, fn=None, /, *, lib=None, _stacklevel=1):
    """Registers the fake (meta-device) implementation of a custom op: it computes the outputs' shapes and dtypes."""
    return _def_of(op).register_fake(fn)


impl_abstract = register_fake  # its name before PyTorch 2.4


def register_kernel(op, device_types, fn=None, /, *, lib=None):
    """Registers the implementation of a custom op for a device type ("cpu", "cuda", or None for all)."""
    return _def_of(op).register_kernel(device_types, fn)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Gives a custom op its gradient: ``backward(ctx, *grads)`` returns one gradient (or None) per input;
    ``setup_context(ctx, inputs, output)`` saves what it needs on ctx."""
    _def_of(op).register_autograd(backward, setup_context=setup_context)


def register_torch_dispatch(op, torch_dispatch_class, fn=None, /, *, lib=None):
    return _def_of(op).register_torch_dispatch(torch_dispatch_class, fn)


class Library:
    """Operators of one namespace defined from schema strings: ``kind`` "DEF" (a new namespace), "FRAGMENT" (more
    ops of one) or "IMPL" (kernels for ops defined elsewhere)."""

    _defined_namespaces = set()

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns == "aten" and kind != "IMPL":
            raise ValueError("Library: the aten namespace is ember's; use kind='IMPL' or another namespace")
        if kind == "DEF":
            if ns in Library._defined_namespaces:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block. "
                    "If you were trying to specify implementations, consider using TORCH_LIBRARY_IMPL"
                )
            Library._defined_namespaces.add(ns)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._ops = []

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})"

    def define(self, schema, alias_analysis="", *, tags=()):
        if self.kind == "IMPL":
            raise RuntimeError("Library.define: a Library of kind 'IMPL' cannot define operators")
        name, overload, _, _ = _parse_schema(schema)
        text = schema[schema.index("(") :]
        d = CustomOpDef(self.ns, name, text, None)
        if overload != "default":
            raise ValueError("Library.define: overload names other than 'default' are not supported by ember")
        self._ops.append(d)
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False):
        if isinstance(op_name, str) and "::" not in op_name:
            op_name = f"{self.ns}::{op_name}"
        d = _def_of(op_name)
        key = dispatch_key or self.dispatch_key
        if key in _DEVICE_KEYS:
            if key == "Meta":
                d.register_fake(fn)
            else:
                d.register_kernel(_DEVICE_KEYS[key], fn)
        else:
            _register_key(d, key, fn)

    def _destroy(self):
        Library._defined_namespaces.discard(self.ns)


def _register_key(d, key, fn):
    if key in _ANY_DEVICE_KEYS:
        d.register_kernel(None, fn)
    elif key == "CompositeImplicitAutograd":
        # a composition of ember ops: it runs as it is, so autograd and dispatch modes see its parts
        d._opoverload._decomposition = fn
        d._opoverload._run = lambda args, kwargs: fn(*args, **kwargs)
    elif key == "Autograd":
        d._autograd_kernel = fn  # runs when an input requires grad (an autograd.Function's apply, typically)
    else:
        raise ValueError(f"Library.impl: unknown dispatch key '{key}'")


def define(qualname, schema, *, lib=None, tags=()):
    """Defines the operator ``qualname`` ("ns::name") with ``schema`` ("(Tensor x) -> Tensor")."""
    ns, name = qualname.split("::", 1)
    d = CustomOpDef(ns, name, schema, None)
    return d


def impl(qualname, types, func=None, *, lib=None):
    """Registers a kernel of an operator for device types ("cpu", "cuda") or dispatch keys ("CPU", "Meta")."""

    def reg(f):
        d = _def_of(qualname)
        for t in [types] if isinstance(types, str) else list(types):
            if t in _DEVICE_KEYS:
                (d.register_fake if t == "Meta" else (lambda g, t=t: d.register_kernel(_DEVICE_KEYS[t], g)))(f)
            elif t in ("cpu", "cuda", "meta") or t is None:
                (d.register_fake if t == "meta" else (lambda g, t=t: d.register_kernel(t, g)))(f)
            else:
                _register_key(d, t, f)
        return f

    return reg(func) if func is not None else reg
