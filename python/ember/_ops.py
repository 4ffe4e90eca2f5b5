"""``ember.ops``: operator overload objects with PyTorch's names (``ember.ops.aten.add.Tensor``), what
``__torch_dispatch__`` handlers receive as ``func``, and the namespaces of custom ops (``ember.ops.mylib.foo``,
defined with ``ember.library``).

An ``OpOverload`` knows its schema (PyTorch's schema string), how to run it (an ember function), and, for the ops that
PyTorch decomposes above its dispatcher (CompositeImplicitAutograd: ``linear``, ``matmul``, ``reshape``), the
decomposition a dispatch mode sees instead. Calling one goes through ``__torch_dispatch__`` when a dispatch mode is
active or an argument's type defines it (ember.utils._python_dispatch), else straight to the ember function.
"""

import math
import types

import ember

__all__ = ["OpOverload", "OpOverloadPacket", "ops"]


# ---- schemas -------------------------------------------------------------------------------------------------------


def _parse_default(text):
    text = text.strip()
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith("["):
        inner = text[1:-1].strip()
        return [int(v) for v in inner.split(",")] if inner else []
    if text.startswith(("'", '"')):
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


class _Param:
    __slots__ = ("name", "type", "has_default", "default", "kwarg_only")

    def __init__(self, text, kwarg_only):
        decl, eq, default = text.partition("=")
        self.type, _, self.name = decl.strip().rpartition(" ")
        self.has_default = bool(eq)
        self.default = _parse_default(default) if eq else None
        self.kwarg_only = kwarg_only


def _parse_schema(schema):
    """``name.overload(params) -> returns`` -> (name, overload, [params], returns)."""
    head, _, rest = schema.partition("(")
    depth, i = 1, 0
    while depth:
        depth += {"(": 1, ")": -1}.get(rest[i], 0)
        i += 1
    params_text, returns = rest[: i - 1], rest[i:].strip()
    returns = returns[2:].strip() if returns.startswith("->") else returns
    name, _, overload = head.partition(".")
    params, kwarg_only = [], False
    for p in _split_top(params_text):
        if p == "*":
            kwarg_only = True
            continue
        params.append(_Param(p, kwarg_only))
    return name.split("::")[-1], overload or "default", params, returns


# ---- overloads -----------------------------------------------------------------------------------------------------


class OpOverload:
    """One overload of an operator, ``ember.ops.aten.add.Tensor``: what ``__torch_dispatch__`` receives as ``func``.
    Calling it runs the op (through the dispatch modes and subclasses that are active, as PyTorch's dispatcher does)."""

    def __init__(self, packet, overload, schema, impl, decomposition=None):
        self._overloadpacket = packet
        self._overloadname = overload
        self._schema_text = schema
        _, _, self._params, self._returns = _parse_schema(schema)
        self._impl = impl
        self._decomposition = decomposition
        self.__name__ = f"{packet._name}.{overload}"
        self.__qualname__ = self.__name__
        self.__module__ = f"ember.ops.{packet._ns}"
        self._kernels = {}  # device type -> kernel (ember.library's register_kernel / impl)
        self._fake = None  # register_fake's function (the meta device's kernel)
        self._autograd = None  # the autograd.Function that register_autograd made

    @property
    def overloadpacket(self):
        return self._overloadpacket

    @property
    def _schema(self):
        """The schema: a str with PyTorch's FunctionSchema fields (name, overload_name, arguments, returns)."""
        schema = self.__dict__.get("_schema_obj")
        if schema is None:
            from ._function_schema import FunctionSchema

            try:
                schema = FunctionSchema(self._schema_text)
            except RuntimeError:
                schema = self._schema_text  # a schema ember's parser does not read: its text
            self.__dict__["_schema_obj"] = schema
        return schema

    @property
    def namespace(self):
        return self._overloadpacket._ns

    @property
    def _overloadname_(self):
        return self._overloadname

    def name(self):
        """``ns::name`` (``ns::name.overload`` for a named overload), as PyTorch's."""
        base = f"{self._overloadpacket._ns}::{self._overloadpacket._name}"
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    def __repr__(self):
        pk = self._overloadpacket
        return f"<OpOverload(op='{pk._ns}.{pk._name}', overload='{self._overloadname}')>"

    def __str__(self):
        return f"{self._overloadpacket._ns}.{self.__name__}"

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def __call__(self, *args, **kwargs):
        from .utils import _python_dispatch as pd

        if pd._wrappers:  # tensors a gradient formula saved come back plain; find their wrappers again
            args = pd._resurrect_all(args)
        if self._overloadpacket._ns != "aten" and _has_torch_function(args, kwargs):
            if _traced_through(self, args, kwargs):
                return self._run(args, kwargs)
            return _handle_torch_function(self, args, kwargs)
        if pd._needs_dispatch(args, kwargs):
            return pd._dispatch(self, args, kwargs)
        return self._run(args, kwargs)

    def _run(self, args, kwargs):
        """The op itself, below __torch_dispatch__."""
        return self._impl(*args, **kwargs)

    def redispatch(self, keyset, *args, **kwargs):
        return self._run(args, kwargs)

    def decompose(self, *args, **kwargs):
        if self._decomposition is None:
            return NotImplemented
        return self._decomposition(*args, **kwargs)

    def _normalize(self, values):
        """Positional values in schema order (how the C++ ops pass them) -> (args, kwargs) as PyTorch's dispatcher
        gives them to handlers: trailing positional defaults dropped, keyword-only ones given only when not default."""
        params = self._params
        args, kwargs = [], {}
        for p, v in zip(params, values):
            if p.type.startswith("Device") and isinstance(v, str):
                v = ember.device(v)  # the C++ ops name a device
            elif p.type.startswith("MemoryFormat") and isinstance(v, str):
                v = getattr(ember, v)  # and a memory format
            if p.kwarg_only:
                if not (p.has_default and _same_default(v, p.default)):
                    kwargs[p.name] = v
            else:
                args.append(v)
        n = len(args)
        pos = [p for p in params if not p.kwarg_only]
        while n and pos[n - 1].has_default and _same_default(args[n - 1], pos[n - 1].default):
            n -= 1
        return tuple(args[:n]), kwargs


def _same_default(v, d):
    if isinstance(v, ember.Tensor) or isinstance(d, ember.Tensor):
        return False
    if d is None or v is None:
        return v is d
    if isinstance(d, bool) != isinstance(v, bool):
        return False
    try:
        return v == d
    except Exception:
        return False


def _relevant_args(args, kwargs):
    found = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, (list, tuple)):
            found.extend(a)
        else:
            found.append(a)
    return found


def _has_torch_function(args, kwargs):
    """Whether an argument of a custom op's call overrides it (an fx Proxy, a Tensor subclass, a tensor-like) or a
    TorchFunctionMode is on: PyTorch's dispatcher gives such calls to __torch_function__ (tracing then records the op
    as one node)."""
    from .overrides import has_torch_function

    return has_torch_function(_relevant_args(args, kwargs))


def _traced_through(op, args, kwargs):
    """Whether an fx tracer that asks for it (ember.onnx's: Note [custom symbolics]) should see the parts of a custom
    op implemented as a composition of ember ops (CompositeImplicitAutograd), as PyTorch's tracing exporter does,
    instead of one node."""
    custom = getattr(op, "_custom", None)
    if custom is None or custom._composite is None:
        return False
    for a in _relevant_args(args, kwargs):
        through = getattr(getattr(a, "tracer", None), "trace_through_op", None)
        if through is not None:
            return through(op)
    return False


def _handle_torch_function(op, args, kwargs):
    from .overrides import handle_torch_function

    return handle_torch_function(op, _relevant_args(args, kwargs), *args, **kwargs)


