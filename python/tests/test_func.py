"""ember.func (torch.func) against closed forms, explicit Jacobians and loops."""

import numpy as np
import pytest
from conftest import to_np

import ember
from ember.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, stack_module_state, vjp, vmap


def t64(a, requires_grad=False):
    return ember.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def test_grad_closed_forms_argnums_and_aux(rng):
    x, y = rng.standard_normal(4), rng.standard_normal(4)
    f = lambda a, b: (a.sin() * b).sum()  # noqa: E731
    np.testing.assert_allclose(to_np(grad(f)(t64(x), t64(y))), np.cos(x) * y, rtol=1e-12)
    gx, gy = grad(f, argnums=(0, 1))(t64(x), t64(y))
    np.testing.assert_allclose(to_np(gx), np.cos(x) * y, rtol=1e-12)
    np.testing.assert_allclose(to_np(gy), np.sin(x), rtol=1e-12)
    g, aux = grad(lambda a: ((a**2).sum(), a.max()), has_aux=True)(t64(x))
    np.testing.assert_allclose(to_np(g), 2 * x)
    assert aux.item() == x.max() and not aux.requires_grad
    g, value = grad_and_value(lambda a: (a**2).sum())(t64(x))
    np.testing.assert_allclose(value.item(), (x**2).sum())
    d = grad(lambda p: (p["w"] * p["b"]).sum())({"w": t64(x), "b": t64(y)})  # a dict of tensors
    np.testing.assert_allclose(to_np(d["w"]), y)
    np.testing.assert_allclose(to_np(d["b"]), x)
    assert not g.requires_grad  # nothing outside required grad: the result is plain


def test_grad_nests_and_composes_with_autograd(rng):
    x = rng.standard_normal(3)
    f = lambda a: (a**3).sum()  # noqa: E731
    second = grad(lambda a: grad(f)(a).sum())(t64(x))
    np.testing.assert_allclose(to_np(second), 6 * x, rtol=1e-12)
    third = grad(lambda a: grad(lambda b: grad(f)(b).sum())(a).sum())(t64(x))
    np.testing.assert_allclose(to_np(third), np.full(3, 6.0))
    w = t64(x, requires_grad=True)  # a parameter: grad's result stays differentiable with respect to it
    g = grad(lambda a: (a * w).pow(2).sum())(t64(np.ones(3)))
    assert g.requires_grad
    g.sum().backward()
    np.testing.assert_allclose(to_np(w.grad), 4 * x, rtol=1e-12)  # d/dw sum(2 * a * w^2) at a=1
    with ember.no_grad():  # grad ignores an outer no_grad, as PyTorch's
        np.testing.assert_allclose(to_np(grad(f)(t64(x))), 3 * x**2, rtol=1e-12)


