"""ember.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against closed forms and NumPy finite
differences, PyTorch's output structure for tensor/tuple inputs and outputs, and the strict-mode and v errors."""

import numpy as np
import pytest
from conftest import from_np, to_np

import ember
from ember.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

F64 = ember.float64


def rand64(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 1.5, shape)


def t64(a):
    return from_np(np.asarray(a, dtype=np.float64))


def np_jacobian(f, xs, h=1e-6):
    """Central differences of a NumPy function f(*xs) -> array: one array per input, out.shape + in.shape."""
    xs = [np.array(x, dtype=np.float64) for x in xs]
    out = np.asarray(f(*xs))
    jacs = []
    for i, x in enumerate(xs):
        J = np.zeros(out.shape + x.shape)
        for k in np.ndindex(x.shape):
            plus = [y.copy() for y in xs]
            minus = [y.copy() for y in xs]
            plus[i][k] += h
            minus[i][k] -= h
            J[(Ellipsis,) + k] = (np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * h)
        jacs.append(J)
    return jacs


def np_hessian(f, x, h=1e-4):
    """Second central differences of a scalar NumPy function of one array: x.shape + x.shape."""
    x = np.array(x, dtype=np.float64)
    n = x.size
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(n):

            def at(di, dj):
                y = x.copy().reshape(-1)
                y[i] += di
                y[j] += dj
                return f(y.reshape(x.shape))

            H[i, j] = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4 * h * h)
    return H.reshape(x.shape + x.shape)


def close(t, ref, atol=1e-6, rtol=1e-6):
    assert isinstance(t, ember.Tensor)
    assert tuple(t.shape) == np.shape(ref)
    np.testing.assert_allclose(to_np(t), ref, atol=atol, rtol=rtol)


# ---- jacobian


def test_jacobian_cube_is_diag_3x2():
    x = rand64(4)
    J = jacobian(lambda t: t**3, t64(x))
    close(J, np.diag(3 * x**2))
    assert not J.requires_grad


def test_jacobian_matrix_function_against_finite_differences():
    x = rand64(3, 3)
    J = jacobian(lambda t: t * ember.sin(t.t()), t64(x))
    (ref,) = np_jacobian(lambda a: a * np.sin(a.T), [x])
    close(J, ref, atol=1e-7)


def test_jacobian_tuple_inputs_gives_tuple():
    x, y = rand64(3), rand64(3, seed=1)
    J = jacobian(lambda a, b: a * b + ember.sin(a), (t64(x), t64(y)))
    assert isinstance(J, tuple) and len(J) == 2
    close(J[0], np.diag(y + np.cos(x)))
    close(J[1], np.diag(x))


def test_jacobian_tuple_outputs_and_inputs_nested():
    x, y = rand64(2, 3), rand64(2, 3, seed=1)

    def f(a, b):
        return a.exp() * b.transpose(0, 1).transpose(0, 1), (a - b).tanh().permute(1, 0)

    def fn(a, b):
        return np.exp(a) * b, np.tanh(a - b).T

    J = jacobian(f, (t64(x), t64(y)))
    assert isinstance(J, tuple) and len(J) == 2 and all(isinstance(r, tuple) and len(r) == 2 for r in J)
    ref0 = np_jacobian(lambda a, b: fn(a, b)[0], [x, y])
    ref1 = np_jacobian(lambda a, b: fn(a, b)[1], [x, y])
    for got, ref in zip(J[0] + J[1], ref0 + ref1):
        close(got, ref, atol=1e-7)
    assert tuple(J[1][0].shape) == (3, 2, 2, 3)


def test_jacobian_tuple_outputs_single_input():
    x = rand64(3)
    J = jacobian(lambda a: (a**2, a.sin()), t64(x))
    assert isinstance(J, tuple) and len(J) == 2 and isinstance(J[0], ember.Tensor)
    close(J[0], np.diag(2 * x))
    close(J[1], np.diag(np.cos(x)))


def test_jacobian_scalar_input_and_output():
    J = jacobian(lambda a: a.exp() * a, ember.tensor(0.5, dtype=F64))
    assert tuple(J.shape) == ()
    np.testing.assert_allclose(J.item(), np.exp(0.5) * 1.5, rtol=1e-12)


def test_jacobian_of_select_is_one_hot_rows():
    x = rand64(4)
    J = jacobian(lambda a: a[2] * a[0], t64(x))
    close(J, np.array([x[2], 0.0, x[0], 0.0]))


