"""ember.nn.utils.prune against NumPy references: masks, reparametrization, iterative and global pruning."""

import io

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.utils.prune as prune


def np_of(t):
    return t.detach().numpy().copy()


def distinct_linear(rng, out_f=6, in_f=5):
    """A Linear whose weights have distinct magnitudes (no ties in the pruning order)."""
    m = nn.Linear(in_f, out_f)
    mags = rng.permutation(out_f * in_f).reshape(out_f, in_f) + 1.0
    signs = rng.choice([-1.0, 1.0], size=(out_f, in_f))
    with ember.no_grad():
        m.weight.copy_(ember.from_numpy((mags * signs / 10).astype(np.float32)))
    return m


def l1_reference(w, k, alive=None):
    """Mask zeroing the k smallest |w| among the entries still alive (row-major order)."""
    alive = np.ones(w.shape, bool) if alive is None else alive
    mask = alive.astype(np.float32).reshape(-1)
    idx = np.flatnonzero(alive.reshape(-1))
    order = idx[np.argsort(np.abs(w.reshape(-1)[idx]), kind="stable")]
    mask[order[:k]] = 0
    return mask.reshape(w.shape)


def test_l1_unstructured_mask_and_reparametrization(rng):
    m = distinct_linear(rng)
    w = np_of(m.weight)
    bias = m.bias
    out = prune.l1_unstructured(m, "weight", amount=0.3)
    assert out is m
    k = round(0.3 * w.size)
    expected = l1_reference(w, k)
    np.testing.assert_array_equal(np_of(m.weight_mask), expected)
    np.testing.assert_array_equal(np_of(m.weight), w * expected)
    np.testing.assert_array_equal(np_of(m.weight_orig), w)
    # the parameter moved to weight_orig, the mask is a buffer, weight a plain attribute
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert list(m.state_dict().keys()) == ["bias", "weight_orig", "weight_mask"]
    assert "weight" not in m._parameters and m.bias is bias
    assert m.weight_mask.dtype == ember.float32 and not m.weight_mask.requires_grad
    assert prune.is_pruned(m) and prune.is_pruned(nn.Sequential(nn.ReLU(), m))

    # forward uses the masked weight; gradients reach weight_orig through the mask
    x = ember.from_numpy(rng.standard_normal((3, 5)).astype(np.float32))
    y = m(x)
    np.testing.assert_allclose(np_of(y), np_of(x) @ (w * expected).T + np_of(m.bias), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(np_of(m.weight_orig.grad), np.tile(np_of(x).sum(0), (6, 1)) * expected, rtol=1e-5)

    # the pre-hook recomputes weight from an updated weight_orig
    with ember.no_grad():
        m.weight_orig.mul_(2)
    m(x)
    np.testing.assert_array_equal(np_of(m.weight), 2 * w * expected)


def test_l1_unstructured_int_amount_and_importance_scores(rng):
    m = distinct_linear(rng)
    w = np_of(m.weight)
    scores = rng.permutation(w.size).reshape(w.shape).astype(np.float32)
    prune.l1_unstructured(m, "weight", amount=7, importance_scores=ember.from_numpy(scores))
    np.testing.assert_array_equal(np_of(m.weight_mask), l1_reference(scores, 7))
    assert int((np_of(m.weight_mask) == 0).sum()) == 7


@pytest.mark.parametrize("amount", [0, 0.0, 1.0])
def test_amount_extremes(rng, amount):
    m = distinct_linear(rng)
    prune.l1_unstructured(m, "weight", amount=amount)
    expected = 0.0 if amount == 1.0 else 1.0
    np.testing.assert_array_equal(np_of(m.weight_mask), np.full((6, 5), expected, np.float32))


@pytest.mark.parametrize("n", [1, 2, float("inf"), -float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1, 3])
def test_ln_structured_prunes_smallest_norm_channels(rng, n, dim):
    conv = nn.Conv2d(3, 8, 3)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    with ember.no_grad():
        conv.weight.copy_(ember.from_numpy(w))
    prune.ln_structured(conv, "weight", amount=0.5, n=n, dim=dim)
    axes = tuple(d for d in range(4) if d != dim % 4)
    norms = np.linalg.norm(np.moveaxis(w, dim, 0).reshape(w.shape[dim], -1), ord=n, axis=1)
    assert norms.shape[0] == w.shape[dim]
    k = round(0.5 * w.shape[dim])
    pruned = np.argsort(norms, kind="stable")[:k]
    expected_channels = np.ones(w.shape[dim], np.float32)
    expected_channels[pruned] = 0
    shape = [1] * 4
    shape[dim] = w.shape[dim]
    expected = np.broadcast_to(expected_channels.reshape(shape), w.shape)
    np.testing.assert_array_equal(np_of(conv.weight_mask), expected)
    np.testing.assert_array_equal(np_of(conv.weight), w * expected)
    assert np.all((np_of(conv.weight_mask) == 0).all(axis=axes) == (expected_channels == 0))


def test_random_unstructured_count_and_seed(rng):
    def pruned_mask(seed):
        m = distinct_linear(rng, 10, 10)
        ember.manual_seed(seed)
        prune.random_unstructured(m, "weight", amount=0.37)
        return np_of(m.weight_mask)

    a, b, c = pruned_mask(3), pruned_mask(3), pruned_mask(4)
    assert int((a == 0).sum()) == 37 and set(np.unique(a)) == {0.0, 1.0}
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    m = distinct_linear(rng)
    prune.random_unstructured(m, "bias", amount=2)
    assert int((np_of(m.bias_mask) == 0).sum()) == 2


def test_random_structured_count(rng):
    m = distinct_linear(rng, 10, 4)
    ember.manual_seed(0)
    prune.random_structured(m, "weight", amount=3, dim=0)
    mask = np_of(m.weight_mask)
    rows = mask.sum(axis=1)
    assert set(rows.tolist()) <= {0.0, 4.0} and int((rows == 0).sum()) == 3
    m2 = distinct_linear(rng, 10, 4)
    ember.manual_seed(0)
    prune.random_structured(m2, "weight", amount=3, dim=0)
    np.testing.assert_array_equal(np_of(m2.weight_mask), mask)


def test_iterative_pruning_composes_masks(rng):
    m = distinct_linear(rng, 8, 5)
    w = np_of(m.weight)
    prune.l1_unstructured(m, "weight", amount=0.5)
    first = l1_reference(w, 20)
    prune.l1_unstructured(m, "weight", amount=0.5)  # 50% of the 20 entries still alive
    second = l1_reference(w, 10, alive=first == 1)
    np.testing.assert_array_equal(np_of(m.weight_mask), second)
    assert int((np_of(m.weight_mask) == 0).sum()) == 30
    hooks = [h for h in m._forward_pre_hooks.values() if isinstance(h, prune.BasePruningMethod)]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer) and len(hooks[0]) == 2
    assert [type(h).__name__ for h in hooks[0]] == ["L1Unstructured", "L1Unstructured"]
    assert list(m.state_dict().keys()) == ["bias", "weight_orig", "weight_mask"]

    # a structured round only sees the channels that still have unpruned entries
    prune.ln_structured(m, "weight", amount=1, n=1, dim=0)
    alive_rows = np.flatnonzero(second.sum(axis=1) != 0)
    norms = np.abs(w * second).sum(axis=1)[alive_rows]
    dead = alive_rows[np.argmin(norms)]
    expected = second.copy()
    expected[dead] = 0
    np.testing.assert_array_equal(np_of(m.weight_mask), expected)
    assert len(hooks[0]) == 3 and isinstance(hooks[0][-1], prune.LnStructured)
    np.testing.assert_array_equal(np_of(m.weight), w * expected)