def test_grad_errors():
    with pytest.raises(RuntimeError, match="scalar Tensor"):
        grad(lambda a: a * 2)(t64([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="floating point"):
        grad(lambda a: a.sum())(ember.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="argnums=2"):
        grad(lambda a, b: a.sum(), argnums=2)(t64([1.0]), t64([1.0]))
    with pytest.raises(RuntimeError, match="tuple: \\(output, aux\\)"):
        grad(lambda a: a.sum(), has_aux=True)(t64([1.0]))


def test_jacrev_jacfwd_hessian_against_closed_forms(rng):
    A = rng.standard_normal((3, 4))
    x = rng.standard_normal(4)
    At = t64(A)
    for jac in (jacrev, jacfwd):
        np.testing.assert_allclose(to_np(jac(lambda v: At @ v)(t64(x))), A, rtol=1e-12)
    j = jacrev(lambda v: v.exp().reshape(2, 2))(t64(x))
    assert tuple(j.shape) == (2, 2, 4)
    np.testing.assert_allclose(to_np(j).reshape(4, 4), np.diag(np.exp(x)), rtol=1e-12)
    ja, jb = jacrev(lambda a, b: a * b, argnums=(0, 1))(t64(x), t64(2 * x))
    np.testing.assert_allclose(to_np(ja), np.diag(2 * x))
    np.testing.assert_allclose(to_np(jb), np.diag(x))
    j1, j2 = jacrev(lambda v: (v.sum(), v * 3))(t64(x))  # a tuple of outputs
    np.testing.assert_allclose(to_np(j1), np.ones(4))
    np.testing.assert_allclose(to_np(j2), 3 * np.eye(4))
    Q = rng.standard_normal((4, 4))
    H = hessian(lambda v: v @ t64(Q) @ v)(t64(x))
    np.testing.assert_allclose(to_np(H), Q + Q.T, rtol=1e-12)


def test_vjp_and_jvp_agree_with_the_jacobian(rng):
    x = rng.standard_normal(3)
    f = lambda v: ember.stack([v[0] * v[1], v[1].sin(), v.pow(2).sum()])  # noqa: E731
    J = to_np(jacrev(f)(t64(x)))
    u, t = rng.standard_normal(3), rng.standard_normal(3)
    out, fn = vjp(f, t64(x))
    np.testing.assert_allclose(to_np(out), to_np(f(t64(x))))
    (g,) = fn(t64(u))
    np.testing.assert_allclose(to_np(g), u @ J, rtol=1e-12)
    out, jv = jvp(f, (t64(x),), (t64(t),))
    np.testing.assert_allclose(to_np(jv), J @ t, rtol=1e-12)
    eps = 1e-6  # and against central differences
    fd = (to_np(f(t64(x + eps * t))) - to_np(f(t64(x - eps * t)))) / (2 * eps)
    np.testing.assert_allclose(to_np(jv), fd, rtol=1e-6, atol=1e-8)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        fn(t64(np.ones(2)))
    with pytest.raises(RuntimeError, match="same length"):
        jvp(f, (t64(x),), ())


def test_vmap_matches_a_loop(rng):
    a, b = rng.standard_normal((5, 2, 3)), rng.standard_normal((3, 4))
    got = vmap(lambda m, n: m @ n, in_dims=(0, None))(t64(a), t64(b))
    np.testing.assert_allclose(to_np(got), a @ b, rtol=1e-12)
    got = vmap(lambda m: m.sum(0), in_dims=1, out_dims=1)(t64(a))  # map over dim 1, stack results along dim 1
    np.testing.assert_allclose(
        to_np(got), a.sum(0).T.reshape(3, 2).T if False else np.stack([a[:, i].sum(0) for i in range(2)], 1), rtol=1e-12
    )
    nested = vmap(vmap(lambda s: s * 2))(t64(a))
    np.testing.assert_allclose(to_np(nested), 2 * a)
    d = vmap(lambda m: {"s": m.sum(), "t": (m.max(), m.min())})(t64(a))
    np.testing.assert_allclose(to_np(d["s"]), a.sum((1, 2)))
    np.testing.assert_allclose(to_np(d["t"][1]), a.min((1, 2)))
    # Per-sample gradients: vmap of grad, against one backward per sample.
    w = rng.standard_normal(3)
    xs = rng.standard_normal((6, 3))
    loss = lambda p, xi: (p * xi).sum().tanh()  # noqa: E731
    per = vmap(grad(loss), in_dims=(None, 0))(t64(w), t64(xs))
    ref = [(1 - np.tanh(w @ xi) ** 2) * xi for xi in xs]
    np.testing.assert_allclose(to_np(per), np.stack(ref), rtol=1e-12)


def test_vmap_randomness_and_errors():
    x = ember.zeros(4, 3)
    same = vmap(lambda r: r + ember.rand(3), randomness="same")(x)
    np.testing.assert_array_equal(to_np(same[0]), to_np(same[3]))
    diff = vmap(lambda r: r + ember.rand(3), randomness="different")(x)
    assert not np.array_equal(to_np(diff[0]), to_np(diff[1]))
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        vmap(lambda p, q: p + q)(ember.zeros(3), ember.zeros(4))
    with pytest.raises(ValueError, match="non-Tensor"):
        vmap(lambda p, q: p, in_dims=(0, 0))(ember.zeros(3), 2.0)
    with pytest.raises(ValueError, match="must only return Tensors"):
        vmap(lambda p: 1.0)(ember.zeros(3))
    with pytest.raises(ValueError, match="dimension 1"):
        vmap(lambda p: p, in_dims=2)(ember.zeros(3))
    with pytest.raises(RuntimeError, match="randomness"):
        vmap(lambda p: p, randomness="sometimes")


def test_stack_module_state():
    models = [ember.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert sorted(params) == ["bias", "weight"] and buffers == {}
    assert tuple(params["weight"].shape) == (4, 2, 3) and params["weight"].is_leaf and params["weight"].requires_grad
    np.testing.assert_array_equal(to_np(params["bias"][2]), to_np(models[2].bias.detach()))
    models[1].eval()
    with pytest.raises(RuntimeError, match="training/eval"):
        stack_module_state(models)


def test_per_sample_gradients_and_ensembles_with_functional_call(rng):
    from ember.func import functional_call

    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Tanh(), ember.nn.Linear(4, 1)).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = t64(rng.standard_normal((5, 3))), t64(rng.standard_normal((5, 1)))

    def loss(p, xi, yi):
        return ((functional_call(model, p, (xi.unsqueeze(0),)) - yi) ** 2).sum()

    per = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(5):
        model.zero_grad()
        ((model(x[i : i + 1]) - y[i]) ** 2).sum().backward()
        for k, p in model.named_parameters():
            np.testing.assert_allclose(to_np(per[k][i]), to_np(p.grad), rtol=1e-12, atol=1e-15)
    models = [ember.nn.Linear(3, 2).double() for _ in range(3)]
    stacked, buffers = stack_module_state(models)
    out = vmap(lambda p, b, xx: functional_call(models[0], (p, b), (xx,)), in_dims=(0, 0, None))(stacked, buffers, x)
    for i, m in enumerate(models):
        np.testing.assert_allclose(to_np(out[i]), to_np(m(x).detach()), rtol=1e-12)
