"""The fused CPU LSTM and GRU (Note [Fused CPU LSTM] and Note [Fused CPU GRU], ember/nn/functional/rnn_layer.cpp): a
float32 LSTM or GRU runs each layer and direction as one node. Its outputs are checked against NumPy, and its gradients
against the step-by-step path in float64, whose own gradients gradcheck verifies against finite differences
(test_nn_rnn.py)."""

import numpy as np
import pytest
from test_nn_rnn import np_rnn
from test_python_dispatch import Recorder

import ember
import ember.nn as nn

CONFIGS = [
    {},
    {"num_layers": 2, "bidirectional": True},
    {"num_layers": 3, "batch_first": True, "bias": False},
    {"num_layers": 2},
]


def run(m, x, h0, c0, weights):
    """Output, h_n, c_n and the gradients of a fixed weighted sum of them w.r.t. x, h0, c0 and the weights."""
    y, (h, c) = m(x, (h0, c0))
    y_weights = ember.arange(y.numel(), dtype=y.dtype).reshape(y.shape).sin()
    loss = (y * y_weights).sum() + (h * 1.5).sum() + (c * c).sum()
    grads = ember.autograd.grad(loss, [x, h0, c0, *weights])
    return [t.detach().numpy().astype(np.float64) for t in (y, h, c, *grads)], y.grad_fn


def setup(cls, kw, seed):
    """A 5 -> 7 module of the config, an input in its layout (T 6, B 3) and the number of state rows."""
    ember.manual_seed(seed)
    m = cls(5, 7, **kw)
    shape = (3, 6, 5) if kw.get("batch_first") else (6, 3, 5)
    return m, ember.randn(*shape, requires_grad=True), kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)


def numpy_reference(m, x, kw, *states):
    """np_rnn's (output, h_n, c_n) for x in the module's layout."""
    bf = kw.get("batch_first")
    xt = x.detach().numpy().astype(np.float64)
    y, h, c = np_rnn(m, xt.transpose(1, 0, 2) if bf else xt, *(s.detach().numpy().astype(np.float64) for s in states))
    return (y.transpose(1, 0, 2) if bf else y), h, c


def float64_twin(m, kw):
    m64 = type(m)(5, 7, **kw).double()
    m64.load_state_dict({k: v.double() for k, v in m.state_dict().items()})
    return m64