def test_jacobian_independent_input_zeros_or_strict_error():
    x, y = t64(rand64(3)), t64(rand64(3, seed=1))
    J = jacobian(lambda a, b: a**2, (x, y))
    close(J[1], np.zeros((3, 3)))
    with pytest.raises(
        RuntimeError,
        match="Output 0 of the user-provided function is independent of input 1. This is not allowed in strict mode.",
    ):
        jacobian(lambda a, b: a**2, (x, y), strict=True)


def test_jacobian_strict_output_without_grad():
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not require gradients"):
        jacobian(lambda a: ember.ones(3, dtype=F64), t64(rand64(3)), strict=True)
    close(jacobian(lambda a: ember.ones(3, dtype=F64), t64(rand64(3))), np.zeros((3, 3)))


def test_jacobian_create_graph_is_differentiable():
    x = rand64(3)
    xt = t64(x).requires_grad_(True)
    J = jacobian(lambda a: a**3, xt, create_graph=True)
    assert J.requires_grad
    w = rand64(3, 3, seed=2)
    (g,) = ember.autograd.grad(J, xt, t64(w))
    # d/dx_k sum_ij w_ij * delta_ij * 3 x_i^2 = 6 x_k w_kk
    close(g, 6 * x * np.diag(w))


def test_jacobian_does_not_touch_inputs():
    x = t64(rand64(3)).requires_grad_(True)
    jacobian(lambda a: a.sin(), x)
    assert x.grad is None and x.requires_grad
    y = t64(rand64(3))
    jacobian(lambda a: a.sin(), y)
    assert not y.requires_grad


def test_jacobian_closure_capture_is_not_the_input():
    # the function sees a new tensor: the captured original is a constant (PyTorch issue 32576)
    x = rand64(3)
    xt = t64(x)
    close(jacobian(lambda a: a * xt, xt), np.diag(x))


def test_jacobian_empty_output():
    J = jacobian(lambda a: a[:0] * 2, t64(rand64(3)))
    assert tuple(J.shape) == (0, 3)


def test_jacobian_vectorize_and_forward_mode_match_reverse():
    x, y = rand64(2, 2), rand64(2, 2, seed=1)
    f = lambda a, b: (a * b.t(), (a - b).exp())  # noqa: E731
    ref = jacobian(f, (t64(x), t64(y)))
    for kw in ({"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}):
        got = jacobian(f, (t64(x), t64(y)), **kw)
        for r_row, g_row in zip(ref, got):
            for r, g in zip(r_row, g_row):
                close(g, to_np(r), atol=1e-12)


def test_jacobian_option_errors():
    x = t64(rand64(3))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        jacobian(lambda a: a * 2, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match='`create_graph=True` and `strategy="forward-mode"`'):
        jacobian(lambda a: a * 2, x, create_graph=True, strategy="forward-mode", vectorize=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"):
        jacobian(lambda a: a * 2, x, strict=True, vectorize=True)
    with pytest.raises(AssertionError, match="Expected strategy"):
        jacobian(lambda a: a * 2, x, strategy="sideways")
    with pytest.raises(TypeError, match="The inputs given to jacobian must be either a Tensor or a tuple of Tensors"):
        jacobian(lambda a: a * 2, [1.0, 2.0])
    with pytest.raises(TypeError, match="outputs of the user-provided function given to jacobian"):
        jacobian(lambda a: 3.0, x)


# ---- hessian


def test_hessian_of_select_polynomial_closed_form():
    x = rand64(3)
    H = hessian(lambda a: a[0] * a[1] + a[2] ** 3, t64(x))
    ref = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 6 * x[2]]])
    close(H, ref)


def test_hessian_of_sum_cube_is_diag_6x():
    x = rand64(4)
    close(hessian(lambda a: (a**3).sum(), t64(x)), np.diag(6 * x))


def test_hessian_of_quadratic_form_is_a_plus_at():
    A, x = rand64(3, 3, seed=3), rand64(3)
    At = t64(A)
    H = hessian(lambda a: (a * (At * a.view(1, 3)).sum(1)).sum(), t64(x))
    close(H, A + A.T)


def test_hessian_matrix_input_against_finite_differences():
    x = rand64(2, 2)
    f = lambda a: a[0, 0] * a[1, 1].exp() + a[0, 1].sin() * a[1, 0] ** 2  # noqa: E731
    fn = lambda a: a[0, 0] * np.exp(a[1, 1]) + np.sin(a[0, 1]) * a[1, 0] ** 2  # noqa: E731
    H = hessian(f, t64(x))
    close(H, np_hessian(fn, x), atol=1e-5)