class OpOverloadPacket:
    """An operator with all its overloads: ``ember.ops.aten.add`` (calling it picks the overload by its arguments the
    way the ember function does)."""

    def __init__(self, ns, name, default_impl=None):
        self._ns = ns
        self._name = name
        self._qualified_op_name = f"{ns}::{name}"
        self._overloads = {}
        self._default_impl = default_impl
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = f"ember.ops.{ns}"  # generated fx code names it ember.ops.<ns>.<name>

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"

    def __str__(self):
        return f"{self._ns}.{self._name}"

    def overloads(self):
        return list(self._overloads)

    @property
    def _schemas(self):
        """{overload name ("" for the default): schema}, as PyTorch's."""
        return {("" if k == "default" else k): op._schema for k, op in self._overloads.items()}

    def _add(self, overload, schema, impl, decomposition=None):
        op = OpOverload(self, overload, schema, impl, decomposition)
        self._overloads[overload] = op
        setattr(self, overload, op)
        return op

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"The underlying op of '{self}' has no overload name '{name}'")

    def __call__(self, *args, **kwargs):
        if self._ns != "aten":
            if _has_torch_function(args, kwargs):
                try:
                    op = self._resolve(args, kwargs)
                except RuntimeError:
                    op = None
                if op is not None and _traced_through(op, args, kwargs):
                    return op._run(args, kwargs)
                return _handle_torch_function(self, args, kwargs)
            return self._resolve(args, kwargs)(*args, **kwargs)
        if "default" in self._overloads and len(self._overloads) == 1:
            return self._overloads["default"](*args, **kwargs)
        if self._default_impl is None:
            return next(iter(self._overloads.values()))(*args, **kwargs)
        # several overloads: the one the arguments select, as the ember function selects it
        return self._pick(args)(*args, **kwargs)

    def _resolve(self, args, kwargs):
        """The overload of a custom op whose schema the arguments fit (the first, in the order of definition), as
        PyTorch's dispatcher resolves a call of a packet."""
        from ._function_schema import BindError, bind

        if len(self._overloads) == 1:
            return next(iter(self._overloads.values()))
        errors = []
        for op in self._overloads.values():
            try:
                bind(op._schema, args, kwargs)
            except BindError as e:
                errors.append(str(e))
                continue
            return op
        if not errors:
            raise RuntimeError(f"{self._qualified_op_name}: the operator has no overloads")
        raise RuntimeError(
            "Overloaded torch operator invoked from Python failed to match any schema:\n" + "\n\n".join(errors) + "\n"
        )

    def _pick(self, args):
        tensors = [isinstance(a, ember.Tensor) for a in args[:2]]
        for name in ("Tensor", "default", "int", "dim_IntList", "dim", "Tensor_Tensor"):
            if name in self._overloads:
                op = self._overloads[name]
                kinds = [p.type.startswith("Tensor") for p in op._params if not p.kwarg_only][: len(tensors)]
                if kinds == tensors or name not in ("Tensor", "Tensor_Tensor"):
                    return op
        return next(iter(self._overloads.values()))


class _Namespace(types.ModuleType):
    """``ember.ops.<ns>``: the operators of one namespace (``aten`` or a custom op library's); a module, as
    PyTorch's."""

    def __init__(self, name):
        super().__init__(f"ember.ops.{name}")
        self._name = name
        self._packets = {}

    def __repr__(self):
        return f"<module 'ember.ops.{self._name}'>"

    def _packet(self, name):
        pk = self._packets.get(name)
        if pk is None:
            pk = self._packets[name] = OpOverloadPacket(self._name, name)
            setattr(self, name, pk)
        return pk

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if self._name == "aten" and _auto_aten(name):
            return self._packets[name]
        raise AttributeError(f"'_OpNamespace' 'ember.ops.{self._name}' object has no attribute '{name}'")


class _Ops(types.ModuleType):
    """``ember.ops``: namespaces of operators by attribute (``ember.ops.aten``, ``ember.ops.mylib``); a module, as
    PyTorch's."""

    def __init__(self):
        super().__init__("ember.ops")
        self._namespaces = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        ns = self._namespaces.get(name)
        if ns is None:
            ns = self._namespaces[name] = _Namespace(name)
        return ns

    def _lookup(self, qualname):
        """'aten.add.Tensor' -> the OpOverload (made on first use for ember's generated elementwise ops)."""
        ns, name, overload = qualname.split(".")
        namespace = getattr(self, ns)
        packet = getattr(namespace, name)
        if ns == "aten" and name in _BINARY_DEFAULT and overload in ("Tensor", "Scalar"):
            overload = "default"  # the binary ops PyTorch has only one overload of
        op = packet._overloads.get(overload)
        if op is None and ns == "aten":
            _auto_overload(packet, overload)
            op = packet._overloads.get(overload)
        if op is None:
            raise RuntimeError(f"No such operator {ns}::{name}.{overload}")
        return op


ops = _Ops()


# ---- the aten ops ember offers to __torch_dispatch__ ---------------------------------------------------------------


def _fn(name):
    f = getattr(ember, name, None)
    if f is None:
        f = getattr(ember.nn.functional, name, None)
    if f is None and name.endswith("_") and not name.startswith("_"):
        f = getattr(ember.Tensor, name, None)  # an in-place method: x.relu_()
    if f is None and name.startswith("special_"):
        f = getattr(ember.special, name[len("special_") :], None)
    return f


# The binary ops whose one overload PyTorch names "default" (the rest of the binary table's are ".Tensor"/".Scalar").
_BINARY_DEFAULT = frozenset(
    "floor_divide atan2 maximum minimum fmax fmin hypot logical_and logical_or logical_xor logaddexp logaddexp2 "
    "special_xlog1py heaviside gcd lcm nextafter igamma igammac special_zeta".split()
)
# Unary special functions whose parameter PyTorch calls x.
_UNARY_X = frozenset(
    "special_scaled_modified_bessel_k0 special_scaled_modified_bessel_k1 special_spherical_bessel_j0 "
    "special_airy_ai".split()
)


def _method(name):
    return lambda self, *a, **k: getattr(ember.Tensor, name)(self, *a, **k)


def _without_none(**kw):
    return {k: v for k, v in kw.items() if v is not None}