def test_global_unstructured_across_modules(rng):
    net = nn.Sequential(distinct_linear(rng, 4, 5), nn.ReLU(), distinct_linear(rng, 3, 4))
    a, b = net[0], net[2]
    with ember.no_grad():  # make magnitudes distinct across the two layers too
        b.weight.add_(ember.sign(b.weight) * 0.05)
    wa, wb = np_of(a.weight), np_of(b.weight)
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=12)
    flat = np.concatenate([wa.reshape(-1), wb.reshape(-1)])
    expected = l1_reference(flat, 12)
    np.testing.assert_array_equal(np_of(a.weight_mask), expected[:20].reshape(4, 5))
    np.testing.assert_array_equal(np_of(b.weight_mask), expected[20:].reshape(3, 4))
    assert isinstance(next(iter(a._forward_pre_hooks.values())), prune.CustomFromMask)

    # a second global round respects the existing masks
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=0.25)
    alive = expected == 1
    expected2 = l1_reference(flat, round(0.25 * alive.sum()), alive=alive)
    got = np.concatenate([np_of(a.weight_mask).reshape(-1), np_of(b.weight_mask).reshape(-1)])
    np.testing.assert_array_equal(got, expected2)


def test_global_unstructured_importance_scores_and_errors(rng):
    a, b = distinct_linear(rng, 2, 3), distinct_linear(rng, 2, 3)
    scores = {(a, "weight"): ember.arange(6.0).reshape(2, 3), (b, "weight"): ember.arange(6.0, 12.0).reshape(2, 3)}
    prune.global_unstructured([(a, "weight"), (b, "weight")], prune.L1Unstructured, importance_scores=scores, amount=4)
    np.testing.assert_array_equal(np_of(a.weight_mask), [[0, 0, 0], [0, 1, 1]])
    np.testing.assert_array_equal(np_of(b.weight_mask), np.ones((2, 3)))
    with pytest.raises(TypeError, match="not an Iterable"):
        prune.global_unstructured(5, prune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match="importance_scores must be of type dict"):
        prune.global_unstructured([(a, "bias")], prune.L1Unstructured, importance_scores=[1], amount=1)
    with pytest.raises(TypeError, match='Only "unstructured"'):
        prune.global_unstructured([(a, "weight")], prune.LnStructured, amount=1, n=2, dim=0)


