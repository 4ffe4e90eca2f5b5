"""ember.utils.checkpoint: gradients identical to the uncheckpointed run (random ops included, with
preserve_rng_state), closed-form gradients, pass-through of non-tensor values, the error paths, and lower peak
memory than keeping every activation."""

import numpy as np
import pytest
from conftest import from_np, to_np

import ember
import ember.utils.checkpoint
from ember.utils.checkpoint import checkpoint, checkpoint_sequential

F64 = ember.float64


def rand64(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 1.5, shape)


def leaf(a):
    return from_np(np.asarray(a, dtype=np.float64)).requires_grad_(True)


def block(x, w):
    return (x * w).sin().exp() * x


def block_grads_np(x, w, g):
    """Closed form of d/dx and d/dw of sum(g * exp(sin(x w)) x)."""
    e = np.exp(np.sin(x * w))
    c = np.cos(x * w)
    return g * (e * c * w * x + e), g * e * c * x * x


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gradients_match_closed_form_and_plain(use_reentrant):
    x, w, g = rand64(5), rand64(5, seed=1), rand64(5, seed=2)
    xa, wa = leaf(x), leaf(w)
    out = checkpoint(block, xa, wa, use_reentrant=use_reentrant)
    assert out.requires_grad and out.grad_fn is not None
    out.backward(from_np(g))
    gx, gw = block_grads_np(x, w, g)
    np.testing.assert_allclose(to_np(xa.grad), gx, rtol=1e-12)
    np.testing.assert_allclose(to_np(wa.grad), gw, rtol=1e-12)
    xb, wb = leaf(x), leaf(w)
    plain = block(xb, wb)
    plain.backward(from_np(g))
    np.testing.assert_array_equal(to_np(out.detach()), to_np(plain.detach()))
    np.testing.assert_array_equal(to_np(xa.grad), to_np(xb.grad))
    np.testing.assert_array_equal(to_np(wa.grad), to_np(wb.grad))


def test_checkpoint_keeps_no_intermediate_graph():
    xa, wa = leaf(rand64(3)), leaf(rand64(3, seed=1))
    out = checkpoint(block, xa, wa, use_reentrant=True)
    # one node whose edges go straight to the leaves: the ops inside were not recorded
    edges = [fn for fn, _ in out.grad_fn.next_functions if fn is not None]
    assert sorted(fn.name() for fn in edges) == ["AccumulateGrad", "AccumulateGrad"]


def test_checkpoint_captured_parameter_gets_grad():
    x, w, g = rand64(4), rand64(4, seed=1), rand64(4, seed=2)
    xa, wa = leaf(x), leaf(w)
    out = checkpoint(lambda t: block(t, wa), xa, use_reentrant=True)
    out.backward(from_np(g))
    gx, gw = block_grads_np(x, w, g)
    np.testing.assert_allclose(to_np(xa.grad), gx, rtol=1e-12)
    np.testing.assert_allclose(to_np(wa.grad), gw, rtol=1e-12)


def test_non_reentrant_parameter_grad_when_input_needs_none():
    x, w, g = rand64(4), rand64(4, seed=1), rand64(4, seed=2)
    xc, wa = from_np(x), leaf(w)
    out = checkpoint(lambda t: block(t, wa), xc, use_reentrant=False)
    assert out.requires_grad
    out.backward(from_np(g))
    np.testing.assert_allclose(to_np(wa.grad), block_grads_np(x, w, g)[1], rtol=1e-12)
    assert xc.grad is None


def test_reentrant_no_input_requires_grad_warns():
    wa = leaf(rand64(3))
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        out = checkpoint(lambda t: t * wa, from_np(rand64(3)), use_reentrant=True)
    assert not out.requires_grad  # as in PyTorch's reentrant variant


