"""Converters of neural-network operations and modules: activations, linear, convolution, normalization, pooling,
embedding, dropout, attention (scaled_dot_product_attention, nn.MultiheadAttention)."""

import inspect
import math

from .. import _C
from ..nn import modules as nn
from ._exporter import Sym, dtype_of
from ._ops_tensor import _arg, _norm_dim, _rank, _val
from ._registry import OPS, module, op
from .errors import OnnxExporterError, UnsupportedOperatorError


def _ember():
    import ember

    return ember


def _pair(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


# ---- activations


@op("gelu")
def _gelu(ctx, args, kwargs, out):
    x = ctx.tensor(args[0])
    dt = dtype_of(out)
    approx = _arg(args, kwargs, 1, "approximate", "none")
    if approx == "tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        inner = ctx.op(
            "Mul",
            [
                ctx.const(math.sqrt(2 / math.pi), dt),
                ctx.op("Add", [x, ctx.op("Mul", [ctx.const(0.044715, dt), ctx.op("Mul", [x, ctx.op("Mul", [x, x])])])]),
            ],
        )
        t = ctx.op("Tanh", [inner])
    else:  # 0.5 x (1 + erf(x / sqrt 2))
        t = ctx.op("Erf", [ctx.op("Div", [x, ctx.const(math.sqrt(2.0), dt)])])
    half = ctx.op("Mul", [x, ctx.const(0.5, dt)])
    return Sym(ctx.op("Mul", [half, ctx.op("Add", [t, ctx.const(1.0, dt)])]), out)