def test_hessian_tuple_inputs_nested_blocks():
    x, y = rand64(2), rand64(2, seed=1)
    H = hessian(lambda a, b: a[0] ** 2 * b[1] + a[1] * b[0], (t64(x), t64(y)))
    assert isinstance(H, tuple) and all(isinstance(r, tuple) and len(r) == 2 for r in H)
    # f = x0^2 y1 + x1 y0
    close(H[0][0], np.array([[2 * y[1], 0], [0, 0]]))
    close(H[0][1], np.array([[0, 2 * x[0]], [1, 0]]))
    close(H[1][0], np.array([[0, 1], [2 * x[0], 0]]))
    close(H[1][1], np.zeros((2, 2)))


def test_hessian_forward_over_reverse_matches():
    x = rand64(3)
    f = lambda a: a[0] * a[1].exp() + a[2] ** 3 * a[0]  # noqa: E731
    ref = hessian(f, t64(x))
    got = hessian(f, t64(x), vectorize=True, outer_jacobian_strategy="forward-mode")
    close(got, to_np(ref), atol=1e-12)


def test_hessian_create_graph():
    x = rand64(2)
    xt = t64(x).requires_grad_(True)
    H = hessian(lambda a: a[0] ** 3 * a[1], xt, create_graph=True)
    assert H.requires_grad
    # H = [[6 x0 x1, 3 x0^2], [3 x0^2, 0]]; d H[0,0] / dx = (6 x1, 6 x0)
    (g,) = ember.autograd.grad(H[0, 0], xt)
    close(g, np.array([6 * x[1], 6 * x[0]]))


def test_hessian_errors():
    x = t64(rand64(3))
    with pytest.raises(
        RuntimeError, match="The Tensor returned by the function given to hessian should contain a single element"
    ):
        hessian(lambda a: a**2, x)
    with pytest.raises(RuntimeError, match="The function given to hessian should return a single Tensor"):
        hessian(lambda a: (a[0] ** 2,), x)
    # linear: the Hessian is zero; strict mode rejects a jacobian that does not depend on the input
    close(hessian(lambda a: a[0] * 2 + a[1], x), np.zeros((3, 3)))
    with pytest.raises(
        RuntimeError, match="jacobian of the user-provided function with respect to input 0 is independent of the input"
    ):
        hessian(lambda a: a[0] * 2 + a[1], x, strict=True)


# ---- vjp


def test_vjp_cube():
    x, v = rand64(4), rand64(4, seed=1)
    out, g = vjp(lambda a: a**3, t64(x), t64(v))
    close(out, x**3)
    close(g, 3 * x**2 * v)
    assert not out.requires_grad and not g.requires_grad


def test_vjp_against_finite_differences_tuples():
    x, y = rand64(3, 3), rand64(3, 3, seed=1)
    v0, v1 = rand64(3, 3, seed=2), rand64(3, 3, seed=3)

    def fn(a, b):
        return a * np.sin(b.T), np.exp(a - b)

    out, g = vjp(lambda a, b: (a * ember.sin(b.t()), (a - b).exp()), (t64(x), t64(y)), (t64(v0), t64(v1)))
    assert isinstance(out, tuple) and isinstance(g, tuple) and len(g) == 2
    close(out[0], fn(x, y)[0])
    J0 = np_jacobian(lambda a, b: fn(a, b)[0], [x, y])
    J1 = np_jacobian(lambda a, b: fn(a, b)[1], [x, y])
    for k in range(2):
        ref = np.tensordot(v0, J0[k], axes=2) + np.tensordot(v1, J1[k], axes=2)
        close(g[k], ref, atol=1e-7)


def test_vjp_scalar_output_without_v():
    x = rand64(3)
    out, g = vjp(lambda a: a[0] * a[2].exp(), t64(x))
    np.testing.assert_allclose(out.item(), x[0] * np.exp(x[2]))
    close(g, np.array([np.exp(x[2]), 0, x[0] * np.exp(x[2])]))


def test_vjp_with_sum():
    x = rand64(3)
    _, g = vjp(lambda a: (a * a.sin()).sum(), t64(x))
    close(g, np.sin(x) + x * np.cos(x))


