"""The meta device (docs/meta.md): tensors with sizes, strides and a dtype but no data. Each op's results on meta
have the geometry of the same op's results on the CPU (the reference: the CPU run of the same code); models built
on meta hold no memory and, once given real tensors (to_empty + load_state_dict(assign=True)), compute what the
reference model does; reading data raises PyTorch's errors (checked against the reference PyTorch when present)."""

import os
import subprocess
import textwrap
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
import ember.vision.ops as _vops

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
META = ember.device("meta")


def _inputs(specs, device):
    """Tensors for `specs` on `device`: a shape gives float32 normals, ("long", high, shape) int64 indices in [0,
    high), ("bool", shape) a mask; the same generator seed on both devices keeps the index values equal."""
    ember.manual_seed(0)
    out = []
    for s in specs:
        if isinstance(s, tuple) and s and s[0] == "long":
            t = ember.randint(0, s[1], s[2])
        elif isinstance(s, tuple) and s and s[0] == "bool":
            t = ember.rand(s[1]) > 0.5
        else:
            t = ember.randn(s)
        out.append(t.to(device))
    return out


def _tensors(r):
    if isinstance(r, ember.Tensor):
        return [r]
    return [t for x in r for t in _tensors(x)] if isinstance(r, (tuple, list)) else []