@op("hardswish")
def _hardswish(ctx, args, kwargs, out):
    x = ctx.tensor(args[0])
    if ctx.opset >= 14:
        return Sym(ctx.op("HardSwish", [x]), out)
    return Sym(ctx.op("Mul", [x, ctx.op("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)]), out)


@op("hardsigmoid")
def _hardsigmoid(ctx, args, kwargs, out):
    return Sym(ctx.op("HardSigmoid", [ctx.tensor(args[0])], alpha=1.0 / 6, beta=0.5), out)


@op("silu")
def _silu(ctx, args, kwargs, out):
    x = ctx.tensor(args[0])
    return Sym(ctx.op("Mul", [x, ctx.op("Sigmoid", [x])]), out)


@op("leaky_relu")
def _leaky_relu(ctx, args, kwargs, out):
    slope = _arg(args, kwargs, 1, "negative_slope", 0.01)
    return Sym(ctx.op("LeakyRelu", [ctx.tensor(args[0])], alpha=float(slope)), out)


@op("elu")
def _elu(ctx, args, kwargs, out):
    return Sym(ctx.op("Elu", [ctx.tensor(args[0])], alpha=float(_arg(args, kwargs, 1, "alpha", 1.0))), out)


@op("relu6")
def _relu6(ctx, args, kwargs, out):
    return _clamp(ctx, (args[0], 0.0, 6.0), {}, out)


@op("hardtanh")
def _hardtanh(ctx, args, kwargs, out):
    return _clamp(
        ctx, (args[0], _arg(args, kwargs, 1, "min_val", -1.0), _arg(args, kwargs, 2, "max_val", 1.0)), {}, out
    )


@op("clamp", "clip")
def _clamp(ctx, args, kwargs, out):
    dt = dtype_of(out)
    lo = _arg(args, kwargs, 1, "min")
    hi = _arg(args, kwargs, 2, "max")
    return Sym(
        ctx.op(
            "Clip",
            [
                ctx.tensor(args[0]),
                None if lo is None else ctx.tensor(lo, dt),
                None if hi is None else ctx.tensor(hi, dt),
            ],
        ),
        out,
    )


@op("softplus")
def _softplus(ctx, args, kwargs, out):
    beta = _arg(args, kwargs, 1, "beta", 1.0)
    x = ctx.tensor(args[0])
    if beta == 1:
        return Sym(ctx.op("Softplus", [x]), out)
    dt = dtype_of(out)
    return Sym(ctx.op("Div", [ctx.op("Softplus", [ctx.op("Mul", [x, ctx.const(beta, dt)])]), ctx.const(beta, dt)]), out)


def _softmax(onnx_op):
    def conv(ctx, args, kwargs, out):
        x = args[0]
        dim = _arg(args, kwargs, 1, "dim")
        if dim is None:
            raise OnnxExporterError("ember.onnx.export: [%s] softmax without dim" % ctx.current)
        dt = kwargs.get("dtype")
        xs = ctx.tensor(x, dt)
        return Sym(ctx.op(onnx_op, [xs], axis=_norm_dim(dim, _rank(x))), out)

    return conv


op("softmax")(_softmax("Softmax"))
op("log_softmax")(_softmax("LogSoftmax"))


@op("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
def _dropout(ctx, args, kwargs, out):
    training = _arg(args, kwargs, 2, "training", True)
    p = _arg(args, kwargs, 1, "p", 0.5)
    if training and p > 0:
        raise OnnxExporterError(
            "ember.onnx.export: [%s] dropout in training mode (export in eval mode: training=TrainingMode.EVAL)"
            % ctx.current
        )
    return Sym(ctx.tensor(args[0]), out)


# ---- linear, convolution, normalization, embedding


@op("linear")
def _linear(ctx, args, kwargs, out):
    x, w = args[0], args[1]
    b = _arg(args, kwargs, 2, "bias")
    if _rank(x) == 2 and _rank(w) == 2:
        return Sym(ctx.op("Gemm", [ctx.tensor(x), ctx.tensor(w), None if b is None else ctx.tensor(b)], transB=1), out)
    y = ctx.op("MatMul", [ctx.tensor(x), ctx.op("Transpose", [ctx.tensor(w)], perm=[1, 0])])
    if b is not None:
        y = ctx.op("Add", [y, ctx.tensor(b)])
    return Sym(y, out)


def _conv(n):
    def conv(ctx, args, kwargs, out):
        x, w = args[0], args[1]
        b = _arg(args, kwargs, 2, "bias")
        stride = _pair(_arg(args, kwargs, 3, "stride", 1), n)
        padding = _arg(args, kwargs, 4, "padding", 0)
        dilation = _pair(_arg(args, kwargs, 5, "dilation", 1), n)
        groups = int(_arg(args, kwargs, 6, "groups", 1))
        attrs = dict(strides=stride, dilations=dilation, group=groups, kernel_shape=list(_val(w).shape[2:]))
        if padding == "same":
            attrs["auto_pad"] = "SAME_UPPER"
        elif padding == "valid":
            attrs["pads"] = [0] * (2 * n)
        else:
            attrs["pads"] = _pair(padding, n) * 2
        inputs = [ctx.tensor(x), ctx.tensor(w)] + ([ctx.tensor(b)] if b is not None else [])
        return Sym(ctx.op("Conv", inputs, **attrs), out)

    return conv


op("conv1d")(_conv(1))
op("conv2d")(_conv(2))
op("conv3d")(_conv(3))


@op("batch_norm")
def _batch_norm(ctx, args, kwargs, out):
    x, mean, var = args[0], args[1], args[2]
    w = _arg(args, kwargs, 3, "weight")
    b = _arg(args, kwargs, 4, "bias")
    training = _arg(args, kwargs, 5, "training", False)
    eps = _arg(args, kwargs, 7, "eps", 1e-5)
    if training:
        raise OnnxExporterError(
            "ember.onnx.export: [%s] batch_norm in training mode (export in eval mode)" % ctx.current
        )
    dt = dtype_of(out)
    c = _val(x).shape[1]
    w = ctx.tensor(w) if w is not None else ctx.const([1.0] * c, dt)
    b = ctx.tensor(b) if b is not None else ctx.const([0.0] * c, dt)
    return Sym(
        ctx.op("BatchNormalization", [ctx.tensor(x), w, b, ctx.tensor(mean), ctx.tensor(var)], epsilon=float(eps)), out
    )


@op("layer_norm")
def _layer_norm(ctx, args, kwargs, out):
    x = args[0]
    shape = _arg(args, kwargs, 1, "normalized_shape")
    w = _arg(args, kwargs, 2, "weight")
    b = _arg(args, kwargs, 3, "bias")
    eps = float(_arg(args, kwargs, 4, "eps", 1e-5))
    shape = [int(_val(shape))] if not isinstance(shape, (tuple, list)) else [int(_val(d)) for d in shape]
    dt = dtype_of(out)
    xs = ctx.tensor(x)
    axis = -len(shape)
    if ctx.opset >= 17:
        w = ctx.tensor(w) if w is not None else ctx.const(_ones(shape), dt)
        return Sym(
            ctx.op("LayerNormalization", [xs, w, None if b is None else ctx.tensor(b)], axis=axis, epsilon=eps), out
        )
    axes = list(range(_rank(x) + axis, _rank(x)))
    mean = ctx.reduce("ReduceMean", xs, axes, True)
    d = ctx.op("Sub", [xs, mean])
    var = ctx.reduce("ReduceMean", ctx.op("Mul", [d, d]), axes, True)
    y = ctx.op("Div", [d, ctx.op("Sqrt", [ctx.op("Add", [var, ctx.const(eps, dt)])])])
    if w is not None:
        y = ctx.op("Mul", [y, ctx.tensor(w)])
    if b is not None:
        y = ctx.op("Add", [y, ctx.tensor(b)])
    return Sym(y, out)


def _ones(shape):
    if len(shape) == 1:
        return [1.0] * shape[0]
    return [_ones(shape[1:]) for _ in range(shape[0])]


@op("embedding")
def _embedding(ctx, args, kwargs, out):
    idx, w = args[0], args[1]
    if _arg(args, kwargs, 3, "max_norm") is not None:
        raise OnnxExporterError(
            "ember.onnx.export: [%s] embedding with max_norm (it renormalizes in place)" % ctx.current
        )
    return Sym(ctx.op("Gather", [ctx.tensor(w), ctx.tensor(idx, _ember().int64)], axis=0), out)


# ---- pooling


def _pool(onnx_op, n):
    def conv(ctx, args, kwargs, out):
        x = args[0]
        k = _pair(_arg(args, kwargs, 1, "kernel_size"), n)
        stride = _arg(args, kwargs, 2, "stride")
        stride = k if stride is None or stride == [] or stride == () else _pair(stride, n)
        pad = _pair(_arg(args, kwargs, 3, "padding", 0), n)
        attrs = dict(kernel_shape=k, strides=stride, pads=pad * 2)
        if onnx_op == "MaxPool":
            attrs["dilations"] = _pair(_arg(args, kwargs, 4, "dilation", 1), n)
            attrs["ceil_mode"] = int(bool(_arg(args, kwargs, 5, "ceil_mode", False)))
            if _arg(args, kwargs, 6, "return_indices", False):
                raise OnnxExporterError("ember.onnx.export: [%s] max pooling with return_indices" % ctx.current)
        else:
            attrs["ceil_mode"] = int(bool(_arg(args, kwargs, 4, "ceil_mode", False)))
            attrs["count_include_pad"] = int(bool(_arg(args, kwargs, 5, "count_include_pad", True)))
            if _arg(args, kwargs, 6, "divisor_override") is not None:
                raise OnnxExporterError("ember.onnx.export: [%s] avg pooling with divisor_override" % ctx.current)
        return Sym(ctx.op(onnx_op, [ctx.tensor(x)], **attrs), out)

    return conv


for _n in (1, 2, 3):
    op("max_pool%dd" % _n)(_pool("MaxPool", _n))
    op("avg_pool%dd" % _n)(_pool("AveragePool", _n))


def _adaptive(global_op, pool_op, n):
    def conv(ctx, args, kwargs, out):
        x = args[0]
        size = _pair(_arg(args, kwargs, 1, "output_size"), n)
        spatial = list(_val(x).shape[-n:])
        size = [s if o is None else o for s, o in zip(spatial, size)]
        if all(o == 1 for o in size):
            return Sym(ctx.op(global_op, [ctx.tensor(x)]), out)
        if all(o % s == 0 for s, o in zip(spatial, size)):  # each output cell reads one input cell: repetition
            scales = ctx.const([1.0, 1.0] + [o / s for s, o in zip(spatial, size)], _ember().float32)
            return Sym(
                ctx.op(
                    "Resize",
                    [ctx.tensor(x), None, scales],
                    mode="nearest",
                    coordinate_transformation_mode="asymmetric",
                    nearest_mode="floor",
                ),
                out,
            )
        if any(s % o for s, o in zip(spatial, size)):
            raise OnnxExporterError(
                "ember.onnx.export: [%s] adaptive pooling from %s to %s: ONNX has it only where the input size is a "
                "multiple of the output size" % (ctx.current, spatial, size)
            )
        k = [s // o for s, o in zip(spatial, size)]
        return Sym(ctx.op(pool_op, [ctx.tensor(x)], kernel_shape=k, strides=k), out)

    return conv


for _n in (1, 2, 3):
    op("adaptive_avg_pool%dd" % _n)(_adaptive("GlobalAveragePool", "AveragePool", _n))
    op("adaptive_max_pool%dd" % _n)(_adaptive("GlobalMaxPool", "MaxPool", _n))


# ---- attention


def _attention(ctx, q, k, v, k_rank, mask, is_causal, scale, dt, q_len, k_len):
    """softmax(q k^T * scale + mask) v on ONNX values q [..., L, E], k [..., S, E], v [..., S, Ev]; `mask` is a
    (name, is_bool) pair or None; q_len/k_len are the ONNX int64 1-D values [L] and [S] (for the causal mask).
    Returns (output, attention weights)."""
    kt = ctx.op("Transpose", [k], perm=list(range(k_rank - 2)) + [k_rank - 1, k_rank - 2])
    scores = ctx.op("Mul", [ctx.op("MatMul", [q, kt]), ctx.const(scale, dt)])
    if is_causal:
        ones = ctx.op("ConstantOfShape", [ctx.op("Concat", [q_len, k_len], axis=0)], value=_bool_tensor(ctx, True))
        keep = ctx.op("Trilu", [ctx.op("Cast", [ones], to=7)], upper=0)
        mask_add = ctx.op("Where", [ctx.op("Cast", [keep], to=9), ctx.const(0.0, dt), ctx.const(float("-inf"), dt)])
        scores = ctx.op("Add", [scores, mask_add])
    if mask is not None:
        name, is_bool = mask
        if is_bool:
            name = ctx.op("Where", [name, ctx.const(0.0, dt), ctx.const(float("-inf"), dt)])
        scores = ctx.op("Add", [scores, name])
    weights = ctx.op("Softmax", [scores], axis=-1)
    return ctx.op("MatMul", [weights, v]), weights


def _bool_tensor(ctx, v):
    import numpy as np

    return ctx.onnx.numpy_helper.from_array(np.array([v], dtype=np.bool_))


@op("scaled_dot_product_attention")
def _sdpa(ctx, args, kwargs, out):
    ember = _ember()
    q, k, v = args[0], args[1], args[2]
    mask = _arg(args, kwargs, 3, "attn_mask")
    dropout_p = _arg(args, kwargs, 4, "dropout_p", 0.0)
    is_causal = bool(_arg(args, kwargs, 5, "is_causal", False))
    scale = _arg(args, kwargs, 6, "scale")
    if kwargs.get("enable_gqa"):
        raise OnnxExporterError("ember.onnx.export: [%s] scaled_dot_product_attention with enable_gqa" % ctx.current)
    if dropout_p:
        raise OnnxExporterError("ember.onnx.export: [%s] scaled_dot_product_attention with dropout_p > 0" % ctx.current)
    dt = out.dtype
    e = _val(q).shape[-1]
    scale = 1.0 / math.sqrt(e) if scale is None else float(scale)
    qn, kn = ctx.tensor(q), ctx.tensor(k)
    rq = _rank(q)
    q_len = ctx.shape(qn, rq - 2, rq - 1)
    k_len = ctx.shape(kn, _rank(k) - 2, _rank(k) - 1)
    m = None
    if mask is not None:
        is_bool = _val(mask).dtype == ember.bool
        m = (ctx.tensor(mask) if is_bool else ctx.tensor(mask, dt), is_bool)
    y, _ = _attention(ctx, qn, kn, ctx.tensor(v), _rank(k), m, is_causal, scale, dt, q_len, k_len)
    return Sym(y, out)


@module(nn.MultiheadAttention)
def _mha(ctx, mod, qualname, args, kwargs, out):
    """nn.MultiheadAttention: in-projections, heads, attention, out-projection, as F.multi_head_attention_forward."""
    ember = _ember()
    sig = inspect.signature(type(mod).forward)
    bound = sig.bind(None, *args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    query, key, value = a["query"], a["key"], a["value"]
    if mod.bias_k is not None or mod.add_zero_attn:
        raise OnnxExporterError(
            "ember.onnx.export: [%s] MultiheadAttention with add_bias_kv or add_zero_attn" % qualname
        )
    if _rank(query) != 3:
        raise OnnxExporterError("ember.onnx.export: [%s] MultiheadAttention on unbatched input" % qualname)
    dt = _val(query).dtype
    h, e = mod.num_heads, mod.embed_dim
    hd = e // h
    p = qualname + "." if qualname else ""

    def param(name):
        t = getattr(mod, name)
        return None if t is None else ctx.tensor_initializer(t, p + name, param=True)

    def proj(x, w, b):
        y = ctx.op("MatMul", [x, ctx.op("Transpose", [w], perm=[1, 0])])
        return ctx.op("Add", [y, b]) if b is not None else y

    # [N, L, E] layout for the math (batch_first's), whatever the module's
    def to_nle(x):
        name = ctx.tensor(x)
        return name if mod.batch_first else ctx.op("Transpose", [name], perm=[1, 0, 2])

    qn, kn, vn = to_nle(query), to_nle(key), to_nle(value)
    if mod._qkv_same_embed_dim:
        w = param("in_proj_weight")
        b = param("in_proj_bias")
        ws = ctx.op("Split", [w, ctx.const([e, e, e], ember.int64)], outputs=3, axis=0)
        bs = ctx.op("Split", [b, ctx.const([e, e, e], ember.int64)], outputs=3, axis=0) if b is not None else [None] * 3
    else:
        ws = [param("q_proj_weight"), param("k_proj_weight"), param("v_proj_weight")]
        b = param("in_proj_bias")
        bs = ctx.op("Split", [b, ctx.const([e, e, e], ember.int64)], outputs=3, axis=0) if b is not None else [None] * 3
    q, k, v = (proj(x, w_, b_) for x, w_, b_ in zip((qn, kn, vn), ws, bs))

    def heads(x):  # [N, L, E] -> [N, H, L, hd]
        y = ctx.op("Reshape", [x, ctx.const([0, 0, h, hd], ember.int64)])
        return ctx.op("Transpose", [y], perm=[0, 2, 1, 3])

    q, k, v = heads(q), heads(k), heads(v)
    q_len = ctx.shape(qn, 1, 2)
    k_len = ctx.shape(kn, 1, 2)
    mask = None
    attn_mask, kpm = a["attn_mask"], a["key_padding_mask"]
    is_causal = bool(a["is_causal"]) and attn_mask is None
    add = None
    if attn_mask is not None:  # [L, S] or [N*H, L, S]; bool: True = masked out
        am = ctx.tensor(attn_mask)
        if _val(attn_mask).dtype == ember.bool:
            am = ctx.op("Where", [am, ctx.const(float("-inf"), dt), ctx.const(0.0, dt)])
        else:
            am = ctx.cast(am, _val(attn_mask).dtype, dt)
        if _rank(attn_mask) == 3:
            am = ctx.op("Reshape", [am, ctx.const([-1, h, 0, 0], ember.int64)])
        add = am
    if kpm is not None:  # [N, S]; bool: True = padding
        km = ctx.tensor(kpm)
        if _val(kpm).dtype == ember.bool:
            km = ctx.op("Where", [km, ctx.const(float("-inf"), dt), ctx.const(0.0, dt)])
        else:
            km = ctx.cast(km, _val(kpm).dtype, dt)
        km = ctx.unsqueeze(km, [1, 2])
        add = km if add is None else ctx.op("Add", [add, km])
    if add is not None:
        mask = (add, False)
    y, weights = _attention(ctx, q, k, v, 4, mask, is_causal, 1.0 / math.sqrt(hd), dt, q_len, k_len)
    y = ctx.op("Reshape", [ctx.op("Transpose", [y], perm=[0, 2, 1, 3]), ctx.const([0, 0, e], ember.int64)])
    ow, ob = _params(ctx, p + "out_proj", mod.out_proj, "weight", "bias")
    y = proj(y, ctx.tensor(ow), None if ob is None else ctx.tensor(ob))
    if not mod.batch_first:
        y = ctx.op("Transpose", [y], perm=[1, 0, 2])
    result_w = None
    if a["need_weights"]:
        result_w = ctx.reduce("ReduceMean", weights, [1], False) if a["average_attn_weights"] else weights
        result_w = Sym(result_w, out[1])
    return (Sym(y, out[0]), result_w)


# ---- modules that are one function of their parameters


def _params(ctx, qualname, mod, *names):
    res = []
    for n in names:
        t = getattr(mod, n, None)
        if isinstance(t, _C.Tensor):
            ctx.tensor_initializer(t, "%s.%s" % (qualname, n) if qualname else n, param=True)
        res.append(t)
    return res


@module(nn.Linear)
def _m_linear(ctx, mod, qualname, args, kwargs, out):
    w, b = _params(ctx, qualname, mod, "weight", "bias")
    return OPS["linear"](ctx, (args[0], w, b), {}, out)


@module(nn.Conv1d, nn.Conv2d, nn.Conv3d)
def _m_conv(ctx, mod, qualname, args, kwargs, out):
    if mod.padding_mode != "zeros":
        raise OnnxExporterError(
            "ember.onnx.export: [%s] convolution with padding_mode=%r" % (qualname, mod.padding_mode)
        )
    w, b = _params(ctx, qualname, mod, "weight", "bias")
    n = len(mod.kernel_size)
    return OPS["conv%dd" % n](ctx, (args[0], w, b, mod.stride, mod.padding, mod.dilation, mod.groups), {}, out)


@module(nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)
def _m_batch_norm(ctx, mod, qualname, args, kwargs, out):
    if mod.training or mod.running_mean is None:
        raise OnnxExporterError(
            "ember.onnx.export: [%s] batch norm in training mode or without running stats" % qualname
        )
    w, b, m, v = _params(ctx, qualname, mod, "weight", "bias", "running_mean", "running_var")
    return OPS["batch_norm"](ctx, (args[0], m, v, w, b, False, 0.0, mod.eps), {}, out)


@module(nn.LayerNorm)
def _m_layer_norm(ctx, mod, qualname, args, kwargs, out):
    w, b = _params(ctx, qualname, mod, "weight", "bias")
    return OPS["layer_norm"](ctx, (args[0], mod.normalized_shape, w, b, mod.eps), {}, out)


@module(nn.Embedding)
def _m_embedding(ctx, mod, qualname, args, kwargs, out):
    (w,) = _params(ctx, qualname, mod, "weight")
    return OPS["embedding"](ctx, (args[0], w, mod.padding_idx, mod.max_norm), {}, out)


def _simple(name, *attrs, extra=None):
    def conv(ctx, mod, qualname, args, kwargs, out):
        vals = tuple(getattr(mod, a) for a in attrs)
        return OPS[name](ctx, (args[0],) + vals, dict(extra or {}), out)

    return conv


module(nn.ReLU)(_simple("relu"))
module(nn.Tanh)(_simple("tanh"))
module(nn.Sigmoid)(_simple("sigmoid"))
module(nn.SiLU)(_simple("silu"))
module(nn.Hardswish)(_simple("hardswish"))
module(nn.Hardsigmoid)(_simple("hardsigmoid"))
module(nn.GELU)(_simple("gelu", "approximate"))
module(nn.LeakyReLU)(_simple("leaky_relu", "negative_slope"))
module(nn.ELU)(_simple("elu", "alpha"))
module(nn.Softplus)(_simple("softplus", "beta"))
module(nn.Softmax)(_simple("softmax", "dim"))
module(nn.LogSoftmax)(_simple("log_softmax", "dim"))
module(nn.Hardtanh)(_simple("hardtanh", "min_val", "max_val"))
module(nn.Flatten)(_simple("flatten", "start_dim", "end_dim"))
module(nn.Identity)(_simple("contiguous"))


@module(nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout)
def _m_dropout(ctx, mod, qualname, args, kwargs, out):
    return OPS["dropout"](ctx, (args[0], mod.p, mod.training), {}, out)


module(nn.MaxPool1d)(_simple("max_pool1d", "kernel_size", "stride", "padding", "dilation", "ceil_mode"))
module(nn.MaxPool2d)(_simple("max_pool2d", "kernel_size", "stride", "padding", "dilation", "ceil_mode"))
module(nn.AvgPool1d)(_simple("avg_pool1d", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"))
module(nn.AvgPool2d)(_simple("avg_pool2d", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"))
module(nn.AdaptiveAvgPool1d)(_simple("adaptive_avg_pool1d", "output_size"))
module(nn.AdaptiveAvgPool2d)(_simple("adaptive_avg_pool2d", "output_size"))
module(nn.AdaptiveMaxPool2d)(_simple("adaptive_max_pool2d", "output_size"))


# ---- transposed convolution, padding, resizing, group/instance normalization


def _conv_transpose(n):
    def conv(ctx, args, kwargs, out):
        x, w = args[0], args[1]
        b = _arg(args, kwargs, 2, "bias")
        attrs = dict(
            strides=_pair(_arg(args, kwargs, 3, "stride", 1), n),
            pads=_pair(_arg(args, kwargs, 4, "padding", 0), n) * 2,
            output_padding=_pair(_arg(args, kwargs, 5, "output_padding", 0), n),
            group=int(_arg(args, kwargs, 6, "groups", 1)),
            dilations=_pair(_arg(args, kwargs, 7, "dilation", 1), n),
            kernel_shape=list(_val(w).shape[2:]),
        )
        inputs = [ctx.tensor(x), ctx.tensor(w)] + ([ctx.tensor(b)] if b is not None else [])
        return Sym(ctx.op("ConvTranspose", inputs, **attrs), out)

    return conv


for _n in (1, 2, 3):
    op("conv_transpose%dd" % _n)(_conv_transpose(_n))

_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@op("pad")
def _pad(ctx, args, kwargs, out):
    x = args[0]
    pad = list(_arg(args, kwargs, 1, "pad"))
    mode = _arg(args, kwargs, 2, "mode", "constant")
    value = _arg(args, kwargs, 3, "value")
    if mode not in _PAD_MODES:
        raise OnnxExporterError("ember.onnx.export: [%s] padding mode %r" % (ctx.current, mode))
    if mode == "circular" and ctx.opset < 19:
        raise UnsupportedOperatorError("pad (circular)", ctx.opset, 19)
    rank = _rank(x)
    begins, ends = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):
        begins[rank - 1 - i], ends[rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
    inputs = [ctx.tensor(x), ctx.ints(begins + ends)]
    if mode == "constant":
        inputs.append(ctx.tensor(0 if value is None else value, dtype_of(out)))
    return Sym(ctx.op("Pad", inputs, mode=_PAD_MODES[mode]), out)


@op("interpolate", "upsample")
def _interpolate(ctx, args, kwargs, out):
    ember = _ember()
    x = args[0]
    size = _arg(args, kwargs, 1, "size")
    scale = _arg(args, kwargs, 2, "scale_factor")
    mode = _arg(args, kwargs, 3, "mode", "nearest")
    align = _arg(args, kwargs, 4, "align_corners")
    recompute = _arg(args, kwargs, 5, "recompute_scale_factor")
    if _arg(args, kwargs, 6, "antialias", False):
        raise OnnxExporterError("ember.onnx.export: [%s] interpolate with antialias" % ctx.current)
    n = _rank(x) - 2
    attrs = {}
    if mode == "nearest":
        attrs.update(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    elif mode == "nearest-exact":
        attrs.update(mode="nearest", coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_ceil")
    elif mode in ("linear", "bilinear", "trilinear", "bicubic"):
        attrs.update(
            mode="cubic" if mode == "bicubic" else "linear",
            coordinate_transformation_mode="align_corners" if align else "pytorch_half_pixel",
        )
        if mode == "bicubic":
            attrs["cubic_coeff_a"] = -0.75
    else:
        raise OnnxExporterError("ember.onnx.export: [%s] interpolate mode %r" % (ctx.current, mode))
    xs = ctx.tensor(x)
    if size is None and not recompute:  # the scale factors map coordinates, as PyTorch does
        scales = [float(s) for s in _pair(scale, n)]
        return Sym(ctx.op("Resize", [xs, None, ctx.const([1.0, 1.0] + scales, ember.float32)], **attrs), out)
    if size is not None:
        spatial = ctx.ints(_pair(size, n))
    else:  # recompute_scale_factor: sizes floor(in * scale), coordinates from the sizes
        ins = ctx.op("Cast", [ctx.shape(xs, 2, 2 + n)], to=1)  # 1: FLOAT
        mul = ctx.op("Mul", [ins, ctx.const([float(s) for s in _pair(scale, n)], ember.float32)])
        spatial = ctx.op("Cast", [ctx.op("Floor", [mul])], to=7)
    sizes = ctx.op("Concat", [ctx.shape(xs, 0, 2), spatial], axis=0)
    return Sym(ctx.op("Resize", [xs, None, None, sizes], **attrs), out)


def _channel_shaped(ctx, t, rank):
    """A [C] parameter as [C, 1, ...] to broadcast over the spatial axes of a rank-`rank` input."""
    return ctx.unsqueeze(ctx.tensor(t), list(range(1, rank - 1))) if rank > 2 else ctx.tensor(t)


@op("group_norm")
def _group_norm(ctx, args, kwargs, out):
    ember = _ember()
    x = args[0]
    groups = int(_arg(args, kwargs, 1, "num_groups"))
    w = _arg(args, kwargs, 2, "weight")
    b = _arg(args, kwargs, 3, "bias")
    eps = float(_arg(args, kwargs, 4, "eps", 1e-5))
    dt = dtype_of(out)
    xs = ctx.tensor(x)
    g = ctx.op("Reshape", [xs, ctx.const([0, groups, -1], ember.int64)])
    mean = ctx.reduce("ReduceMean", g, [2], True)
    d = ctx.op("Sub", [g, mean])
    var = ctx.reduce("ReduceMean", ctx.op("Mul", [d, d]), [2], True)
    y = ctx.op("Div", [d, ctx.op("Sqrt", [ctx.op("Add", [var, ctx.const(eps, dt)])])])
    y = ctx.op("Reshape", [y, ctx.shape(xs)])
    rank = _rank(x)
    if w is not None:
        y = ctx.op("Mul", [y, _channel_shaped(ctx, w, rank)])
    if b is not None:
        y = ctx.op("Add", [y, _channel_shaped(ctx, b, rank)])
    return Sym(y, out)


@op("instance_norm")
def _instance_norm(ctx, args, kwargs, out):
    x = args[0]
    mean, var = _arg(args, kwargs, 1, "running_mean"), _arg(args, kwargs, 2, "running_var")
    w, b = _arg(args, kwargs, 3, "weight"), _arg(args, kwargs, 4, "bias")
    use_input_stats = _arg(args, kwargs, 5, "use_input_stats", True)
    eps = float(_arg(args, kwargs, 7, "eps", 1e-5))
    if not use_input_stats:  # running statistics: a batch norm's formula
        return OPS["batch_norm"](ctx, (x, mean, var, w, b, False, 0.0, eps), {}, out)
    dt = dtype_of(out)
    c = _val(x).shape[1]
    scale = ctx.tensor(w) if w is not None else ctx.const([1.0] * c, dt)
    shift = ctx.tensor(b) if b is not None else ctx.const([0.0] * c, dt)
    return Sym(ctx.op("InstanceNormalization", [ctx.tensor(x), scale, shift], epsilon=eps), out)


@op("prelu")
def _prelu(ctx, args, kwargs, out):
    x, w = args[0], args[1]
    return Sym(ctx.op("PRelu", [ctx.tensor(x), _channel_shaped(ctx, w, max(_rank(x), 2))]), out)


@op("normalize")
def _normalize(ctx, args, kwargs, out):
    x = args[0]
    p = float(_arg(args, kwargs, 1, "p", 2.0))
    dim = _norm_dim(_arg(args, kwargs, 2, "dim", 1), _rank(x))
    eps = float(_arg(args, kwargs, 3, "eps", 1e-12))
    if p not in (1.0, 2.0):
        raise OnnxExporterError("ember.onnx.export: [%s] normalize with p=%s (1 and 2 are exported)" % (ctx.current, p))
    xs = ctx.tensor(x)
    norm = ctx.reduce("ReduceL2" if p == 2.0 else "ReduceL1", xs, [dim], True)
    return Sym(ctx.op("Div", [xs, ctx.op("Max", [norm, ctx.const(eps, dtype_of(out))])]), out)


@module(nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)
def _m_instance_norm(ctx, mod, qualname, args, kwargs, out):
    x = args[0]
    dims = getattr(mod, "_expected_dims", ())
    if len(dims) == 2 and _rank(x) == dims[0]:
        raise OnnxExporterError("ember.onnx.export: [%s] unbatched input to an instance norm" % qualname)
    w, b, m, v = _params(ctx, qualname, mod, "weight", "bias", "running_mean", "running_var")
    use_input_stats = mod.training or not mod.track_running_stats
    return OPS["instance_norm"](ctx, (x, m, v, w, b, use_input_stats, mod.momentum, mod.eps), {}, out)