def test_use_reentrant_none_warns_and_kwargs():
    x = leaf(rand64(3))
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda t: t * 2, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda t, scale: t * scale, x, use_reentrant=True, scale=2.0)
    out = checkpoint(lambda t, scale: t * t * scale, x, use_reentrant=False, scale=3.0)
    out.backward(ember.ones(3, dtype=F64))
    np.testing.assert_allclose(to_np(x.grad), 6 * to_np(x.detach()), rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_non_tensor_args_and_outputs_pass_through(use_reentrant):
    x, g = rand64(4), rand64(4, seed=1)
    xa = leaf(x)
    const = from_np(rand64(4, seed=3))  # a tensor input that does not require grad

    def f(t, scale, c, name):
        return t.exp() * scale * c, name, 7

    out, name, seven = checkpoint(f, xa, 2.5, const, "tag", use_reentrant=use_reentrant)
    assert name == "tag" and seven == 7
    out.backward(from_np(g))
    np.testing.assert_allclose(to_np(xa.grad), g * np.exp(x) * 2.5 * to_np(const), rtol=1e-12)
    assert const.grad is None


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_multiple_outputs_one_unused(use_reentrant):
    x = rand64(3)
    xa = leaf(x)
    a, b = checkpoint(lambda t: (t.sin(), t.cos()), xa, use_reentrant=use_reentrant)
    (a * 2).backward(ember.ones(3, dtype=F64))
    np.testing.assert_allclose(to_np(xa.grad), 2 * np.cos(x), rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_input_returned_unchanged_and_upstream_graph(use_reentrant):
    x = rand64(3)
    xa = leaf(x)
    h = xa.exp()  # a non-leaf input: the gradient continues upstream
    a, b = checkpoint(lambda t: (t, t * t), h, use_reentrant=use_reentrant)
    assert a is not h
    (a * 3 + b).backward(ember.ones(3, dtype=F64))
    np.testing.assert_allclose(to_np(xa.grad), (3 + 2 * np.exp(x)) * np.exp(x), rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_autograd_grad_through_checkpoint(use_reentrant):
    x = rand64(3)
    xa = leaf(x)
    out = checkpoint(lambda t: t.sin() * t, xa, use_reentrant=use_reentrant)
    (g,) = ember.autograd.grad(out, xa, ember.ones(3, dtype=F64))
    np.testing.assert_allclose(to_np(g), np.cos(x) * x + np.sin(x), rtol=1e-12)
    assert xa.grad is None


def test_unsupported_options():
    x = leaf(rand64(3))
    with pytest.raises(NotImplementedError, match="context_fn and debug are not supported"):
        checkpoint(lambda t: t * 2, x, use_reentrant=False, context_fn=lambda: None)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(lambda t: t * 2, x, use_reentrant=False, determinism_check="strict")
    out = checkpoint(lambda t: t * 2, x, use_reentrant=False, determinism_check="default", debug=False)
    np.testing.assert_allclose(to_np(out.detach()), 2 * to_np(x.detach()))


def test_checkpoint_under_no_grad_is_plain_call():
    xa = leaf(rand64(3))
    with ember.no_grad():
        out = checkpoint(lambda t: t.exp(), xa, use_reentrant=False)
    assert not out.requires_grad
    np.testing.assert_allclose(to_np(out), np.exp(to_np(xa.detach())), rtol=1e-12)


def test_nested_checkpoint():
    x, g = rand64(4), rand64(4, seed=1)
    xa = leaf(x)
    out = checkpoint(lambda t: checkpoint(lambda u: u.sin() * u, t, use_reentrant=True).exp(), xa, use_reentrant=True)
    out.backward(from_np(g))
    s = np.sin(x) * x
    np.testing.assert_allclose(to_np(xa.grad), g * np.exp(s) * (np.cos(x) * x + np.sin(x)), rtol=1e-12)


def dropout_block(t):
    mask = ember.bernoulli(ember.rand_like(t) * 0 + 0.5)
    return (t * mask * 2.0).tanh() * ember.rand_like(t)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_random_ops_replayed_with_preserve_rng_state(use_reentrant):
    x, g = rand64(256), rand64(256, seed=1)
    ember.manual_seed(7)
    xb = leaf(x)
    plain = dropout_block(xb)
    plain.backward(from_np(g))
    after_plain = to_np(ember.rand(4))

    ember.manual_seed(7)
    xa = leaf(x)
    out = checkpoint(dropout_block, xa, use_reentrant=use_reentrant)
    out.backward(from_np(g))
    after_ckpt = to_np(ember.rand(4))

    np.testing.assert_array_equal(to_np(out.detach()), to_np(plain.detach()))
    np.testing.assert_array_equal(to_np(xa.grad), to_np(xb.grad))
    # the recomputation does not advance the surrounding RNG stream
    np.testing.assert_array_equal(after_ckpt, after_plain)


def test_random_ops_differ_without_preserve_rng_state():
    x, g = rand64(256), rand64(256, seed=1)
    ember.manual_seed(7)
    xb = leaf(x)
    dropout_block(xb).backward(from_np(g))
    ember.manual_seed(7)
    xa = leaf(x)
    checkpoint(dropout_block, xa, use_reentrant=True, preserve_rng_state=False).backward(from_np(g))
    # the backward drew new masks: the gradient is not the one of the forward that ran
    assert not np.array_equal(to_np(xa.grad), to_np(xb.grad))


def make_chain(n):
    ws = [float(1 + 0.1 * i) for i in range(n)]
    return [lambda t, w=w: (t * w).sin() for w in ws]


def chain_grad_np(x, n, g):
    y, d = x, np.ones_like(x)
    for i in range(n):
        w = 1 + 0.1 * i
        d = d * np.cos(y * w) * w
        y = np.sin(y * w)
    return y, g * d


@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("segments", [1, 2, 3, 6])
def test_checkpoint_sequential_matches(segments, use_reentrant):
    n = 6
    x, g = rand64(5), rand64(5, seed=1)
    xa = leaf(x)
    out = checkpoint_sequential(make_chain(n), segments, xa, use_reentrant=use_reentrant)
    out.backward(from_np(g))
    y, gx = chain_grad_np(x, n, g)
    np.testing.assert_allclose(to_np(out.detach()), y, rtol=1e-12)
    np.testing.assert_allclose(to_np(xa.grad), gx, rtol=1e-12)


def test_checkpoint_sequential_errors():
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential(make_chain(2), 1, leaf(rand64(2)), use_reentrant=True, foo=1)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint_sequential(make_chain(2), 1, leaf(rand64(2)))


def test_recompute_without_grad_outputs_errors():
    xa = leaf(rand64(3))
    # forward output requires grad (the node is recorded), but the recomputed one does not
    out = checkpoint(lambda t: t.detach() * 2, xa, use_reentrant=True)
    with pytest.raises(
        RuntimeError, match="none of output has requires_grad=True, this checkpoint\\(\\) is not necessary"
    ):
        out.backward(ember.ones(3, dtype=F64))


def test_module_attribute_import():
    assert ember.utils.checkpoint.checkpoint is checkpoint
    assert ember.utils.checkpoint.checkpoint_sequential is checkpoint_sequential


# ---- memory: a chain of N elementwise ops on 1 MiB tensors

N_OPS = 24
SEGMENTS = 4
NUMEL = 1 << 18  # float32: 1 MiB


def peak_bytes(run):
    ember.manual_seed(0)
    x = ember.rand(NUMEL).requires_grad_(True)
    g = ember.ones(NUMEL)
    ember._C._cpu_reset_peak_memory_stats()
    base = ember._C._cpu_memory_stats()["allocated_bytes"]
    out = run(x)
    after_forward = ember._C._cpu_memory_stats()["allocated_bytes"] - base
    out.backward(g)
    peak = ember._C._cpu_memory_stats()["peak_allocated_bytes"] - base
    return after_forward, peak, to_np(x.grad)


def test_checkpoint_saves_memory():
    fns = make_chain(N_OPS)

    def plain(x):
        for f in fns:
            x = f(x)
        return x

    mib = NUMEL * 4
    held_plain, peak_plain, grad_plain = peak_bytes(plain)
    held_seq, peak_seq, grad_seq = peak_bytes(lambda x: checkpoint_sequential(fns, SEGMENTS, x, use_reentrant=True))
    held_one, _, grad_one = peak_bytes(lambda x: checkpoint(plain, x, use_reentrant=True))
    np.testing.assert_array_equal(grad_seq, grad_plain)
    np.testing.assert_array_equal(grad_one, grad_plain)
    # without checkpointing each sin keeps its input: N_OPS MiB held after the forward, more at the peak
    assert held_plain >= N_OPS * mib and peak_plain >= N_OPS * mib
    # one checkpoint over the chain keeps only its output (its input was allocated before)
    assert held_one <= 2 * mib
    # segments: the boundaries, one segment's activations and a few gradient buffers (measured: 9 and 13 MiB)
    per_segment = N_OPS // SEGMENTS
    assert held_seq <= (SEGMENTS + per_segment + 1) * mib
    assert peak_seq <= (SEGMENTS + per_segment + 4) * mib < peak_plain