def test_vjp_v_errors():
    x = t64(rand64(3))
    with pytest.raises(
        RuntimeError,
        match=r"v has invalid size: should be ember.Size\(\[3\]\) but got "
        r"ember.Size\(\[4\]\)",
    ):
        vjp(lambda a: a * 2, x, ember.ones(4, dtype=F64))
    with pytest.raises(
        RuntimeError,
        match=r"Entry 1 in v has invalid size: should be ember.Size\(\[3\]\) but got "
        r"ember.Size\(\[2, 2\]\)",
    ):
        vjp(lambda a: (a * 2, a * 3), x, (ember.ones(3, dtype=F64), ember.ones(2, 2, dtype=F64)))
    with pytest.raises(RuntimeError, match="v is a tuple of invalid length: should be 2 but got 1"):
        vjp(lambda a: (a * 2, a * 3), x, (ember.ones(3, dtype=F64),))
    with pytest.raises(RuntimeError, match="The given v should contain a single Tensor"):
        vjp(lambda a: a * 2, x, (ember.ones(3, dtype=F64), ember.ones(3, dtype=F64)))
    with pytest.raises(
        RuntimeError,
        match="The vector v can only be None if the user-provided function returns a "
        "single Tensor with a single element",
    ):
        vjp(lambda a: a * 2, x)


def test_vjp_strict_and_zeros():
    x, y = t64(rand64(3)), t64(rand64(3, seed=1))
    v = ember.ones(3, dtype=F64)
    _, g = vjp(lambda a, b: a.exp(), (x, y), v)
    close(g[1], np.zeros(3))
    with pytest.raises(
        RuntimeError,
        match="The output of the user-provided function is independent of input 1. This is not allowed in strict mode.",
    ):
        vjp(lambda a, b: a.exp(), (x, y), v, strict=True)


def test_vjp_create_graph():
    x = rand64(3)
    xt = t64(x).requires_grad_(True)
    _, g = vjp(lambda a: a**3, xt, ember.ones(3, dtype=F64), create_graph=True)
    assert g.requires_grad
    (gg,) = ember.autograd.grad(g, xt, ember.ones(3, dtype=F64))
    close(gg, 6 * x)


# ---- jvp


def test_jvp_cube():
    x, v = rand64(4), rand64(4, seed=1)
    out, g = jvp(lambda a: a**3, t64(x), t64(v))
    close(out, x**3)
    close(g, 3 * x**2 * v)


def test_jvp_against_finite_differences_tuples():
    x, y = rand64(3, 3), rand64(3, 3, seed=1)
    u, w = rand64(3, 3, seed=2), rand64(3, 3, seed=3)

    def fn(a, b):
        return a * np.sin(b.T), np.exp(a - b)

    out, g = jvp(lambda a, b: (a * ember.sin(b.t()), (a - b).exp()), (t64(x), t64(y)), (t64(u), t64(w)))
    assert isinstance(g, tuple) and len(g) == 2
    for k in range(2):
        Jx, Jy = np_jacobian(lambda a, b: fn(a, b)[k], [x, y])
        close(g[k], np.tensordot(Jx, u, axes=2) + np.tensordot(Jy, w, axes=2), atol=1e-7)


def test_jvp_scalar_input_without_v_and_errors():
    out, g = jvp(lambda a: a.sin() * a, ember.tensor([0.3], dtype=F64))
    close(g, np.array([np.sin(0.3) + 0.3 * np.cos(0.3)]))
    x = t64(rand64(3))
    with pytest.raises(
        RuntimeError,
        match="The vector v can only be None if the input to the user-provided "
        "function is a single Tensor with a single element",
    ):
        jvp(lambda a: a * 2, x)
    with pytest.raises(
        RuntimeError,
        match=r"v has invalid size: should be ember.Size\(\[3\]\) but got "
        r"ember.Size\(\[2\]\)",
    ):
        jvp(lambda a: a * 2, x, ember.ones(2, dtype=F64))


def test_jvp_strict_independent_output():
    x, y = t64(rand64(3)), t64(rand64(3, seed=1))
    v = (ember.ones(3, dtype=F64), ember.ones(3, dtype=F64))
    _, g = jvp(lambda a, b: (a * b, ember.zeros(3, dtype=F64)), (x, y), v)
    close(g[1], np.zeros(3))
    with pytest.raises(RuntimeError, match="Output 1 of the user-provided function does not require gradients"):
        jvp(lambda a, b: (a * b, ember.zeros(3, dtype=F64)), (x, y), v, strict=True)
    with pytest.raises(RuntimeError, match="The output of the user-provided function is independent of input 1"):
        jvp(lambda a, b: a * 2, (x, y), v, strict=True)


