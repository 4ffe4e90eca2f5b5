"""Converters of nn.LSTM, nn.GRU and nn.RNN to ONNX's LSTM, GRU and RNN operators, one per layer.

PyTorch and ONNX order the gates differently: an LSTM's rows are (input, forget, cell, output) in PyTorch and
(input, output, forget, cell) in ONNX; a GRU's are (reset, update, new) in PyTorch and (update, reset, hidden) in
ONNX, whose ``linear_before_reset=1`` is PyTorch's formula (the reset gate multiplies W_hn h + b_hn). The weights are
re-laid-out at export time (initializers ``<module>.W_l<k>``, ``.R_l<k>``, ``.B_l<k>``).
"""

import numpy as np

from ..nn import modules as nn
from ._exporter import Sym, _to_numpy
from ._ops_tensor import _rank, _val
from ._registry import module
from .errors import OnnxExporterError

_GATE_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}


def _reorder(w, mode, hidden):
    order = _GATE_ORDER[mode]
    g = len(order)
    return w.reshape((g, hidden) + w.shape[1:])[order].reshape(w.shape)


@module(nn.LSTM, nn.GRU, nn.RNN)
def _rnn(ctx, mod, qualname, args, kwargs, out):
    import ember

    x = args[0]
    hx = args[1] if len(args) > 1 else kwargs.get("hx")
    mode = mod.mode
    if mode not in _GATE_ORDER:
        raise OnnxExporterError("ember.onnx.export: [%s] recurrent mode %s" % (qualname, mode))
    if not isinstance(x, (Sym,)) and not hasattr(_val(x), "dim"):
        raise OnnxExporterError("ember.onnx.export: [%s] PackedSequence inputs are not supported" % qualname)
    if _rank(x) != 3:
        raise OnnxExporterError("ember.onnx.export: [%s] unbatched (2-D) input is not supported" % qualname)
    if mod.proj_size > 0:
        raise OnnxExporterError("ember.onnx.export: [%s] LSTM with proj_size has no ONNX operator" % qualname)
    hsz, nd, layers = mod.hidden_size, 2 if mod.bidirectional else 1, mod.num_layers
    is_lstm = mode == "LSTM"
    h0 = c0 = None
    if hx is not None:
        if is_lstm:
            h0, c0 = ctx.tensor(hx[0]), ctx.tensor(hx[1])
        else:
            h0 = ctx.tensor(hx)
    cur = ctx.tensor(x)
    if mod.batch_first:
        cur = ctx.op("Transpose", [cur], perm=[1, 0, 2])
    hs, cs = [], []
    dtype = _val(x).dtype
    for layer in range(layers):
        w, r, b = [], [], []
        for d in range(nd):
            sfx = "_l%d%s" % (layer, "_reverse" if d else "")
            w.append(_reorder(_to_numpy(getattr(mod, "weight_ih" + sfx)), mode, hsz))
            r.append(_reorder(_to_numpy(getattr(mod, "weight_hh" + sfx)), mode, hsz))
            if mod.bias:
                bi = _reorder(_to_numpy(getattr(mod, "bias_ih" + sfx)), mode, hsz)
                bh = _reorder(_to_numpy(getattr(mod, "bias_hh" + sfx)), mode, hsz)
                b.append(np.concatenate([bi, bh]))
        pre = qualname + "." if qualname else ""
        wn = ctx.add_initializer("%sW_l%d" % (pre, layer), np.stack(w))
        rn = ctx.add_initializer("%sR_l%d" % (pre, layer), np.stack(r))
        bn = ctx.add_initializer("%sB_l%d" % (pre, layer), np.stack(b)) if b else None

        def rows(v):
            if v is None:
                return None
            return ctx.op(
                "Slice",
                [
                    v,
                    ctx.const([layer * nd], ember.int64),
                    ctx.const([(layer + 1) * nd], ember.int64),
                    ctx.const([0], ember.int64),
                ],
            )

        attrs = dict(hidden_size=hsz, direction="bidirectional" if nd == 2 else "forward")
        inputs = [cur, wn, rn, bn, None, rows(h0)]
        if is_lstm:
            inputs.append(rows(c0))
            y, yh, yc = ctx.op("LSTM", inputs, outputs=3, **attrs)
            cs.append(yc)
        elif mode == "GRU":
            y, yh = ctx.op("GRU", inputs, outputs=2, linear_before_reset=1, **attrs)
        else:
            act = "Tanh" if mode == "RNN_TANH" else "Relu"
            y, yh = ctx.op("RNN", inputs, outputs=2, activations=[act] * nd, **attrs)
        hs.append(yh)
        # Y: [seq, directions, batch, hidden] -> [seq, batch, directions * hidden]
        y = ctx.op("Transpose", [y], perm=[0, 2, 1, 3])
        cur = ctx.op("Reshape", [y, ctx.const([0, 0, -1], ember.int64)])
    output = ctx.op("Transpose", [cur], perm=[1, 0, 2]) if mod.batch_first else cur
    hn = hs[0] if len(hs) == 1 else ctx.op("Concat", hs, axis=0)
    out_y, out_states = out
    res_h = Sym(
        ctx.cast(hn, dtype, out_states[0].dtype if is_lstm else out_states.dtype),
        out_states[0] if is_lstm else out_states,
    )
    if is_lstm:
        cn = cs[0] if len(cs) == 1 else ctx.op("Concat", cs, axis=0)
        return (Sym(output, out_y), (res_h, Sym(cn, out_states[1])))
    return (Sym(output, out_y), res_h)
