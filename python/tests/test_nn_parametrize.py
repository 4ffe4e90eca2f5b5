"""ember.nn.utils.parametrize, ember.nn.utils.parametrizations (weight_norm, spectral_norm) and the legacy hook-based
ember.nn.utils.weight_norm / spectral_norm: values against NumPy, gradients against finite differences (float64),
state_dict keys and reprs equal to PyTorch 1.13's."""

import copy

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.utils import (
    parametrizations,
    parametrize,
    remove_spectral_norm,
    remove_weight_norm,
    spectral_norm,
    weight_norm,
)
from ember.nn.utils.parametrize import register_parametrization, remove_parametrizations


class Symmetric(nn.Module):
    """No right_inverse: the original is the tensor itself."""

    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Scale(nn.Module):
    def forward(self, X):
        return 2 * X

    def right_inverse(self, X):
        return X / 2


class Split(nn.Module):
    """right_inverse returns two tensors: originals original0, original1."""

    def forward(self, A, B):
        return A + B

    def right_inverse(self, X):
        return X / 2, X / 2


# Generated once with Debian's python3-torch 1.13 (/usr/bin/python3, in its own process), the same classes defined
# there and `parametrizations` = torch.nn.utils.parametrizations, weight_norm / spectral_norm the legacy
# torch.nn.utils ones: [(k, tuple(v.shape)) for k, v in eval(expr).state_dict().items()] and repr(eval(expr)).
PYTORCH_STATE_DICTS = {
    "register_parametrization(Linear(3, 3), 'weight', Symmetric())": [
        ("bias", (3,)),
        ("parametrizations.weight.original", (3, 3)),
    ],
    "register_parametrization(Linear(3, 3), 'bias', Scale())": [
        ("weight", (3, 3)),
        ("parametrizations.bias.original", (3,)),
    ],
    "register_parametrization(register_parametrization(Linear(3, 3), 'weight', Symmetric()), 'weight', Scale())": [
        ("bias", (3,)),
        ("parametrizations.weight.original", (3, 3)),
    ],
    "register_parametrization(Linear(3, 3), 'weight', Split())": [
        ("bias", (3,)),
        ("parametrizations.weight.original0", (3, 3)),
        ("parametrizations.weight.original1", (3, 3)),
    ],
    "register_parametrization(BatchNorm1d(3), 'running_mean', Scale())": [
        ("weight", (3,)),
        ("bias", (3,)),
        ("running_var", (3,)),
        ("num_batches_tracked", ()),
        ("parametrizations.running_mean.original", (3,)),
    ],
    "parametrizations.spectral_norm(Linear(3, 4))": [
        ("bias", (4,)),
        ("parametrizations.weight.original", (4, 3)),
        ("parametrizations.weight.0._u", (4,)),
        ("parametrizations.weight.0._v", (3,)),
    ],
    "parametrizations.spectral_norm(Conv2d(2, 3, 3))": [
        ("bias", (3,)),
        ("parametrizations.weight.original", (3, 2, 3, 3)),
        ("parametrizations.weight.0._u", (3,)),
        ("parametrizations.weight.0._v", (18,)),
    ],
    "parametrizations.spectral_norm(ConvTranspose2d(2, 3, 3))": [
        ("bias", (3,)),
        ("parametrizations.weight.original", (2, 3, 3, 3)),
        ("parametrizations.weight.0._u", (3,)),
        ("parametrizations.weight.0._v", (18,)),
    ],
    "parametrizations.spectral_norm(Linear(3, 4), 'bias')": [
        ("weight", (4, 3)),
        ("parametrizations.bias.original", (4,)),
    ],
    "weight_norm(Linear(3, 4))": [("bias", (4,)), ("weight_g", (4, 1)), ("weight_v", (4, 3))],
    "weight_norm(Conv1d(2, 3, 3), dim=None)": [("bias", (3,)), ("weight_g", ()), ("weight_v", (3, 2, 3))],
    "weight_norm(Conv2d(2, 3, 3), dim=1)": [("bias", (3,)), ("weight_g", (1, 2, 1, 1)), ("weight_v", (3, 2, 3, 3))],
    "weight_norm(Linear(3, 4), dim=-1)": [("bias", (4,)), ("weight_g", ()), ("weight_v", (4, 3))],
    "spectral_norm(Linear(3, 4))": [("bias", (4,)), ("weight_orig", (4, 3)), ("weight_u", (4,)), ("weight_v", (3,))],
    "spectral_norm(ConvTranspose1d(2, 3, 3))": [
        ("bias", (3,)),
        ("weight_orig", (2, 3, 3)),
        ("weight_u", (3,)),
        ("weight_v", (6,)),
    ],
    "spectral_norm(Conv2d(2, 3, 3), dim=1)": [
        ("bias", (3,)),
        ("weight_orig", (3, 2, 3, 3)),
        ("weight_u", (2,)),
        ("weight_v", (27,)),
    ],
    # Not from PyTorch 1.13, which has no parametrizations.weight_norm: the keys PyTorch >= 2.1 documents for it
    # (original0 = g, original1 = v), shapes as the legacy weight_g / weight_v.
    "parametrizations.weight_norm(Linear(3, 4))": [
        ("bias", (4,)),
        ("parametrizations.weight.original0", (4, 1)),
        ("parametrizations.weight.original1", (4, 3)),
    ],
}
PYTORCH_REPRS = {
    "register_parametrization(Linear(3, 3), 'weight', Symmetric())": "ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n      (0): Symmetric()\n    )\n  )\n)",
    "parametrizations.spectral_norm(Conv2d(2, 3, 3))": "ParametrizedConv2d(\n  2, 3, kernel_size=(3, 3), stride=(1, 1)\n  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n      (0): _SpectralNorm()\n    )\n  )\n)",
    "weight_norm(Linear(3, 4))": "Linear(in_features=3, out_features=4, bias=True)",
    "register_parametrization(register_parametrization(Linear(3, 3), 'weight', Symmetric()), 'weight', Scale())": "ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n      (0): Symmetric()\n      (1): Scale()\n    )\n  )\n)",
}


