"""User symbolic functions: ``register_custom_op_symbolic("mylib::foo", fn, opset_version)`` (torch.onnx's, from its
TorchScript exporter) and the graph context ``g`` they write with (``g.op("custom_domain::Foo", x, alpha_f=0.5)``).

Note [custom symbolics]: an operation of the traced program is looked up here before the built-in converters, by
the name PyTorch gives it: ``ns::name`` for an operator defined with ember.library (a call of ``ember.ops.ns.name``,
traced as one node), ``aten::name`` for an ember function or Tensor method (``ember.logcumsumexp``). The symbolic
registered for the highest opset version not above the export's is used. It is called as ``fn(g, *inputs)``: traced
tensors are graph values (``Value``), everything else (constants, ints, flags, and tensors that do not depend on the
inputs) comes as the Python value, in schema order with defaults filled in, so a symbolic can put arguments straight
into attributes (``alpha_f=alpha``); ``symbolic_helper.parse_args`` converts them as torch.onnx's does. The values
it returns are the node's outputs.
"""

import inspect
import re

from .. import _C
from .errors import OnnxExporterError

__all__ = ["GraphContext", "Value", "register_custom_op_symbolic", "unregister_custom_op_symbolic"]

_SYMBOLICS = {}  # "domain::name" -> {opset_version: fn}
_ATTR = re.compile(r"^(.+)_(([ifstgz])|(ty))$")


def _verify_name(symbolic_name):
    if not isinstance(symbolic_name, str) or not re.match(
        r"^[a-zA-Z0-9-_]+::[a-zA-Z-_]+[a-zA-Z0-9-_]*$", symbolic_name
    ):
        raise OnnxExporterError(
            "Failed to register operator %s. The symbolic name must match the format domain::name, and should start "
            "with a letter and contain only alphanumeric characters" % (symbolic_name,)
        )
    ns = symbolic_name.split("::")[0]
    if ns == "onnx":
        raise ValueError("Failed to register operator %s. %s domain cannot be modified." % (symbolic_name, ns))


def _name(symbolic_name):
    if isinstance(symbolic_name, str) and symbolic_name.startswith("::"):
        symbolic_name = "aten" + symbolic_name
    _verify_name(symbolic_name)
    return symbolic_name


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Registers ``symbolic_fn(g, *inputs)`` to export the operation ``symbolic_name`` ("domain::name"; "::name" is
    "aten::name") in exports of opset ``opset_version`` and above (Note [custom symbolics])."""
    name = _name(symbolic_name)
    if not callable(symbolic_fn):
        raise TypeError(
            "register_custom_op_symbolic: symbolic_fn must be callable, got %s" % type(symbolic_fn).__name__
        )
    _SYMBOLICS.setdefault(name, {})[int(opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Removes the symbolic registered for ``symbolic_name`` at ``opset_version`` (nothing if there is none)."""
    name = _name(symbolic_name)
    versions = _SYMBOLICS.get(name)
    if versions is not None:
        versions.pop(int(opset_version), None)
        if not versions:
            del _SYMBOLICS[name]


def lookup(name, opset):
    versions = _SYMBOLICS.get(name)
    if not versions:
        return None
    usable = [v for v in versions if v <= opset]
    return versions[max(usable)] if usable else None


# ---- what symbolic functions see


class _Type:
    """What ``Value.type()`` gives: the example's sizes and dtype (PyTorch's TensorType)."""

    _SCALAR = {
        "float32": "Float",
        "float64": "Double",
        "float16": "Half",
        "bfloat16": "BFloat16",
        "int64": "Long",
        "int32": "Int",
        "int16": "Short",
        "int8": "Char",
        "uint8": "Byte",
        "bool": "Bool",
    }

    def __init__(self, value):
        self._value = value

    def sizes(self):
        return list(self._value.shape) if isinstance(self._value, _C.Tensor) else None

    def dim(self):
        return self._value.dim() if isinstance(self._value, _C.Tensor) else None

    def scalarType(self):  # noqa: N802  (PyTorch's name)
        if not isinstance(self._value, _C.Tensor):
            return None
        return self._SCALAR.get(str(self._value.dtype).rpartition(".")[2])

    def dtype(self):
        return self._value.dtype if isinstance(self._value, _C.Tensor) else None


