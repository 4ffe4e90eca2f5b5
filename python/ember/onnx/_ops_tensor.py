"""Converters of tensor operations: arithmetic, comparisons, unary math, reductions, shapes, views, indexing."""

import math

from .. import _C
from ._exporter import Sym, dtype_of
from ._registry import op
from .errors import OnnxExporterError


def _ember():
    import ember

    return ember


def _is_tensor(v):
    return isinstance(v.value if isinstance(v, Sym) else v, _C.Tensor)


def _val(v):
    return v.value if isinstance(v, Sym) else v


def _rank(v):
    return _val(v).dim()


def _norm_dim(d, rank):
    d = int(_val(d))
    return d + rank if d < 0 else d


def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _promoted(a, b):
    ember = _ember()
    va, vb = _val(a), _val(b)
    if isinstance(va, tuple) or isinstance(vb, tuple):
        return ember.int64
    if not isinstance(va, _C.Tensor) and not isinstance(vb, _C.Tensor):  # numbers computed from sizes
        return ember.float32 if isinstance(va, float) or isinstance(vb, float) else ember.int64
    return ember.result_type(va, vb)


# ---- arithmetic


def _binary(onnx_op, compare=False):
    def conv(ctx, args, kwargs, out):
        a, b = args[0], args[1]
        dt = _promoted(a, b) if compare else dtype_of(out)
        return Sym(ctx.op(onnx_op, [ctx.tensor(a, dt), ctx.tensor(b, dt)]), out)

    return conv


for _name, _onnx in [("mul", "Mul"), ("matmul", "MatMul"), ("mm", "MatMul"), ("bmm", "MatMul")]:
    op(_name, "multiply" if _name == "mul" else _name)(_binary(_onnx))
for _name, _onnx in [
    ("eq", "Equal"),
    ("lt", "Less"),
    ("gt", "Greater"),
    ("le", "LessOrEqual"),
    ("ge", "GreaterOrEqual"),
]:
    op(_name)(_binary(_onnx, compare=True))
op("maximum")(_binary("Max"))
op("minimum")(_binary("Min"))
op("and_", "logical_and", "bitwise_and")(_binary("And"))
op("or_", "logical_or", "bitwise_or")(_binary("Or"))


@op("ne")
def _ne(ctx, args, kwargs, out):
    return Sym(ctx.op("Not", [_binary("Equal", compare=True)(ctx, args, kwargs, out).name]), out)


def _add_sub(onnx_op):
    def conv(ctx, args, kwargs, out):
        dt = dtype_of(out)
        a, b = ctx.tensor(args[0], dt), args[1]
        alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
        b = ctx.tensor(b, dt)
        if alpha != 1:
            b = ctx.op("Mul", [b, ctx.const(alpha, dt)])
        return Sym(ctx.op(onnx_op, [a, b]), out)

    return conv


op("add")(_add_sub("Add"))
op("sub", "subtract")(_add_sub("Sub"))


@op("rsub")
def _rsub(ctx, args, kwargs, out):
    return _add_sub("Sub")(ctx, (args[1], args[0]) + tuple(args[2:]), kwargs, out)


@op("truediv", "div", "divide", "floordiv", "floor_divide")
def _div(ctx, args, kwargs, out):
    dt = dtype_of(out)
    q = ctx.op("Div", [ctx.tensor(args[0], dt), ctx.tensor(args[1], dt)])
    mode = kwargs.get("rounding_mode", args[2] if len(args) > 2 else None)
    float_out = dt.is_floating_point
    if mode == "floor" and float_out:
        q = ctx.op("Floor", [q])
    elif mode == "trunc" and float_out:
        q = ctx.op("Where", [ctx.op("Less", [q, ctx.const(0, dt)]), ctx.op("Ceil", [q]), ctx.op("Floor", [q])])
    return Sym(q, out)