def build(expr):
    ns = {k: getattr(nn, k) for k in dir(nn)}
    ns.update(
        Symmetric=Symmetric,
        Scale=Scale,
        Split=Split,
        register_parametrization=register_parametrization,
        parametrizations=parametrizations,
        weight_norm=weight_norm,
        spectral_norm=spectral_norm,
    )
    return eval(expr, ns)


@pytest.mark.parametrize("expr", sorted(PYTORCH_STATE_DICTS))
def test_state_dict_keys_match_pytorch(expr):
    got = [(k, tuple(v.shape)) for k, v in build(expr).state_dict().items()]
    assert got == PYTORCH_STATE_DICTS[expr]


@pytest.mark.parametrize("expr", sorted(PYTORCH_REPRS))
def test_repr_matches_pytorch(expr):
    assert repr(build(expr)) == PYTORCH_REPRS[expr]


def np_of(t):
    return np.array(t.detach().tolist(), dtype=np.float64)


def finite_difference_check(loss_fn, tensors, eps=1e-6, rtol=1e-5, atol=1e-7):
    """Autograd gradients of loss_fn() with respect to each (leaf) tensor against central differences."""
    for t in tensors:
        t.grad = None
    loss_fn().backward()
    for t in tensors:
        analytic = np_of(t.grad).reshape(-1)
        numeric = np.zeros_like(analytic)
        flat = t.detach().reshape(-1)  # shares t's storage
        for i in range(flat.numel()):
            with ember.no_grad():
                old = flat[i].item()
                flat[i] = old + eps
                up = loss_fn().item()
                flat[i] = old - eps
                down = loss_fn().item()
                flat[i] = old
            numeric[i] = (up - down) / (2 * eps)
        np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol)


# ---- generic parametrize