# (name, op, input specs). The op takes the inputs; every tensor it returns is compared.
OPS = [
    ("add_broadcast", lambda a, b: a + b, [(4, 1, 3), (5, 1)]),
    ("sub_scalar", lambda a: 2.5 - a, [(3, 4)]),
    ("mul_0d_cpu", lambda a: a * ember.tensor(3.0), [(2, 3)]),
    ("div_transposed", lambda a, b: a.t() / b, [(3, 2), (2, 3)]),
    ("pow_int_promote", lambda a: a ** ember.tensor(2), [(2, 3)]),
    ("eq_bool", lambda a, b: a == b, [(2, 3), (3,)]),
    ("where", lambda c, a, b: ember.where(c, a, b), [("bool", (2, 3)), (2, 1), (3,)]),
    ("exp_noncontig", lambda a: ember.exp(a[:, ::2]), [(4, 6)]),
    ("clamp", lambda a: a.clamp(-0.5, 0.5), [(5,)]),
    ("to_float64", lambda a: a.to(ember.float64), [(2, 3)]),
    ("sum_all", lambda a: a.sum(), [(2, 3)]),
    ("sum_dims_keepdim", lambda a: a.sum((0, 2), keepdim=True), [(2, 3, 4)]),
    ("mean_dim", lambda a: a.mean(1), [(2, 3, 4)]),
    ("var_dim", lambda a: a.var(-1, keepdim=True), [(2, 3, 4)]),
    ("amax", lambda a: a.amax(0), [(2, 3)]),
    ("max_dim", lambda a: a.max(1), [(2, 3, 4)]),
    ("argmax", lambda a: a.argmax(-1), [(2, 3)]),
    ("logsumexp", lambda a: ember.logsumexp(a, 1), [(2, 3)]),
    ("cumsum", lambda a: a.cumsum(1), [(2, 3)]),
    ("sort", lambda a: a.sort(-1, descending=True), [(2, 5)]),
    ("topk", lambda a: a.topk(2), [(3, 5)]),
    ("matmul_batched", lambda a, b: a @ b, [(2, 3, 4), (4, 5)]),
    ("matmul_vec", lambda a, b: ember.matmul(a, b), [(3, 4), (4,)]),
    ("mm", lambda a, b: ember.mm(a, b), [(3, 4), (4, 2)]),
    ("bmm", lambda a, b: ember.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    ("addmm", lambda c, a, b: ember.addmm(c, a, b), [(5,), (3, 4), (4, 5)]),
    ("linear", lambda x, w, b: F.linear(x, w, b), [(2, 7, 4), (3, 4), (3,)]),
    ("einsum", lambda a, b: ember.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 5)]),
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), [(2, 3, 9, 9), (8, 3, 3, 3), (8,)]),
    ("conv2d_groups", lambda x, w: F.conv2d(x, w, groups=2, dilation=2), [(1, 4, 9, 9), (6, 2, 3, 3)]),
    ("conv1d", lambda x, w: F.conv1d(x, w, padding="same"), [(2, 3, 10), (4, 3, 3)]),
    ("conv_transpose2d", lambda x, w: F.conv_transpose2d(x, w, stride=2), [(1, 4, 5, 5), (4, 2, 3, 3)]),
    ("max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1), [(2, 3, 9, 9)]),
    ("max_pool2d_indices", lambda x: F.max_pool2d(x, 2, return_indices=True), [(1, 2, 6, 6)]),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 2), [(2, 3, 8, 8)]),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (1, 1)), [(2, 3, 7, 7)]),
    ("interpolate", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), [(1, 2, 4, 4)]),
    ("cat", lambda a, b: ember.cat([a, b], 1), [(2, 3), (2, 5)]),
    ("stack", lambda a, b: ember.stack([a, b], -1), [(2, 3), (2, 3)]),
    ("split", lambda a: a.split(2, 1), [(2, 5)]),
    ("chunk", lambda a: a.chunk(3), [(7, 2)]),
    ("view", lambda a: a.view(3, 2, 2), [(2, 6)]),
    ("reshape_copy", lambda a: a.t().reshape(-1), [(2, 6)]),
    ("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 4)]),
    ("permute_contiguous", lambda a: a.permute(2, 0, 1).contiguous(), [(2, 3, 4)]),
    ("transpose", lambda a: a.transpose(0, 2), [(2, 3, 4)]),
    ("expand", lambda a: a.expand(4, 2, 3), [(2, 1)]),
    ("squeeze_unsqueeze", lambda a: a.squeeze(1).unsqueeze(0), [(2, 1, 3)]),
    ("flatten", lambda a: a.flatten(1), [(2, 3, 4)]),
    ("narrow_select", lambda a: a.narrow(1, 1, 2).select(0, 1), [(3, 4)]),
    ("getitem", lambda a: a[1:, None, ::2], [(4, 6)]),
    ("index_select", lambda a, i: a.index_select(1, i), [(3, 5), ("long", 5, (4,))]),
    ("gather", lambda a, i: a.gather(1, i), [(3, 5), ("long", 5, (3, 2))]),
    ("scatter_add", lambda a, i, s: a.scatter_add(1, i, s), [(3, 5), ("long", 5, (3, 2)), (3, 2)]),
    ("advanced_index", lambda a, i: a[i], [(5, 3), ("long", 5, (2, 2))]),
    ("index_put", lambda a, i, v: a.index_put((i,), v), [(5, 3), ("long", 5, (2,)), (3,)]),
    ("masked_fill", lambda a, m: a.masked_fill(m, 0.0), [(2, 3), ("bool", (2, 3))]),
    ("tril", lambda a: a.tril(), [(4, 4)]),
    ("repeat", lambda a: a.repeat(2, 3), [(2, 3)]),
    ("flip", lambda a: a.flip(0), [(2, 3)]),
    ("roll", lambda a: a.roll(1, 1), [(2, 3)]),
    ("pad", lambda a: F.pad(a, (1, 2)), [(2, 3)]),
    ("pad_reflect", lambda a: F.pad(a, (1, 1), mode="reflect"), [(1, 2, 5)]),
    ("softmax", lambda a: F.softmax(a, -1), [(2, 3, 4)]),
    ("log_softmax_dim0", lambda a: F.log_softmax(a, 0), [(2, 3)]),
    ("layer_norm", lambda a, w, b: F.layer_norm(a, (4,), w, b), [(2, 3, 4), (4,), (4,)]),
    ("rms_norm", lambda a, w: F.rms_norm(a, (4,), w), [(2, 3, 4), (4,)]),
    ("batch_norm_train", lambda a, w, b: F.batch_norm(a, None, None, w, b, training=True), [(4, 3, 2), (3,), (3,)]),
    ("group_norm", lambda a: F.group_norm(a, 2), [(2, 4, 3)]),
    ("embedding", lambda i, w: F.embedding(i, w), [("long", 10, (2, 5)), (10, 4)]),
    ("gelu_silu", lambda a: F.silu(F.gelu(a)), [(2, 3)]),
    ("dropout", lambda a: F.dropout(a, 0.5), [(2, 3)]),
    ("sdpa", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [(2, 4, 5, 8)] * 3),
    ("cross_entropy", lambda x, t: F.cross_entropy(x, t), [(4, 5), ("long", 5, (4,))]),
    ("cross_entropy_none", lambda x, t: F.cross_entropy(x, t, reduction="none"), [(4, 5, 3), ("long", 5, (4, 3))]),
    ("nll_loss", lambda x, t: F.nll_loss(x, t), [(4, 5), ("long", 5, (4,))]),
    ("mse_loss", lambda a, b: F.mse_loss(a, b), [(2, 3), (2, 3)]),
    ("bce_logits", lambda a, b: F.binary_cross_entropy_with_logits(a, b), [(2, 3), (2, 3)]),
    ("l1_none", lambda a, b: F.l1_loss(a, b, reduction="none"), [(2, 3), (2, 3)]),
    ("smooth_l1", lambda a, b: F.smooth_l1_loss(a, b), [(2, 3), (2, 3)]),
    ("kl_div", lambda a, b: F.kl_div(a, b, reduction="batchmean"), [(2, 3), (2, 3)]),
    ("arange_like_ops", lambda a: a + ember.arange(3.0, device=a.device), [(2, 3)]),
    ("zeros_like", lambda a: ember.zeros_like(a.t()), [(2, 3)]),
    ("new_ones", lambda a: a.new_ones(4, 2), [(2, 3)]),
    ("histc", lambda a: ember.histc(a, 7, -1.0, 1.0), [(2, 3)]),
    ("fft", lambda a: ember.fft.fft(a, 6), [(2, 5)]),
    ("rfft_irfft", lambda a: (ember.fft.rfft(a), ember.fft.irfft(ember.fft.rfft(a), 5)), [(2, 5)]),
    ("fft2_complex", lambda a: ember.fft.fft2(ember.complex(a, a.t().contiguous())), [(4, 4)]),
    ("stft", lambda a: ember.stft(a, 16, window=ember.hann_window(16, device=a.device), return_complex=True), [(64,)]),
    ("roi_align", lambda x, b: _vops.roi_align(x, _rois(b), (2, 3), 0.5, 2), [(2, 4, 8, 8), (3, 2)]),
    ("roi_pool", lambda x, b: _vops.roi_pool(x, _rois(b), 2), [(2, 4, 8, 8), (3, 2)]),
    ("ps_roi_align", lambda x, b: _vops.ps_roi_align(x, _rois(b), 2), [(2, 8, 8, 8), (3, 2)]),
    ("ps_roi_pool", lambda x, b: _vops.ps_roi_pool(x, _rois(b), 2), [(2, 8, 8, 8), (3, 2)]),
]