@op("pow")
def _pow(ctx, args, kwargs, out):
    dt = dtype_of(out)
    return Sym(ctx.op("Pow", [ctx.tensor(args[0], dt), ctx.tensor(args[1], dt)]), out)


@op("mod", "remainder", "fmod")
def _mod(ctx, args, kwargs, out):
    dt = dtype_of(out)
    return Sym(
        ctx.op("Mod", [ctx.tensor(args[0], dt), ctx.tensor(args[1], dt)], fmod=1 if dt.is_floating_point else 0), out
    )


# ---- unary


def _unary(onnx_op):
    def conv(ctx, args, kwargs, out):
        return Sym(ctx.op(onnx_op, [ctx.tensor(args[0], dtype_of(out))]), out)

    return conv


for _name, _onnx in [
    ("relu", "Relu"),
    ("sigmoid", "Sigmoid"),
    ("tanh", "Tanh"),
    ("exp", "Exp"),
    ("log", "Log"),
    ("sqrt", "Sqrt"),
    ("neg", "Neg"),
    ("negative", "Neg"),
    ("abs", "Abs"),
    ("sin", "Sin"),
    ("cos", "Cos"),
    ("erf", "Erf"),
    ("reciprocal", "Reciprocal"),
    ("floor", "Floor"),
    ("ceil", "Ceil"),
    ("sign", "Sign"),
    ("logical_not", "Not"),
    ("invert", "Not"),
    ("math.sqrt", "Sqrt"),
    ("math.exp", "Exp"),
    ("math.log", "Log"),
]:
    op(_name)(_unary(_onnx))


@op("rsqrt")
def _rsqrt(ctx, args, kwargs, out):
    return Sym(ctx.op("Reciprocal", [ctx.op("Sqrt", [ctx.tensor(args[0], dtype_of(out))])]), out)


@op("pos", "contiguous", "clone", "detach", "cpu", "cuda", "requires_grad_")
def _identity(ctx, args, kwargs, out):
    return Sym(ctx.tensor(args[0]), out)


@op("float", "double", "half", "long", "int", "bool", "to", "type", "type_as", "short", "byte")
def _cast(ctx, args, kwargs, out):
    if not isinstance(out, _C.Tensor):
        raise OnnxExporterError("ember.onnx.export: [%s] the cast gives a %s" % (ctx.current, type(out).__name__))
    return Sym(ctx.tensor(args[0], out.dtype), out)


# ---- reductions


def _reduction(onnx_op):
    def conv(ctx, args, kwargs, out):
        x = args[0]
        dim = _arg(args, kwargs, 1, "dim")
        keepdim = bool(_arg(args, kwargs, 2, "keepdim", False))
        if kwargs.get("dtype") is not None:
            x = Sym(ctx.tensor(x, kwargs["dtype"]), _val(x).to(kwargs["dtype"]))
        rank = _rank(x)
        axes = None if dim is None else [_norm_dim(d, rank) for d in (dim if isinstance(dim, (tuple, list)) else [dim])]
        return Sym(ctx.reduce(onnx_op, ctx.tensor(x), axes, keepdim), out)

    return conv


op("mean")(_reduction("ReduceMean"))
op("sum")(_reduction("ReduceSum"))
op("amax")(_reduction("ReduceMax"))
op("amin")(_reduction("ReduceMin"))
op("prod")(_reduction("ReduceProd"))


def _arg_reduce(onnx_op):
    def conv(ctx, args, kwargs, out):
        x = args[0]
        dim = _arg(args, kwargs, 1, "dim")
        keep = 1 if _arg(args, kwargs, 2, "keepdim", False) else 0
        xs = ctx.tensor(x)
        if dim is None:
            xs = ctx.op("Reshape", [xs, ctx.const([-1], _ember().int64)])
            dim = 0
        return Sym(ctx.op(onnx_op, [xs], axis=_norm_dim(dim, max(_rank(x), 1)), keepdims=keep), out)

    return conv


op("argmax")(_arg_reduce("ArgMax"))
op("argmin")(_arg_reduce("ArgMin"))