def test_register_and_remove_restore_the_class_and_value():
    ember.manual_seed(0)
    m = nn.Linear(3, 3)
    w0 = np_of(m.weight)
    register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    sym = np.triu(w0) + np.triu(w0, 1).T
    np.testing.assert_allclose(np_of(m.weight), sym, rtol=1e-6)
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    x = ember.randn(2, 3)
    np.testing.assert_allclose(np_of(m(x)), np_of(x) @ sym.T + np_of(m.bias), rtol=1e-5, atol=1e-6)
    original = m.parametrizations.weight.original
    remove_parametrizations(m, "weight")  # leave_parametrized=True: the value stays, in the same Parameter
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert m.weight is original and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(np_of(m.weight), sym, rtol=1e-6)

    m2 = nn.Linear(3, 3)
    w2 = np_of(m2.weight)
    register_parametrization(m2, "weight", Symmetric())
    remove_parametrizations(m2, "weight", leave_parametrized=False)
    np.testing.assert_allclose(np_of(m2.weight), w2)
    assert type(nn.Linear(1, 1)) is nn.Linear  # the class itself was never changed


def test_right_inverse_assignment_chaining_and_several_originals():
    m = nn.Linear(2, 2)
    register_parametrization(m, "weight", Scale())
    target = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    m.weight = target  # goes through right_inverse: original = target / 2
    np.testing.assert_allclose(np_of(m.parametrizations.weight.original), [[0.5, 1.0], [1.5, 2.0]])
    np.testing.assert_allclose(np_of(m.weight), np_of(target))
    register_parametrization(m, "weight", Scale())  # chained: weight = 2 * 2 * original
    np.testing.assert_allclose(np_of(m.weight), 2 * np_of(target))

    s = nn.Linear(2, 2)
    w = np_of(s.weight)
    register_parametrization(s, "weight", Split())
    np.testing.assert_allclose(np_of(s.parametrizations.weight.original0), w / 2, rtol=1e-6)
    np.testing.assert_allclose(np_of(s.weight), w, rtol=1e-6)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        remove_parametrizations(s, "weight", leave_parametrized=False)
    remove_parametrizations(s, "weight")
    assert isinstance(s.weight, nn.Parameter) and type(s) is nn.Linear


def test_errors_and_unsafe():
    class Shrink(nn.Module):
        def forward(self, X):
            return X[:1]

    with pytest.raises(ValueError, match="may not change the shape"):
        register_parametrization(nn.Linear(2, 2), "weight", Shrink())
    m = register_parametrization(nn.Linear(2, 2), "weight", Shrink(), unsafe=True)
    assert tuple(m.weight.shape) == (1, 2)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        register_parametrization(nn.Linear(2, 2), "nothing", Scale())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        remove_parametrizations(nn.Linear(2, 2), "weight")
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        register_parametrization(nn.Linear(2, 2), "weight", Symmetric()).weight = ember.ones(2, 2)


