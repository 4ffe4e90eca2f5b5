"""ember.onnx.export: models of the common families exported, checked with onnx.checker and run with onnxruntime;
the outputs equal ember's (1e-5), also at another batch size where the batch axis is dynamic."""

import io
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
import ember.vision

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _run(model, args, *, names, dynamic_axes=None, other_args=None, tol=1e-5, **kw):
    """Exports `model`, checks the file, and compares onnxruntime's outputs with ember's on `args` (and on
    `other_args`, inputs of other sizes along the dynamic axes)."""
    f = io.BytesIO()
    modes = [m.training for m in model.modules()]
    ember.onnx.export(model, args, f, input_names=names, dynamic_axes=dynamic_axes, **kw)
    assert [m.training for m in model.modules()] == modes  # export runs in eval mode and restores the modes
    model.eval()  # the exported model is the eval-mode one
    proto = onnx.load_from_string(f.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    sess = ort.InferenceSession(f.getvalue(), providers=["CPUExecutionProvider"])
    for a in [args] + ([other_args] if other_args is not None else []):
        a = a if isinstance(a, tuple) else (a,)
        flat = [t for t in ember.fx._pytree.tree_flatten(a)[0] if isinstance(t, ember.Tensor)]
        got = sess.run(None, {n: t.numpy() for n, t in zip(names, flat)})
        with ember.no_grad():
            want = [t for t in ember.fx._pytree.tree_flatten(model(*a))[0] if isinstance(t, ember.Tensor)]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == tuple(w.shape)
            np.testing.assert_allclose(g, w.numpy(), rtol=tol, atol=tol)
    return proto


def _ops(proto):
    return [n.op_type for n in proto.graph.node]


def test_mlp_dynamic_batch_and_shape_arithmetic():
    ember.manual_seed(0)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 16)
            self.fc2 = nn.Linear(16, 3)

        def forward(self, x):
            h = F.gelu(self.fc1(x.view(x.size(0), -1)))
            return F.log_softmax(self.fc2(h), dim=1) + x.shape[0] * 0.5

    m = MLP()
    proto = _run(
        m, (ember.randn(4, 2, 3),), names=["x"], dynamic_axes={"x": {0: "batch"}}, other_args=(ember.randn(7, 2, 3),)
    )
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert {i.name for i in proto.graph.initializer} >= {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}
    assert "Shape" in _ops(proto) and "Gemm" in _ops(proto)


def test_cnn_resnet18():
    ember.manual_seed(0)
    m = ember.vision.models.resnet18(num_classes=10).eval()
    with ember.no_grad():  # non-trivial running statistics
        for mod in m.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
    proto = _run(
        m,
        ember.randn(2, 3, 32, 32),
        names=["img"],
        dynamic_axes={"img": [0]},
        other_args=ember.randn(3, 3, 32, 32),
    )
    ops = _ops(proto)
    assert ops.count("Conv") == 20 and "GlobalAveragePool" in ops and "MaxPool" in ops


def test_small_cnn_pooling_and_flatten():
    ember.manual_seed(0)
    m = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1, stride=2),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Identity(),
        nn.AdaptiveAvgPool2d((2, 2)),
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(16, 5),
        nn.Tanh(),
    )
    m[1].running_mean.fill_(0.1)
    _run(m, ember.randn(2, 2, 16, 16), names=["x"], dynamic_axes={"x": [0]}, other_args=ember.randn(5, 2, 16, 16))


class _LayerNorm2d(nn.LayerNorm):
    """torchvision's LayerNorm2d: a LayerNorm subclass with its own forward, which is traced through."""

    def forward(self, x):
        return F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias, self.eps).permute(
            0, 3, 1, 2
        )


