"""Recurrent layers (RNN, LSTM, GRU, cells, packed sequences) and MultiheadAttention against NumPy references,
and their gradients by gradcheck."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence


def npv(t):
    return np.array(t.tolist())


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_cell(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    gi = x @ w_ih.T + b_ih
    gh = h @ w_hh.T + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        c2 = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        return sigmoid(o) * np.tanh(c2), c2
    if mode == "GRU":
        ir, iz, in_ = np.split(gi, 3, axis=-1)
        hr, hz, hn = np.split(gh, 3, axis=-1)
        r, z = sigmoid(ir + hr), sigmoid(iz + hz)
        n = np.tanh(in_ + r * hn)
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), None


def np_rnn(module, x, h0=None, c0=None):
    """The module's computation in NumPy: x is [T, B, I]; returns (output, h_n, c_n). With proj_size, each step's h
    is projected by weight_hr (torch.nn.LSTM's documented formula)."""
    mode, layers, dirs, hid = module.mode, module.num_layers, 2 if module.bidirectional else 1, module.hidden_size
    proj = getattr(module, "proj_size", 0)
    T, B = x.shape[:2]
    h0 = np.zeros((layers * dirs, B, proj or hid)) if h0 is None else h0
    c0 = np.zeros((layers * dirs, B, hid)) if c0 is None else c0
    hn, cn, inp = [], [], x
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            sfx = "_reverse" if d else ""
            names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh") + (("weight_hr",) if proj else ())
            p = {
                k: npv(getattr(module, "%s_l%d%s" % (k, layer, sfx))) if module.bias or k[0] == "w" else 0.0
                for k in names
            }  # bias=False: zero biases
            h, c = h0[layer * dirs + d], c0[layer * dirs + d]
            out = [None] * T
            for t in range(T) if d == 0 else reversed(range(T)):
                h, c2 = np_cell(mode, inp[t], h, c, p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"])
                h = h @ p["weight_hr"].T if proj else h
                c = c2 if c2 is not None else c
                out[t] = h
            outs.append(np.stack(out))
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, -1)
    return inp, np.stack(hn), np.stack(cn)


@pytest.mark.parametrize(
    "cls, kw",
    [
        (nn.LSTM, {}),
        (nn.GRU, {}),
        (nn.RNN, {}),
        (nn.RNN, {"nonlinearity": "relu"}),
        (nn.LSTM, {"num_layers": 2, "bidirectional": True}),
        (nn.GRU, {"num_layers": 2}),
        (nn.LSTM, {"batch_first": True}),
    ],
)
def test_recurrent_layers_match_numpy(cls, kw):
    ember.manual_seed(1)
    m = cls(3, 5, **kw).double()
    x = ember.randn(4, 2, 3, dtype=ember.float64)
    xin = x.transpose(0, 1).contiguous() if m.batch_first else x
    out, state = m(xin)
    ref_out, ref_h, ref_c = np_rnn(m, npv(x))
    got = out.transpose(0, 1) if m.batch_first else out
    np.testing.assert_allclose(npv(got), ref_out, rtol=1e-10, atol=1e-12)
    h = state[0] if isinstance(state, tuple) else state
    np.testing.assert_allclose(npv(h), ref_h, rtol=1e-10, atol=1e-12)
    if isinstance(state, tuple):
        np.testing.assert_allclose(npv(state[1]), ref_c, rtol=1e-10, atol=1e-12)


def test_initial_states_and_unbatched_input():
    ember.manual_seed(2)
    m = nn.LSTM(3, 4).double()
    x = ember.randn(5, 1, 3, dtype=ember.float64)
    h0, c0 = ember.randn(1, 1, 4, dtype=ember.float64), ember.randn(1, 1, 4, dtype=ember.float64)
    out, (h, c) = m(x, (h0, c0))
    ref_out, ref_h, ref_c = np_rnn(m, npv(x), npv(h0), npv(c0))
    np.testing.assert_allclose(npv(out), ref_out, rtol=1e-10)
    out_u, (h_u, c_u) = m(x[:, 0], (h0[:, 0], c0[:, 0]))  # unbatched [T, I]
    np.testing.assert_allclose(npv(out_u), ref_out[:, 0], rtol=1e-10)
    assert tuple(h_u.shape) == (1, 4)


def test_packed_sequences_equal_separate_runs():
    ember.manual_seed(3)
    m = nn.GRU(2, 3, bidirectional=True).double()
    seqs = [ember.randn(n, 2, dtype=ember.float64) for n in (2, 5, 3)]
    packed = pack_sequence(seqs, enforce_sorted=False)
    out, h = m(packed)
    padded, lengths = pad_packed_sequence(out)
    assert lengths.tolist() == [2, 5, 3]
    for i, s in enumerate(seqs):
        o_i, h_i = m(s.unsqueeze(1))
        np.testing.assert_allclose(npv(padded[: s.size(0), i]), npv(o_i[:, 0]), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(npv(h[:, i]), npv(h_i[:, 0]), rtol=1e-10, atol=1e-12)
        assert npv(padded[s.size(0) :, i]).sum() == 0


def test_pack_and_pad_round_trip():
    x = ember.arange(24.0).reshape(4, 3, 2)  # [T, B, F]
    packed = pack_padded_sequence(x, [4, 2, 1])
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1]
    np.testing.assert_array_equal(npv(packed.data)[:, 0], [0, 2, 4, 6, 8, 12, 18])  # x[t, b], time-major
    back, lengths = pad_packed_sequence(packed, batch_first=True, total_length=5)
    assert tuple(back.shape) == (3, 5, 2) and lengths.tolist() == [4, 2, 1]
    ref = npv(x).transpose(1, 0, 2).copy()
    ref[1, 2:] = 0
    ref[2, 1:] = 0
    np.testing.assert_array_equal(npv(back)[:, :4], ref)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        pack_padded_sequence(x, [1, 2, 4])
    assert tuple(pad_sequence([ember.ones(2), ember.ones(3)], batch_first=True).shape) == (2, 3)


def test_cells_match_numpy_and_gradcheck():
    ember.manual_seed(4)
    for cls, mode in [(nn.LSTMCell, "LSTM"), (nn.GRUCell, "GRU"), (nn.RNNCell, "RNN_TANH")]:
        cell = cls(3, 4).double()
        x, h = ember.randn(2, 3, dtype=ember.float64), ember.randn(2, 4, dtype=ember.float64)
        c = ember.randn(2, 4, dtype=ember.float64)
        out = cell(x, (h, c)) if mode == "LSTM" else cell(x, h)
        p = [npv(getattr(cell, k)) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        ref_h, ref_c = np_cell(mode, npv(x), npv(h), npv(c), *p)
        np.testing.assert_allclose(npv(out[0] if mode == "LSTM" else out), ref_h, rtol=1e-10)
        if mode == "LSTM":
            np.testing.assert_allclose(npv(out[1]), ref_c, rtol=1e-10)


def test_lstm_gradients_by_gradcheck():
    ember.manual_seed(5)
    m = nn.LSTM(2, 3, num_layers=2, bidirectional=True).double()
    x = ember.randn(3, 2, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda inp: m(inp)[0], (x,))
    params = list(m.parameters())
    out = m(x)[0].sum()
    grads = ember.autograd.grad(out, params)
    assert all(g is not None and tuple(g.shape) == tuple(p.shape) for g, p in zip(grads, params))


def test_rnn_errors():
    m = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 5"):
        m(ember.randn(2, 1, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \[1, 1, 4\], got \[2, 1, 4\]"):
        m(ember.randn(2, 1, 3), (ember.zeros(2, 1, 4), ember.zeros(2, 1, 4)))
    with pytest.raises(RuntimeError, match="Expected input to be 2D or 3D, got 4D instead"):
        m(ember.randn(2, 1, 1, 3))
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
        nn.RNN(3, 4, nonlinearity="sigmoid")


def np_mha(q, k, v, m):
    e, h = m.embed_dim, m.num_heads
    d = e // h
    w, b = npv(m.in_proj_weight), npv(m.in_proj_bias)
    Q, K, V = q @ w[:e].T + b[:e], k @ w[e : 2 * e].T + b[e : 2 * e], v @ w[2 * e :].T + b[2 * e :]
    L, B, _ = q.shape
    S = k.shape[0]
    Q = Q.reshape(L, B * h, d).transpose(1, 0, 2)
    K = K.reshape(S, B * h, d).transpose(1, 0, 2)
    V = V.reshape(S, B * h, d).transpose(1, 0, 2)
    s = Q @ K.transpose(0, 2, 1) / np.sqrt(d)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    o = (a @ V).transpose(1, 0, 2).reshape(L * B, e)
    o = o @ npv(m.out_proj.weight).T + npv(m.out_proj.bias)
    return o.reshape(L, B, e), a.reshape(B, h, L, S).mean(1)


def test_multihead_attention_matches_numpy():
    ember.manual_seed(6)
    m = nn.MultiheadAttention(8, 2).double()
    with ember.no_grad():
        m.in_proj_bias.uniform_(-0.5, 0.5)
        m.out_proj.bias.uniform_(-0.5, 0.5)
    q, k = ember.randn(3, 2, 8, dtype=ember.float64), ember.randn(4, 2, 8, dtype=ember.float64)
    out, weights = m(q, k, k)
    ref_out, ref_w = np_mha(npv(q), npv(k), npv(k), m)
    np.testing.assert_allclose(npv(out), ref_out, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(npv(weights), ref_w, rtol=1e-9, atol=1e-12)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).double()
    x = ember.randn(3, 2, 8, dtype=ember.float64, requires_grad=True)
    y = layer(x)
    assert tuple(y.shape) == (3, 2, 8)
    assert ember.autograd.gradcheck(lambda t: layer(t), (x,))


# ---- LSTM with proj_size

# torch.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2).state_dict() in PyTorch 1.13: keys and shapes
TORCH_PROJ_KEYS = [
    ("weight_ih_l0", (20, 3)),
    ("weight_hh_l0", (20, 2)),
    ("bias_ih_l0", (20,)),
    ("bias_hh_l0", (20,)),
    ("weight_hr_l0", (2, 5)),
    ("weight_ih_l0_reverse", (20, 3)),
    ("weight_hh_l0_reverse", (20, 2)),
    ("bias_ih_l0_reverse", (20,)),
    ("bias_hh_l0_reverse", (20,)),
    ("weight_hr_l0_reverse", (2, 5)),
    ("weight_ih_l1", (20, 4)),
    ("weight_hh_l1", (20, 2)),
    ("bias_ih_l1", (20,)),
    ("bias_hh_l1", (20,)),
    ("weight_hr_l1", (2, 5)),
    ("weight_ih_l1_reverse", (20, 4)),
    ("weight_hh_l1_reverse", (20, 2)),
    ("bias_ih_l1_reverse", (20,)),
    ("bias_hh_l1_reverse", (20,)),
    ("weight_hr_l1_reverse", (2, 5)),
]


def test_lstm_proj_size_parameters_and_repr_are_torchs():
    m = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == TORCH_PROJ_KEYS
    assert repr(m) == "LSTM(3, 5, proj_size=2, num_layers=2, bidirectional=True)"
    assert [n for n, _ in nn.LSTM(3, 5, bias=False, proj_size=4).named_parameters()] == [
        "weight_ih_l0",
        "weight_hh_l0",
        "weight_hr_l0",
    ]
    assert len(m.all_weights) == 4 and [tuple(w.shape) for w in m.all_weights[2]] == [
        (20, 4),
        (20, 2),
        (20,),
        (20,),
        (2, 5),
    ]
    bound = 1 / np.sqrt(5)  # every weight U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), weight_hr too
    assert all(np.abs(npv(p)).max() <= bound for p in m.parameters())


@pytest.mark.parametrize(
    "kw", [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True}, {"bias": False, "num_layers": 2}]
)
def test_lstm_proj_size_matches_numpy(kw):
    ember.manual_seed(6)
    m = nn.LSTM(3, 5, proj_size=2, **kw).double()
    dirs_layers = (2 if m.bidirectional else 1) * m.num_layers
    x = ember.randn(4, 2, 3, dtype=ember.float64)
    h0 = ember.randn(dirs_layers, 2, 2, dtype=ember.float64)
    c0 = ember.randn(dirs_layers, 2, 5, dtype=ember.float64)
    for states in (None, (h0, c0)):
        xin = x.transpose(0, 1).contiguous() if m.batch_first else x
        out, (h, c) = m(xin, states)
        ref_out, ref_h, ref_c = np_rnn(m, npv(x), *([npv(h0), npv(c0)] if states else []))
        got = out.transpose(0, 1) if m.batch_first else out
        assert tuple(got.shape) == (4, 2, 2 * (2 if m.bidirectional else 1))
        np.testing.assert_allclose(npv(got), ref_out, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(npv(h), ref_h, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(npv(c), ref_c, rtol=1e-10, atol=1e-12)


def test_lstm_proj_size_packed_and_unbatched():
    ember.manual_seed(7)
    m = nn.LSTM(2, 4, proj_size=3, bidirectional=True).double()
    seqs = [ember.randn(n, 2, dtype=ember.float64) for n in (2, 5, 3)]
    out, (h, c) = m(pack_sequence(seqs, enforce_sorted=False))
    padded, _ = pad_packed_sequence(out)
    for i, s in enumerate(seqs):
        ref_out, ref_h, ref_c = np_rnn(m, npv(s.unsqueeze(1)))
        np.testing.assert_allclose(npv(padded[: s.size(0), i]), ref_out[:, 0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(npv(h[:, i]), ref_h[:, 0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(npv(c[:, i]), ref_c[:, 0], rtol=1e-10, atol=1e-12)
    o_u, (h_u, c_u) = m(seqs[1])  # unbatched [T, I]
    assert tuple(o_u.shape) == (5, 6) and tuple(h_u.shape) == (2, 3) and tuple(c_u.shape) == (2, 4)
    np.testing.assert_allclose(npv(o_u), np_rnn(m, npv(seqs[1].unsqueeze(1)))[0][:, 0], rtol=1e-10, atol=1e-12)


def test_lstm_proj_size_gradcheck():
    ember.manual_seed(8)
    m = nn.LSTM(2, 4, num_layers=2, bidirectional=True, proj_size=3).double()
    names = [n for n, _ in m.named_parameters()]
    x = ember.randn(3, 2, 2, dtype=ember.float64, requires_grad=True)
    h0 = ember.randn(4, 2, 3, dtype=ember.float64, requires_grad=True)
    c0 = ember.randn(4, 2, 4, dtype=ember.float64, requires_grad=True)
    weights = [p.detach().clone().requires_grad_() for p in m.parameters()]

    def run(inp, h, c, *ws):
        out, hn, cn = ember._C._nn._rnn(inp, [h, c], list(ws), "LSTM", 2, True, False, 0.0, True, True)
        return out, hn, cn

    # every input: x, both initial states, and each weight (weight_hr_l{k} among them)
    assert ember.autograd.gradcheck(run, (x, h0, c0, *weights))
    assert ember.autograd.gradgradcheck(
        lambda inp, w: run(inp, h0.detach(), c0.detach(), *weights[:4], w, *weights[5:])[0], (x, weights[4])
    )
    assert names[4] == "weight_hr_l0"


def test_lstm_proj_size_errors():
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="proj_size should be a positive integer or zero to disable projections"):
        nn.LSTM(3, 4, proj_size=-1)
    for cls in (nn.GRU, nn.RNN):
        with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM, not RNN or GRU"):
            cls(3, 4, proj_size=2)
    m = nn.LSTM(3, 4, proj_size=2)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \[1, 1, 2\], got \[1, 1, 4\]"):
        m(ember.randn(2, 1, 3), (ember.zeros(1, 1, 4), ember.zeros(1, 1, 4)))
    with pytest.raises(RuntimeError, match=r"Expected cell size \[1, 1, 4\], got \[1, 1, 2\]"):
        m(ember.randn(2, 1, 3), (ember.zeros(1, 1, 2), ember.zeros(1, 1, 2)))


def test_flatten_parameters_is_a_no_op_on_the_cpu():
    """PyTorch code calls flatten_parameters() (DataParallel recipes, after .cuda()); on the CPU there is no fused
    kernel and nothing to flatten: the parameters keep their memory, values and identity, and training works after."""
    m = ember.nn.GRU(3, 4, num_layers=2)
    before = [(p, p.data_ptr(), p.detach().clone()) for p in m.parameters()]
    assert m.flatten_parameters() is None
    m.to(ember.float64).to(ember.float32)  # _apply runs flatten_parameters too
    for (p, _, v), q in zip(before, m.parameters()):
        assert p is q
        np.testing.assert_array_equal(q.detach().numpy(), v.numpy())
    m.flatten_parameters()
    out, h = m(ember.randn(5, 2, 3))
    out.sum().backward()
    assert all(p.grad is not None and tuple(p.grad.shape) == tuple(p.shape) for p in m.parameters())