def test_cached_computes_once():
    calls = []

    class Counting(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1

    m = register_parametrization(nn.Linear(2, 2), "weight", Counting())
    calls.clear()
    m.weight, m.weight
    assert len(calls) == 2
    calls.clear()
    with parametrize.cached():
        a, b = m.weight, m.weight
        assert a is b
    assert len(calls) == 1
    m.weight
    assert len(calls) == 2  # the cache is gone after the context


def test_gradients_reach_the_original_and_training_mode_follows():
    ember.manual_seed(1)
    m = register_parametrization(nn.Linear(3, 3).double(), "weight", Symmetric())
    x = ember.randn(4, 3, dtype=ember.float64)
    finite_difference_check(lambda: (m(x) ** 2).sum(), [m.parametrizations.weight.original, m.bias])
    g = np_of(m.parametrizations.weight.original.grad)
    assert np.all(np.tril(g, -1) == 0)  # the strictly lower triangle does not enter the weight
    m.eval()
    assert not m.parametrizations.weight[0].training
    p = Scale()
    register_parametrization(m, "weight", p)
    assert not p.training  # takes the module's mode on registration


def test_state_dict_round_trip_and_deepcopy():
    ember.manual_seed(2)
    src = register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
    dst = register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
    dst.load_state_dict(src.state_dict())
    np.testing.assert_allclose(np_of(dst.weight), np_of(src.weight))
    c = copy.deepcopy(src)
    assert (
        type(c).__name__ == "ParametrizedLinear"
        and c.parametrizations.weight.original is not src.parametrizations.weight.original
    )
    np.testing.assert_allclose(np_of(c.weight), np_of(src.weight))
    assert type(nn.Linear(1, 1)) is nn.Linear


# ---- weight_norm


def np_weight_norm(g, v, dim):
    if dim is None or dim == -1:
        return g * v / np.linalg.norm(v)
    axes = tuple(d for d in range(v.ndim) if d != dim)
    return g * v / np.sqrt((v**2).sum(axis=axes, keepdims=True))


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_values_and_removal(dim):
    ember.manual_seed(3)
    conv = nn.Conv2d(2, 3, 3)
    w = np_of(conv.weight)
    m = weight_norm(conv, dim=dim)
    g, v = np_of(m.weight_g), np_of(m.weight_v)
    np.testing.assert_allclose(v, w)
    np.testing.assert_allclose(np_weight_norm(g, v, dim), w, rtol=1e-5, atol=1e-7)  # starts at the same weight
    with ember.no_grad():
        m.weight_g.mul_(2.0)  # g scales the rows' norms
        m.weight_v.add_(0.5)
    x = ember.randn(1, 2, 5, 5)
    m(x)  # the pre-hook recomputes weight
    expected = np_weight_norm(np_of(m.weight_g), np_of(m.weight_v), dim)
    np.testing.assert_allclose(np_of(m.weight), expected, rtol=1e-5, atol=1e-6)
    if dim == 0:
        np.testing.assert_allclose(np.linalg.norm(expected.reshape(3, -1), axis=1), 2 * g.reshape(-1), rtol=1e-5)
    remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]  # as PyTorch: the weight is registered again, last
    assert isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(np_of(m.weight), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        remove_weight_norm(m)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization_values(dim):
    ember.manual_seed(4)
    lin = nn.Linear(4, 3)
    w = np_of(lin.weight)
    m = parametrizations.weight_norm(lin, dim=dim)
    p = m.parametrizations.weight
    g, v = np_of(p.original0), np_of(p.original1)
    np.testing.assert_allclose(v, w)
    np.testing.assert_allclose(np_of(m.weight), w, rtol=1e-5, atol=1e-7)
    with ember.no_grad():
        p.original0.mul_(3.0)
    np.testing.assert_allclose(np_of(m.weight), np_weight_norm(3 * g, v, dim), rtol=1e-5, atol=1e-6)
    m.weight = ember.ones(3, 4)  # right_inverse: g = ||w||, v = w
    np.testing.assert_allclose(np_of(m.weight), np.ones((3, 4)), rtol=1e-6)


def test_weight_norm_gradients_finite_differences():
    ember.manual_seed(5)
    x = ember.randn(5, 4, dtype=ember.float64)
    m = parametrizations.weight_norm(nn.Linear(4, 3).double())
    p = m.parametrizations.weight
    finite_difference_check(lambda: (m(x) ** 2).sum(), [p.original0, p.original1, m.bias])
    legacy = weight_norm(nn.Linear(4, 3).double(), dim=None)
    finite_difference_check(lambda: (legacy(x) ** 2).sum(), [legacy.weight_g, legacy.weight_v])


def test_weight_norm_parametrization_loads_legacy_state_dict():
    ember.manual_seed(6)
    legacy = weight_norm(nn.Linear(4, 3))
    with ember.no_grad():
        legacy.weight_g.mul_(2.0)
    m = parametrizations.weight_norm(nn.Linear(4, 3))
    m.load_state_dict(legacy.state_dict())
    legacy(ember.ones(1, 4))
    np.testing.assert_allclose(np_of(m.weight), np_of(legacy.weight), rtol=1e-6)


# ---- spectral_norm


def largest_singular_value(w, dim=0):
    mat = np.moveaxis(w, dim, 0).reshape(w.shape[dim], -1)
    return np.linalg.svd(mat, compute_uv=False)[0]


@pytest.mark.parametrize(
    "ctor, dim",
    [(lambda: nn.Linear(5, 4), 0), (lambda: nn.Conv2d(2, 3, 3), 0), (lambda: nn.ConvTranspose2d(3, 2, 3), 1)],
)
def test_spectral_norm_parametrization_normalizes_largest_singular_value(ctor, dim):
    ember.manual_seed(7)
    m = parametrizations.spectral_norm(ctor())
    orig = np_of(m.parametrizations.weight.original)
    sigma = largest_singular_value(orig, dim)
    for _ in range(50):  # every access in training mode runs one power iteration
        w = m.weight
    np.testing.assert_allclose(largest_singular_value(np_of(w), dim), 1.0, rtol=1e-4)
    np.testing.assert_allclose(np_of(w), orig / sigma, rtol=1e-4, atol=1e-6)
    sn = m.parametrizations.weight[0]
    u = np_of(sn._u)
    m.eval()
    m.weight
    np.testing.assert_array_equal(np_of(sn._u), u)  # no power iteration in eval mode
    m.train()
    remove_parametrizations(m, "weight")
    assert isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(largest_singular_value(np_of(m.weight), dim), 1.0, rtol=1e-4)


def test_spectral_norm_parametrization_of_a_vector_normalizes_it():
    m = parametrizations.spectral_norm(nn.Linear(3, 4), "bias")
    b = np_of(m.parametrizations.bias.original)
    np.testing.assert_allclose(np_of(m.bias), b / np.linalg.norm(b), rtol=1e-6)


@pytest.mark.parametrize("ctor, dim", [(lambda: nn.Linear(5, 4), 0), (lambda: nn.ConvTranspose1d(2, 3, 3), 1)])
def test_legacy_spectral_norm(ctor, dim):
    ember.manual_seed(8)
    m = spectral_norm(ctor())
    orig = np_of(m.weight_orig)
    sigma = largest_singular_value(orig, dim)
    x = ember.randn(2, 5) if dim == 0 else ember.randn(1, 2, 4)
    for _ in range(60):  # one power iteration per forward in training mode
        m(x)
    np.testing.assert_allclose(largest_singular_value(np_of(m.weight), dim), 1.0, rtol=1e-4)
    np.testing.assert_allclose(np_of(m.weight), orig / sigma, rtol=1e-4, atol=1e-6)
    u = np_of(m.weight_u)
    m.eval()
    m(x)
    np.testing.assert_array_equal(np_of(m.weight_u), u)
    sd = m.state_dict()
    m2 = spectral_norm(ctor())
    m2.load_state_dict(sd)
    m2.eval()
    m2(x)
    np.testing.assert_allclose(np_of(m2.weight), np_of(m.weight), rtol=1e-6)
    remove_spectral_norm(m)
    assert isinstance(m.weight, nn.Parameter) and "weight_u" not in m.state_dict()
    assert not m._state_dict_hooks and not m._load_state_dict_pre_hooks
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        remove_spectral_norm(m)


def test_spectral_norm_gradients_finite_differences():
    # in eval mode u and v are fixed, so the weight is a differentiable function of the original alone
    ember.manual_seed(9)
    x = ember.randn(3, 4, dtype=ember.float64)
    m = parametrizations.spectral_norm(nn.Linear(4, 3).double()).eval()
    finite_difference_check(lambda: (m(x) ** 2).sum(), [m.parametrizations.weight.original])
    legacy = spectral_norm(nn.Linear(4, 3).double()).eval()
    finite_difference_check(lambda: (legacy(x) ** 2).sum(), [legacy.weight_orig])
