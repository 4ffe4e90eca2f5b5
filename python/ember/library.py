"""``ember.library``: custom operators defined in Python, with PyTorch's API (``torch.library``).

``custom_op("mylib::foo", mutates_args=())`` turns a function into the operator ``ember.ops.mylib.foo`` (an
``OpOverload`` with a schema inferred from the type annotations). Calls go through ``__torch_dispatch__`` like the
built-in ops (a dispatch mode sees ``mylib.foo.default``), then to the kernel of the inputs' device type: the function
itself, one given by ``register_kernel``, or on the meta device the ``register_fake`` function. ``register_autograd``
gives the op a gradient (an ``autograd.Function`` around the kernel); an op without one that gets inputs requiring
grad raises when its backward runs, as in PyTorch. ``Library(ns, "DEF"/"FRAGMENT"/"IMPL")`` defines ops from schema
strings (named overloads too: ``"foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"`` is ``ember.ops.ns.foo.out``),
checked by ember._function_schema's parser, and registers their kernels per overload and dispatch key. ``opcheck``
(ember._opcheck) tests an op's registrations against what it does.
"""

import collections.abc
import inspect
import typing

import ember
from ember import _function_schema as _schema_mod
from ember._function_schema import FunctionSchema
from ember._ops import ops

_pending = {}  # 'ns::name.overload' -> [(dispatch key, kernel)]: Library.impl before the op's definition

__all__ = [
    "CustomOpDef",
    "Library",
    "custom_op",
    "define",
    "impl",
    "impl_abstract",
    "infer_schema",
    "opcheck",
    "register_autograd",
    "register_fake",
    "register_kernel",
]

_DEVICE_KEYS = {"CPU": "cpu", "CUDA": "cuda", "Meta": "meta"}
_ANY_DEVICE_KEYS = ("CompositeExplicitAutograd", "Default", "")


def _type_name(ann, error):
    if ann is ember.Tensor:
        return "Tensor"
    origin = typing.get_origin(ann)
    targs = typing.get_args(ann)
    if origin is typing.Union and type(None) in targs:
        inner = [a for a in targs if a is not type(None)]
        if len(inner) == 1:
            return _type_name(inner[0], error) + "?"
    if origin in (list, typing.List, collections.abc.Sequence) and len(targs) == 1:  # noqa: UP006
        return _type_name(targs[0], error) + "[]"
    names = {int: "SymInt", float: "float", bool: "bool", str: "str", ember.dtype: "ScalarType", ember.device: "Device"}
    if ann in names:
        return names[ann]
    error(ann)


def _default_text(value):
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"%s"' % value
    if isinstance(value, ember.dtype):
        return str(value).rpartition(".")[2]
    return None


