"""F.multi_head_attention_forward and nn.MultiheadAttention (both run the one C++ function of ember/nn/attention.cpp)
against the NumPy reference in mha_reference.py, gradients by finite differences, the errors, and, where the reference
PyTorch is installed (TORCH_PYTHON, default /opt/torch2/py), against torch itself in a separate process."""

import gc
import json
import os
import subprocess
import tempfile

import numpy as np
import pytest
from mha_reference import mha_forward, softmax, wave

import ember
import ember.nn as nn
import ember.nn.functional as F

L, N, S, E, H = 3, 2, 4, 4, 2
D = E // H


def t(a):
    return (
        None
        if a is None
        else ember.tensor(np.asarray(a).tolist(), dtype=ember.bool if np.asarray(a).dtype == bool else ember.float64)
    )


def arr(x):
    return np.array(x.tolist())


def bool_mask(shape, cells):
    m = np.zeros(shape, bool)
    for c in cells:
        m[c] = True
    return m


# Each case: keyword arguments of F.multi_head_attention_forward beyond the common ones (NumPy values), built from
# wave() so that the C++ test, the NumPy reference and torch see the same numbers.
def case(name):
    q, k, v = wave((L, N, E), 0.1), wave((S, N, E), 0.2), wave((S, N, E), 0.3)
    c = dict(
        query=q,
        key=k,
        value=v,
        in_proj_weight=wave((3 * E, E), 0.4),
        in_proj_bias=wave((3 * E,), 0.5, 0.1),
        bias_k=None,
        bias_v=None,
        add_zero_attn=False,
        out_proj_weight=wave((E, E), 0.6),
        out_proj_bias=wave((E,), 0.7, 0.1),
    )
    if name == "plain":
        pass
    elif name == "bool_masks":
        c.update(attn_mask=bool_mask((L, S), [(0, 3), (1, 2)]), key_padding_mask=bool_mask((N, S), [(1, 1)]))
    elif name == "float_masks":
        c.update(attn_mask=wave((L, S), 0.8, 1.0), key_padding_mask=wave((N, S), 0.9, 1.0))
    elif name == "mask_3d_per_head":
        c.update(attn_mask=wave((N * H, L, S), 0.8, 1.0), average_attn_weights=False)
    elif name == "bias_kv_zero_attn":
        c.update(
            bias_k=wave((1, 1, E), 0.9),
            bias_v=wave((1, 1, E), 1.0),
            add_zero_attn=True,
            attn_mask=bool_mask((L, S), [(2, 0)]),
            key_padding_mask=bool_mask((N, S), [(0, 3)]),
        )
    elif name == "separate":
        c.update(
            key=wave((S, N, 3), 0.2),
            value=wave((S, N, 5), 0.3),
            in_proj_weight=None,
            q_proj_weight=wave((E, E), 1.1),
            k_proj_weight=wave((E, 3), 1.2),
            v_proj_weight=wave((E, 5), 1.3),
            bias_k=wave((1, 1, E), 0.9),
            bias_v=wave((1, 1, E), 1.0),
            add_zero_attn=True,
            attn_mask=wave((N * H, L, S), 0.8, 1.0),
            average_attn_weights=False,
        )
    elif name == "static_kv":
        c.update(
            static_k=wave((N * H, 5, D), 1.4), static_v=wave((N * H, 5, D), 1.5), in_proj_bias=None, out_proj_bias=None
        )
    elif name == "unbatched":
        c.update(
            query=q[:, 0],
            key=k[:, 0],
            value=v[:, 0],
            key_padding_mask=bool_mask((S,), [(2,)]),
            attn_mask=bool_mask((H, L, S), [(0, 1, 3), (1, 2, 0)]),
        )
    elif name == "self_attention":
        c.update(key=q, value=q, attn_mask=wave((L, L), 0.8, 1.0))
    else:
        raise KeyError(name)
    return c


CASES = [
    "plain",
    "bool_masks",
    "float_masks",
    "mask_3d_per_head",
    "bias_kv_zero_attn",
    "separate",
    "static_kv",
    "unbatched",
    "self_attention",
]