def test_custom_from_mask_and_identity(rng):
    m = distinct_linear(rng, 2, 3)
    w = np_of(m.weight)
    mask = ember.tensor([[1, 0, 1], [0, 0, 1]])
    prune.custom_from_mask(m, "weight", mask)
    np.testing.assert_array_equal(np_of(m.weight), w * np.array([[1, 0, 1], [0, 0, 1]]))
    assert m.weight_mask.dtype == ember.float32
    prune.identity(m, "bias")
    np.testing.assert_array_equal(np_of(m.bias_mask), np.ones(2))
    with pytest.raises(AssertionError):
        prune.custom_from_mask(m, "bias", ember.ones(3))


def test_remove_makes_pruning_permanent(rng):
    m = distinct_linear(rng)
    w = np_of(m.weight)
    prune.l1_unstructured(m, "weight", amount=10)
    param = m.weight_orig
    mask = np_of(m.weight_mask)
    assert prune.remove(m, "weight") is m
    assert isinstance(m.weight, nn.Parameter) and m.weight is param
    np.testing.assert_array_equal(np_of(m.weight), w * mask)
    assert list(m.state_dict().keys()) == ["bias", "weight"]  # re-registered last, as in PyTorch
    assert not hasattr(m, "weight_orig") and not hasattr(m, "weight_mask")
    assert not prune.is_pruned(m) and len(m._forward_pre_hooks) == 0
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(m, "weight")


def test_state_dict_round_trip(rng):
    src = distinct_linear(rng)
    prune.l1_unstructured(src, "weight", amount=0.4)
    prune.random_unstructured(src, "bias", amount=2)
    buf = io.BytesIO()
    ember.save(src.state_dict(), buf)
    buf.seek(0)
    state = ember.load(buf)
    assert list(state.keys()) == ["weight_orig", "bias_orig", "weight_mask", "bias_mask"]  # PyTorch's order

    dst = nn.Linear(5, 6)
    prune.identity(dst, "weight")
    prune.identity(dst, "bias")
    dst.load_state_dict(state)
    x = ember.from_numpy(rng.standard_normal((2, 5)).astype(np.float32))
    np.testing.assert_array_equal(np_of(dst(x)), np_of(src(x)))
    np.testing.assert_array_equal(np_of(dst.weight), np_of(src.weight))
    np.testing.assert_array_equal(np_of(dst.bias_mask), np_of(src.bias_mask))


def test_prune_method_on_tensor(rng):
    t = ember.from_numpy(rng.permutation(12).reshape(3, 4).astype(np.float32) - 5.5)
    out = prune.L1Unstructured(amount=3).prune(t)
    np.testing.assert_array_equal(np_of(out), np_of(t) * l1_reference(np_of(t), 3))
    out = prune.LnStructured(amount=1, n=2, dim=1).prune(t)
    cols = np.linalg.norm(np_of(t), axis=0)
    expected = np_of(t).copy()
    expected[:, np.argmin(cols)] = 0
    np.testing.assert_array_equal(np_of(out), expected)