# ---- shapes


@op("size")
def _size(ctx, args, kwargs, out):
    x = args[0]
    dim = _arg(args, kwargs, 1, "dim")
    shape = ctx.shape(ctx.tensor(x))
    if dim is None:
        return Sym(shape, out)
    return Sym(ctx.op("Gather", [shape, ctx.const(_norm_dim(dim, _rank(x)), _ember().int64)], axis=0), out)


@op("getattr")
def _getattr(ctx, args, kwargs, out):
    x, attr = args[0], args[1]
    if attr == "shape":
        return Sym(ctx.shape(ctx.tensor(x)), out)
    if attr in ("dtype", "device", "ndim", "is_cuda", "requires_grad", "layout", "is_sparse"):
        return out  # static
    if attr in ("T", "mT"):
        rank = _rank(x)
        perm = list(range(rank))[::-1] if attr == "T" else list(range(rank - 2)) + [rank - 1, rank - 2]
        return Sym(ctx.op("Transpose", [ctx.tensor(x)], perm=perm), out)
    raise OnnxExporterError("ember.onnx.export: [%s] reading attribute %r of a traced value" % (ctx.current, attr))


@op("dim", "ndimension")
def _dim(ctx, args, kwargs, out):
    return out  # the rank is fixed by the example


def _shape_arg(args):
    """The sizes of view/reshape/expand/permute/repeat: one sequence argument or several ints."""
    if len(args) == 1 and (
        isinstance(args[0], (tuple, list)) or (isinstance(args[0], Sym) and isinstance(args[0].value, tuple))
    ):
        return args[0]
    return list(args)


@op("view", "reshape")
def _view(ctx, args, kwargs, out):
    shape = _shape_arg(args[1:]) if len(args) > 1 else kwargs.get("shape", kwargs.get("size"))
    if isinstance(shape, _ember().dtype):
        raise OnnxExporterError("ember.onnx.export: [%s] view with a dtype is not supported" % ctx.current)
    return Sym(ctx.op("Reshape", [ctx.tensor(args[0]), ctx.ints(shape)]), out)


@op("view_as", "reshape_as")
def _view_as(ctx, args, kwargs, out):
    return Sym(ctx.op("Reshape", [ctx.tensor(args[0]), ctx.shape(ctx.tensor(args[1]))]), out)


@op("flatten")
def _flatten(ctx, args, kwargs, out):
    x = args[0]
    rank = _rank(x)
    if rank == 0:
        return Sym(ctx.op("Reshape", [ctx.tensor(x), ctx.const([1], _ember().int64)]), out)
    start = _norm_dim(_arg(args, kwargs, 1, "start_dim", 0), rank)
    end = _norm_dim(_arg(args, kwargs, 2, "end_dim", -1), rank)
    xs = ctx.tensor(x)
    parts = []
    if start > 0:
        parts.append(ctx.shape(xs, 0, start))
    parts.append(ctx.const([-1], _ember().int64))
    if end < rank - 1:
        parts.append(ctx.shape(xs, end + 1, rank))
    shape = parts[0] if len(parts) == 1 else ctx.op("Concat", parts, axis=0)
    return Sym(ctx.op("Reshape", [xs, shape]), out)


@op("unsqueeze")
def _unsqueeze(ctx, args, kwargs, out):
    dim = _norm_dim(_arg(args, kwargs, 1, "dim"), out.dim())
    return Sym(ctx.unsqueeze(ctx.tensor(args[0]), [dim]), out)


@op("squeeze")
def _squeeze(ctx, args, kwargs, out):
    x = args[0]
    dim = _arg(args, kwargs, 1, "dim")
    shape = _val(x).shape
    dims = range(len(shape)) if dim is None else (dim if isinstance(dim, (tuple, list)) else [dim])
    axes = [d for d in (_norm_dim(d, len(shape)) for d in dims) if shape[d] == 1]
    if not axes:
        return Sym(ctx.tensor(x), out)
    return Sym(ctx.squeeze(ctx.tensor(x), axes), out)