class _SqueezeExcite(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Conv2d(c, c, 1)
        self.gate = nn.Hardsigmoid()

    def forward(self, x):
        return x * self.gate(self.fc(self.pool(x)))


def test_mobile_blocks_and_forward_overriding_subclasses():
    ember.manual_seed(0)
    m = nn.Sequential(
        nn.Conv2d(3, 8, 3, groups=1, padding=1),
        _LayerNorm2d(8),
        nn.Hardswish(),
        nn.Conv2d(8, 8, 3, groups=8, padding=1),
        _SqueezeExcite(8),
        nn.AdaptiveMaxPool2d(1),
        nn.AdaptiveAvgPool2d((3, 2)),  # from 1x1: each output cell repeats the input's
        nn.Flatten(),
    )
    proto = _run(m, ember.randn(2, 3, 8, 8), names=["x"], dynamic_axes={"x": [0]}, other_args=ember.randn(1, 3, 8, 8))
    ops = _ops(proto)
    assert {"HardSwish", "HardSigmoid", "LayerNormalization", "Resize", "GlobalMaxPool"} <= set(ops)
    assert ops.count("Transpose") == 2  # the subclass's permutes: it was traced through, not exported as a LayerNorm


class _Decoder(nn.Module):
    """A generator/decoder: transposed convolution, group and instance norm, PReLU, padding modes, interpolation."""

    def __init__(self, mode, align, how):
        super().__init__()
        self.up = nn.ConvTranspose2d(3, 6, 4, stride=2, padding=1)
        self.gn = nn.GroupNorm(2, 6)
        self.inorm = nn.InstanceNorm2d(6, affine=True)
        self.act = nn.PReLU(6)
        self.pads = nn.Sequential(nn.ZeroPad2d((1, 0, 2, 1)), nn.ReflectionPad2d(1), nn.ReplicationPad2d((0, 1, 1, 0)))
        self.mode, self.align, self.how = mode, align, how

    def forward(self, x):
        y = self.pads(self.act(self.inorm(self.gn(self.up(x)))))
        if self.how == "scale":
            y = F.interpolate(y, scale_factor=1.5, mode=self.mode, align_corners=self.align)
        elif self.how == "recompute":
            y = F.interpolate(
                y, scale_factor=1.7, mode=self.mode, align_corners=self.align, recompute_scale_factor=True
            )
        else:
            y = F.interpolate(y, size=(7, 9), mode=self.mode, align_corners=self.align)
        return F.normalize(y, dim=1) + F.pad(y, (1, 1), value=0.5)[..., 1:-1]


@pytest.mark.parametrize(
    "mode,align,how",
    [
        ("nearest", None, "scale"),
        ("bilinear", False, "size"),
        ("bilinear", True, "recompute"),
        ("bicubic", False, "scale"),
        ("nearest-exact", None, "size"),
    ],
)
def test_decoder_blocks_and_interpolation(mode, align, how):
    ember.manual_seed(0)
    proto = _run(
        _Decoder(mode, align, how),
        ember.randn(2, 3, 5, 6),
        names=["x"],
        dynamic_axes={"x": [0]},
        other_args=ember.randn(3, 3, 5, 6),
        tol=1e-4 if mode == "bicubic" else 1e-5,  # bicubic: the coordinates are rounded differently
    )
    assert {"ConvTranspose", "InstanceNormalization", "PRelu", "Pad", "Resize"} <= set(_ops(proto))


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_recurrent(kind, bidirectional):
    ember.manual_seed(0)
    rnn = getattr(nn, kind)(5, 6, num_layers=2, bidirectional=bidirectional)
    nd = 2 if bidirectional else 1
    x = ember.randn(4, 3, 5)
    h = ember.randn(2 * nd, 3, 6)
    hx = (h, ember.randn(2 * nd, 3, 6)) if kind == "LSTM" else h
    names = ["x", "h0", "c0"] if kind == "LSTM" else ["x", "h0"]
    x2 = ember.randn(6, 2, 5)
    h2 = ember.randn(2 * nd, 2, 6)
    hx2 = (h2, ember.randn(2 * nd, 2, 6)) if kind == "LSTM" else h2
    dyn = {n: [1] for n in names[1:]}
    dyn["x"] = [0, 1]
    proto = _run(rnn, (x, hx), names=names, dynamic_axes=dyn, other_args=(x2, hx2))
    assert _ops(proto).count(kind) == 2
    assert {"W_l0", "R_l0", "B_l1"} <= {i.name for i in proto.graph.initializer}  # the model itself: no prefix


def test_lstm_batch_first_without_state():
    ember.manual_seed(0)

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(20, 8)
            self.lstm = nn.LSTM(8, 8, batch_first=True)
            self.out = nn.Linear(8, 4)

        def forward(self, tokens):
            y, (h, c) = self.lstm(self.emb(tokens))
            return self.out(y), h[-1] + c[0]

    m = Tagger()
    _run(
        m,
        ember.randint(0, 20, (2, 5)),
        names=["tokens"],
        dynamic_axes={"tokens": [0, 1]},
        other_args=ember.randint(0, 20, (3, 7)),
    )


def test_transformer_encoder_and_decoder_layers():
    ember.manual_seed(0)

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.1, batch_first=True)
            self.dec = nn.TransformerDecoderLayer(16, 4, dim_feedforward=32, activation="gelu", norm_first=True)

        def forward(self, src, tgt, tgt_mask):
            mem = self.enc(src)
            return self.dec(tgt, mem.transpose(0, 1), tgt_mask=tgt_mask)

    m = Seq2Seq()
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    _run(
        m,
        (ember.randn(2, 6, 16), ember.randn(5, 2, 16), mask),
        names=["src", "tgt", "mask"],
        dynamic_axes={"src": [0, 1], "tgt": [0, 1], "mask": [0, 1]},
        other_args=(ember.randn(3, 4, 16), ember.randn(2, 3, 16), nn.Transformer.generate_square_subsequent_mask(2)),
    )