def _rois(b):
    """RoIs [K, 5] (batch index 0, then x1 y1 x2 y2) from a [K, 2] tensor, on its device."""
    low = b.abs()
    return ember.cat([ember.zeros(b.shape[0], 1, device=b.device), low, low + 4], 1)


@pytest.mark.parametrize("name, op, specs", OPS, ids=[o[0] for o in OPS])
def test_meta_geometry_equals_cpu(name, op, specs):
    cpu = _tensors(op(*_inputs(specs, "cpu")))
    meta = _tensors(op(*_inputs(specs, "meta")))
    assert len(cpu) == len(meta) > 0
    for c, m in zip(cpu, meta):
        assert m.device == META and m.is_meta
        assert (tuple(m.shape), m.stride(), m.dtype) == (tuple(c.shape), c.stride(), c.dtype), name


def test_factories_and_conversion():
    for t in (
        ember.empty(2, 3, device="meta"),
        ember.zeros(2, 3, device="meta"),
        ember.ones((2, 3), device=META),
        ember.randn(2, 3, device="meta"),
        ember.full((2, 3), 7.0, device="meta"),
        ember.ones(2, 3).to("meta"),
    ):
        assert t.is_meta and not t.is_cpu and tuple(t.shape) == (2, 3) and t.stride() == (3, 1)
        assert t.dtype == ember.float32 and t.device.type == "meta"
    assert repr(ember.device("meta")) == "device(type='meta')" and str(ember.device("meta")) == "meta"
    assert ember.empty(2, device="meta:0").device == META  # one meta device: the index is dropped, as PyTorch's
    assert ember.full((2,), 3, device="meta").dtype == ember.int64
    assert ember.arange(5, device="meta").shape == (5,)
    assert ember.tensor([[1, 2]], device="meta").shape == (1, 2)
    x = ember.empty(2, 3, device="meta")
    assert x.to(ember.float16).dtype == ember.float16 and x.to("meta") is x
    assert x.data_ptr() == 0 and x[1].data_ptr() == 3 * 4  # no memory: the offset from address 0, as PyTorch's


