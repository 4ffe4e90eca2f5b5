"""ember.onnx.export: trace with ember.fx, run the graph once on the example inputs, write each node as ONNX.

Note [ONNX export]: every node of the traced graph is first evaluated on the example inputs (so its dtype and shape,
and the value of every Python number computed from shapes, are known). A node none of whose inputs depends on the
model's inputs is a constant: its value is kept and becomes an initializer where an ONNX operator needs it (constant
folding; with do_constant_folding=False the parameters stay initializers and what is computed from them is written
as operators). A node that depends on the inputs is written by its converter (_registry.py) as ONNX operators on
Syms: a Sym is the name of an ONNX value with the concrete value it had. Shapes read from traced tensors
(``x.size(0)``, ``x.shape``) are Syms too (int64 scalars and 1-D tensors), so that reshapes follow the input's
dynamic axes.
"""

import enum
import inspect
import io
import os
import warnings

from .. import _C
from ..fx import _pytree
from ..fx._symbolic_trace import PH, PHBase, Tracer
from ..fx.node import map_aggregate, map_arg
from . import _dynamic_shapes, _registry, _symbolic
from .errors import OnnxExporterError, OnnxExporterWarning, UnsupportedOperatorError

__all__ = ["TrainingMode", "export", "is_in_onnx_export"]

DEFAULT_OPSET = 20  # torch.onnx's default (ONNX_DEFAULT_OPSET)
MIN_OPSET = 13
MAX_OPSET = 21

_in_export = [False]


class TrainingMode(enum.IntEnum):
    """The mode a model is exported in (torch.onnx.TrainingMode)."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def is_in_onnx_export():
    """Whether an ONNX export is running (a model can check it in forward, as under torch.onnx)."""
    return _in_export[0]


def _import_onnx():
    try:
        import onnx
    except ImportError as e:
        raise ImportError(
            "ember.onnx.export needs the 'onnx' package, which is not installed: pip install onnx "
            "(and onnxruntime to run the exported model)"
        ) from e
    return onnx


class Sym:
    """A traced value in the ONNX graph: `name` is its ONNX value, `value` what it was on the example inputs (a
    tensor, a Python int/float/bool for numbers computed from shapes, an ember.Size for a shape)."""

    __slots__ = ("name", "value")

    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __repr__(self):
        return "Sym(%s)" % self.name


def has_sym(x):
    found = []
    map_aggregate(x, lambda v: found.append(1) if isinstance(v, Sym) else None)
    return bool(found)


class _ExportTracer(Tracer):
    """Traces through every module but those the exporter converts whole (nn.Linear, nn.LSTM, ...); the model's
    arguments are the example inputs: tensors become placeholders, other values are constants.

    Where the program needs a Python value of a traced one (``if x.dim() == 3``, ``len(src)``, ``for t in x``), the
    graph so far is run on the example inputs and the answer is that of the example (Note [specializing on the
    example])."""

    def __init__(self, example_inputs, opset=DEFAULT_OPSET):
        super().__init__()
        self._opset = opset
        self._example_inputs = list(example_inputs)
        self._values = {}
        self.specialized = []

    def trace_through_op(self, op):
        """A custom op implemented by a composition of ember ops is traced through to its parts unless a symbolic
        function exports it (Note [custom symbolics])."""
        pk = op._overloadpacket
        return _symbolic.lookup("%s::%s" % (pk._ns, pk._name), self._opset) is None

    def is_leaf_module(self, m, qualname):
        return _registry.module_converter(m) is not None

    def _proxy_placeholder(self, name, concrete_args, sig):
        value = concrete_args[name]
        if isinstance(value, PHBase):
            return self.create_proxy("placeholder", name, (), {})
        cnt = 0

        def leaf(x):
            nonlocal cnt
            if not isinstance(x, PHBase):
                return x
            cnt += 1
            return self.create_proxy("placeholder", "%s_%d" % (name, cnt), (), {})

        return _pytree.tree_map(leaf, value)

    # Note [specializing on the example]: torch.onnx's TorchScript exporter traces by running the model, so Python
    # control flow takes the example's branch; this exporter does the same where symbolic tracing alone would stop.
    # The graph built so far is evaluated (with Module's own __call__/__getattr__, which tracing has patched) and the
    # value of the example decides; each such place is recorded in `specialized` and reported in a warning.

    def example_value(self, node):
        from ..nn.modules.module import Module

        if node in self._values:
            return self._values[node]
        patched = Module.__dict__["__call__"], Module.__dict__["__getattr__"]
        Module.__call__, Module.__getattr__ = _MODULE_CALL, _MODULE_GETATTR
        try:
            placeholders = 0
            for n in self.graph.nodes:
                if n.op == "placeholder":
                    placeholders += 1
                if n in self._values:
                    continue
                if n.op == "placeholder":
                    self._values[n] = self._example_inputs[placeholders - 1]
                else:
                    self._values[n] = _evaluate(self.root, n, self._values)
                if n is node:
                    break
        finally:
            Module.__call__, Module.__getattr__ = patched
        return self._values[node]

    def _specialize(self, obj, what):
        value = self.example_value(obj.node)
        if _varies_with_inputs(obj.node, {}):
            self.specialized.append("%s of %s" % (what, obj.node.format_node()))
        return value

    def to_bool(self, obj):
        return bool(self._specialize(obj, "bool()"))

    def _len(self, obj):
        return len(self._specialize(obj, "len()"))

    def iter(self, obj):
        n = len(self._specialize(obj, "iteration"))
        return iter([obj[i] for i in range(n)])


_FIXED_BY_EXAMPLE = {"dim", "ndimension", "ndim", "dtype", "device", "is_cuda", "layout", "is_floating_point"}


def _varies_with_inputs(node, memo):
    """Whether `node`'s value can differ between inputs of the exported graph's types: not when it is computed only
    from parameters and constants, or from inputs' ranks, dtypes and devices (fixed by the example)."""
    if node in memo:
        return memo[node]
    if node.op == "placeholder":
        result = True
    elif node.op == "get_attr":
        result = False
    elif node.op == "call_method" and node.target in _FIXED_BY_EXAMPLE:
        result = False
    elif node.op == "call_function" and node.target is getattr and node.args[1] in _FIXED_BY_EXAMPLE:
        result = False
    else:
        result = any(_varies_with_inputs(n, memo) for n in node.all_input_nodes)
    memo[node] = result
    return result