# ---- hvp / vhp


def test_hvp_vhp_select_polynomial():
    x, v = rand64(3), rand64(3, seed=1)
    H = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 6 * x[2]]])
    f = lambda a: a[0] * a[1] + a[2] ** 3  # noqa: E731
    out, hv = hvp(f, t64(x), t64(v))
    np.testing.assert_allclose(out.item(), x[0] * x[1] + x[2] ** 3)
    close(hv, H @ v)
    out, vh = vhp(f, t64(x), t64(v))
    close(vh, v @ H)


def test_hvp_tuple_inputs_against_finite_differences():
    x, y = rand64(2), rand64(2, seed=1)
    u, w = rand64(2, seed=2), rand64(2, seed=3)
    f = lambda a, b: a[0] ** 2 * b[1].exp() + a[1] * b[0].sin()  # noqa: E731
    fn = lambda z: z[0] ** 2 * np.exp(z[3]) + z[1] * np.sin(z[2])  # noqa: E731
    H = np_hessian(fn, np.concatenate([x, y]))
    uw = np.concatenate([u, w])
    _, hv = hvp(f, (t64(x), t64(y)), (t64(u), t64(w)))
    _, vh = vhp(f, (t64(x), t64(y)), (t64(u), t64(w)))
    assert isinstance(hv, tuple) and len(hv) == 2
    ref = H @ uw
    for got in (hv, vh):
        close(got[0], ref[:2], atol=1e-5)
        close(got[1], ref[2:], atol=1e-5)


def test_hvp_with_sum():
    x, v = rand64(4), rand64(4, seed=1)
    _, hv = hvp(lambda a: (a**3).sum(), t64(x), t64(v))
    close(hv, 6 * x * v)


def test_hvp_vhp_errors():
    x = t64(rand64(3))
    v = ember.ones(3, dtype=F64)
    for fn, name in ((hvp, "hvp"), (vhp, "vhp")):
        with pytest.raises(RuntimeError, match=f"The function given to {name} should return a single Tensor"):
            fn(lambda a: (a[0], a[1]), x, v)
        with pytest.raises(
            RuntimeError, match=f"The Tensor returned by the function given to {name} should contain a single element"
        ):
            fn(lambda a: a * a, x, v)
        with pytest.raises(RuntimeError, match=r"v has invalid size: should be ember.Size\(\[3\]\)"):
            fn(lambda a: a[0] * a[1], x, ember.ones(2, dtype=F64))
        # linear: zero Hessian, an error in strict mode
        _, r = fn(lambda a: a[0] * 2, x, v)
        close(r, np.zeros(3))
        with pytest.raises(
            RuntimeError,
            match="jacobian of the user-provided function with respect to input 0 is independent of the input",
        ):
            fn(lambda a: a[0] * 2, x, v, strict=True)


def test_hvp_create_graph():
    x, v = rand64(2), rand64(2, seed=1)
    xt = t64(x).requires_grad_(True)
    _, hv = hvp(lambda a: a[0] ** 3 * a[1], xt, t64(v), create_graph=True)
    assert hv.requires_grad
    # hv = (6 x0 x1 v0 + 3 x0^2 v1, 3 x0^2 v0); d hv[1] / dx = (6 x0 v0, 0)
    (g,) = ember.autograd.grad(hv[1], xt)
    close(g, np.array([6 * x[0] * v[0], 0.0]))


def test_create_graph_results_pass_gradcheck():
    # the derivatives of create_graph=True results against finite differences (gradcheck)
    x = t64(rand64(3)).requires_grad_(True)
    v = t64(rand64(3, seed=1))
    f = lambda a: a.sin() * a[0] + a**3  # noqa: E731
    g = lambda a: a[0] * a[1].exp() + a[2] ** 3 * a[1]  # noqa: E731
    assert ember.autograd.gradcheck(lambda a: jacobian(f, a, create_graph=True), (x,))
    assert ember.autograd.gradcheck(lambda a: vjp(f, a, v, create_graph=True)[1], (x,))
    assert ember.autograd.gradcheck(lambda a: jvp(f, a, v, create_graph=True)[1], (x,))
    assert ember.autograd.gradcheck(lambda a: hvp(g, a, v, create_graph=True)[1], (x,))
    assert ember.autograd.gradcheck(lambda a: vhp(g, a, v, create_graph=True)[1], (x,))
    assert ember.autograd.gradcheck(lambda a: hessian(g, a, create_graph=True), (x,))