class Value:
    """A value of the ONNX graph being written (PyTorch's ``torch._C.Value`` in symbolic functions)."""

    __slots__ = ("name", "example")

    def __init__(self, name, example=None):
        self.name = name
        self.example = example  # the traced input's value on the example inputs (None for a symbolic's own)

    def type(self):
        return _Type(self.example)

    def debugName(self):  # noqa: N802
        return self.name

    def setType(self, t):  # noqa: N802
        """Accepted for PyTorch's symbolics: the exported types come from the example run, not from here."""
        return self

    def __repr__(self):
        return "Value(%s)" % self.name


class GraphContext:
    """``g`` of a symbolic function: ``g.op(kind, *inputs, outputs=1, **attributes)`` adds an ONNX node;
    ``g.opset`` is the export's opset version."""

    def __init__(self, ctx):
        self._ctx = ctx
        self.opset = ctx.opset
        self.domains = set()

    def op(self, opname, *raw_args, outputs=1, **kwargs):
        ctx = self._ctx
        domain, _, op_type = opname.rpartition("::")
        if domain == "onnx":
            domain = ""
        if domain:
            self.domains.add(domain)
        inputs = [self._input(a) for a in raw_args]
        attrs = {}
        for key, v in kwargs.items():
            if v is None:
                continue
            m = _ATTR.match(key)
            if m is None:
                raise ValueError(
                    "Invalid attribute specifier '%s' names must be suffixed with type, e.g. 'dim_i' or 'dims_i'" % key
                )
            attrs[m.group(1)] = self._attribute(m.group(2), v, key)
        outs = [ctx.fresh("/%s/%s_output" % (ctx.current, op_type)) for _ in range(outputs)]
        ins = list(inputs)
        while ins and ins[-1] == "":
            ins.pop()
        node = ctx.onnx.helper.make_node(
            op_type, ins, outs, name=ctx.fresh("/%s/%s" % (ctx.current, op_type)), domain=domain or None
        )
        for k, v in attrs.items():
            node.attribute.append(ctx.onnx.helper.make_attribute(k, v))
        ctx.nodes.append(node)
        values = tuple(Value(o) for o in outs)
        return values[0] if outputs == 1 else values

    def _input(self, a):
        import ember

        if a is None:
            return ""
        if isinstance(a, Value):
            return a.name
        if isinstance(a, _C.Tensor):
            return self._ctx.tensor(a)
        if isinstance(a, bool):
            return self._ctx.const(a, ember.bool)
        if isinstance(a, int):
            return self._ctx.const(a, ember.int64)
        if isinstance(a, float):
            return self._ctx.const(a, ember.float32)
        raise OnnxExporterError(
            "ember.onnx.export: [%s] g.op got an input of type %s (give graph values, tensors or numbers)"
            % (self._ctx.current, type(a).__name__)
        )

    def _attribute(self, kind, v, key):
        from ._exporter import _to_numpy

        listy = isinstance(v, (list, tuple))
        if kind == "i":
            return [int(x) for x in v] if listy else int(v)
        if kind == "f":
            return [float(x) for x in v] if listy else float(v)
        if kind == "s":
            return [str(x) for x in v] if listy else str(v)
        if kind == "t":
            if listy:
                return [self._ctx.onnx.numpy_helper.from_array(_to_numpy(x)) for x in v]
            return self._ctx.onnx.numpy_helper.from_array(_to_numpy(v))
        if kind == "z":  # its type from the value
            if isinstance(v, _C.Tensor):
                return self._ctx.onnx.numpy_helper.from_array(_to_numpy(v))
            return v
        raise OnnxExporterError("ember.onnx.export: attribute %s: kind '%s' is not supported by ember" % (key, kind))