@op("permute")
def _permute(ctx, args, kwargs, out):
    dims = _shape_arg(args[1:]) if len(args) > 1 else kwargs["dims"]
    rank = _rank(args[0])
    return Sym(ctx.op("Transpose", [ctx.tensor(args[0])], perm=[_norm_dim(d, rank) for d in dims]), out)


@op("transpose", "swapaxes", "swapdims")
def _transpose(ctx, args, kwargs, out):
    rank = _rank(args[0])
    d0 = _norm_dim(_arg(args, kwargs, 1, "dim0"), rank)
    d1 = _norm_dim(_arg(args, kwargs, 2, "dim1"), rank)
    perm = list(range(rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return Sym(ctx.op("Transpose", [ctx.tensor(args[0])], perm=perm), out)


@op("t")
def _t(ctx, args, kwargs, out):
    if _rank(args[0]) < 2:
        return Sym(ctx.tensor(args[0]), out)
    return Sym(ctx.op("Transpose", [ctx.tensor(args[0])], perm=[1, 0]), out)


@op("expand")
def _expand(ctx, args, kwargs, out):
    sizes = _shape_arg(args[1:]) if len(args) > 1 else kwargs["size"]
    if not isinstance(sizes, Sym):
        sizes = [1 if (not isinstance(s, Sym) and s == -1) else s for s in sizes]  # -1 keeps the size: broadcast 1
    return Sym(ctx.op("Expand", [ctx.tensor(args[0]), ctx.ints(sizes)]), out)


@op("expand_as")
def _expand_as(ctx, args, kwargs, out):
    return Sym(ctx.op("Expand", [ctx.tensor(args[0]), ctx.shape(ctx.tensor(args[1]))]), out)


@op("repeat")
def _repeat(ctx, args, kwargs, out):
    reps = _shape_arg(args[1:])
    x = ctx.tensor(args[0])
    extra = len(reps) - _rank(args[0])
    if extra > 0:
        x = ctx.unsqueeze(x, list(range(extra)))
    return Sym(ctx.op("Tile", [x, ctx.ints(reps)]), out)


@op("cat", "concat", "concatenate")
def _cat(ctx, args, kwargs, out):
    tensors = args[0]
    dim = _norm_dim(_arg(args, kwargs, 1, "dim", 0), out.dim())
    names = [ctx.tensor(t, out.dtype) for t in tensors if _val(t).numel() > 0 or _val(t).dim() == out.dim()]
    return Sym(ctx.op("Concat", names, axis=dim), out)


@op("stack")
def _stack(ctx, args, kwargs, out):
    dim = _norm_dim(_arg(args, kwargs, 1, "dim", 0), out.dim())
    names = [ctx.unsqueeze(ctx.tensor(t, out.dtype), [dim]) for t in args[0]]
    return Sym(ctx.op("Concat", names, axis=dim), out)


def _split(dim_index):
    """split/chunk/tensor_split (dim is argument 2) and unbind (argument 1): one ONNX Split whose sizes are those
    of the example's pieces."""

    def conv(ctx, args, kwargs, out):
        x = args[0]
        rank = _rank(x)
        if not isinstance(out, (tuple, list)) or not out:
            raise OnnxExporterError("ember.onnx.export: [%s] a split that gives no tensors" % ctx.current)
        dim = _norm_dim(_arg(args, kwargs, dim_index, "dim", 0), rank)
        sizes = [int(o.shape[dim]) if o.dim() == rank else 1 for o in out]
        names = ctx.op("Split", [ctx.tensor(x), ctx.const(sizes, _ember().int64)], outputs=len(sizes), axis=dim)
        names = names if isinstance(names, list) else [names]
        if out[0].dim() < rank:  # unbind drops the dimension
            names = [ctx.squeeze(n, [dim]) for n in names]
        return type(out)(Sym(n, o) for n, o in zip(names, out))

    return conv


op("split", "chunk", "tensor_split")(_split(2))
op("unbind")(_split(1))


# ---- indexing


@op("getitem")
def _getitem(ctx, args, kwargs, out):
    obj, idx = args[0], args[1]
    if isinstance(obj, (tuple, list)):  # a Python container of values
        return obj[_val(idx)] if not isinstance(idx, slice) else obj[idx]
    if isinstance(obj, Sym) and isinstance(obj.value, tuple):  # a shape
        if isinstance(idx, slice):
            return Sym(_slice(ctx, obj.name, 0, idx, len(obj.value)), out)
        i = _norm_dim(idx, len(obj.value)) if not isinstance(idx, Sym) else idx
        return Sym(ctx.op("Gather", [obj.name, ctx.tensor(i, _ember().int64)], axis=0), out)
    return Sym(_index_tensor(ctx, obj, idx), out)


def _slice(ctx, x, axis, s, size):
    ember = _ember()
    step = 1 if s.step is None else s.step
    if not isinstance(step, Sym) and step <= 0:
        raise OnnxExporterError("ember.onnx.export: [%s] slice steps must be positive" % ctx.current)
    start = 0 if s.start is None else s.start
    stop = 2**62 if s.stop is None else s.stop
    return ctx.op(
        "Slice",
        [x, ctx.ints([start]), ctx.ints([stop]), ctx.const([axis], ember.int64), ctx.ints([step])],
    )


def _index_tensor(ctx, x, idx):
    """x[idx] for ints, slices, None, Ellipsis and one integer tensor per index."""
    ember = _ember()
    idx = idx if isinstance(idx, tuple) else (idx,)
    rank = _rank(x)
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
    expanded = []
    for i in idx:
        if i is Ellipsis:
            expanded.extend([slice(None)] * (rank - n_real))
        else:
            expanded.append(i)
    name = ctx.tensor(x)
    axis = 0
    shape = list(_val(x).shape)
    for i in expanded:
        if i is None:
            name = ctx.unsqueeze(name, [axis])
            shape.insert(axis, 1)
            axis += 1
        elif isinstance(i, slice):
            if not (i.start is None and i.stop is None and i.step is None):
                name = _slice(ctx, name, axis, i, shape[axis])
            axis += 1
        elif _is_tensor(i):
            if _val(i).dtype == ember.bool:
                raise OnnxExporterError("ember.onnx.export: [%s] indexing with a boolean mask" % ctx.current)
            name = ctx.op("Gather", [name, ctx.tensor(i, ember.int64)], axis=axis)
            nd = _val(i).dim()
            shape[axis : axis + 1] = [None] * nd
            axis += nd
        elif isinstance(i, (int, Sym)):
            name = ctx.op("Gather", [name, ctx.tensor(i, ember.int64)], axis=axis)
            del shape[axis]
        else:
            raise OnnxExporterError("ember.onnx.export: [%s] index of type %s" % (ctx.current, type(i).__name__))
    return name


@op("setitem")
def _setitem(ctx, args, kwargs, out):
    raise OnnxExporterError(
        "ember.onnx.export: [%s] in-place assignment to a traced tensor (x[...] = v) is not supported" % ctx.current
    )


@op("masked_fill")
def _masked_fill(ctx, args, kwargs, out):
    x, mask, value = args[0], args[1], _arg(args, kwargs, 2, "value")
    dt = out.dtype
    return Sym(ctx.op("Where", [ctx.tensor(mask, _ember().bool), ctx.tensor(value, dt), ctx.tensor(x, dt)]), out)


@op("where")
def _where(ctx, args, kwargs, out):
    cond, a, b = args[0], args[1], args[2]
    dt = out.dtype
    return Sym(ctx.op("Where", [ctx.tensor(cond, _ember().bool), ctx.tensor(a, dt), ctx.tensor(b, dt)]), out)


def _fill_like(value):
    def conv(ctx, args, kwargs, out):
        import numpy as np

        from ._exporter import _numpy_dtype

        v = value if value is not None else _arg(args, kwargs, 1, "fill_value")
        t = ctx.onnx.numpy_helper.from_array(np.array([v], dtype=_numpy_dtype(out.dtype)))
        return Sym(ctx.op("ConstantOfShape", [ctx.shape(ctx.tensor(args[0]))], value=t), out)

    return conv


op("zeros_like")(_fill_like(0))
op("ones_like")(_fill_like(1))
op("full_like")(_fill_like(None))


def _new_fill(value):
    def conv(ctx, args, kwargs, out):
        import numpy as np

        from ._exporter import _numpy_dtype

        sizes = _shape_arg(args[1:]) if len(args) > 1 else kwargs["size"]
        t = ctx.onnx.numpy_helper.from_array(np.array([value], dtype=_numpy_dtype(out.dtype)))
        return Sym(ctx.op("ConstantOfShape", [ctx.ints(sizes)], value=t), out)

    return conv


op("new_zeros")(_new_fill(0))
op("new_ones")(_new_fill(1))


def _trilu(upper):
    def conv(ctx, args, kwargs, out):
        diag = _arg(args, kwargs, 1, "diagonal", 0)
        return Sym(ctx.op("Trilu", [ctx.tensor(args[0]), ctx.tensor(diag, _ember().int64)], upper=upper), out)

    return conv


op("triu")(_trilu(1))
op("tril")(_trilu(0))


@op("arange")
def _arange(ctx, args, kwargs, out):
    vals = list(args)
    start, end, step = (0, vals[0], 1) if len(vals) == 1 else (vals + [1])[:3]
    start = kwargs.get("start", start)
    end = kwargs.get("end", end)
    step = kwargs.get("step", step)
    dt = out.dtype
    return Sym(ctx.op("Range", [ctx.tensor(start, dt), ctx.tensor(end, dt), ctx.tensor(step, dt)]), out)


def _math_round(fn):
    def conv(ctx, args, kwargs, out):
        ember = _ember()
        x = ctx.tensor(args[0], ember.float32)
        return Sym(ctx.op("Cast", [ctx.op(fn, [x])], to=7), out)  # 7: INT64

    return conv


op("math.floor")(_math_round("Floor"))
op("math.ceil")(_math_round("Ceil"))
_ = math  # math.* functions are keyed by their qualified names above


# ---- more math: einsum, addmm, max/min, cumsum, var/std, logsumexp


@op("einsum")
def _einsum(ctx, args, kwargs, out):
    eq = args[0]
    operands = args[1] if len(args) == 2 and isinstance(args[1], (tuple, list)) else args[1:]
    return Sym(ctx.op("Einsum", [ctx.tensor(t, out.dtype) for t in operands], equation=eq.replace(" ", "")), out)


@op("addmm")
def _addmm(ctx, args, kwargs, out):
    dt = out.dtype
    bias, m1, m2 = (ctx.tensor(a, dt) for a in args[:3])
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    prod = ctx.op("MatMul", [m1, m2])
    if alpha != 1:
        prod = ctx.op("Mul", [prod, ctx.const(alpha, dt)])
    if beta == 0:
        return Sym(prod, out)
    if beta != 1:
        bias = ctx.op("Mul", [bias, ctx.const(beta, dt)])
    return Sym(ctx.op("Add", [bias, prod]), out)


def _max_min(reduce_op, arg_op, binary_op):
    def conv(ctx, args, kwargs, out):
        x = args[0]
        other = _arg(args, kwargs, 1, "dim")
        if _is_tensor(other) if other is not None else False:  # max(a, b): elementwise
            return _binary(binary_op)(ctx, (x, other), {}, out)
        if other is None:
            return Sym(ctx.reduce(reduce_op, ctx.tensor(x), None, False), out)
        dim = _norm_dim(other, _rank(x))
        keep = bool(_arg(args, kwargs, 2, "keepdim", False))
        values = ctx.reduce(reduce_op, ctx.tensor(x), [dim], keep)
        indices = ctx.op(arg_op, [ctx.tensor(x)], axis=dim, keepdims=1 if keep else 0)
        return type(out)(Sym(values, out[0]), Sym(indices, out[1]))  # return_types.max/min

    return conv


op("max")(_max_min("ReduceMax", "ArgMax", "Max"))
op("min")(_max_min("ReduceMin", "ArgMin", "Min"))


@op("cumsum")
def _cumsum(ctx, args, kwargs, out):
    x = args[0]
    dim = _norm_dim(_arg(args, kwargs, 1, "dim"), max(_rank(x), 1))
    return Sym(ctx.op("CumSum", [ctx.tensor(x, out.dtype), ctx.const(dim, _ember().int64)]), out)


@op("round")
def _round(ctx, args, kwargs, out):
    if _arg(args, kwargs, 1, "decimals", 0):
        raise OnnxExporterError("ember.onnx.export: [%s] round with decimals" % ctx.current)
    return Sym(ctx.op("Round", [ctx.tensor(args[0])]), out)


@op("log1p")
def _log1p(ctx, args, kwargs, out):
    dt = out.dtype
    return Sym(ctx.op("Log", [ctx.op("Add", [ctx.tensor(args[0], dt), ctx.const(1.0, dt)])]), out)


@op("square")
def _square(ctx, args, kwargs, out):
    x = ctx.tensor(args[0], out.dtype)
    return Sym(ctx.op("Mul", [x, x]), out)


@op("logsumexp")
def _logsumexp(ctx, args, kwargs, out):
    x = args[0]
    dim = _arg(args, kwargs, 1, "dim")
    dims = dim if isinstance(dim, (tuple, list)) else [dim]
    keep = bool(_arg(args, kwargs, 2, "keepdim", False))
    return Sym(ctx.reduce("ReduceLogSumExp", ctx.tensor(x), [_norm_dim(d, _rank(x)) for d in dims], keep), out)


def _var_std(take_sqrt):
    def conv(ctx, args, kwargs, out):
        ember = _ember()
        x = args[0]
        dim = _arg(args, kwargs, 1, "dim")
        if isinstance(dim, bool):  # var(x, unbiased)
            kwargs = {**kwargs, "unbiased": dim}
            dim = None
        correction = kwargs.get("correction")
        if correction is None:
            correction = (
                1 if kwargs.get("unbiased", args[2] if len(args) > 2 and isinstance(args[2], bool) else True) else 0
            )
        keep = bool(kwargs.get("keepdim", args[3] if len(args) > 3 else False))
        rank = _rank(x)
        axes = (
            list(range(rank))
            if dim is None
            else [_norm_dim(d, rank) for d in (dim if isinstance(dim, (tuple, list)) else [dim])]
        )
        dt = out.dtype
        xs = ctx.tensor(x)
        d = ctx.op("Sub", [xs, ctx.reduce("ReduceMean", xs, axes, True)])
        ss = ctx.reduce("ReduceSum", ctx.op("Mul", [d, d]), axes, keep)
        n = ctx.op("ReduceProd", [ctx.op("Gather", [ctx.shape(xs), ctx.const(axes, ember.int64)], axis=0)], keepdims=0)
        n = ctx.op("Sub", [ctx.op("Cast", [n], to=_onnx_type(dt)), ctx.const(float(correction), dt)])
        v = ctx.op("Div", [ss, ctx.op("Max", [n, ctx.const(0.0, dt)])])
        return Sym(ctx.op("Sqrt", [v]) if take_sqrt else v, out)

    return conv


def _onnx_type(dtype):
    from ._exporter import onnx_dtype

    return onnx_dtype(dtype)


op("var")(_var_std(False))
op("std")(_var_std(True))