def _string_annotations(fn, sig):
    """Annotations written as strings (``from __future__ import annotations``) resolved, with ``Tensor``, ``dtype``,
    ``device`` and ``torch.``/``ember.`` names meaning ember's, as PyTorch assumes for torch's."""
    anns = [p.annotation for p in sig.parameters.values()] + [sig.return_annotation]
    if not any(isinstance(a, str) for a in anns):
        return {}
    names = {"Tensor": ember.Tensor, "dtype": ember.dtype, "device": ember.device, "torch": ember, "ember": ember}
    names.update({k: getattr(typing, k) for k in ("Optional", "List", "Sequence", "Tuple", "Union")})
    names["Sequence"] = collections.abc.Sequence
    try:
        return typing.get_type_hints(fn, globalns={**getattr(fn, "__globals__", {}), **names})
    except Exception:  # noqa: BLE001  (an annotation that does not resolve is reported by the caller)
        return {}


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()):
    """The schema string of a function from its type annotations, as ``torch.library.infer_schema``:
    ``(Tensor x, float y) -> Tensor``, or ``name(...) -> ...`` with ``op_name``. The tensors named in
    ``mutates_args`` (all of them for "unknown") are marked mutable, ``Tensor(a0!)``."""
    sig = inspect.signature(prototype_function)
    hints = _string_annotations(prototype_function, sig)

    def error(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    names = set(sig.parameters)
    if mutates_args != "unknown":
        if isinstance(mutates_args, str) or not isinstance(mutates_args, collections.abc.Iterable):
            raise ValueError(
                "mutates_args must be a tuple, list or set of argument names, or the string 'unknown'; "
                f"got {mutates_args!r}"
            )
        missing = set(mutates_args) - names
        if missing:
            error(
                f"{missing} in mutates_args were not found in the custom op's signature. mutates_args should contain "
                "the names of all args that the custom op mutates, or just the string 'unknown' if you don't know."
            )
    params, star = [], False
    for idx, p in enumerate(sig.parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            error(f"We do not support positional-only args, varargs, or varkwargs ({p.name}).")
        if p.annotation is inspect.Parameter.empty:
            error(f"Parameter {p.name} must have a type annotation.")
        t = _type_name(
            hints.get(p.name, p.annotation),
            lambda ann, p=p: error(
                f"Parameter {p.name} has unsupported type {ann}. The valid types are: Tensor, Optional[Tensor], "
                "Sequence[Tensor], int, float, bool, str, torch.dtype, torch.device and lists / Optionals of them."
            ),
        )
        if t.startswith("Tensor") and (mutates_args == "unknown" or p.name in mutates_args):
            t = f"Tensor(a{idx}!)" + t[len("Tensor") :]  # PyTorch numbers alias sets by parameter position
        elif p.name in (() if mutates_args == "unknown" else mutates_args):
            error(f"Parameter {p.name} is in mutable_args but only Tensors or collections of Tensors can be mutated")
        text = f"{t} {p.name}"
        if p.default is not inspect.Parameter.empty:
            d = _default_text(p.default)
            if d is None:
                error(
                    f"Parameter {p.name} has an unsupported default value type {type(p.default)}. Please file an "
                    "issue on GitHub so we can prioritize this."
                )
            text += "=" + d
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            params.append("*")
            star = True
        params.append(text)
    ret = hints.get("return", sig.return_annotation)

    def ret_error(ann):
        error(f"Return has unsupported type {ann}. The valid types are: Tensor, Sequence[Tensor], int, float, bool.")

    if ret is None or ret is inspect.Signature.empty:
        rets = "()"
    elif typing.get_origin(ret) is tuple:
        rets = "(" + ", ".join(_type_name(a, ret_error) for a in typing.get_args(ret)) + ")"
    else:
        rets = _type_name(ret, ret_error)
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
    ``ember.ops.<ns>.<name>.<overload>`` (``default`` unless the schema names an overload)."""

    def __init__(self, namespace, name, schema, fn, mutates_args=(), device_types=None, overload="", lib=None):
        self._namespace, self._name, self._overload = namespace, name, overload or "default"
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
        self._composite = None  # Library.impl(..., "CompositeImplicitAutograd")
        self._lib = lib
        self._registered_at = _caller_location()
        full = f"{namespace}::{name}{'.' + overload if overload else ''}{schema}"
        self._schema = FunctionSchema(full)
        self._params = self._schema.arguments
        packet = getattr(ops, namespace)._packet(name)
        self._opoverload = packet._add(self._overload, self._schema, self._call_kernel)
        self._opoverload._custom = self
        self._opoverload._run = self._run
        self._opoverload.__dict__["_schema_obj"] = self._schema
        self.__name__ = name
        self.__doc__ = getattr(fn, "__doc__", None)
        for key, f in _pending.pop(self._qualname(), ()):
            _register_key(self, key, f)

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def _qualname(self):
        return f"{self._namespace}::{self._name}" + ("" if self._overload == "default" else f".{self._overload}")

    def _bind(self, args, kwargs):
        """The call's values in schema order, defaults filled in (RuntimeError with PyTorch's message if the
        arguments do not fit the schema)."""
        return _schema_mod.bind(self._schema, args, kwargs)

    def _split(self, values):
        return _schema_mod.split(self._schema, values)

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

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
        if not callable(backward):
            raise TypeError(f"register_autograd: backward must be callable, got {type(backward).__name__}")
        self._backward = backward
        self._setup_context = setup_context

    def register_torch_dispatch(self, torch_dispatch_class, fn=None):
        def reg(f):
            self._dispatch_rules[torch_dispatch_class] = f
            return f

        return reg(fn) if fn is not None else reg

    # -- running
    def _kernel(self, values):
        dt = _device_type(values) or "cpu"
        if dt == "meta":
            if self._fake is None:
                raise NotImplementedError(
                    f"{self._qualname()}: There was no fake impl registered for the meta device "
                    "(use ember.library.register_fake)"
                )
            return self._fake
        k = self._kernels.get(dt) or self._kernels.get(None)
        if k is not None:
            return k
        if self._fn is not None and (self._device_types is None or dt in self._device_types):
            return self._fn
        raise NotImplementedError(
            f"{self._qualname()}: no kernel registered for device type '{dt}'"
            + (f" (device_types={sorted(self._device_types)})" if self._device_types else "")
        )

    def _run_kernel(self, values):
        args, kwargs = self._split(_detached(values))
        return self._kernel(values)(*args, **kwargs)

    def _call_kernel(self, *args, **kwargs):
        return self._run_kernel(self._bind(args, kwargs))

    def _run(self, args, kwargs):
        values = self._bind(args, kwargs)
        if self._composite is not None:
            a, kw = self._split(values)
            return self._composite(*a, **kw)
        needs_grad = ember.is_grad_enabled() and any(
            isinstance(a, ember.Tensor) and a.requires_grad for a in _flat(values)
        )
        if needs_grad and self._autograd_kernel is not None:
            a, kw = self._split(values)
            return self._autograd_kernel(*a, **kw)
        if not needs_grad:
            with ember.no_grad():
                return self._run_kernel(values)
        if self._backward is None:
            return _NoGradFunction.apply(self, *values)
        return _CustomFunction.apply(self, *values)

    def _has_autograd(self):
        """Whether an autograd key has a kernel, as PyTorch's opcheck asks it."""
        registered = self._backward is not None or self._autograd_kernel is not None or self._composite is not None
        return registered or getattr(self, "_from_custom_op", False)


def _caller_location():
    """file:line of the user's code that made the registration (for the duplicate-definition message)."""
    import sys

    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else "<unknown>"


def _flat(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _flat(a)
        else:
            yield a


def _detached(args):
    """Tensors that require grad detached (kernels run below autograd); others, an out= tensor, as they are."""
    return [
        (a.detach() if a.requires_grad else a)
        if isinstance(a, ember.Tensor)
        else type(a)(_detached(a))
        if isinstance(a, (list, tuple))
        else a
        for a in args
    ]


class _CustomFunction(ember.autograd.Function):
    @staticmethod
    def forward(ctx, op, *values):
        out = op._run_kernel(list(values))  # the kernel runs below autograd
        ctx._op = op
        ctx._n = len(values)
        if op._setup_context is not None:
            op._setup_context(ctx, tuple(values), out)
        if isinstance(out, ember.Tensor):
            for a in values:
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
                f"{op._qualname()}: the backward returned {len(r)} gradients, but the op has {ctx._n} inputs"
            )
        return (None, *r)


class _NoGradFunction(ember.autograd.Function):
    @staticmethod
    def forward(ctx, op, *values):
        ctx._op = op
        return op._run_kernel(list(values))

    @staticmethod
    def backward(ctx, *grads):
        op = ctx._op
        raise RuntimeError(
            f"Trying to backward through {op._qualname()} but no autograd formula was registered. "
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
        s = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        d = CustomOpDef(ns, op_name, s, f, mutates_args, device_types)
        d._from_custom_op = True  # PyTorch's custom_op registers an Autograd kernel (that raises without a formula)
        return d

    return make(fn) if fn is not None else make


def _def_of(op):
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, str):
        ns, name, overload = _qualname_parts(op)
        packet = getattr(ops, ns)._packets.get(name)
        found = packet._overloads.get(overload or "default") if packet is not None else None
        if found is None:
            raise RuntimeError(f"Could not find the operator {op}; define it first (ember.library.define)")
        op = found
    if hasattr(op, "_overloads") and not hasattr(op, "_custom"):  # a packet: its one overload
        if len(op._overloads) != 1:
            raise ValueError(f"{op}: the operator has several overloads ({op.overloads()}); name one")
        op = next(iter(op._overloads.values()))
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


def _qualname_parts(qualname):
    if not isinstance(qualname, str) or "::" not in qualname:
        raise ValueError(
            f'Expected `qualname` to be of the form "namespace::name", but got {qualname}. The qualname passed to the '
            "torch.library APIs must consist of a namespace and a name, e.g. aten::sin"
        )
    ns, name = qualname.split("::", 1)
    name, _, overload = name.partition(".")
    return ns, name, overload


def _define(ns, name, overload, signature, lib, location):
    """Defines ``ns::name.overload`` with ``signature`` (``(args) -> returns``): PyTorch's duplicate check, then the
    op."""
    packet = getattr(ops, ns)._packets.get(name)
    existing = packet._overloads.get(overload or "default") if packet is not None else None
    if existing is not None:
        text = FunctionSchema(f"{ns}::{name}{'.' + overload if overload else ''}{signature}")
        custom = getattr(existing, "_custom", None)
        original = custom._registered_at if custom is not None else "ember's operator table"
        raise RuntimeError(
            f"Tried to register an operator ({text}) with the same name and overload name multiple times. Each "
            "overload's schema should only be registered with a single call to def(). Duplicate registration: "
            f"registered at {location}. Original registration: registered at {original}"
        )
    d = CustomOpDef(ns, name, signature, None, overload=overload, lib=lib)
    d._registered_at = location
    return d


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
        self._location = _caller_location()
        self._ops = []
        self._destroyed = False

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})"

    def _check_alive(self):
        if self._destroyed:
            raise AssertionError("Library object has been destroyed")

    def define(self, schema, alias_analysis="", *, tags=()):
        """Defines an operator (or one more overload of one: ``"foo.out(Tensor x, *, Tensor(a!) out) ->
        Tensor(a!)"``) from its schema; returns its name as the schema gives it, without the overload."""
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        self._check_alive()
        if self.kind == "IMPL":
            raise RuntimeError("Library.define: a Library of kind 'IMPL' cannot define operators")
        parsed = _schema_mod.parse(schema)
        if parsed.ns and parsed.ns != self.ns:
            raise RuntimeError(
                f"Explicitly provided namespace ({parsed.ns}) in schema string does not match namespace of enclosing "
                f"TORCH_LIBRARY block ({self.ns}).  Move this definition to the (unique) TORCH_LIBRARY block "
                "corresponding to this namespace (and consider deleting the namespace from your schema string.)  "
                f"(Error occurred while processing TORCH_LIBRARY block at {self._location})"
            )
        signature = schema[schema.index("(") :]
        d = _define(self.ns, parsed.short_name, parsed.overload_name, signature, self, self._location)
        self._ops.append(d)
        return schema.split("(")[0].split(".")[0].strip()

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False):
        """Registers ``fn`` as the kernel of ``op_name`` ("foo" or "foo.out", or an OpOverload) for
        ``dispatch_key`` ("CPU", "CUDA", "Meta", "CompositeExplicitAutograd", "CompositeImplicitAutograd",
        "Autograd"); an op this Library has not defined yet gets it when it is."""
        self._check_alive()
        if with_keyset:
            raise ValueError("Library.impl: with_keyset=True is not supported by ember (kernels get no DispatchKeySet)")
        key = dispatch_key or self.dispatch_key
        if key not in _DEVICE_KEYS and key not in _ANY_DEVICE_KEYS and key not in _OTHER_KEYS:
            raise ValueError(f"Library.impl: unknown dispatch key '{key}'")
        if isinstance(op_name, str):
            if "::" not in op_name:
                op_name = f"{self.ns}::{op_name}"
            ns, name, overload = _qualname_parts(op_name)
            packet = getattr(ops, ns)._packets.get(name)
            if packet is None or (overload or "default") not in packet._overloads:
                if ns == "aten":
                    raise RuntimeError(f"Library.impl: {op_name}: ember cannot re-register its own (aten) operators")
                qual = f"{ns}::{name}" + (f".{overload}" if overload and overload != "default" else "")
                _pending.setdefault(qual, []).append((key, fn))
                return
        _register_key(_def_of(op_name), key, fn)

    def _register_fake(self, op_name, fn, _stacklevel=1, *, allow_override=True):
        self.impl(op_name, fn, "Meta")

    def _destroy(self):
        """Removes the operators this Library defined (and its namespace claim); the Library is unusable after."""
        for d in self._ops:
            packet = getattr(ops, d._namespace)._packets.get(d._name)
            if packet is not None and packet._overloads.get(d._overload) is d._opoverload:
                del packet._overloads[d._overload]
                delattr(packet, d._overload)
                if not packet._overloads:
                    ns = getattr(ops, d._namespace)
                    del ns._packets[d._name]
                    delattr(ns, d._name)
        self._ops = []
        if self.kind == "DEF":
            Library._defined_namespaces.discard(self.ns)
        self._destroyed = True