def test_multihead_attention_weights_and_padding_mask():
    ember.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    q = ember.randn(2, 3, 8)
    kv = ember.randn(2, 4, 8)
    pad = ember.tensor([[False, False, True, False], [False, False, False, True]])
    _run(mha, (q, kv, kv, pad), names=["q", "k", "v", "pad"])


def test_scaled_dot_product_attention_and_functional_ops():
    ember.manual_seed(0)

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(8, 24)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).split(8, dim=2)
            q, k, v = (z.view(b, t, 2, c // 2).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            y = y.transpose(1, 2).contiguous().view(b, t, c)
            return F.layer_norm(y, (c,)) + ember.cat([x[:, :1], x[:, 1:]], dim=1).clamp(-1, 1)

    _run(Attn(), ember.randn(2, 5, 8), names=["x"], dynamic_axes={"x": [0, 1]}, other_args=ember.randn(3, 2, 8))


class _Ops(nn.Module):
    """One model that uses many functional and Tensor operations, with sizes read from the input."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3, padding=1)
        self.pool = nn.MaxPool1d(2)
        self.apool = nn.AdaptiveAvgPool1d(1)
        self.register_buffer("idx", ember.tensor([2, 0]))

    def forward(self, x, m):  # x [B, T, 4], m [B, T] bool
        b, t, c = x.shape
        a, bb = x.chunk(2, dim=2)
        y = ember.stack(x.unbind(2), dim=-1) + ember.cat([a, bb], 2)
        z = self.pool(F.leaky_relu(self.conv(y.permute(0, 2, 1)), 0.1))
        z = self.apool(z).squeeze(-1)
        w = x[:, None, ..., 1:].flatten(2)
        sel = x[..., self.idx]
        s = x[:, : t - 1].sum(dim=1)
        q = x.masked_fill(m.unsqueeze(-1), 0.0)
        r = ember.where(q > 0, q, ember.zeros_like(q)).mean(dim=(1, 2), keepdim=True)
        pos = ember.arange(t).float() / t
        tri = ember.triu(ember.ones_like(x[0, :, :1].expand(t, t)), diagonal=1)
        e = F.elu(x) + F.softplus(x, beta=2.0) + F.silu(x) + F.hardtanh(x, -0.5, 0.5) + F.relu6(x * 4)
        f = ember.div(x, 0.3, rounding_mode="floor") + x.pow(2) + (x >= 0).float() - x.amax(dim=-1, keepdim=True)
        g = x.argmax(dim=-1).float() + x.new_zeros(b, t) + ember.full_like(x[..., 0], 0.5)
        h = x.repeat(1, 1, 2)[..., :c] + x.expand(b, t, c) + x.reshape(b, -1).view(b, t, c)
        n = math.sqrt(c) * x.transpose(1, 2).transpose(1, 2) / x.size(-1) + x.abs().sqrt().exp().log()
        v = x.var(-1, keepdim=True, unbiased=False) + x.std(dim=(0, 1)) + x.logsumexp(-1, keepdim=True)
        mx, imx = x.max(dim=1)
        k = ember.einsum("btc,bsc->bts", x, x).cumsum(-1) + ember.addmm(x[0, 0], x[0], x[0].t()[:, :4]).sum()
        o = ember.maximum(x, x.min()) + x.max() + x.log1p().square().round()
        return z, w, sel, s, r, pos, tri @ x[0], e + f + h + n + v + o, g, x.flatten(0, 1).unsqueeze(0), mx, imx, k


@pytest.mark.parametrize("opset", [14, 20])
def test_functional_and_tensor_operations_with_dynamic_sizes(opset):
    ember.manual_seed(0)
    proto = _run(
        _Ops(),
        (ember.randn(2, 5, 4), ember.rand(2, 5) > 0.5),
        names=["x", "m"],
        dynamic_axes={"x": [0, 1], "m": [0, 1]},
        other_args=(ember.randn(3, 7, 4), ember.rand(3, 7) > 0.5),
        opset_version=opset,
    )
    assert proto.opset_import[0].version == opset
    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="'ember.triu' to ONNX opset version 13.*version 14"):
        ember.onnx.export(_Ops(), (ember.randn(2, 5, 4), ember.rand(2, 5) > 0.5), None, opset_version=13)


def test_opset_and_constant_folding_options():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.GELU(approximate="tanh"))
    p13 = _run(m, ember.randn(2, 3), names=["x"], opset_version=13)
    assert p13.opset_import[0].version == 13 and "LayerNormalization" not in _ops(p13)
    p17 = _run(m, ember.randn(2, 3), names=["x"], opset_version=17)
    assert "LayerNormalization" in _ops(p17)

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ember.randn(3, 3))

        def forward(self, x):
            return x @ (self.w * 2).t()

    s = Scaled()
    folded = _run(s, ember.randn(2, 3), names=["x"])
    unfolded = _run(s, ember.randn(2, 3), names=["x"], do_constant_folding=False)
    assert "Transpose" not in _ops(folded) and {"Mul", "Transpose"} <= set(_ops(unfolded))
    no_params = ember.onnx.export(s, ember.randn(2, 3), None, export_params=False, do_constant_folding=False)
    assert not no_params.graph.initializer or all(i.name != "w" for i in no_params.graph.initializer)
    assert "w" in [i.name for i in no_params.graph.input]


def test_keyword_arguments_and_options(capsys):
    ember.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.drop = nn.Dropout(0.5)

        def forward(self, x, scale=None, shift=0.0):
            y = self.drop(self.fc(x))
            return y * scale + shift if scale is not None else y + shift

    m = M()
    x, s = ember.randn(2, 3), ember.randn(2, 3)
    for kw in (dict(kwargs={"scale": s, "shift": 1.5}), dict(args=(x, {"scale": s, "shift": 1.5}))):
        args = kw.pop("args", (x,))
        proto = ember.onnx.export(m, args, None, input_names=["x", "scale"], **kw)
        assert [i.name for i in proto.graph.input] == ["x", "scale"]
        sess = ort.InferenceSession(proto.SerializeToString())
        got = sess.run(None, {"x": x.numpy(), "scale": s.numpy()})[0]
        with ember.no_grad():
            np.testing.assert_allclose(got, m.eval()(x, scale=s, shift=1.5).numpy(), rtol=1e-5, atol=1e-5)
        m.train()
    proto = ember.onnx.export(m, x, None, keep_initializers_as_inputs=True, verbose=True)
    assert {"fc.weight", "fc.bias"} <= {i.name for i in proto.graph.input}
    printed = capsys.readouterr().out
    assert "call_module[target=fc]" in printed and "Gemm" in printed
    with pytest.raises(ember.onnx.OnnxExporterError, match="dropout in training mode"):
        ember.onnx.export(m, x, None, training=ember.onnx.TrainingMode.PRESERVE)
    assert m.training


def test_is_in_onnx_export_and_file_path(tmp_path):
    seen = []

    class M(nn.Module):
        def forward(self, x):
            seen.append(ember.onnx.is_in_onnx_export())
            return x * 2

    path = tmp_path / "m.onnx"
    ember.onnx.export(M(), (ember.ones(2),), str(path))
    assert seen == [True] and not ember.onnx.is_in_onnx_export()
    proto = onnx.load(str(path))
    sess = ort.InferenceSession(str(path))
    np.testing.assert_allclose(sess.run(None, {proto.graph.input[0].name: np.ones(2, np.float32)})[0], [2.0, 2.0])


def test_errors():
    class Odd(nn.Module):
        def forward(self, x):
            return ember.logcumsumexp(x, 0)

    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="'ember.logcumsumexp' to ONNX opset version 20"):
        ember.onnx.export(Odd(), ember.ones(3), io.BytesIO())
    with pytest.raises(ValueError, match="opset_version 7"):
        ember.onnx.export(Odd(), ember.ones(3), io.BytesIO(), opset_version=7)
    with pytest.raises(TypeError, match="nn.Module"):
        ember.onnx.export(lambda x: x, ember.ones(3), io.BytesIO())

    class Unsupported(nn.Module):
        def forward(self, x):
            return x.cummax(0).values

    with pytest.raises(ember.onnx.UnsupportedOperatorError, match="'cummax'"):
        ember.onnx.export(Unsupported(), ember.ones(3), io.BytesIO())


def test_dynamic_axes_and_names_checks():
    m = nn.Linear(2, 2)
    with pytest.warns(ember.onnx.OnnxExporterWarning, match="Provided key inp for dynamic axes is not a valid"):
        ember.onnx.export(m, ember.ones(1, 2), None, input_names=["x"], dynamic_axes={"inp": [0]})
    with pytest.raises(ValueError, match="2 input_names given for a model with 1 inputs"):
        ember.onnx.export(m, ember.ones(1, 2), None, input_names=["x", "y"])
    with pytest.raises(TypeError, match="do not match Linear.forward"):
        ember.onnx.export(m, (ember.ones(1, 2), ember.ones(1, 2)), None)
    proto = ember.onnx.export(
        m, ember.ones(3, 2), None, input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": [0]}
    )
    dims = [d.dim_param or d.dim_value for d in proto.graph.output[0].type.tensor_type.shape.dim]
    assert proto.graph.output[0].name == "y" and dims == ["y_dynamic_axes_1", 2]


def test_python_control_flow_is_specialized_to_the_example_with_a_warning():
    class Branchy(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x * 2
            return -x

    with pytest.warns(ember.onnx.OnnxExporterWarning, match="specialized to the example inputs.*bool"):
        proto = ember.onnx.export(Branchy(), ember.ones(3), None, input_names=["x"])
    sess = ort.InferenceSession(proto.SerializeToString())
    # the branch of the example: x * 2, also for an input that would take the other branch
    np.testing.assert_allclose(sess.run(None, {"x": -np.ones(3, np.float32)})[0], [-2.0, -2.0, -2.0])
    assert _ops(proto) == ["Mul", "Identity"]  # the comparison only Python read is not exported

    class RankChecked(nn.Module):  # branches on the rank, the dtype or the parameters: nothing to warn about
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ember.ones(3))

        def forward(self, x):
            if x.dim() == 2 and x.dtype == ember.float32 and self.w.sum() > 0:
                return x * self.w
            return x

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proto = ember.onnx.export(RankChecked(), ember.ones(2, 3), None)
    assert _ops(proto) == ["Mul", "Identity"]


def test_in_place_ops_whose_input_is_read_again_raise():
    class Ok(nn.Module):  # the in-place results are used: exported as they are
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU(inplace=True)

        def forward(self, x):
            return F.relu(self.act(x * 2) - 1, inplace=True)

    proto = ember.onnx.export(Ok(), ember.randn(4), None, input_names=["x"])
    x = ember.randn(4)
    got = ort.InferenceSession(proto.SerializeToString()).run(None, {"x": x.numpy()})[0]
    np.testing.assert_allclose(got, F.relu(F.relu(x * 2) - 1).numpy())

    class Reads(nn.Module):
        def forward(self, x):
            y = x * 2
            F.relu(y, inplace=True)
            return y + 1

    with pytest.raises(ember.onnx.OnnxExporterError, match="relu changes mul in place and add reads it afterwards"):
        ember.onnx.export(Reads(), ember.randn(4), None)


def test_missing_onnx_package_message(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *a, **k):
        if name == "onnx":
            raise ImportError("No module named 'onnx'")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match="'onnx' package"):
        ember.onnx.export(nn.Linear(2, 2), ember.ones(1, 2), io.BytesIO())


# pytorch/examples' word_language_model, as its main.py uses it: `import torch.onnx` at the top, then
# `torch.onnx.export(model, (dummy_input, hidden), path)` with an LSTM's (h, c) hidden state (a tuple input).
WORD_LANGUAGE_MODEL = """
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.onnx

class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {'RNN_TANH': 'tanh', 'RNN_RELU': 'relu'}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)

class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)