def _like(name):
    def run(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return getattr(ember, name)(self, **_without_none(dtype=dtype, device=device, memory_format=memory_format))

    return run


def _full_like(self, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return ember.full_like(self, fill_value, **_without_none(dtype=dtype, device=device, memory_format=memory_format))


def _reduce(name):
    def run(self, dim=None, keepdim=False, *, dtype=None):
        f = getattr(ember, name)
        if dim is None or (isinstance(dim, (list, tuple)) and not dim and not keepdim):
            return f(self, **_without_none(dtype=dtype))
        return f(self, dim, keepdim, **_without_none(dtype=dtype))

    return run


def _below_modes(fn):
    """An op composed of ember ops in Python: its parts run below the dispatch modes, as one op."""

    def run(*args, **kwargs):
        from .utils._python_dispatch import _no_dispatch_modes

        with _no_dispatch_modes():
            return fn(*args, **kwargs)

    return run


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    return ember.mul(output, ember.sub(grad_output, ember.sum(ember.mul(grad_output, output), [dim], True)))


def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    return ember.sub(grad_output, ember.mul(ember.exp(output), ember.sum(grad_output, [dim], True)))


def _threshold_backward(grad_output, self, threshold):
    return ember.mul(grad_output, ember.gt(self, threshold))


def _sigmoid_backward(grad_output, output):
    return ember.mul(grad_output, ember.mul(output, ember.sub(1.0, output)))


def _tanh_backward(grad_output, output):
    return ember.mul(grad_output, ember.sub(1.0, ember.mul(output, output)))


def _folded_mm(a, b):
    """PyTorch's matmul of a >= 3-d `a` and a matrix `b`: `a` folded into a matrix (a view where its leading dims
    merge; else a contiguous copy when `b` needs a gradient), one mm, the result unfolded with _unsafe_view; a 3-d `a`
    that is neither goes through bmm with `b` expanded. None for the cases left to aten.matmul."""
    aten = ops.aten
    lead, k = list(a.shape[:-1]), a.shape[-1]
    rows = math.prod(lead)
    st, sh = a.stride(), a.shape
    if a.numel() == 0 or all(st[i] == st[i + 1] * sh[i + 1] for i in range(a.dim() - 2)):
        flat = aten.view.default(a, [rows, k])
    elif b.requires_grad and ember.is_grad_enabled():
        flat = aten._unsafe_view.default(aten.clone.default(a, memory_format=ember.contiguous_format), [rows, k])
    elif a.dim() == 3:
        a3 = aten.view.default(aten.expand.default(a, list(a.shape)), list(a.shape))
        b3 = aten.view.default(aten.expand.default(b, [a.shape[0], *b.shape]), [a.shape[0], *b.shape])
        return aten._unsafe_view.default(aten.bmm.default(a3, b3), [*lead, b.shape[-1]])
    else:
        return None
    return aten._unsafe_view.default(aten.mm.default(flat, b), [*lead, b.shape[-1]])


def _linear_decomp(input, weight, bias=None):
    aten = ops.aten
    if input.dim() > 2 and weight.dim() == 2 and bias is not None and input.is_contiguous():
        # PyTorch's linear folds a contiguous input itself, for one addmm
        lead = list(input.shape[:-1])
        flat = aten.view.default(input, [math.prod(lead), input.shape[-1]])
        out = aten.addmm.default(bias, flat, aten.t.default(weight))
        return aten._unsafe_view.default(out, [*lead, out.shape[-1]])
    wt = aten.t.default(weight)
    if input.dim() == 2:
        return aten.mm.default(input, wt) if bias is None else aten.addmm.default(bias, input, wt)
    out = _folded_mm(input, wt) if input.dim() > 2 and weight.dim() == 2 else None
    out = aten.matmul.default(input, wt) if out is None else out
    return out if bias is None else aten.add.Tensor(out, bias)


def _matmul_decomp(self, other):
    aten = ops.aten
    if self.dim() == 2 and other.dim() == 2:
        return aten.mm.default(self, other)
    if self.dim() == 3 and other.dim() == 3 and self.shape[0] == other.shape[0]:
        return aten.bmm.default(self, other)
    if self.dim() > 2 and other.dim() == 2 and (out := _folded_mm(self, other)) is not None:
        return out
    return NotImplemented  # run as aten.matmul (PyTorch's further cases are views around mm/bmm)


def _reshape_decomp(self, shape):
    aten = ops.aten
    if self.is_contiguous():
        return aten.view.default(self, shape)
    return aten._unsafe_view.default(aten.clone.default(self, memory_format=ember.contiguous_format), shape)


def _clone(self, *, memory_format=None):
    return ember.clone(self, **_without_none(memory_format=memory_format))


def _expand(self, size, *, implicit=False):
    return ember.Tensor.expand(self, size)


def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    F, n = ember.nn.functional, weight.dim() - 2
    if transposed:
        return getattr(F, f"conv_transpose{n}d")(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return getattr(F, f"conv{n}d")(input, weight, bias, stride, padding, dilation, groups)


def _convolution_backward(
    grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, output_mask
):
    """The gradients of aten.convolution that output_mask asks for (None for the others): ember's gradient formula,
    reached through autograd on detached operands."""
    need_x, need_w, need_b = (bool(m) for m in output_mask)
    gx = gw = gb = None
    if need_x or need_w:
        with ember.enable_grad():
            x = input.detach().requires_grad_(need_x)
            w = weight.detach().requires_grad_(need_w)
            y = _convolution(x, w, None, stride, padding, dilation, transposed, output_padding, groups)
            wanted = [t for t, m in ((x, need_x), (w, need_w)) if m]
            grads = list(ember.autograd.grad(y, wanted, grad_output))
        gx = grads.pop(0) if need_x else None
        gw = grads.pop(0) if need_w else None
    if need_b:
        gb = ember.sum(grad_output, [0, *range(2, grad_output.dim())])
    return gx, gw, gb


def _channel_shape(x):
    return [1, -1] + [1] * (x.dim() - 2)


def _batch_stats(x, eps):
    """The per-channel mean and 1/sqrt(biased variance + eps) of x ([N, C, *])."""
    dims = [0, *range(2, x.dim())]
    mean = ember.mean(x, dims)
    var = ember.mean(ember.square(ember.sub(x, mean.view(_channel_shape(x)))), dims)
    return mean, ember.rsqrt(ember.add(var, eps))


def _native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    out = ember.nn.functional.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:  # PyTorch's CPU kernel saves nothing in evaluation
        return out, ember.empty(0, dtype=input.dtype), ember.empty(0, dtype=input.dtype)
    mean, invstd = _batch_stats(input.detach(), eps)
    return out, mean, invstd


def _native_batch_norm_backward(
    grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, output_mask
):
    """batch_norm's gradients in closed form (xhat = (x - mean) * invstd, g = grad_out * weight): dx = invstd * (g -
    mean(g) - xhat * mean(g * xhat)) in training, g * invstd in evaluation; dweight = sum(grad_out * xhat), dbias =
    sum(grad_out). Without save_mean/save_invstd a training backward recomputes them from the input."""
    dims, shape = [0, *range(2, input.dim())], _channel_shape(input)
    if not train:
        mean, invstd = running_mean, ember.rsqrt(ember.add(running_var, eps))
    elif save_mean is None or save_invstd is None:
        mean, invstd = _batch_stats(input, eps)
    else:
        mean, invstd = save_mean, save_invstd
    mean, invstd = mean.to(input.dtype).view(shape), invstd.to(input.dtype).view(shape)
    xhat = ember.mul(ember.sub(input, mean), invstd)
    g = grad_out if weight is None else ember.mul(grad_out, weight.view(shape))
    gx = gw = gb = None
    if output_mask[0]:
        if train:
            centred = ember.sub(g, ember.mean(g, dims, True))
            gx = ember.mul(ember.sub(centred, ember.mul(xhat, ember.mean(ember.mul(g, xhat), dims, True))), invstd)
        else:
            gx = ember.mul(g, invstd)
    if output_mask[1]:
        gw = ember.sum(ember.mul(grad_out, xhat), dims)
    if output_mask[2]:
        gb = ember.sum(grad_out, dims)
    return gx, gw, gb


def _native_layer_norm(input, normalized_shape, weight, bias, eps):
    """layer_norm, with the mean and 1/sqrt(biased variance + eps) over the normalized dims (kept as size-1 dims)."""
    out = ember.nn.functional.layer_norm(input, list(normalized_shape), weight, bias, eps)
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    x = input.detach()
    mean = ember.mean(x, dims, True)
    var = ember.mean(ember.square(ember.sub(x, mean)), dims, True)
    return out, mean, ember.rsqrt(ember.add(var, eps))


def _max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return ember.nn.functional.max_pool2d(
        self, kernel_size, list(stride) or None, padding, dilation, ceil_mode=ceil_mode, return_indices=True
    )


def _max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    """Each output's gradient added at the input position its index names (within its plane)."""
    lead = list(self.shape[:-2])
    z = ember.zeros([*lead, self.shape[-2] * self.shape[-1]], dtype=grad_output.dtype, device=grad_output.device)
    z = ember.scatter_add(z, -1, indices.reshape([*lead, -1]), grad_output.reshape([*lead, -1]))
    return z.view(list(self.shape))


_REDUCTIONS = ("none", "mean", "sum")


def _cross_entropy_loss(self, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    return ember.nn.functional.cross_entropy(
        self,
        target,
        weight,
        ignore_index=ignore_index,
        reduction=_REDUCTIONS[reduction],
        label_smoothing=label_smoothing,
    )


def _cross_entropy_decomp(self, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    """PyTorch's parts of cross_entropy for a batch of class indices: log_softmax, then nll_loss."""
    if label_smoothing or self.dim() not in (2, 4) or target.dim() + 1 != self.dim() or target.is_floating_point():
        return NotImplemented
    aten = ops.aten
    lsm = aten._log_softmax.default(self, 1, False)
    nll = aten.nll_loss_forward if self.dim() == 2 else aten.nll_loss2d_forward
    return nll.default(lsm, target, weight, reduction, ignore_index)[0]


def _target_weights(self, target, weight, ignore_index):
    """Each target's class weight (1 without weights), 0 where the target is ignored; and the safe targets."""
    valid = ember.ne(target, ignore_index)
    safe = ember.where(valid, target, 0)
    # (ones_like: the device of the tensor itself, which a wrapper subclass's recording copy reports as the wrapper's)
    w = ember.ones_like(target, dtype=self.dtype) if weight is None else weight[safe]
    return ember.where(valid, w, ember.zeros_like(w)), safe


class _NllLossForward(ember.autograd.Function):
    """nll_loss with its gradient as aten.nll_loss_backward, or nll_loss2d_backward for an [N, C, H, W] input (the op
    a dispatch mode sees in the backward)."""

    @staticmethod
    def forward(ctx, self, target, weight, reduction, ignore_index):
        out = ember.nn.functional.nll_loss(
            self, target, weight, ignore_index=ignore_index, reduction=_REDUCTIONS[reduction]
        )
        w, _ = _target_weights(self, target, weight, ignore_index)
        total = ember.sum(w) if reduction else ember.zeros([], dtype=self.dtype, device=self.device)
        ctx.save_for_backward(self, target, total)
        ctx.weight, ctx.reduction, ctx.ignore_index = weight, reduction, ignore_index
        ctx.mark_non_differentiable(total)
        return out, total

    @staticmethod
    def backward(ctx, grad, _):
        self, target, total = ctx.saved_tensors
        backward = ops.aten.nll_loss2d_backward if self.dim() == 4 else ops.aten.nll_loss_backward
        g = backward.default(grad, self, target, ctx.weight, ctx.reduction, ctx.ignore_index, total)
        return g, None, None, None, None


def _nll_loss_forward(self, target, weight, reduction, ignore_index):
    return _NllLossForward.apply(self, target, weight, reduction, ignore_index)


def _nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    """d loss / d self: -weight[target] (divided by total_weight for the mean) at each target, scaled by grad_output."""
    w, safe = _target_weights(self, target, weight, ignore_index)
    coef = ember.neg(w)
    if reduction == 1:
        coef = ember.div(coef, total_weight)
    g = ember.mul(coef, grad_output).to(self.dtype)
    c = 1 if self.dim() > 1 else 0  # the class dim
    return ember.scatter(ember.zeros_like(self), c, safe.unsqueeze(c), g.unsqueeze(c))


def _nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    if self.dim() != 4 or target.dim() != 3:
        raise RuntimeError(
            "nll_loss2d_forward: expected a 4-d input and a 3-d target, got "
            f"{list(self.shape)} and {list(target.shape)}"
        )
    return _NllLossForward.apply(self, target, weight, reduction, ignore_index)


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return ember.nn.functional.embedding(
        indices, weight, padding_idx if padding_idx >= 0 else None, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse
    )


def _embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    """Each looked-up row's gradient added into its weight row (divided by the row's count with scale_grad_by_freq,
    none for padding_idx)."""
    i = indices.reshape(-1)
    g = grad_output.reshape([-1, grad_output.shape[-1]])
    if scale_grad_by_freq:
        g = ember.div(g, ember.bincount(i, minlength=num_weights)[i].unsqueeze(1))
    if padding_idx >= 0:
        g = ember.mul(g, ember.ne(i, padding_idx).unsqueeze(1))
    z = ember.zeros([num_weights, g.shape[1]], dtype=grad_output.dtype, device=grad_output.device)
    return ember.index_add(z, 0, i, g)


# ---- the ops of Transformer, LSTM and autoencoder training steps: losses, layer_norm's gradient, GELU/SiLU's, the
# views select/slice with their gradients, _safe_softmax


def _per_element(reduction, like):
    """The factor a loss's per-element gradient takes for its reduction: 1/numel for the mean, else 1."""
    return 1.0 / max(like.numel(), 1) if reduction == 1 else 1.0


def _loss_grad(grad_output, self, per_element, reduction):
    """grad_output times a loss's per-element derivative, scaled for the reduction, in self's shape."""
    g = ember.mul(ember.mul(per_element, _per_element(reduction, per_element)), grad_output)
    return g.sum_to_size(self.shape) if tuple(g.shape) != tuple(self.shape) else g


def _mse_loss_backward(grad_output, self, target, reduction):
    return _loss_grad(grad_output, self, ember.mul(ember.sub(self, target), 2.0), reduction)


def _smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    d = ember.sub(self, target)
    inner = ember.sign(d) if beta == 0 else ember.where(ember.lt(ember.abs(d), beta), ember.div(d, beta), ember.sign(d))
    return _loss_grad(grad_output, self, inner, reduction)


def _huber_loss_backward(grad_output, self, target, reduction, delta):
    d = ember.sub(self, target)
    inner = ember.where(ember.le(ember.abs(d), delta), d, ember.mul(ember.sign(d), delta))
    return _loss_grad(grad_output, self, inner, reduction)


def _binary_cross_entropy_backward(grad_output, self, target, weight=None, reduction=1):
    """(x - t) / max(x (1 - x), 1e-12), PyTorch's form (finite where x is exactly 0 or 1), times the weight."""
    inner = ember.div(ember.sub(self, target), ember.clamp(ember.mul(ember.sub(1.0, self), self), min=1e-12))
    if weight is not None:
        inner = ember.mul(inner, weight)
    return _loss_grad(grad_output, self, inner, reduction)


def _bce_target_grad(grad_output, self, target, weight, reduction):
    inner = ember.sub(ember.log(ember.sub(1.0, self)), ember.log(self))
    if weight is not None:
        inner = ember.mul(inner, weight)
    return _loss_grad(grad_output, target, inner, reduction)


def _with_backward_op(forward, backward, defaults, target_grad=None):
    """A loss op whose gradient for `self` is the aten backward op PyTorch shows (`backward`, called through
    ember.ops.aten so that modes and subclasses see it); for the target, the same op with the two swapped (the loss
    is symmetric in them) unless target_grad gives it. The arguments after (self, target) are non-differentiable, and
    `defaults` fills in those the caller left out."""

    class Fn(ember.autograd.Function):
        @staticmethod
        def forward(ctx, self, target, *rest):
            ctx.save_for_backward(self, target)
            ctx.rest = rest
            return forward(self, target, *rest)

        @staticmethod
        def backward(ctx, grad):
            self, target = ctx.saved_tensors
            op = getattr(ops.aten, backward).default
            gs = op(grad, self, target, *ctx.rest) if ctx.needs_input_grad[0] else None
            gt = None
            if ctx.needs_input_grad[1]:
                gt = target_grad(grad, self, target, *ctx.rest) if target_grad else op(grad, target, self, *ctx.rest)
            return (gs, gt, *([None] * len(ctx.rest)))

    return lambda self, target, *rest: Fn.apply(self, target, *rest, *defaults[len(rest) :])


_mse_loss = _with_backward_op(
    lambda s, t, r: ember.nn.functional.mse_loss(s, t, reduction=_REDUCTIONS[r]), "mse_loss_backward", (1,)
)
_smooth_l1_loss = _with_backward_op(
    lambda s, t, r, beta: ember.nn.functional.smooth_l1_loss(s, t, reduction=_REDUCTIONS[r], beta=beta),
    "smooth_l1_loss_backward",
    (1, 1.0),
)
_huber_loss = _with_backward_op(
    lambda s, t, r, delta: ember.nn.functional.huber_loss(s, t, reduction=_REDUCTIONS[r], delta=delta),
    "huber_loss_backward",
    (1, 1.0),
)
_binary_cross_entropy = _with_backward_op(
    lambda s, t, w, r: ember.nn.functional.binary_cross_entropy(s, t, w, reduction=_REDUCTIONS[r]),
    "binary_cross_entropy_backward",
    (None, 1),
    _bce_target_grad,
)


def _binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=1):
    return ember.nn.functional.binary_cross_entropy_with_logits(
        self, target, weight, reduction=_REDUCTIONS[reduction], pos_weight=pos_weight
    )


def _native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    """layer_norm's gradients in closed form over the normalized (trailing) dims: xhat = (x - mean) * rstd,
    g = grad_out * weight, dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), dweight = sum(grad_out * xhat) and
    dbias = sum(grad_out) over the leading dims."""
    k = len(normalized_shape)
    dims, lead = list(range(input.dim() - k, input.dim())), list(range(input.dim() - k))
    mean, rstd = mean.to(input.dtype), rstd.to(input.dtype)
    xhat = ember.mul(ember.sub(input, mean), rstd)
    g = grad_out if weight is None else ember.mul(grad_out, weight)
    gx = gw = gb = None
    if output_mask[0]:
        centred = ember.sub(g, ember.mean(g, dims, True))
        gx = ember.mul(ember.sub(centred, ember.mul(xhat, ember.mean(ember.mul(g, xhat), dims, True))), rstd)
    if output_mask[1] and weight is not None:
        gw = ember.sum(ember.mul(grad_out, xhat), lead) if lead else ember.mul(grad_out, xhat)
    if output_mask[2]:
        gb = ember.sum(grad_out, lead) if lead else grad_out.clone()
    return gx, gw, gb


_SQRT_HALF, _INV_SQRT_2PI, _SQRT_2_OVER_PI, _KAPPA = (
    0.7071067811865476,
    0.3989422804014327,
    0.7978845608028654,
    0.044715,
)


def _gelu_backward(grad_output, self, *, approximate="none"):
    """d gelu / dx: Phi(x) + x phi(x) (exact), or PyTorch's derivative of its tanh form."""
    x = self
    if approximate == "tanh":
        x2 = ember.mul(x, x)
        t = ember.tanh(ember.mul(ember.add(x, ember.mul(ember.mul(x2, x), _KAPPA)), _SQRT_2_OVER_PI))
        right = ember.mul(ember.mul(ember.mul(x, 0.5), ember.sub(1.0, ember.mul(t, t))),
                          ember.mul(ember.add(ember.mul(x2, 3 * _KAPPA), 1.0), _SQRT_2_OVER_PI))  # fmt: skip
        return ember.mul(grad_output, ember.add(ember.mul(ember.add(t, 1.0), 0.5), right))
    cdf = ember.mul(ember.add(ember.erf(ember.mul(x, _SQRT_HALF)), 1.0), 0.5)
    pdf = ember.mul(ember.exp(ember.mul(ember.mul(x, x), -0.5)), _INV_SQRT_2PI)
    return ember.mul(grad_output, ember.add(cdf, ember.mul(x, pdf)))


def _silu_backward(grad_output, self):
    s = ember.sigmoid(self)
    return ember.mul(grad_output, ember.mul(s, ember.add(ember.mul(self, ember.sub(1.0, s)), 1.0)))


def _slice(self, dim=0, start=None, end=None, step=1):
    n = self.shape[dim]
    start, end = 0 if start is None else start, n if end is None else end
    start, end = start + n if start < 0 else start, end + n if end < 0 else end
    start = min(max(start, 0), n)
    end = min(max(end, start), n)
    out = ember.narrow(self, dim, start, end - start)
    if step != 1:
        out = out[(slice(None),) * (dim % self.dim()) + (slice(None, None, step),)]
    return out


def _select_backward(grad_output, input_sizes, dim, index):
    z = ember.zeros(list(input_sizes), dtype=grad_output.dtype, device=grad_output.device)
    return ember.select_scatter(z, grad_output, dim, index)


def _slice_backward(grad_output, input_sizes, dim, start, end, step):
    z = ember.zeros(list(input_sizes), dtype=grad_output.dtype, device=grad_output.device)
    return ember.slice_scatter(z, grad_output, dim, start, end, step)


def _safe_softmax(self, dim, dtype=None):
    """softmax, with 0 (not NaN) in the rows that are all -inf (PyTorch's for attention with masked-out rows)."""
    out = ember.softmax(self, dim, **_without_none(dtype=dtype))
    empty = ember.all(ember.isneginf(self), dim, keepdim=True)
    return ember.where(empty, ember.zeros_like(out), out) if bool(ember.any(empty)) else out


# ---- indexing, reductions, sorting, conversions and dropout


def _dropout_decomp(input, p, train):
    """PyTorch's CPU composition of dropout (its fused native_dropout is CUDA's): a Bernoulli(1 - p) mask scaled by
    1 / (1 - p), multiplied in; its gradient is the mul's."""
    aten = ops.aten
    if not train or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        return aten.mul.Tensor(input, aten.zeros_like.default(input))
    noise = aten.empty_like.default(input)
    aten.bernoulli_.float(noise, 1 - p)
    aten.div_.Scalar(noise, 1 - p)
    return aten.mul.Tensor(input, noise)


def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    kw = _without_none(dtype=dtype, device=device, memory_format=memory_format)
    return self.to(copy=True, non_blocking=non_blocking, **kw)


def _index_key(indices):
    """PyTorch's Tensor?[] indices as a Python index (None: the dim is not indexed)."""
    return tuple(slice(None) if i is None else i for i in indices)


def _index(self, indices):
    return self[_index_key(indices)]


def _index_put_(self, indices, values, accumulate=False):
    return ember.Tensor.index_put_(self, list(indices), values, accumulate)


def _index_put(self, indices, values, accumulate=False):
    return ember.index_put(self, list(indices), values, accumulate)


def _new_zeros(self, size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return ember.zeros(
        list(size),
        dtype=self.dtype if dtype is None else dtype,
        device=self.device if device is None else device,
        pin_memory=bool(pin_memory),
    )


def _linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 (the schema's name)
    return ember.linalg.vector_norm(self, ord, dim, keepdim, dtype=dtype)


def _var_std(name):
    def run(self, dim=None, *, correction=None, keepdim=False):
        f = getattr(ember, name)
        correction = 1 if correction is None else correction
        return f(self, dim, correction=correction, keepdim=keepdim)

    return run


def _argminmax(name):
    def run(self, dim=None, keepdim=False):
        return getattr(ember, name)(self, dim, keepdim)

    return run


# ---- CNN ops with their backward ops: group_norm, avg_pool2d, adaptive_avg_pool2d


def _autograd_grad(forward, input, grad_output):
    """d forward(input) / d input applied to grad_output: ember's own gradient formula, on a detached input."""
    with ember.enable_grad():
        x = input.detach().requires_grad_()
        (g,) = ember.autograd.grad(forward(x), [x], grad_output)
    return g


class _AvgPool2d(ember.autograd.Function):
    @staticmethod
    def forward(ctx, self, *geometry):
        ctx.save_for_backward(self)
        ctx.geometry = geometry
        kernel_size, stride, *rest = geometry
        return ember.nn.functional.avg_pool2d(self, kernel_size, list(stride) or None, *rest)

    @staticmethod
    def backward(ctx, grad):
        (self,) = ctx.saved_tensors
        return (ops.aten.avg_pool2d_backward.default(grad, self, *ctx.geometry), *([None] * len(ctx.geometry)))


def _avg_pool2d(
    self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    return _AvgPool2d.apply(self, kernel_size, list(stride), padding, ceil_mode, count_include_pad, divisor_override)


def _avg_pool2d_backward(
    grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    F = ember.nn.functional
    geometry = (kernel_size, list(stride) or None, padding, ceil_mode, count_include_pad, divisor_override)
    return _autograd_grad(lambda x: F.avg_pool2d(x, *geometry), self, grad_output)


def _adaptive_avg_pool2d_decomp(self, output_size):
    """PyTorch's: the mean over the spatial dims for a 1x1 output, else _adaptive_avg_pool2d."""
    if all(o == 1 for o in output_size):
        return ops.aten.mean.dim(self, [-1, -2], True)
    return ops.aten._adaptive_avg_pool2d.default(self, output_size)


class _AdaptiveAvgPool2d(ember.autograd.Function):
    @staticmethod
    def forward(ctx, self, output_size):
        ctx.save_for_backward(self)
        return ember.nn.functional.adaptive_avg_pool2d(self, output_size)

    @staticmethod
    def backward(ctx, grad):
        (self,) = ctx.saved_tensors
        return ops.aten._adaptive_avg_pool2d_backward.default(grad, self), None


def _adaptive_avg_pool2d_backward(grad_output, self):
    out = list(grad_output.shape[-2:])
    return _autograd_grad(lambda x: ember.nn.functional.adaptive_avg_pool2d(x, out), self, grad_output)


def _group_stats(x, N, group, eps):
    """Per (sample, group) mean and 1/sqrt(biased variance + eps), shaped [N, group]."""
    xg = x.reshape([N, group, -1])
    mean = ember.mean(xg, [2])
    var = ember.mean(ember.square(ember.sub(xg, mean.unsqueeze(2))), [2])
    return mean, ember.rsqrt(ember.add(var, eps))


class _NativeGroupNorm(ember.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias, N, C, HxW, group, eps):
        out = ember.nn.functional.group_norm(input, group, weight, bias, eps)
        mean, rstd = _group_stats(input, N, group, eps)
        ctx.save_for_backward(input, mean, rstd, weight)
        ctx.sizes = (N, C, HxW, group)
        ctx.mark_non_differentiable(mean, rstd)
        return out, mean, rstd

    @staticmethod
    def backward(ctx, grad, _mean, _rstd):
        input, mean, rstd, weight = ctx.saved_tensors
        mask = [bool(m) for m in ctx.needs_input_grad[:3]]
        gx, gw, gb = ops.aten.native_group_norm_backward.default(grad, input, mean, rstd, weight, *ctx.sizes, mask)
        return gx, gw, gb, None, None, None, None, None


def _native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    return _NativeGroupNorm.apply(input, weight, bias, N, C, HxW, group, eps)


def _native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    """group_norm's gradients in closed form over each (sample, group): xhat = (x - mean) * rstd, g = grad_out *
    weight, dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); dweight and dbias sum over the samples and positions."""
    shape = list(input.shape)
    x3 = input.reshape([N, C, -1])
    per_c = [N, group, C // group, -1]
    xhat = ember.mul(ember.sub(x3.reshape(per_c), mean.reshape([N, group, 1, 1])), rstd.reshape([N, group, 1, 1]))
    go = grad_out.reshape([N, C, -1])
    g = go if weight is None else ember.mul(go, weight.reshape([1, C, 1]))
    gx = gw = gb = None
    if output_mask[0]:
        g4, dims = g.reshape(per_c), [2, 3]
        centred = ember.sub(g4, ember.mean(g4, dims, True))
        gx = ember.mul(ember.sub(centred, ember.mul(xhat, ember.mean(ember.mul(g4, xhat), dims, True))),
                       rstd.reshape([N, group, 1, 1])).reshape(shape)  # fmt: skip
    if output_mask[1] and weight is not None:
        gw = ember.sum(ember.mul(go, xhat.reshape([N, C, -1])), [0, 2])
    if output_mask[2]:
        gb = ember.sum(go, [0, 2])
    return gx, gw, gb


def _random_factory(name):
    def run(*args, dtype=None, layout=None, device=None, pin_memory=None):
        *head, size = args
        return getattr(ember, name)(*head, list(size), **_without_none(dtype=dtype, device=device))

    return run


def _interpolate(x, output_size, mode, align_corners, scales):
    """F.interpolate as aten's upsample ops run: by the scales when they were given, else to output_size."""
    kw = {} if align_corners is None else {"align_corners": align_corners}
    if all(s is not None for s in scales):
        return ember.nn.functional.interpolate(x, scale_factor=list(scales), mode=mode, **kw)
    return ember.nn.functional.interpolate(x, size=list(output_size), mode=mode, **kw)


class _Upsample2d(ember.autograd.Function):
    @staticmethod
    def forward(ctx, self, output_size, mode, align_corners, scales_h, scales_w):
        ctx.args = (list(output_size), list(self.shape), mode, align_corners, scales_h, scales_w)
        return _interpolate(self, output_size, mode, align_corners, (scales_h, scales_w))

    @staticmethod
    def backward(ctx, grad):
        output_size, input_size, mode, align_corners, sh, sw = ctx.args
        if mode == "nearest":
            g = ops.aten.upsample_nearest2d_backward.default(grad, output_size, input_size, sh, sw)
        else:
            g = ops.aten.upsample_bilinear2d_backward.default(grad, output_size, input_size, align_corners, sh, sw)
        return g, None, None, None, None, None


def _upsample_backward(mode):
    """The adjoint of the (linear) resampling, applied to grad_output: the gradient at any input of that size."""

    def run(grad_output, output_size, input_size, *rest):
        align_corners, scales = (None, rest) if mode == "nearest" else (rest[0], rest[1:])
        scales = tuple(scales) + (None,) * (2 - len(scales))
        x = ember.zeros(list(input_size), dtype=grad_output.dtype, device=grad_output.device)
        return _autograd_grad(lambda t: _interpolate(t, output_size, mode, align_corners, scales), x, grad_output)

    return run


def _factory(name):
    def run(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        kw = _without_none(dtype=dtype, device=device, memory_format=memory_format)
        return getattr(ember, name)(list(size), pin_memory=bool(pin_memory), **kw)

    return run


_FACTORY = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"


def _full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    return ember.full(list(size), fill_value, pin_memory=bool(pin_memory), **_without_none(dtype=dtype, device=device))


def _arange(*args, dtype=None, layout=None, device=None, pin_memory=None):
    return ember.arange(*args, **_without_none(dtype=dtype, device=device))


_LIKE = (
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None"
)

_TABLE = [
    # schema, implementation, decomposition (the ops PyTorch decomposes above its dispatcher)
    (
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        lambda s, o, *, alpha=1: ember.add(s, o, alpha=alpha),
        None,
    ),
    (
        "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        lambda s, o, *, alpha=1: ember.sub(s, o, alpha=alpha),
        None,
    ),
    (
        "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
        lambda s, o, *, rounding_mode=None: ember.div(s, o, rounding_mode=rounding_mode),
        None,
    ),
    ("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", ember.pow, None),
    ("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", ember.pow, None),
    ("pow.Scalar(Scalar self, Tensor exponent) -> Tensor", ember.pow, None),
    (
        "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        lambda s, o, *, alpha=1: ember.Tensor.add_(s, o, alpha=alpha),
        None,
    ),
    (
        "sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        lambda s, o, *, alpha=1: ember.Tensor.sub_(s, o, alpha=alpha),
        None,
    ),
    ("mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", lambda s, o: ember.Tensor.mul_(s, o), None),
    ("div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", lambda s, o: ember.Tensor.div_(s, o), None),
    ("mm.default(Tensor self, Tensor mat2) -> Tensor", ember.mm, None),
    ("bmm.default(Tensor self, Tensor mat2) -> Tensor", ember.bmm, None),
    (
        "addmm.default(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        lambda s, a, b, *, beta=1, alpha=1: ember.addmm(s, a, b, beta=beta, alpha=alpha),
        None,
    ),
    ("matmul.default(Tensor self, Tensor other) -> Tensor", ember.matmul, _matmul_decomp),
    (
        "linear.default(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
        ember.nn.functional.linear,
        _linear_decomp,
    ),
    ("t.default(Tensor(a) self) -> Tensor(a)", ember.t, None),
    ("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", ember.transpose, None),
    ("view.default(Tensor(a) self, SymInt[] size) -> Tensor(a)", lambda s, size: ember.Tensor.view(s, size), None),
    ("reshape.default(Tensor(a) self, SymInt[] shape) -> Tensor(a)", ember.reshape, _reshape_decomp),
    ("_unsafe_view.default(Tensor self, SymInt[] size) -> Tensor", lambda self, size: ember.reshape(self, size), None),
    ("permute.default(Tensor(a) self, int[] dims) -> Tensor(a)", ember.permute, None),
    ("expand.default(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", _expand, None),
    ("unsqueeze.default(Tensor(a) self, int dim) -> Tensor(a)", ember.unsqueeze, None),
    ("clone.default(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", _clone, None),
    ("sum.default(Tensor self, *, ScalarType? dtype=None) -> Tensor", _reduce("sum"), None),
    (
        "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        _reduce("sum"),
        None,
    ),
    ("mean.default(Tensor self, *, ScalarType? dtype=None) -> Tensor", _reduce("mean"), None),
    (
        "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        _reduce("mean"),
        None,
    ),
    (
        "convolution.default(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
        "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
        _convolution,
        None,
    ),
    (
        "convolution_backward.default(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, "
        "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
        "SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
        _below_modes(_convolution_backward),
        None,
    ),
    (
        "native_batch_norm.default(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
        "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        _below_modes(_native_batch_norm),
        None,
    ),
    (
        "native_batch_norm_backward.default(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
        "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) "
        "-> (Tensor, Tensor, Tensor)",
        _below_modes(_native_batch_norm_backward),
        None,
    ),
    (
        "native_layer_norm.default(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) "
        "-> (Tensor, Tensor, Tensor)",
        _below_modes(_native_layer_norm),
        None,
    ),
    (
        "max_pool2d_with_indices.default(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
        "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        _below_modes(_max_pool2d_with_indices),
        None,
    ),
    (
        "max_pool2d_with_indices_backward.default(Tensor grad_output, Tensor self, int[2] kernel_size, "
        "int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
        _below_modes(_max_pool2d_with_indices_backward),
        None,
    ),
    (
        "cross_entropy_loss.default(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
        "SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor",
        _cross_entropy_loss,
        _cross_entropy_decomp,
    ),
    (
        "nll_loss_forward.default(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) "
        "-> (Tensor output, Tensor total_weight)",
        _below_modes(_nll_loss_forward),
        None,
    ),
    (
        "nll_loss_backward.default(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
        "SymInt ignore_index, Tensor total_weight) -> Tensor",
        _below_modes(_nll_loss_backward),
        None,
    ),
    (
        "embedding.default(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
        "bool sparse=False) -> Tensor",
        _embedding,
        None,
    ),
    (
        "embedding_dense_backward.default(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, "
        "bool scale_grad_by_freq) -> Tensor",
        _below_modes(_embedding_dense_backward),
        None,
    ),
    ("index_select.default(Tensor self, int dim, Tensor index) -> Tensor", ember.index_select, None),
    (
        "gather.default(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
        lambda self, dim, index, *, sparse_grad=False: ember.gather(self, dim, index, sparse_grad=sparse_grad),
        None,
    ),
    ("mse_loss.default(Tensor self, Tensor target, int reduction=1) -> Tensor", _below_modes(_mse_loss), None),
    (
        "mse_loss_backward.default(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor",
        _below_modes(_mse_loss_backward),
        None,
    ),
    (
        "smooth_l1_loss.default(Tensor self, Tensor target, int reduction=1, float beta=1.) -> Tensor",
        _below_modes(_smooth_l1_loss),
        None,
    ),
    (
        "smooth_l1_loss_backward.default(Tensor grad_output, Tensor self, Tensor target, int reduction, float beta) "
        "-> Tensor",
        _below_modes(_smooth_l1_loss_backward),
        None,
    ),
    (
        "huber_loss.default(Tensor self, Tensor target, int reduction=1, float delta=1.) -> Tensor",
        _below_modes(_huber_loss),
        None,
    ),
    (
        "huber_loss_backward.default(Tensor grad_output, Tensor self, Tensor target, int reduction, float delta) "
        "-> Tensor",
        _below_modes(_huber_loss_backward),
        None,
    ),
    (
        "binary_cross_entropy.default(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor",
        _below_modes(_binary_cross_entropy),
        None,
    ),
    (
        "binary_cross_entropy_backward.default(Tensor grad_output, Tensor self, Tensor target, Tensor? weight=None, "
        "int reduction=1) -> Tensor",
        _below_modes(_binary_cross_entropy_backward),
        None,
    ),
    (
        "binary_cross_entropy_with_logits.default(Tensor self, Tensor target, Tensor? weight=None, "
        "Tensor? pos_weight=None, int reduction=1) -> Tensor",
        _below_modes(_binary_cross_entropy_with_logits),
        None,
    ),
    (
        "native_layer_norm_backward.default(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, "
        "Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
        _below_modes(_native_layer_norm_backward),
        None,
    ),
    (
        'gelu.default(Tensor self, *, str approximate="none") -> Tensor',
        lambda self, *, approximate="none": ember.nn.functional.gelu(self, approximate=approximate),
        None,
    ),
    (
        'gelu_backward.default(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor',
        _below_modes(_gelu_backward),
        None,
    ),
    ("silu_backward.default(Tensor grad_output, Tensor self) -> Tensor", _below_modes(_silu_backward), None),
    ("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", ember.select, None),
    (
        "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
        _slice,
        None,
    ),
    (
        "select_backward.default(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor",
        _below_modes(_select_backward),
        None,
    ),
    (
        "slice_backward.default(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, SymInt end, "
        "SymInt step) -> Tensor",
        _below_modes(_slice_backward),
        None,
    ),
    (
        "_safe_softmax.default(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
        _below_modes(_safe_softmax),
        None,
    ),
    ("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", ember.where, None),
    ("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", ember.masked_fill, None),
    ("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", ember.scatter, None),
    ("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", ember.scatter, None),
    ("scatter_add.default(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", ember.scatter_add, None),
    (
        "index_add.default(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
        lambda self, dim, index, source, *, alpha=1: ember.index_add(self, dim, index, source, alpha=alpha),
        None,
    ),
    (
        "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        lambda self, dim, keepdim=False, *, dtype=None: ember.prod(self, dim, keepdim, **_without_none(dtype=dtype)),
        None,
    ),
    (
        "prod.default(Tensor self, *, ScalarType? dtype=None) -> Tensor",
        lambda self, *, dtype=None: ember.prod(self, **_without_none(dtype=dtype)),
        None,
    ),
    ("amax.default(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", ember.amax, None),
    ("amin.default(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", ember.amin, None),
    ("max.default(Tensor self) -> Tensor", ember.max, None),
    ("min.default(Tensor self) -> Tensor", ember.min, None),
    (
        "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        lambda self, dim, keepdim=False: tuple(ember.max(self, dim, keepdim)),
        None,
    ),
    (
        "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        lambda self, dim, keepdim=False: tuple(ember.min(self, dim, keepdim)),
        None,
    ),
    ("argmax.default(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", _argminmax("argmax"), None),
    ("argmin.default(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", _argminmax("argmin"), None),
    (
        "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
        _var_std("var"),
        None,
    ),
    (
        "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
        _var_std("std"),
        None,
    ),
    (
        "cumsum.default(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
        lambda self, dim, *, dtype=None: ember.cumsum(self, dim, **_without_none(dtype=dtype)),
        None,
    ),
    (
        "sort.default(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
        lambda self, dim=-1, descending=False: tuple(ember.sort(self, dim, descending)),
        None,
    ),
    (
        "topk.default(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) "
        "-> (Tensor values, Tensor indices)",
        lambda self, k, dim=-1, largest=True, sorted=True: tuple(ember.topk(self, k, dim, largest, sorted)),  # noqa: A006 (the schema's name)
        None,
    ),
    (
        "clamp.default(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
        lambda self, min=None, max=None: ember.clamp(self, min, max),  # noqa: A006 (the schema's names)
        None,
    ),
    ("clamp_min.default(Tensor self, Scalar min) -> Tensor", ember.clamp_min, None),
    (
        "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        lambda self, other, alpha=1: ember.sub(other, self, alpha=alpha),
        None,
    ),
    ("clamp_max.default(Tensor self, Scalar max) -> Tensor", ember.clamp_max, None),
    ("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", _index, None),
    (
        "index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
        lambda self, dim, index, value: ember.Tensor.index_fill_(self, dim, index, value),
        None,
    ),
    (
        "masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
        lambda self, mask, value: ember.Tensor.masked_fill_(self, mask, value),
        None,
    ),
    (
        "index_put_.default(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
        _index_put_,
        None,
    ),
    (
        "index_put.default(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
        _index_put,
        None,
    ),
    (
        "new_zeros.default(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None) -> Tensor",
        _new_zeros,
        None,
    ),
    (
        "linalg_vector_norm.default(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor",
        _linalg_vector_norm,
        None,
    ),
    (
        "nll_loss2d_forward.default(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) "
        "-> (Tensor output, Tensor total_weight)",
        _below_modes(_nll_loss2d_forward),
        None,
    ),
    (
        "nll_loss2d_backward.default(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
        "SymInt ignore_index, Tensor total_weight) -> Tensor",
        _below_modes(_nll_loss_backward),
        None,
    ),
    (
        "_to_copy.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
        "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
        _to_copy,
        None,
    ),
    (
        "dropout.default(Tensor input, float p, bool train) -> Tensor",
        lambda input, p, train: ember.nn.functional.dropout(input, p, train),
        _dropout_decomp,
    ),
    (f"empty_like.default(Tensor self, *, {_LIKE}) -> Tensor", _like("empty_like"), None),
    (
        "bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
        lambda self, p=0.5, *, generator=None: ember.Tensor.bernoulli_(self, p, generator=generator),
        None,
    ),
    (
        "div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
        lambda self, other: ember.Tensor.div_(self, other),
        None,
    ),
    (
        "avg_pool2d.default(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
        "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
        _below_modes(_avg_pool2d),
        None,
    ),
    (
        "avg_pool2d_backward.default(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
        "int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
        _below_modes(_avg_pool2d_backward),
        None,
    ),
    (
        "adaptive_avg_pool2d.default(Tensor self, SymInt[2] output_size) -> Tensor",
        ember.nn.functional.adaptive_avg_pool2d,
        _adaptive_avg_pool2d_decomp,
    ),
    (
        "_adaptive_avg_pool2d.default(Tensor self, SymInt[2] output_size) -> Tensor",
        _below_modes(lambda self, output_size: _AdaptiveAvgPool2d.apply(self, list(output_size))),
        None,
    ),
    (
        "_adaptive_avg_pool2d_backward.default(Tensor grad_output, Tensor self) -> Tensor",
        _below_modes(_adaptive_avg_pool2d_backward),
        None,
    ),
    (
        "native_group_norm.default(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, "
        "int group, float eps) -> (Tensor, Tensor, Tensor)",
        _below_modes(_native_group_norm),
        None,
    ),
    (
        "native_group_norm_backward.default(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, "
        "SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
        _below_modes(_native_group_norm_backward),
        None,
    ),
    (f"rand.default(SymInt[] size, *, {_FACTORY}) -> Tensor", _random_factory("rand"), None),
    (f"randn.default(SymInt[] size, *, {_FACTORY}) -> Tensor", _random_factory("randn"), None),
    (
        f"randint.default(SymInt high, SymInt[] size, *, {_FACTORY.replace('dtype=None', 'dtype=4')}) -> Tensor",
        _random_factory("randint"),
        None,
    ),
    (
        f"randint.low(SymInt low, SymInt high, SymInt[] size, *, {_FACTORY.replace('dtype=None', 'dtype=4')}) "
        "-> Tensor",
        _random_factory("randint"),
        None,
    ),
    (
        "uniform_.default(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None) -> Tensor(a!)",
        lambda self, from_=0.0, to=1.0, *, generator=None: ember.Tensor.uniform_(self, from_, to, generator=generator),
        None,
    ),
    (
        "normal_.default(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)",
        lambda self, mean=0.0, std=1.0, *, generator=None: ember.Tensor.normal_(self, mean, std, generator=generator),
        None,
    ),
    (
        "bernoulli.default(Tensor self, *, Generator? generator=None) -> Tensor",
        lambda self, *, generator=None: ember.bernoulli(self, generator=generator),
        None,
    ),
    (
        "upsample_nearest2d.default(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) "
        "-> Tensor",
        _below_modes(
            lambda self, output_size, scales_h=None, scales_w=None: _Upsample2d.apply(
                self, output_size, "nearest", None, scales_h, scales_w
            )
        ),
        None,
    ),
    (
        "upsample_nearest2d_backward.default(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, "
        "float? scales_h=None, float? scales_w=None) -> Tensor",
        _below_modes(_upsample_backward("nearest")),
        None,
    ),
    (
        "upsample_bilinear2d.default(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, "
        "float? scales_w=None) -> Tensor",
        _below_modes(
            lambda self, output_size, align_corners, scales_h=None, scales_w=None: _Upsample2d.apply(
                self, output_size, "bilinear", align_corners, scales_h, scales_w
            )
        ),
        None,
    ),
    (
        "upsample_bilinear2d_backward.default(Tensor grad_output, SymInt[2] output_size, SymInt[4] input_size, "
        "bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor",
        _below_modes(_upsample_backward("bilinear")),
        None,
    ),
    (
        "copy_.default(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
        lambda self, src, non_blocking=False: ember.Tensor.copy_(self, src, non_blocking),
        None,
    ),
    (f"full.default(SymInt[] size, Scalar fill_value, *, {_FACTORY}) -> Tensor", _full, None),
    (f"arange.default(Scalar end, *, {_FACTORY}) -> Tensor", _arange, None),
    (f"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, {_FACTORY}) -> Tensor", _arange, None),
    (f"zeros.default(SymInt[] size, *, {_FACTORY}) -> Tensor", _factory("zeros"), None),
    (f"ones.default(SymInt[] size, *, {_FACTORY}) -> Tensor", _factory("ones"), None),
    (
        f"empty.memory_format(SymInt[] size, *, {_FACTORY}, MemoryFormat? memory_format=None) -> Tensor",
        _factory("empty"),
        None,
    ),
    (f"full_like.default(Tensor self, Scalar fill_value, *, {_LIKE}) -> Tensor", _full_like, None),
    (f"ones_like.default(Tensor self, *, {_LIKE}) -> Tensor", _like("ones_like"), None),
    (f"zeros_like.default(Tensor self, *, {_LIKE}) -> Tensor", _like("zeros_like"), None),
    ("detach.default(Tensor(a) self) -> Tensor(a)", ember.detach, None),
    ("cat.default(Tensor[] tensors, int dim=0) -> Tensor", lambda tensors, dim=0: ember.cat(tensors, dim), None),
    ("stack.default(Tensor[] tensors, int dim=0) -> Tensor", lambda tensors, dim=0: ember.stack(tensors, dim), None),
    (
        "_softmax.default(Tensor self, int dim, bool half_to_float) -> Tensor",
        lambda self, dim, half_to_float: ember.softmax(self, dim),
        None,
    ),
    (
        "_log_softmax.default(Tensor self, int dim, bool half_to_float) -> Tensor",
        lambda self, dim, half_to_float: ember.log_softmax(self, dim),
        None,
    ),
    (
        "_softmax_backward_data.default(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
        _below_modes(_softmax_backward_data),
        None,
    ),
    (
        "_log_softmax_backward_data.default(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) "
        "-> Tensor",
        _below_modes(_log_softmax_backward_data),
        None,
    ),
    (
        "threshold_backward.default(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
        _below_modes(_threshold_backward),
        None,
    ),
    ("sigmoid_backward.default(Tensor grad_output, Tensor output) -> Tensor", _below_modes(_sigmoid_backward), None),
    ("tanh_backward.default(Tensor grad_output, Tensor output) -> Tensor", _below_modes(_tanh_backward), None),
]


def _register(ns, schema, impl, decomposition=None):
    name, overload, _, _ = _parse_schema(schema)
    packet = getattr(ops, ns)._packet(name)
    if overload == "default" and schema.startswith(name + ".default("):
        schema = name + schema[len(name) + len(".default") :]  # PyTorch's schemas leave the default overload unnamed
    return packet._add(overload, f"{ns}::{schema}", impl, decomposition)


for _schema, _impl, _decomp in _TABLE:
    _register("aten", _schema, _impl, _decomp)


def _auto_aten(name):
    """ember's elementwise functions (generated from the op tables) as aten ops on first use."""
    f = _fn(name)
    if f is None or not callable(f):
        return False
    ops.aten._packet(name)
    return True


def _auto_overload(packet, overload):
    f = _fn(packet._name)
    if f is None:
        return
    n = packet._name
    if overload == "default" and n in _BINARY_DEFAULT:
        _register("aten", f"{n}(Tensor self, Tensor {'values' if n == 'heaviside' else 'other'}) -> Tensor", f)
    elif overload == "default" and n.endswith("_"):
        _register("aten", f"{n}(Tensor(a!) self) -> Tensor(a!)", f)
    elif overload == "default":
        _register("aten", f"{n}(Tensor {'x' if n in _UNARY_X else 'self'}) -> Tensor", f)
    elif overload == "Tensor":
        _register("aten", f"{n}.Tensor(Tensor self, Tensor other) -> Tensor", f)
    elif overload == "Scalar":
        _register("aten", f"{n}.Scalar(Tensor self, Scalar other) -> Tensor", f)


for _name in ("mul", "div", "gt", "lt", "ge", "le", "eq", "ne"):
    _auto_aten(_name)
    _auto_overload(ops.aten._packets[_name], "Tensor")
    if _name in ("gt", "lt", "ge", "le", "eq", "ne"):
        _auto_overload(ops.aten._packets[_name], "Scalar")
for _name in ("relu", "neg", "exp", "log", "sigmoid", "tanh", "sqrt", "rsqrt", "abs", "sin", "cos", "square"):
    if _auto_aten(_name):
        _auto_overload(ops.aten._packets[_name], "default")