def _cpu_bytes():
    """(allocated, peak since the last reset) of the CPU allocator."""
    s = ember._C._cpu_memory_stats()
    return s["allocated_bytes"], s["peak_allocated_bytes"]


def test_meta_allocates_no_memory():
    ember._C._cpu_reset_peak_memory_stats()
    before, _ = _cpu_bytes()
    big = ember.empty(1 << 20, 1 << 20, device="meta", requires_grad=True)  # 4 TiB of float32
    y = (big @ big).relu().sum(0)
    y.sum().backward()
    assert y.shape == (1 << 20,) and y.is_meta and big.grad.is_meta and big.grad.shape == big.shape
    _, peak = _cpu_bytes()
    assert peak - before < 1 << 16  # at most a few scalars' worth on the CPU


def test_repr():
    assert repr(ember.ones(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(ember.ones(2, device="meta", dtype=ember.int64)) == (
        "tensor(..., device='meta', size=(2,), dtype=ember.int64)"
    )
    assert repr(ember.ones((), device="meta")) == "tensor(..., device='meta', size=())"
    assert repr(ember.empty(0, device="meta")) == "tensor(..., device='meta', size=(0,))"
    w = ember.ones(2, device="meta", requires_grad=True)
    assert repr(w) == "tensor(..., device='meta', size=(2,), requires_grad=True)"
    assert repr(w * 2) == "tensor(..., device='meta', size=(2,), grad_fn=<MulBackward0>)"
    assert str(ember.ones(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert f"{ember.ones(2, device='meta').sum()}" == "tensor(..., device='meta', size=())"  # no value to format


def test_default_device_context_and_setting():
    assert ember.get_default_device() == ember.device("cpu")
    with ember.device("meta"):
        assert ember.get_default_device() == META
        assert ember.zeros(2).is_meta and ember.randn(2, 3).is_meta and ember.tensor([1.0]).is_meta
        lin = nn.Linear(3, 4)
        with ember.device("cpu"):
            assert ember.zeros(2).is_cpu and nn.Linear(2, 2).weight.is_cpu
        assert ember.zeros(2).is_meta
    assert ember.zeros(2).is_cpu
    assert lin.weight.is_meta and lin.bias.is_meta and isinstance(lin.weight, nn.Parameter)
    assert lin.weight.requires_grad
    ember.set_default_device("meta")
    try:
        assert ember.get_default_device() == META and ember.ones(3).is_meta
    finally:
        ember.set_default_device(None)
    assert ember.ones(3).is_cpu


def test_autograd_through_meta():
    with ember.device("meta"):
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.LayerNorm(8), nn.Linear(8, 3))
    x = ember.randn(5, 4, device="meta")
    loss = F.cross_entropy(model(x), ember.zeros(5, dtype=ember.int64, device="meta"))
    assert loss.is_meta and loss.shape == () and loss.grad_fn is not None
    loss.backward()
    for p in model.parameters():
        assert p.grad is not None and p.grad.is_meta and p.grad.shape == p.shape and p.grad.dtype == p.dtype
    opt = ember.optim.AdamW(model.parameters(), lr=0.1)  # an optimizer step on meta computes nothing either
    opt.step()
    assert all(p.is_meta for p in model.parameters())


class TinyTransformer(nn.Module):
    def __init__(self, vocab=50, d=16, heads=2, layers=2, device=None):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, device=device)
        self.pos = nn.Embedding(8, d, device=device)
        enc = nn.TransformerEncoderLayer(d, heads, 32, dropout=0.0, batch_first=True, device=device)
        self.blocks = nn.TransformerEncoder(enc, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d, device=device)
        self.head = nn.Linear(d, vocab, bias=False, device=device)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(ember.arange(idx.shape[1], device=idx.device))
        return self.head(self.norm(self.blocks(x)))


def _check_meta_model_and_load(make, x):
    ember.manual_seed(0)
    ref = make().eval()
    expected = ref(x).detach().numpy()
    ember._C._cpu_reset_peak_memory_stats()
    before, _ = _cpu_bytes()
    with ember.device("meta"):
        model = make().eval()
    after, peak = _cpu_bytes()
    assert after <= before and peak - before < 1 << 16  # no memory for the model (a few scalars come and go)
    tensors = list(model.parameters()) + list(model.buffers())
    assert tensors and all(t.is_meta and t.data_ptr() == 0 for t in tensors)
    out = model(x.to("meta"))
    assert out.is_meta and out.shape == expected.shape

    model.to_empty(device="cpu")
    assert all(t.is_cpu for t in model.parameters()) and all(t.is_cpu for t in model.buffers())
    sd = ref.state_dict()
    model.load_state_dict(sd, assign=True)
    np.testing.assert_allclose(model(x).detach().numpy(), expected, rtol=1e-6, atol=1e-6)
    # assign=True keeps the state dict's tensors: they share memory with the reference's.
    name, p = next(iter(model.named_parameters()))
    assert p.data_ptr() == sd[name].data_ptr() and isinstance(p, nn.Parameter) and p.requires_grad

    # Straight from meta to the loaded tensors, without to_empty.
    with ember.device("meta"):
        model2 = make().eval()
    model2.load_state_dict(ref.state_dict(), assign=True)
    np.testing.assert_allclose(model2(x).detach().numpy(), expected, rtol=1e-6, atol=1e-6)


def test_transformer_on_meta_then_loaded():
    _check_meta_model_and_load(TinyTransformer, ember.randint(0, 50, (3, 8)))


def test_resnet18_on_meta_then_loaded():
    from ember.vision.models import resnet18

    _check_meta_model_and_load(lambda: resnet18(num_classes=10), ember.randn(1, 3, 32, 32))


def test_to_empty_and_assign_semantics():
    with ember.device("meta"):
        m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    m[1].weight.requires_grad_(False)
    assert m.to_empty(device="cpu", recurse=False) is m
    assert m[0].weight.is_meta  # recurse=False: a Sequential has no parameters of its own
    m.to_empty(device="cpu")
    assert m[0].weight.is_cpu and m[1].running_mean.is_cpu and isinstance(m[0].weight, nn.Parameter)
    sd = {k: ember.ones(v.shape, dtype=v.dtype) * 2 for k, v in m.state_dict().items()}
    m.load_state_dict(sd, assign=True)
    assert m[0].weight is not sd["0.weight"] and isinstance(m[0].weight, nn.Parameter)
    assert m[0].weight.data_ptr() == sd["0.weight"].data_ptr()
    assert m[0].weight.requires_grad and not m[1].weight.requires_grad  # the module's requires_grad is kept
    assert m[1].running_var is sd["1.running_var"]  # buffers are assigned as they are
    assert m[0].weight.tolist() == [[2.0] * 3] * 4
    with pytest.raises(TypeError):
        m.to_empty("cpu")  # device is keyword-only


def test_load_without_assign_into_meta_warns_and_keeps_meta():
    with ember.device("meta"):
        lin = nn.Linear(3, 4)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lin.load_state_dict({"weight": ember.ones(4, 3), "bias": ember.zeros(4)})
    assert any("copying from a non-meta parameter in the checkpoint to a meta parameter" in str(x.message) for x in w)
    assert lin.weight.is_meta
    cpu_lin = nn.Linear(3, 4)
    with pytest.raises(RuntimeError, match="Cannot copy out of meta tensor; no data!"):
        cpu_lin.load_state_dict({"weight": ember.ones(4, 3, device="meta"), "bias": ember.zeros(4)})


def test_skip_init_allocates_uninitialised_memory():
    m = nn.utils.skip_init(nn.Linear, 3, 4)
    assert m.weight.is_cpu and m.weight.shape == (4, 3) and isinstance(m.weight, nn.Parameter)
    m = nn.utils.skip_init(nn.Linear, 3, 4, device="meta")
    assert m.weight.is_meta


# (call, exception type, message): what reading a meta tensor's data raises (PyTorch's types and messages).
ERRORS = [
    ("m[0, 0].item()", RuntimeError, "Tensor.item() cannot be called on meta tensors"),
    ("float(m[0, 0])", RuntimeError, "Tensor.item() cannot be called on meta tensors"),
    ("bool(m[0, 0])", RuntimeError, "Tensor.item() cannot be called on meta tensors"),
    ("m.tolist()", NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    ("m.cpu()", NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    ("m.to('cpu')", NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    ("torch.empty(2, 3).copy_(m)", NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    (
        "m.numpy()",
        TypeError,
        "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
    ),
    ("m.nonzero()", NotImplementedError, None),
    ("m + torch.ones(2, 3)", RuntimeError, None),
    ("torch.cat([m, torch.ones(2, 3)])", RuntimeError, None),
]


@pytest.mark.parametrize("call, exc, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_data_access_raises(call, exc, message):
    m = ember.ones(2, 3, device="meta")
    with pytest.raises(exc) as info:
        eval(call, {"torch": ember, "m": m})
    if message is not None:
        assert str(info.value) == message
    else:  # ember's own wording: it names the op and the devices
        text = str(info.value)
        assert ("meta" in text and "cpu" in text) or ("nonzero" in text and "meta" in text), text


def test_errors_name_op_and_device():
    m = ember.ones(2, 3, device="meta")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device.*meta.*cpu"):
        m + ember.ones(2, 3)
    with pytest.raises(NotImplementedError, match="nonzero: not implemented for meta tensors"):
        m.nonzero()
    with pytest.raises(NotImplementedError, match="unique: not implemented for meta tensors"):
        ember.unique(m)
    with pytest.raises(NotImplementedError, match="ldl_factor: not implemented for meta tensors"):
        ember.linalg.ldl_factor(ember.ones(3, 3, device="meta"))  # no meta LDL^T kernel: names it and the device


@needs_torch
def test_errors_match_pytorch():
    code = textwrap.dedent(
        """
        import torch
        m = torch.ones(2, 3, device="meta")
        for call in %r:
            try:
                eval(call)
                print("no error")
            except Exception as e:
                print(type(e).__name__, str(e))
        """
    ) % ([c for c, _, msg in ERRORS if msg is not None],)
    lines = subprocess.run([TORCH_PY, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    expected = [(exc.__name__, msg) for _, exc, msg in ERRORS if msg is not None]
    assert [tuple(line.split(" ", 1)) for line in lines] == expected


@needs_torch
def test_repr_and_geometry_match_pytorch():
    code = textwrap.dedent(
        """
        import torch
        m = torch.ones(2, 3, device="meta")
        print(repr(m)); print(repr(torch.ones(2, device="meta", dtype=torch.int64)))
        print(repr(torch.ones(2, device="meta", requires_grad=True) * 2)); print(repr(m.device))
        print(m.t().contiguous().stride(), m.sum(1, keepdim=True).stride(), (m @ m.t()).shape)
        """
    )
    out = subprocess.run([TORCH_PY, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    m = ember.ones(2, 3, device="meta")
    mine = [
        repr(m),
        repr(ember.ones(2, device="meta", dtype=ember.int64)),
        repr(ember.ones(2, device="meta", requires_grad=True) * 2),
        repr(m.device),
        "%s %s %s" % (m.t().contiguous().stride(), m.sum(1, keepdim=True).stride(), (m @ m.t()).shape),
    ]
    assert [line.replace("torch.", "ember.").replace("ember.Size", "ember.Size") for line in out] == mine


def test_deepcopy_and_pickle_keep_meta():
    import copy
    import pickle

    with ember.device("meta"):
        bn = nn.BatchNorm2d(3)
    twin = copy.deepcopy(bn)
    assert twin.running_mean.is_meta and twin.weight.is_meta and twin.running_mean.shape == (3,)
    assert twin.running_mean is not bn.running_mean and isinstance(twin.weight, nn.Parameter)
    t = pickle.loads(pickle.dumps(ember.empty(2, 5, dtype=ember.float16, device="meta", requires_grad=True)))
    assert t.is_meta and t.shape == (2, 5) and t.dtype == ember.float16 and t.requires_grad


def test_spectral_and_roi_gradients_on_meta():
    """Backward through fft and the RoI ops gives meta gradients of the inputs' geometry (the CPU run's)."""
    for device in ("cpu", "meta"):
        x = ember.randn(2, 4, 8, 8, device=device, requires_grad=True)
        boxes = _rois(ember.ones(3, 2, device=device))
        loss = _vops.roi_align(x, boxes, 2).sum() + ember.fft.rfft2(x).abs().sum()
        loss.backward()
        assert x.grad.device == ember.device(device) and x.grad.shape == x.shape and x.grad.stride() == x.stride()
    with pytest.raises(NotImplementedError, match="nms: not implemented for meta tensors"):
        _vops.nms(ember.zeros(3, 4, device="meta"), ember.zeros(3, device="meta"), 0.5)