def test_amount_validation_errors(rng):
    m = distinct_linear(rng)
    with pytest.raises(ValueError, match="should either be a float in the range"):
        prune.l1_unstructured(m, "weight", amount=-1)
    with pytest.raises(ValueError, match="should either be a float in the range"):
        prune.random_unstructured(m, "weight", amount=1.5)
    with pytest.raises(TypeError, match="Invalid type for amount"):
        prune.l1_unstructured(m, "weight", amount="half")
    # an int amount larger than the tensor is found when the mask is computed; the module is left unpruned
    with pytest.raises(ValueError, match="should be smaller than the number of parameters to prune=30"):
        prune.l1_unstructured(m, "weight", amount=31)
    assert isinstance(m.weight, nn.Parameter) and "weight_orig" not in m._parameters
    assert "weight_mask" not in m._buffers and not prune.is_pruned(m)
    with pytest.raises(ValueError, match="should be smaller than the number of parameters to prune=6"):
        prune.ln_structured(m, "weight", amount=7, n=2, dim=0)


def test_structured_errors(rng):
    m = distinct_linear(rng)
    with pytest.raises(IndexError, match="Invalid index 2"):
        prune.ln_structured(m, "weight", amount=1, n=2, dim=2)
    with pytest.raises(IndexError, match="Invalid index -3"):
        prune.random_structured(m, "weight", amount=1, dim=-3)
    with pytest.raises(ValueError, match="Structured pruning can only be applied to multidimensional tensors"):
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    assert not prune.is_pruned(m)
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.l1_unstructured(m, "weight", amount=1, importance_scores=ember.ones(5, 6))
    prune.l1_unstructured(m, "weight", amount=1)
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.l1_unstructured(m, "weight", amount=1, importance_scores=ember.ones(30))
    assert int((np_of(m.weight_mask) == 0).sum()) == 1


def test_pruning_container_checks():
    a = prune.L1Unstructured(amount=1)
    a._tensor_name = "weight"
    b = prune.RandomUnstructured(amount=1)
    b._tensor_name = "bias"
    c = prune.PruningContainer(a)
    assert len(c) == 1 and c[0] is a and c._tensor_name == "weight"
    with pytest.raises(ValueError, match="Can only add pruning methods acting on the parameter named 'weight'"):
        c.add_pruning_method(b)
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        c.add_pruning_method(3)
    with pytest.raises(TypeError):
        prune.BasePruningMethod()  # abstract


def test_pruned_model_trains(rng):
    m = distinct_linear(rng)
    prune.l1_unstructured(m, "weight", amount=0.5)
    mask = np_of(m.weight_mask)
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    x = ember.from_numpy(rng.standard_normal((4, 5)).astype(np.float32))
    for _ in range(3):
        opt.zero_grad()
        m(x).pow(2).sum().backward()
        opt.step()
    m(x)
    assert np.all(np_of(m.weight)[mask == 0] == 0)
    assert np.any(np_of(m.weight_orig)[mask == 0] != 0)  # pruned entries keep their original values


@pytest.mark.skipif(not ember.cuda.is_available(), reason="no CUDA device")
def test_pruning_on_cuda_matches_cpu(rng):
    w = rng.standard_normal((6, 4, 3)).astype(np.float32)

    def run(device):
        conv = nn.Conv1d(4, 6, 3).to(device)
        lin = nn.Linear(3, 5).to(device)
        with ember.no_grad():
            conv.weight.copy_(ember.from_numpy(w).to(device))
            lin.weight.copy_(ember.from_numpy(w[:5, 0, :].copy()).to(device))
        prune.l1_unstructured(conv, "weight", amount=0.3)
        prune.ln_structured(conv, "weight", amount=2, n=2, dim=0)
        prune.global_unstructured([(conv, "weight"), (lin, "weight")], prune.L1Unstructured, amount=10)
        prune.custom_from_mask(lin, "bias", ember.tensor([1, 0, 1, 0, 1], device=device))
        ember.manual_seed(0)
        prune.random_structured(lin, "weight", amount=1, dim=1)
        assert conv.weight_mask.device.type == ember.device(device).type
        return [np_of(t.cpu()) for t in (conv.weight_mask, lin.weight_mask, lin.bias_mask, conv.weight)]

    for got, expected in zip(run("cuda"), run("cpu")):
        np.testing.assert_array_equal(got, expected)