def _module_attrs():
    from ..nn.modules.module import Module

    return Module.__call__, Module.__getattr__


_MODULE_CALL, _MODULE_GETATTR = _module_attrs()


def _evaluate(root, node, values):
    """The value of `node` given the values of its inputs (what fx.Interpreter computes)."""
    args = map_arg(node.args, lambda n: values[n])
    kwargs = map_arg(node.kwargs, lambda n: values[n])
    if node.op == "get_attr":
        return _fetch(root, node.target)
    if node.op == "call_function":
        return node.target(*args, **kwargs)
    if node.op == "call_method":
        return getattr(args[0], node.target)(*args[1:], **kwargs)
    if node.op == "call_module":
        return _fetch(root, node.target)(*args, **kwargs)
    raise OnnxExporterError("ember.onnx.export: cannot evaluate node %s" % node.format_node())


def _LeafRoot(model):  # noqa: N802
    """A module that calls `model`, with forward's signature: a model the exporter converts whole (an nn.LSTM, an
    nn.MultiheadAttention) is then one call_module node of the traced graph."""
    from ..nn.modules.module import Module

    params = list(inspect.signature(model.forward).parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise OnnxExporterError("ember.onnx.export: forward with *args/**kwargs is not supported")
    # A forward with the model's parameter names (the tracer reads them from the code): every value is given, by
    # the bound example arguments, so it needs no defaults.
    call = ", ".join(p.name if p.kind == p.POSITIONAL_ONLY else "%s=%s" % (p.name, p.name) for p in params)
    src = "def forward(self%s):\n    return self.model(%s)\n" % ("".join(", " + p.name for p in params), call)
    namespace = {}
    exec(src, namespace)  # noqa: S102
    forward = namespace["forward"]
    cls = type(type(model).__name__, (Module,), {"forward": forward, "_onnx_leaf_root": True})
    root = cls()
    root.model = model
    return root


# ---- ONNX types


def onnx_dtype(dtype):
    from onnx import TensorProto

    import ember

    table = {
        ember.float32: TensorProto.FLOAT,
        ember.float64: TensorProto.DOUBLE,
        ember.float16: TensorProto.FLOAT16,
        ember.bfloat16: TensorProto.BFLOAT16,
        ember.int64: TensorProto.INT64,
        ember.int32: TensorProto.INT32,
        ember.int16: TensorProto.INT16,
        ember.int8: TensorProto.INT8,
        ember.uint8: TensorProto.UINT8,
        ember.bool: TensorProto.BOOL,
    }
    if dtype not in table:
        raise OnnxExporterError("ember.onnx.export: dtype %s has no ONNX type" % dtype)
    return table[dtype]


def dtype_of(v):
    """The ember dtype of a value: a tensor's, or int64/float32/bool for Python numbers (as ONNX scalars hold them)."""
    import ember

    v = v.value if isinstance(v, Sym) else v
    if isinstance(v, _C.Tensor):
        return v.dtype
    if isinstance(v, bool):
        return ember.bool
    if isinstance(v, int):
        return ember.int64
    if isinstance(v, float):
        return ember.float32
    if isinstance(v, tuple):  # a shape
        return ember.int64
    raise OnnxExporterError("ember.onnx.export: no ONNX type for a value of type %s" % type(v).__name__)


# ONNX operators the converters use that are newer than the oldest opset exported (13)
_OPSET_OF = {"Trilu": 14, "LayerNormalization": 17}


class Context:
    """What converters write with: ``op`` adds an ONNX node, ``tensor``/``ints`` turn values into ONNX inputs."""

    def __init__(self, onnx, opset, do_constant_folding):
        self.onnx = onnx
        self.opset = opset
        self.do_constant_folding = do_constant_folding
        self.nodes = []
        self.initializers = {}  # name -> TensorProto
        self.param_names = set()  # initializers that are the model's parameters and buffers (export_params)
        self._tensor_names = {}  # id(tensor) -> (initializer name, tensor)
        self._const_cache = {}
        self._used = set()
        self.custom_domains = set()  # the domains that user symbolics' g.op used ("custom_domain::Foo")
        self.current = "op"  # the node being converted (names the ONNX nodes)
        self.op_name = "op"  # its operation, for error messages

    def fresh(self, base):
        base = base.replace("::", "_")
        name, i = base, 0
        while name in self._used:
            i += 1
            name = "%s_%d" % (base, i)
        self._used.add(name)
        return name

    def op(self, op_type, inputs, outputs=1, **attrs):
        """Adds an ONNX node; returns its output name (or list of names when `outputs` > 1). An input of None or ""
        is an omitted optional input."""
        since = _OPSET_OF.get(op_type)
        if since is not None and self.opset < since:
            raise UnsupportedOperatorError(self.op_name, self.opset, since)
        outs = [self.fresh("/%s/%s_output" % (self.current, op_type)) for _ in range(outputs)]
        ins = ["" if i is None else i for i in inputs]
        while ins and ins[-1] == "":
            ins.pop()
        node = self.onnx.helper.make_node(op_type, ins, outs, name=self.fresh("/%s/%s" % (self.current, op_type)))
        for k, v in attrs.items():
            if v is not None:
                node.attribute.append(self.onnx.helper.make_attribute(k, v))
        self.nodes.append(node)
        return outs[0] if outputs == 1 else outs

    # ---- constants

    def add_initializer(self, name, array):
        name = self.fresh(name)
        self.initializers[name] = self.onnx.numpy_helper.from_array(array, name)
        return name

    def tensor_initializer(self, t, name=None, param=False):
        """The initializer holding ember tensor `t` (one per tensor object)."""
        key = id(t)
        if key in self._tensor_names and self._tensor_names[key][1] is t:
            return self._tensor_names[key][0]
        name = self.add_initializer(name or "onnx::Constant", _to_numpy(t))
        self._tensor_names[key] = (name, t)
        if param:
            self.param_names.add(name)
        return name

    def const(self, value, dtype):
        """An initializer for a Python number or nested list of numbers, of ember `dtype`."""
        import numpy as np

        key = (repr(value), str(dtype))
        if key not in self._const_cache:
            arr = np.array(value, dtype=_numpy_dtype(dtype))
            self._const_cache[key] = self.add_initializer("onnx::Constant", arr)
        return self._const_cache[key]

    def ints(self, values):
        """A 1-D int64 ONNX value from a list/tuple/Size whose items are ints or int Syms, or a shape Sym."""
        import ember

        if isinstance(values, Sym):
            if isinstance(values.value, tuple):
                return values.name
            return self.op("Reshape", [self.tensor(values, ember.int64), self.const([1], ember.int64)])
        values = list(values)
        if not any(isinstance(v, Sym) for v in values):
            return self.const([int(v) for v in values], ember.int64)
        parts, run = [], []
        for v in values:
            if isinstance(v, Sym):
                if run:
                    parts.append(self.const(run, ember.int64))
                    run = []
                parts.append(self.op("Reshape", [self.tensor(v, ember.int64), self.const([1], ember.int64)]))
            else:
                run.append(int(v))
        if run:
            parts.append(self.const(run, ember.int64))
        return self.op("Concat", parts, axis=0)

    def tensor(self, v, dtype=None):
        """The ONNX value name of `v` (a Sym, an ember tensor, a Python number), cast to ember `dtype` if given."""
        if isinstance(v, Sym):
            name, have = v.name, dtype_of(v)
        elif isinstance(v, _C.Tensor):
            name, have = self.tensor_initializer(v), v.dtype
        elif isinstance(v, (bool, int, float)):
            have = dtype if dtype is not None else dtype_of(v)
            return self.const(v, have)
        elif isinstance(v, (tuple, list)):
            return self.ints(v) if dtype is None else self.cast(self.ints(v), self._int64(), dtype)
        else:
            raise OnnxExporterError(
                "ember.onnx.export: [%s] cannot use a value of type %s as a tensor" % (self.current, type(v).__name__)
            )
        return name if dtype is None or dtype == have else self.op("Cast", [name], to=onnx_dtype(dtype))

    def cast(self, name, have, want):
        return name if have == want else self.op("Cast", [name], to=onnx_dtype(want))

    def _int64(self):
        import ember

        return ember.int64

    # ---- opset-dependent forms

    def reduce(self, op_type, x, axes, keepdims):
        """Reduce{Mean,Sum,Max,...} over `axes` (None: all), with axes as an attribute or an input by opset."""
        import ember

        keep = 1 if keepdims else 0
        if axes is None:
            return self.op(op_type, [x], keepdims=keep)
        axes = [int(a) for a in axes]
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.op(op_type, [x, self.const(axes, ember.int64)], keepdims=keep)
        return self.op(op_type, [x], axes=axes, keepdims=keep)

    def unsqueeze(self, x, axes):
        import ember

        return self.op("Unsqueeze", [x, self.const(list(axes), ember.int64)])

    def squeeze(self, x, axes=None):
        import ember

        return self.op("Squeeze", [x] + ([self.const(list(axes), ember.int64)] if axes is not None else []))

    def shape(self, x, start=None, end=None):
        import ember

        if start is None and end is None:
            return self.op("Shape", [x])
        if self.opset >= 15:
            return self.op("Shape", [x], start=start, end=end)
        return self.op(
            "Slice",
            [self.op("Shape", [x]), self.const([start or 0], ember.int64), self.const([end or 2**62], ember.int64)],
        )


def _numpy_dtype(dtype):
    import numpy as np

    import ember

    return {
        ember.float32: np.float32,
        ember.float64: np.float64,
        ember.float16: np.float16,
        ember.int64: np.int64,
        ember.int32: np.int32,
        ember.int16: np.int16,
        ember.int8: np.int8,
        ember.uint8: np.uint8,
        ember.bool: np.bool_,
    }[dtype]


def _to_numpy(t):
    import ember

    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == ember.bfloat16:
        raise OnnxExporterError("ember.onnx.export: bfloat16 constants are not supported (convert the model first)")
    return t.contiguous().numpy().copy()


# ---- the export


def _bind_inputs(model, args, kwargs):
    """The model's forward parameters bound to the example arguments (defaults for the rest), with PH for every
    tensor: what the tracer is given as concrete_args."""
    sig = inspect.signature(type(model).forward)
    params = list(sig.parameters.values())[1:]
    try:
        bound = inspect.Signature(params).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(
            "ember.onnx.export: the arguments do not match %s.forward: %s" % (type(model).__name__, e)
        ) from e
    bound.apply_defaults()
    concrete = {}
    for p in params:
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise OnnxExporterError("ember.onnx.export: forward with *args/**kwargs is not supported (%s)" % p.name)
        concrete[p.name] = _pytree.tree_map(lambda v: PH if isinstance(v, _C.Tensor) else v, bound.arguments[p.name])
    flat = [v for p in params for v in _pytree.tree_flatten(bound.arguments[p.name])[0] if isinstance(v, _C.Tensor)]
    return concrete, flat


def _check_in_place(graph, root):
    """Ops with inplace=True are exported as their results; that is wrong where the program reads the input again
    after it (it would see the value before the op), so that raises."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    for n in graph.nodes:
        inplace = n.kwargs.get("inplace", False) is True
        if n.op == "call_module":
            inplace = getattr(_fetch(root, n.target), "inplace", False) is True
        if not inplace or not n.args or not isinstance(n.args[0], type(n)):
            continue
        later = [u for u in n.args[0].users if u is not n and order[u] > order[n]]
        if later:
            raise OnnxExporterError(
                "ember.onnx.export: %s changes %s in place and %s reads it afterwards; ONNX has no in-place "
                "operations (use the op's result, or inplace=False)" % (n.name, n.args[0].name, later[0].name)
            )


def _restore_traced_attributes(attrs):
    """Puts back module attributes that forward set to traced values while tracing (a cached mask, a state)."""
    from ..fx import Proxy

    for m, before in attrs:
        for k, v in list(vars(m).items()):
            if isinstance(v, Proxy):
                if k in before:
                    object.__setattr__(m, k, before[k])
                else:
                    delattr(m, k)


def _modes(model):
    return [(m, m.training) for m in model.modules()]


def export(
    model,
    args=(),
    f=None,
    *,
    kwargs=None,
    verbose=None,
    input_names=None,
    output_names=None,
    opset_version=None,
    dynamo=False,
    external_data=True,
    dynamic_shapes=None,
    export_params=True,
    keep_initializers_as_inputs=False,
    dynamic_axes=None,
    training=TrainingMode.EVAL,
    do_constant_folding=True,
    custom_opsets=None,
    **unsupported,
):
    """Exports `model` to ONNX, as torch.onnx.export does (see docs/onnx.md).

    Args:
        model (nn.Module): the model; traced with ember.fx from its forward.
        args (tuple or Tensor): the example inputs (a tuple's last item may be a dict of keyword arguments).
            Tensors, also inside tuples, lists and dicts, become the graph's inputs; other values are constants.
        f (str, path or file-like): where the model is written; None returns the ``onnx.ModelProto``.
        kwargs (dict): more keyword arguments of forward.
        verbose (bool): print the traced graph and the ONNX graph.
        input_names, output_names (list of str): names of the graph's (flattened) inputs and outputs.
        opset_version (int): the ONNX opset, 13 to 21 (default 20).
        export_params (bool): store the parameters in the model (else they are graph inputs).
        keep_initializers_as_inputs (bool): also list the initializers among the graph's inputs.
        dynamic_axes (dict): ``{name: [axis, ...]}`` or ``{name: {axis: "axis_name"}}``: axes whose size is not
            fixed (a dynamic batch axis, a sequence length).
        dynamic_shapes (dict, tuple or list): the same, as torch.export's: per forward argument (by name, or in
            order), ``{axis: ember.export.Dim("batch")}`` (or a name, ``Dim.AUTO``, ``Dim.DYNAMIC``; None and ints
            are static), mirroring nested inputs (see ember.onnx._dynamic_shapes).
        training (TrainingMode): EVAL (default) exports in eval mode, PRESERVE in the model's mode.
        do_constant_folding (bool): compute what depends only on parameters and constants at export time.
        custom_opsets (dict): ``{domain: version}`` of the custom domains that symbolic functions registered with
            ``register_custom_op_symbolic`` write (a domain used without one gets version 1).

    Raises:
        UnsupportedOperatorError: an operation has no ONNX conversion (the message names it).
        ImportError: the ``onnx`` package is not installed.
    """
    onnx = _import_onnx()
    from .. import no_grad
    from ..nn.modules.module import Module
    from . import _ops_nn, _ops_rnn, _ops_tensor  # noqa: F401  (register the converters)

    if unsupported:
        raise TypeError("ember.onnx.export() got unexpected keyword arguments %s" % sorted(unsupported))
    if dynamic_shapes is not None and dynamic_axes:
        raise ValueError("ember.onnx.export: give dynamic_shapes or dynamic_axes, not both")
    if custom_opsets is not None:
        if not isinstance(custom_opsets, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in custom_opsets.items()
        ):
            raise TypeError("ember.onnx.export: custom_opsets must be a dict of domain name -> opset version (int)")
        if "" in custom_opsets or "onnx" in custom_opsets or "ai.onnx" in custom_opsets:
            raise ValueError(
                "ember.onnx.export: custom_opsets names custom domains; set the ONNX opset with opset_version"
            )
    if not isinstance(model, Module):
        raise TypeError("ember.onnx.export: model must be an nn.Module, got %s" % type(model).__name__)
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise ValueError(
            "ember.onnx.export: unsupported opset_version %d: ember exports opsets %d to %d"
            % (opset, MIN_OPSET, MAX_OPSET)
        )
    if isinstance(args, _C.Tensor):
        args = (args,)
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):  # torch.onnx: a trailing dict holds keyword arguments
        kwargs = {**args[-1], **kwargs}
        args = args[:-1]

    modes = _modes(model)
    if training == TrainingMode.EVAL:
        model.eval()
    elif training == TrainingMode.TRAINING:
        model.train()
    _in_export[0] = True
    try:
        concrete, flat_inputs = _bind_inputs(model, args, kwargs)
        shape_dims = {}
        if dynamic_shapes is not None:
            shape_dims = _dynamic_shapes.flat_dims(model, args, kwargs, dynamic_shapes)
        flat_dims = [shape_dims.get(id(t), {}) for t in flat_inputs]
        tracer = _ExportTracer(flat_inputs, opset)
        root = _LeafRoot(model) if _registry.module_converter(model) is not None else model
        attrs = [(m, dict(vars(m))) for m in model.modules()]
        try:
            with no_grad():
                graph = tracer.trace(root, concrete)
        finally:
            _restore_traced_attributes(attrs)
        _check_in_place(graph, tracer.root)
        graph.eliminate_dead_code()  # e.g. the comparisons only Python control flow read
        if tracer.specialized:
            warnings.warn(
                "ember.onnx.export: the exported graph is specialized to the example inputs where the program used "
                "a traced value as a Python value: %s"
                % "; ".join(tracer.specialized[:5])
                + (" (and %d more)" % (len(tracer.specialized) - 5) if len(tracer.specialized) > 5 else ""),
                OnnxExporterWarning,
                stacklevel=2,
            )
        if verbose:
            print(graph)
        with no_grad():
            model_proto = _convert(onnx, tracer.root, graph, flat_inputs, opset, locals())
    finally:
        _in_export[0] = False
        for m, mode in modes:
            m.training = mode
    if verbose:
        print(onnx.printer.to_text(model_proto.graph))
    if f is None:
        return model_proto
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(model_proto.SerializeToString())
    elif isinstance(f, io.IOBase) or hasattr(f, "write"):
        f.write(model_proto.SerializeToString())
    else:
        raise TypeError("ember.onnx.export: f must be a path or a file-like object, got %s" % type(f).__name__)
    return None


def _dynamic_dims(dynamic_axes, name):
    """{axis: dim_param} for the graph input/output `name`."""
    spec = (dynamic_axes or {}).get(name)
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return {int(k): str(v) for k, v in spec.items()}
    return {int(a): "%s_dynamic_axes_%d" % (name, i + 1) for i, a in enumerate(spec)}


def _value_info(onnx, name, value, dims, unknown_static):
    shape = []
    for i, s in enumerate(value.shape):
        i_neg = i - value.dim()
        if i in dims or i_neg in dims:
            shape.append(dims.get(i, dims.get(i_neg)))
        elif unknown_static:
            shape.append(None)
        else:
            shape.append(int(s))
    return onnx.helper.make_tensor_value_info(name, onnx_dtype(value.dtype), shape)


def _infer_output_dims(onnx, model, dynamic_axes):
    """With dynamic inputs, an output axis not named in dynamic_axes gets the size (or the symbolic name) that ONNX
    shape inference derives, and stays unknown where it derives none."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model).graph.output
    except Exception:  # noqa: BLE001  (inference is a nicety: the model is valid without it)
        return
    for out, inf in zip(model.graph.output, inferred):
        named = _dynamic_dims(dynamic_axes, out.name)
        dims = out.type.tensor_type.shape.dim
        idims = inf.type.tensor_type.shape.dim
        if len(idims) != len(dims):
            continue
        for i, (d, di) in enumerate(zip(dims, idims)):
            if i in named or i - len(dims) in named:
                continue
            if di.HasField("dim_value"):
                d.dim_value = di.dim_value
            elif di.HasField("dim_param"):
                d.dim_param = di.dim_param


def _fetch(root, target):
    obj = root
    for atom in target.split("."):
        obj = getattr(obj, atom)
    return obj


def _convert(onnx, root, graph, flat_inputs, opset, options):
    """Runs `graph` on the example inputs and writes its ONNX model (Note [ONNX export])."""
    input_names = list(options["input_names"] or [])
    output_names = list(options["output_names"] or [])
    dynamic_axes = options["dynamic_axes"]
    flat_dims = options["flat_dims"]  # dynamic_shapes' axes, by flat input
    any_dynamic = bool(dynamic_axes) or any(flat_dims)
    ctx = Context(onnx, opset, options["do_constant_folding"])
    cenv, senv = {}, {}
    graph_inputs, graph_outputs = [], []
    inputs = iter(flat_inputs)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if len(input_names) > len(placeholders):
        raise ValueError(
            "ember.onnx.export: %d input_names given for a model with %d inputs" % (len(input_names), len(placeholders))
        )
    for name in list(dynamic_axes or {}):
        if not isinstance(name, str):
            raise TypeError("ember.onnx.export: dynamic_axes keys must be input or output names, got %r" % (name,))

    def concrete(a):
        return map_arg(a, lambda n: cenv[n])

    def symbolic(a):
        return map_arg(a, lambda n: senv[n])

    for node in graph.nodes:
        ctx.current = node.name
        if node.op == "placeholder":
            value = next(inputs)
            name = input_names[len(graph_inputs)] if len(graph_inputs) < len(input_names) else node.name
            ctx._used.add(name)
            dims = _dynamic_dims(dynamic_axes, name)
            for axis, dim_name in flat_dims[len(graph_inputs)].items():
                dims[axis] = dim_name if dim_name is not None else "%s_dim_%d" % (name, axis)
            graph_inputs.append(_value_info(onnx, name, value, dims, False))
            cenv[node], senv[node] = value, Sym(name, value)
            continue
        if node.op == "get_attr":
            value = _fetch(root, node.target)
            cenv[node] = value
            if isinstance(value, _C.Tensor) and not ctx.do_constant_folding:
                senv[node] = Sym(ctx.tensor_initializer(value, node.target, param=True), value)
            elif isinstance(value, _C.Tensor):
                ctx.tensor_initializer(value, node.target, param=True)  # named after the parameter
                senv[node] = value
            else:
                senv[node] = value
            continue
        if node.op == "output":
            outs = _pytree.tree_flatten(symbolic(node.args[0]))[0]
            couts = _pytree.tree_flatten(concrete(node.args[0]))[0]
            if len(output_names) > len(outs):
                raise ValueError(
                    "ember.onnx.export: %d output_names given for a model with %d outputs"
                    % (len(output_names), len(outs))
                )
            for i, (s, c) in enumerate(zip(outs, couts)):
                if not isinstance(c, _C.Tensor):
                    raise OnnxExporterError(
                        "ember.onnx.export: output %d of the model is a %s, not a tensor" % (i, type(c).__name__)
                    )
                name = output_names[i] if i < len(output_names) else ("output" if len(outs) == 1 else "output_%d" % i)
                ctx._used.add(name)
                node_ = onnx.helper.make_node("Identity", [ctx.tensor(s)], [name], name=ctx.fresh("/output/Identity"))
                ctx.nodes.append(node_)
                graph_outputs.append(_value_info(onnx, name, c, _dynamic_dims(dynamic_axes, name), any_dynamic))
            break
        out = _evaluate(root, node, cenv)
        cenv[node] = out
        sargs, skwargs = symbolic(node.args), symbolic(node.kwargs)
        if not has_sym((sargs, skwargs)):
            senv[node] = out  # a constant (Note [ONNX export])
            continue
        senv[node] = _convert_node(ctx, root, node, sargs, skwargs, out)
    known = {v.name for v in graph_inputs} | {v.name for v in graph_outputs}
    for name in dynamic_axes or {}:
        if name not in known:
            warnings.warn(
                "Provided key %s for dynamic axes is not a valid input/output name" % name,
                OnnxExporterWarning,
                stacklevel=3,
            )
    model_graph = onnx.helper.make_graph(ctx.nodes, "main_graph", graph_inputs, graph_outputs)
    used = {i for n in ctx.nodes for i in n.input}
    for name, init in ctx.initializers.items():
        if name not in used:
            continue
        if name in ctx.param_names and not options["export_params"]:
            model_graph.input.append(onnx.helper.make_tensor_value_info(name, init.data_type, list(init.dims)))
            continue
        model_graph.initializer.append(init)
        if options["keep_initializers_as_inputs"]:
            model_graph.input.append(onnx.helper.make_tensor_value_info(name, init.data_type, list(init.dims)))
    custom_opsets = options["custom_opsets"] or {}
    imports = [onnx.helper.make_opsetid("", opset)] + [
        onnx.helper.make_opsetid(d, custom_opsets.get(d, 1)) for d in sorted(ctx.custom_domains | set(custom_opsets))
    ]
    model = onnx.helper.make_model(model_graph, opset_imports=imports, producer_name="ember")
    model.ir_version = min(model.ir_version, 10)  # what onnxruntime reads
    if any_dynamic:
        _infer_output_dims(onnx, model, dynamic_axes)
    onnx.checker.check_model(model)
    return model


def _convert_node(ctx, root, node, args, kwargs, out):
    sym_name = _symbolic.symbolic_name(node)
    user_fn = _symbolic.lookup(sym_name, ctx.opset) if sym_name else None
    if user_fn is not None:  # Note [custom symbolics]
        ctx.op_name = sym_name
        return _symbolic.run(ctx, user_fn, node, args, kwargs, out)
    if node.op == "call_function" and sym_name and _is_op_overload(node.target):
        raise UnsupportedOperatorError(sym_name, ctx.opset)  # a custom op: it needs a registered symbolic
    if node.op == "call_module":
        mod = _fetch(root, node.target)
        fn = _registry.module_converter(mod)
        ctx.current = node.target
        ctx.op_name = "%s (%s)" % (type(mod).__name__, node.target)
        qualname = "" if getattr(root, "_onnx_leaf_root", False) else node.target  # the model itself: its names
        try:  # arguments given by keyword where forward takes them positionally become positional
            bound = inspect.signature(type(mod).forward).bind(None, *args, **kwargs)
            args, kwargs = tuple(bound.args[1:]), dict(bound.kwargs)
        except TypeError:
            pass
        return fn(ctx, mod, qualname, args, kwargs, out)
    name = node.target if node.op == "call_method" else _registry.short_name(node.target)
    ctx.op_name = name if node.op == "call_method" else _registry_name(node.target)
    fn = _registry.OPS.get(name)
    if fn is None:
        raise UnsupportedOperatorError(ctx.op_name, ctx.opset)
    return fn(ctx, args, kwargs, out)


def _is_op_overload(target):
    from .._ops import OpOverload, OpOverloadPacket

    return isinstance(target, (OpOverload, OpOverloadPacket))


def _registry_name(target):
    from ..fx.node import _qualified_name

    return _qualified_name(target)