_OTHER_KEYS = ("CompositeImplicitAutograd", "Autograd", "AutogradCPU", "AutogradCUDA")


def _register_key(d, key, fn):
    if key in _DEVICE_KEYS:
        if key == "Meta":
            d.register_fake(fn)
        else:
            d.register_kernel(_DEVICE_KEYS[key], fn)
    elif key in _ANY_DEVICE_KEYS:
        d.register_kernel(None, fn)
    elif key == "CompositeImplicitAutograd":
        # a composition of ember ops: it runs as it is, so autograd and dispatch modes see its parts
        d._opoverload._decomposition = fn
        d._composite = fn
    elif key in ("Autograd", "AutogradCPU", "AutogradCUDA"):
        d._autograd_kernel = fn  # runs when an input requires grad (an autograd.Function's apply, typically)
    else:
        raise ValueError(f"Library.impl: unknown dispatch key '{key}'")


def define(qualname, schema, *, lib=None, tags=()):
    """Defines the operator ``qualname`` ("ns::name" or "ns::name.overload") with ``schema``
    ("(Tensor x) -> Tensor"); returns nothing, as PyTorch's."""
    ns, name, overload = _qualname_parts(qualname)
    if not isinstance(schema, str) or not schema.lstrip().startswith("("):
        raise ValueError(f"define(qualname, schema): expected a schema like '(Tensor x) -> Tensor', got {schema!r}")
    _schema_mod.parse_signature(schema)
    d = _define(ns, name, overload, schema, lib, _caller_location())
    if lib is not None:
        lib._ops.append(d)


def impl(qualname, types, func=None, *, lib=None):
    """Registers a kernel of an operator for device types ("cpu", "cuda") or dispatch keys ("CPU", "Meta")."""

    def reg(f):
        d = _def_of(qualname)
        for t in [types] if isinstance(types, str) else list(types):
            if t in ("cpu", "cuda") or t is None:
                d.register_kernel(t, f)
            elif t == "meta":
                d.register_fake(f)
            else:
                _register_key(d, t, f)
        return f

    return reg(func) if func is not None else reg


def opcheck(op, args, kwargs=None, *, test_utils=None, raise_exception=True, rtol=None, atol=None):
    """Checks a custom op's schema, autograd registration, fake kernel and traceability on example arguments
    (``torch.library.opcheck``); returns ``{test: "SUCCESS" or the exception}``. See ember._opcheck."""
    from ember import _opcheck

    utils = _opcheck.DEFAULT_TEST_UTILS if test_utils is None else test_utils
    return _opcheck.opcheck(op, args, kwargs, test_utils=utils, raise_exception=raise_exception, rtol=rtol, atol=atol)