def ember_call(c, need_weights=True, **extra):
    kw = {k: t(v) if isinstance(v, np.ndarray) else v for k, v in c.items()}
    q, k, v = kw.pop("query"), kw.pop("key"), kw.pop("value")
    if c["key"] is c["query"]:  # self-attention: one tensor
        k = v = q
    separate = kw.get("q_proj_weight") is not None
    return F.multi_head_attention_forward(
        q,
        k,
        v,
        E,
        H,
        kw.pop("in_proj_weight"),
        kw.pop("in_proj_bias"),
        kw.pop("bias_k"),
        kw.pop("bias_v"),
        kw.pop("add_zero_attn"),
        0.0,
        kw.pop("out_proj_weight"),
        kw.pop("out_proj_bias"),
        training=False,
        need_weights=need_weights,
        use_separate_proj_weight=separate,
        **kw,
        **extra,
    )


def reference(c):
    kw = dict(c)
    q, k, v = kw.pop("query"), kw.pop("key"), kw.pop("value")
    return mha_forward(q, k, v, H, **kw)


@pytest.mark.parametrize("name", CASES)
def test_functional_matches_numpy_reference(name):
    c = case(name)
    ref_out, ref_w = reference(c)
    out, weights = ember_call(c)
    assert out.dtype == ember.float64 and tuple(out.shape) == ref_out.shape
    np.testing.assert_allclose(arr(out), ref_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(arr(weights), ref_w, rtol=1e-12, atol=1e-14)
    # need_weights=False computes the output through scaled_dot_product_attention: the same values, no weights.
    out2, none = ember_call(c, need_weights=False)
    assert none is None
    np.testing.assert_allclose(arr(out2), ref_out, rtol=1e-12, atol=1e-14)


def set_params(m, c):
    with ember.no_grad():
        for name in (
            "in_proj_weight",
            "in_proj_bias",
            "q_proj_weight",
            "k_proj_weight",
            "v_proj_weight",
            "bias_k",
            "bias_v",
        ):
            if c.get(name) is not None:
                getattr(m, name).copy_(t(c[name]))
        m.out_proj.weight.copy_(t(c["out_proj_weight"]))
        m.out_proj.bias.copy_(t(c["out_proj_bias"]))


@pytest.mark.parametrize("name", ["bool_masks", "float_masks", "bias_kv_zero_attn", "separate", "unbatched"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_module_matches_numpy_reference(name, batch_first):
    c = case(name)
    kdim, vdim = c["key"].shape[-1], c["value"].shape[-1]
    m = nn.MultiheadAttention(
        E,
        H,
        add_bias_kv=c["bias_k"] is not None,
        add_zero_attn=c["add_zero_attn"],
        kdim=kdim,
        vdim=vdim,
        batch_first=batch_first,
        dtype=ember.float64,
    )
    set_params(m, c)
    ref_out, ref_w = reference(c)
    q, k, v = t(c["query"]), t(c["key"]), t(c["value"])
    swap = batch_first and q.dim() == 3
    if swap:
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
    out, weights = m(
        q,
        k,
        v,
        key_padding_mask=t(c.get("key_padding_mask")),
        attn_mask=t(c.get("attn_mask")),
        average_attn_weights=c.get("average_attn_weights", True),
    )
    np.testing.assert_allclose(arr(out.transpose(0, 1) if swap else out), ref_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(arr(weights), ref_w, rtol=1e-12, atol=1e-14)


def test_module_values_are_the_cpp_frontends():
    # The numbers tests/test_nn_attention.cpp embeds for the C++ module (kPackedOut, first row), from the same case.
    m = nn.MultiheadAttention(E, H, dtype=ember.float64)
    c = case("bool_masks")
    set_params(m, c)
    out, _ = m(
        t(c["query"]),
        t(c["key"]),
        t(c["value"]),
        key_padding_mask=t(c["key_padding_mask"]),
        attn_mask=t(c["attn_mask"]),
    )
    np.testing.assert_allclose(
        arr(out)[0, 0],
        [0.15822290189423108, -0.058353393848579377, 0.28818609641056725, -0.19000654476703824],
        rtol=1e-12,
    )


def test_is_causal_hint_and_dropout():
    c = case("plain")
    x = t(wave((L, N, E), 1.7))
    causal = nn.Transformer.generate_square_subsequent_mask(L, dtype=ember.float64)
    args = (
        E,
        H,
        t(c["in_proj_weight"]),
        t(c["in_proj_bias"]),
        None,
        None,
        False,
        0.0,
        t(c["out_proj_weight"]),
        t(c["out_proj_bias"]),
    )
    ref, _ = F.multi_head_attention_forward(x, x, x, *args, attn_mask=causal)
    for need_weights in (True, False):
        out, _ = F.multi_head_attention_forward(
            x, x, x, *args, attn_mask=causal, is_causal=True, need_weights=need_weights
        )
        np.testing.assert_allclose(arr(out), arr(ref), rtol=1e-12, atol=1e-14)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        F.multi_head_attention_forward(x, x, x, *args, is_causal=True)
    # Dropout acts on the weights only when training; kept weights are scaled by 1 / (1 - p).
    drop = args[:7] + (0.5,) + args[8:]
    ember.manual_seed(1)
    _, w_train = F.multi_head_attention_forward(x, x, x, *drop, average_attn_weights=False)
    _, w_eval = F.multi_head_attention_forward(x, x, x, *drop, training=False, average_attn_weights=False)
    _, w_plain = F.multi_head_attention_forward(x, x, x, *args, average_attn_weights=False)
    np.testing.assert_allclose(arr(w_eval), arr(w_plain), rtol=1e-15)
    kept = arr(w_train) != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(arr(w_train)[kept], 2 * arr(w_plain)[kept], rtol=1e-12)


@pytest.mark.parametrize("name", ["bool_masks", "bias_kv_zero_attn", "separate", "static_kv"])
@pytest.mark.parametrize("need_weights", [True, False])
def test_gradients_by_finite_differences(name, need_weights):
    c = case(name)
    names = [
        k
        for k in (
            "query",
            "key",
            "value",
            "in_proj_weight",
            "q_proj_weight",
            "k_proj_weight",
            "bias_k",
            "out_proj_weight",
            "static_v",
        )
        if c.get(k) is not None
    ]
    base = {k: v for k, v in c.items() if k not in names}

    def f(*tensors):
        kw = {k: v for k, v in base.items()}
        kw.update(zip(names, tensors))
        out, weights = ember_call_tensors(kw, need_weights)
        return (out, weights) if need_weights else out

    inputs = tuple(t(c[k]).requires_grad_() for k in names)
    assert ember.autograd.gradcheck(f, inputs)


@pytest.mark.parametrize("masks", ["none", "float_masks", "bool_masks", "causal"])
def test_batch_first_self_attention_runs_in_memory_order(masks):
    """Note [Batch-major attention] (nn/functional/attention.cpp): batch_first self-attention without weights runs on
    the [N, L, E] memory. Its values against the NumPy reference, its gradients (input and every parameter) against
    finite differences, and its output is the dense [N, L, E] that the memory order gives."""
    c = case(masks if masks.endswith("_masks") else "plain")
    kw = {}
    if masks in ("float_masks", "bool_masks"):
        attn_mask = c["attn_mask"][:, :L]
        kw = dict(attn_mask=t(attn_mask), key_padding_mask=t(c["key_padding_mask"][:, :L]))
    elif masks == "causal":
        attn_mask = np.triu(np.full((L, L), -np.inf), 1)
        kw = dict(attn_mask=t(attn_mask), is_causal=True)
    x = c["query"]
    ref, _ = mha_forward(
        x,
        x,
        x,
        H,
        in_proj_weight=c["in_proj_weight"],
        in_proj_bias=c["in_proj_bias"],
        out_proj_weight=c["out_proj_weight"],
        out_proj_bias=c["out_proj_bias"],
        bias_k=None,
        bias_v=None,
        add_zero_attn=False,
        attn_mask=attn_mask if masks != "none" else None,
        key_padding_mask=c["key_padding_mask"][:, :L] if masks in ("float_masks", "bool_masks") else None,
    )
    m = nn.MultiheadAttention(E, H, batch_first=True, dtype=ember.float64)
    set_params(m, c)
    xb = t(np.ascontiguousarray(x.transpose(1, 0, 2))).requires_grad_()
    # While a class with __torch_dispatch__ is alive in this process (another test module's, kept by pytest), the math
    # is PyTorch's, whose output is a transposed view: the layout follows that state, so it is checked both ways.
    gc.collect()
    dispatch_live = ember._C._python_dispatch_enabled() > 0
    out, weights = m(xb, xb, xb, need_weights=False, **kw)
    assert weights is None and out.is_contiguous() != dispatch_live
    np.testing.assert_allclose(arr(out).transpose(1, 0, 2), ref, rtol=1e-12, atol=1e-14)

    params = [m.in_proj_weight, m.in_proj_bias, m.out_proj.weight, m.out_proj.bias]
    assert ember.autograd.gradcheck(lambda xv, *ps: m(xv, xv, xv, need_weights=False, **kw)[0], (xb, *params))


def ember_call_tensors(kw, need_weights):
    kw = {k: t(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    separate = kw.get("q_proj_weight") is not None
    return F.multi_head_attention_forward(
        kw.pop("query"),
        kw.pop("key"),
        kw.pop("value"),
        E,
        H,
        kw.pop("in_proj_weight", None),
        kw.pop("in_proj_bias"),
        kw.pop("bias_k"),
        kw.pop("bias_v"),
        kw.pop("add_zero_attn"),
        0.0,
        kw.pop("out_proj_weight"),
        kw.pop("out_proj_bias"),
        training=False,
        need_weights=need_weights,
        use_separate_proj_weight=separate,
        **kw,
    )


def test_errors():
    c = case("plain")
    q, k, v = t(c["query"]), t(c["key"]), t(c["value"])
    w, b, ow = t(c["in_proj_weight"]), t(c["in_proj_bias"]), t(c["out_proj_weight"])

    def call(q=q, k=k, v=v, e=E, h=H, **kw):
        return F.multi_head_attention_forward(q, k, v, e, h, w, b, None, None, False, 0.0, ow, None, **kw)

    with pytest.raises(ValueError, match="query should be unbatched 2D or batched 3D tensor"):
        call(q=q.unsqueeze(0))
    with pytest.raises(ValueError, match="expected `key` and `value` to be 3-D"):
        call(k=k[:, 0])
    with pytest.raises(ValueError, match="was expecting embedding dimension of 8, but got 4"):
        call(e=8)
    with pytest.raises(ValueError, match="not divisible by num_heads 3"):
        call(h=3)
    with pytest.raises(ValueError, match="does not match value shape"):
        call(v=v[:3])
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is \[2, 4\], but should be \[3, 4\]"):
        call(attn_mask=ember.zeros(2, 4, dtype=ember.float64))
    with pytest.raises(ValueError, match="Expected key_padded_mask.shape\\[1\\] to be 4, but got 3"):
        call(key_padding_mask=ember.zeros(N, 3, dtype=ember.bool))
    with pytest.raises(TypeError, match="only bool and floating types of attn_mask are supported"):
        call(attn_mask=ember.zeros(L, S, dtype=ember.int64))
    with pytest.raises(ValueError, match="bias_k is set but bias_v is None"):
        F.multi_head_attention_forward(q, k, v, E, H, w, b, t(wave((1, 1, E), 0)), None, False, 0.0, ow, None)
    with pytest.raises(ValueError, match="use_separate_proj_weight is True but q_proj_weight is None"):
        call(use_separate_proj_weight=True)
    with pytest.raises(TypeError, match="argument 'attn_mask' must be Tensor, not int"):
        call(attn_mask=3)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        call(key_padding_mask=ember.zeros(N, S, dtype=ember.bool), attn_mask=ember.zeros(L, S, dtype=ember.float64))


def test_signature_and_docstring():
    f = F.multi_head_attention_forward
    assert f.__doc__.lstrip().splitlines()[0].startswith("multi_head_attention_forward(query: ember.Tensor")
    assert "Computes multi-head attention" in f.__doc__ and "static_k (Tensor, optional)" in f.__doc__
    for text in (
        "training: bool = True",
        "key_padding_mask: ember.Tensor | None = None",
        "average_attn_weights: bool = True",
        "is_causal: bool = False",
    ):
        assert text in f.__doc__


def test_grouped_query_attention_errors():
    q = ember.zeros(1, 6, 3, 4, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide the number of heads"):
        F.scaled_dot_product_attention(
            q,
            ember.zeros(1, 4, 5, 4, dtype=ember.float64),
            ember.zeros(1, 4, 5, 4, dtype=ember.float64),
            enable_gqa=True,
        )
    with pytest.raises(IndexError, match="enable_gqa needs query, key and value of at least 3 dims"):
        x = ember.zeros(3, 4, dtype=ember.float64)
        F.scaled_dot_product_attention(x, x, x, enable_gqa=True)
    # key and value may have different head counts, each a divisor of the query's.
    rng = np.random.default_rng(0)
    qn, kn, vn = rng.standard_normal((6, 3, 4)), rng.standard_normal((2, 5, 4)), rng.standard_normal((3, 5, 2))
    got = F.scaled_dot_product_attention(t(qn), t(kn), t(vn), enable_gqa=True)
    kr, vr = np.repeat(kn, 3, 0), np.repeat(vn, 2, 0)
    s = qn @ kr.transpose(0, 2, 1) / 2.0  # scale 1 / sqrt(4)
    np.testing.assert_allclose(arr(got), softmax(s) @ vr, rtol=1e-12)


# ---- against PyTorch itself (skipped where the reference PyTorch is not installed)

TORCH_PYTHON = os.environ.get("TORCH_PYTHON", "/opt/torch2/py")

_TORCH_CHILD = r"""
import json, sys
import numpy as np
import torch
import torch.nn.functional as F
data = np.load(sys.argv[1])
cases = json.load(open(sys.argv[2]))
out = {}
for name, (keys, flags) in cases.items():
    def arg(k):
        a = data[name + "/" + k]
        return torch.tensor(a) if a.dtype == bool else torch.tensor(a, dtype=torch.float64)
    for need in (True, False):
        kw = {k: arg(k) for k in keys}
        q, k, v = kw.pop("query"), kw.pop("key"), kw.pop("value")
        if flags["self"]:
            k = v = q
        o, w = F.multi_head_attention_forward(
            q, k, v, flags["E"], flags["H"], kw.pop("in_proj_weight", None), kw.pop("in_proj_bias", None),
            kw.pop("bias_k", None), kw.pop("bias_v", None), flags["add_zero_attn"], 0.0, kw.pop("out_proj_weight"),
            kw.pop("out_proj_bias", None), training=False, need_weights=need,
            use_separate_proj_weight="q_proj_weight" in kw, average_attn_weights=flags["average"], **kw)
        out[name + ("/out" if need else "/out_noweights")] = o.numpy()
        if need:
            out[name + "/weights"] = w.numpy()
np.savez(sys.argv[3], **out)
"""


@pytest.mark.skipif(not os.access(TORCH_PYTHON, os.X_OK), reason="the reference PyTorch is not installed")
def test_functional_matches_pytorch():
    arrays, cases = {}, {}
    for name in CASES:
        c = case(name)
        keys = [k for k, v in c.items() if isinstance(v, np.ndarray)]
        for k in keys:
            arrays[name + "/" + k] = c[k]
        cases[name] = (
            keys,
            dict(
                E=E,
                H=H,
                add_zero_attn=c["add_zero_attn"],
                self=c["key"] is c["query"],
                average=c.get("average_attn_weights", True),
            ),
        )
    with tempfile.TemporaryDirectory() as d:
        paths = [os.path.join(d, n) for n in ("in.npz", "cases.json", "out.npz")]
        np.savez(paths[0], **arrays)
        with open(paths[1], "w") as f:
            json.dump(cases, f)
        proc = subprocess.run([TORCH_PYTHON, "-c", _TORCH_CHILD] + paths, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        ref = dict(np.load(paths[2]))
    for name in CASES:
        c = case(name)
        out, weights = ember_call(c)
        np.testing.assert_allclose(arr(out), ref[name + "/out"], rtol=1e-12, atol=1e-14, err_msg=name)
        np.testing.assert_allclose(arr(weights), ref[name + "/weights"], rtol=1e-12, atol=1e-14, err_msg=name)
        out2, _ = ember_call(c, need_weights=False)
        np.testing.assert_allclose(arr(out2), ref[name + "/out_noweights"], rtol=1e-12, atol=1e-14, err_msg=name)