# ---- running one


def symbolic_name(node):
    """The name PyTorch's exporter gives a traced operation (Note [custom symbolics]), or None."""
    from .._ops import OpOverload, OpOverloadPacket

    target = node.target
    if node.op == "call_method":
        return "aten::" + target
    if node.op != "call_function":
        return None
    if isinstance(target, OpOverload):
        return "%s::%s" % (target._overloadpacket._ns, target._overloadpacket._name)
    if isinstance(target, OpOverloadPacket):
        return "%s::%s" % (target._ns, target._name)
    from . import _registry

    short = _registry.short_name(target)
    if "." in short or not short.isidentifier():
        return None
    return "aten::" + short


def _schema_values(node, args, kwargs):
    """The arguments in schema order, defaults filled in: by the custom op's schema, or an ember function's
    signature; as given where neither applies."""
    from .._ops import OpOverload, OpOverloadPacket

    target = node.target
    if isinstance(target, OpOverloadPacket):
        target = target._resolve(*_examples(args, kwargs))
    if isinstance(target, OpOverload):
        params = target._schema.arguments
        values, given = [], dict(kwargs)
        for i, p in enumerate(params):
            if not p.kwarg_only and i < len(args):
                values.append(args[i])
            elif p.name in given:
                values.append(given.pop(p.name))
            else:
                values.append(p.default_value)
        return values, {}
    fn = node.target
    if node.op == "call_method":
        import ember

        fn = getattr(ember, node.target, None) or getattr(ember.Tensor, node.target, None)
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return list(args), dict(kwargs)
    bound.apply_defaults()
    values, extra = [], {}
    for p in bound.signature.parameters.values():
        v = bound.arguments.get(p.name)
        if p.kind is p.KEYWORD_ONLY:
            if v is not p.default:
                extra[p.name] = v
        elif p.kind is p.VAR_POSITIONAL:
            values.extend(v)
        elif p.kind is not p.VAR_KEYWORD:
            values.append(v)
    return values, extra


def _examples(args, kwargs):
    from ._exporter import Sym

    def one(v):
        if isinstance(v, Sym):
            return v.value
        if isinstance(v, (list, tuple)):
            return type(v)(one(x) for x in v)
        return v

    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


def run(ctx, fn, node, args, kwargs, out):
    """Calls the symbolic `fn` for `node`; returns the node's value as Syms."""
    from ._exporter import Sym

    values, extra = _schema_values(node, args, kwargs)

    def to_value(v):
        if isinstance(v, Sym):
            if isinstance(v.value, _C.Tensor):
                return Value(v.name, v.value)
            return Value(ctx.tensor(v), v.value)  # a number computed from shapes: a 0-d graph value
        if isinstance(v, (list, tuple)):
            return type(v)(to_value(x) for x in v)
        return v

    g = GraphContext(ctx)
    result = fn(g, *[to_value(v) for v in values], **{k: to_value(v) for k, v in extra.items()})
    ctx.custom_domains |= g.domains
    if result is None:
        raise OnnxExporterError(
            "ember.onnx.export: the symbolic function of %s returned None (it must return the graph value(s) of the "
            "op's output(s))" % symbolic_name(node)
        )
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    got = list(result) if isinstance(result, (tuple, list)) else [result]
    if len(got) != len(outs) or not all(isinstance(v, Value) for v in got):
        raise OnnxExporterError(
            "ember.onnx.export: the symbolic function of %s returned %r; the op has %d output(s), so it must return "
            "as many graph values (from g.op)" % (symbolic_name(node), result, len(outs))
        )
    syms = [Sym(v.name, o) for v, o in zip(got, outs)]
    return type(out)(syms) if isinstance(out, (tuple, list)) else syms[0]