@pytest.mark.parametrize("kw", CONFIGS)
def test_fused_lstm_matches_numpy_and_the_float64_step_by_step_gradients(kw):
    m, x, groups = setup(nn.LSTM, kw, 3)
    h0, c0 = (ember.randn(groups, 3, 7, requires_grad=True) for _ in range(2))
    fused, node = run(m, x, h0, c0, list(m.parameters()))
    assert ember.backends.mkldnn.enabled
    # the last layer's node is the fused one, unless a cat (two directions) or a transpose (batch_first) follows it
    if not kw.get("bidirectional") and not kw.get("batch_first"):
        assert node.name() == "MkldnnRnnLayerBackward0"
    for got, want in zip(fused[:3], numpy_reference(m, x, kw, h0, c0)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    m64 = float64_twin(m, kw)
    leaves = [t.detach().double().requires_grad_() for t in (x, h0, c0)]
    reference, node64 = run(m64, *leaves, list(m64.parameters()))
    assert node64.name() != "MkldnnRnnLayerBackward0"  # float64 runs step by step
    for got, want in zip(fused, reference):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_the_switch_selects_the_step_by_step_path_with_the_same_results():
    ember.manual_seed(4)
    m = nn.LSTM(4, 6, num_layers=2, dropout=0.3)  # training mode: dropout between the layers
    x = ember.randn(5, 2, 4, requires_grad=True)
    h0, c0 = (ember.randn(2, 2, 6, requires_grad=True) for _ in range(2))
    ember.manual_seed(9)
    fused, node = run(m, x, h0, c0, list(m.parameters()))
    with ember.backends.mkldnn.flags(enabled=False):
        assert not ember.backends.mkldnn.enabled
        ember.manual_seed(9)  # the same dropout masks
        stepwise, node2 = run(m, x, h0, c0, list(m.parameters()))
    assert ember.backends.mkldnn.enabled  # restored
    assert node.name() == "MkldnnRnnLayerBackward0" and node2.name() != node.name()
    for got, want in zip(fused, stepwise):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_no_grad_unbatched_and_zero_initial_states():
    ember.manual_seed(5)
    m = nn.LSTM(3, 4, num_layers=2)
    x = ember.randn(7, 3)  # unbatched
    with ember.no_grad():
        y, (h, c) = m(x)
    ref_y, ref_h, ref_c = np_rnn(m, x.numpy().astype(np.float64)[:, None])
    np.testing.assert_allclose(y.numpy(), ref_y[:, 0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), ref_h[:, 0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), ref_c[:, 0], rtol=1e-5, atol=1e-6)
    assert y.grad_fn is None


def test_double_backward_names_the_switch_and_works_step_by_step():
    ember.manual_seed(6)
    m = nn.LSTM(3, 4)
    x = ember.randn(4, 2, 3, requires_grad=True)

    def grad_norm():
        (gx,) = ember.autograd.grad(m(x)[0].pow(2).sum(), [x], create_graph=True)
        return ember.autograd.grad(gx.pow(2).sum(), [x])[0]

    with pytest.raises(NotImplementedError, match=r"MkldnnRnnLayerBackward0.*ember.backends.mkldnn.enabled = False"):
        grad_norm()
    with ember.backends.mkldnn.flags(enabled=False):
        got = grad_norm().numpy()
    m64 = nn.LSTM(3, 4).double()
    m64.load_state_dict({k: v.double() for k, v in m.state_dict().items()})
    x64 = x.detach().double().requires_grad_()
    (gx,) = ember.autograd.grad(m64(x64)[0].pow(2).sum(), [x64], create_graph=True)
    want = ember.autograd.grad(gx.pow(2).sum(), [x64])[0].numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_modifying_the_output_in_place_before_backward_is_caught():
    m = nn.LSTM(3, 4)
    y, _ = m(ember.randn(2, 1, 3, requires_grad=True))
    loss = y.sum()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_a_dispatch_mode_sees_every_op_of_the_layer():
    # the gates' kernel is no op a mode could see (or make_fx trace), so under a mode the layer runs step by step
    m = nn.LSTM(3, 4)
    x = ember.randn(2, 1, 3, requires_grad=True)
    with Recorder() as rec:
        y, _ = m(x)
    assert "aten.sigmoid.default" in rec.log and "aten.tanh.default" in rec.log
    assert y.grad_fn.name() != "MkldnnRnnLayerBackward0"
    assert m(x)[0].grad_fn.name() == "MkldnnRnnLayerBackward0"  # fused again once the mode is gone
    np.testing.assert_allclose(y.detach().numpy(), m(x)[0].detach().numpy(), rtol=1e-6, atol=1e-7)


def test_weights_that_do_not_fit_are_refused_before_the_kernels_read_them():
    ember.manual_seed(7)
    m = nn.LSTM(3, 4, num_layers=2)
    params = [p.detach() for p in m.parameters()]
    x = ember.randn(5, 2, 3)
    for i, bad in (
        (5, ember.randn(16, 5)),
        (6, ember.randn(12)),
        (4, ember.randn(16, 5)),
    ):  # layer 1's w_hh, b_ih, w_ih
        ps = list(params)
        ps[i] = bad
        with pytest.raises(RuntimeError, match=r"LSTM: weight_ih .* do not fit an input of shape \[5, 2, (3|4)\]"):
            ember._C._nn._rnn(x, None, ps, "LSTM", 2, True, False, 0.0, False, False)


# ---- the fused CPU GRU (Note [Fused CPU GRU])


def run_gru(m, x, h0, weights, create_graph=False):
    y, h = m(x, h0)
    y_weights = ember.arange(y.numel(), dtype=y.dtype).reshape(y.shape).sin()
    loss = (y * y_weights).sum() + (h * 1.5).sum()
    grads = ember.autograd.grad(loss, [x, h0, *weights], create_graph=create_graph)
    return [y, h, *grads], y.grad_fn


@pytest.mark.parametrize("kw", CONFIGS)
def test_fused_gru_matches_numpy_and_the_float64_step_by_step_gradients(kw):
    m, x, groups = setup(nn.GRU, kw, 13)
    h0 = ember.randn(groups, 3, 7, requires_grad=True)
    fused, node = run_gru(m, x, h0, list(m.parameters()))
    if not kw.get("bidirectional") and not kw.get("batch_first"):
        assert node.name() == "GruLayerBackward0"
    fused = [t.detach().numpy().astype(np.float64) for t in fused]
    for got, want in zip(fused[:2], numpy_reference(m, x, kw, h0)[:2]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    m64 = float64_twin(m, kw)
    leaves = [t.detach().double().requires_grad_() for t in (x, h0)]
    reference, node64 = run_gru(m64, *leaves, list(m64.parameters()))
    assert node64.name() != "GruLayerBackward0"  # float64 runs step by step
    for got, want in zip(fused, reference):
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_fused_gru_second_derivatives_are_the_step_by_step_ones():
    # PyTorch's CPU GRU is step by step, with derivatives of every order: the fused layer's backward differentiates
    # the layer as ops when create_graph asks for a graph. Every input's and weight's second derivative, against the
    # step-by-step path (switch off), whose own are checked by gradgradcheck in float64 below.
    ember.manual_seed(14)
    m = nn.GRU(3, 4, num_layers=2, bidirectional=True)
    x = ember.randn(4, 2, 3, requires_grad=True)
    h0 = ember.randn(4, 2, 4, requires_grad=True)
    leaves = [x, h0, *m.parameters()]

    def second():
        first, node = run_gru(m, x, h0, list(m.parameters()), create_graph=True)
        total = sum((g * g).sum() for g in first[2:])
        return node, [t.numpy() for t in ember.autograd.grad(total, leaves)]

    node, fused = second()
    assert "GruLayerBackward0" in str(node.next_functions)
    with ember.backends.mkldnn.flags(enabled=False):
        node2, stepwise = second()
    assert "GruLayerBackward0" not in str(node2.next_functions)
    for got, want in zip(fused, stepwise):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)

    m64 = nn.GRU(2, 3).double()
    x64 = ember.randn(3, 2, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda v: m64(v)[0], (x64,))


def test_fused_gru_switch_no_grad_unbatched_and_dispatch_mode():
    ember.manual_seed(15)
    m = nn.GRU(3, 4, num_layers=2, dropout=0.3)
    x = ember.randn(5, 2, 3, requires_grad=True)
    ember.manual_seed(9)
    y, _ = m(x)
    with ember.backends.mkldnn.flags(enabled=False):
        ember.manual_seed(9)  # the same dropout masks
        y2, _ = m(x)
    assert y.grad_fn.name() == "GruLayerBackward0" and y2.grad_fn.name() != "GruLayerBackward0"
    np.testing.assert_allclose(y.detach().numpy(), y2.detach().numpy(), rtol=1e-5, atol=1e-6)
    m.eval()
    with ember.no_grad():
        u, h = m(x[:, 0])  # unbatched
    ref_y, ref_h, _ = np_rnn(m, x.detach().numpy().astype(np.float64)[:, :1])
    np.testing.assert_allclose(u.numpy(), ref_y[:, 0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), ref_h[:, 0], rtol=1e-5, atol=1e-6)
    with Recorder() as rec:
        y3, _ = m(x)
    assert "aten.sigmoid.default" in rec.log and y3.grad_fn.name() != "GruLayerBackward0"


def test_fused_gru_refuses_weights_that_do_not_fit():
    ember.manual_seed(16)
    m = nn.GRU(3, 4, num_layers=2)
    params = [p.detach() for p in m.parameters()]
    x = ember.randn(5, 2, 3)
    for i, bad in ((5, ember.randn(12, 5)), (6, ember.randn(16)), (4, ember.randn(12, 5))):
        ps = list(params)
        ps[i] = bad
        with pytest.raises(RuntimeError, match=r"GRU: weight_ih .* do not fit an input of shape \[5, 2, (3|4)\]"):
            ember._C._nn._rnn(x, None, ps, "GRU", 2, True, False, 0.0, False, False)