class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super(TransformerModel, self).__init__(
            d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
        mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
        return mask

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)

def export_onnx(model, path, batch_size, seq_len):
    model.eval()
    dummy_input = torch.LongTensor(seq_len * batch_size).zero_().view(-1, batch_size)
    hidden = model.init_hidden(batch_size)
    torch.onnx.export(model, (dummy_input, hidden), path)
"""


def test_word_language_model(tmp_path):
    """The program runs as `torch` (ember.install_as_torch, in a fresh process); each model type is exported as
    main.py's export_onnx does and run with onnxruntime on the example's inputs."""
    import subprocess
    import sys
    import textwrap

    driver = textwrap.dedent(
        """
        import sys
        import ember
        ember.install_as_torch()
        import numpy as np
        import onnxruntime as ort
        exec(open(sys.argv[1]).read())
        torch.manual_seed(0)
        for i, rnn_type in enumerate(["LSTM", "GRU", "RNN_TANH"]):
            model = RNNModel(rnn_type, 30, 8, 8, 2, dropout=0.2, tie_weights=True)
            path = sys.argv[2] + "/%s.onnx" % rnn_type
            export_onnx(model, path, batch_size=1, seq_len=5)
            tokens = torch.randint(0, 30, (5, 1))
            hidden = model.init_hidden(1)
            flat = [tokens] + (list(hidden) if isinstance(hidden, tuple) else [hidden])
            sess = ort.InferenceSession(path)
            got = sess.run(None, {x.name: t.numpy() for x, t in zip(sess.get_inputs(), flat)})
            with torch.no_grad():
                out, h = model(tokens, hidden)
            want = [out] + (list(h) if isinstance(h, tuple) else [h])
            print(rnn_type, len(got), len(want), max(float(np.abs(g - w.numpy()).max()) for g, w in zip(got, want)))
        # the Transformer model: len(src) sizes its mask, so the export is specialized to the example's length
        model = TransformerModel(30, 8, 2, 16, 2, dropout=0.2).eval()
        src = torch.randint(0, 30, (5, 2))
        torch.onnx.export(model, (src,), sys.argv[2] + "/transformer.onnx", input_names=["src"])
        assert model.src_mask is None or isinstance(model.src_mask, torch.Tensor)
        sess = ort.InferenceSession(sys.argv[2] + "/transformer.onnx")
        with torch.no_grad():
            want = model(src)
        print("Transformer", 1, 1, float(np.abs(sess.run(None, {"src": src.numpy()})[0] - want.numpy()).max()))
        """
    )
    (tmp_path / "program.py").write_text(WORD_LANGUAGE_MODEL)
    r = subprocess.run(
        [sys.executable, "-c", driver, str(tmp_path / "program.py"), str(tmp_path)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    kinds = ["LSTM", "GRU", "RNN_TANH", "Transformer"]
    assert len([line for line in lines if line]) == len(kinds), r.stdout
    for line, kind in zip(lines, kinds):
        name, n_got, n_want, diff = line.split()
        n_states = {"LSTM": 2, "Transformer": 0}.get(kind, 1)
        assert name == kind and int(n_got) == int(n_want) == 1 + n_states and float(diff) < 1e-5, line
