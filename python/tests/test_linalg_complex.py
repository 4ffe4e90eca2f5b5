"""Complex linear algebra (ember/backend/cpu/lapack.cpp's c/z routines; ops/lapack.cpp, lu.cpp, matrix_functions.cpp,
norm.cpp): torch.linalg on complex64/complex128 against numpy.linalg (batched, non-contiguous, zero-size, odd sizes),
linalg.eig/eigvals on real and complex input, ormqr, polar and matrix_sqrth; gradients by gradcheck on complex inputs;
the error paths with PyTorch's messages."""

import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

import ember
import ember.linalg as LA
from ember.autograd import gradcheck

CPLX = [ember.complex64, ember.complex128]
TOL = {ember.complex64: dict(rtol=2e-4, atol=2e-4), ember.complex128: dict(rtol=1e-10, atol=1e-10)}
NP = {ember.complex64: np.complex64, ember.complex128: np.complex128}
TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")


def arr(t):
    # Results may be conjugate views (lu_solve's, as PyTorch's), which numpy() refuses until resolved.
    t = t.detach().resolve_conj()
    return t.numpy().astype(np.complex128) if t.is_complex() else t.numpy().astype(np.float64)


def crand(rng, *shape, dtype=ember.complex128, transposed=False):
    """A complex tensor with parts in [-1, 1) and its complex128 values; transposed: a non-contiguous view (mT)."""
    a = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)
    a = a.astype(NP[dtype])
    if transposed:
        t = ember.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT
        assert not t.is_contiguous() or min(shape[-2:]) <= 1 or t.numel() == 0
    else:
        t = ember.tensor(a)
    return t, a.astype(np.complex128)


def hpd(rng, n, batch=(), dtype=ember.complex128):
    x = rng.uniform(-1, 1, batch + (n, n)) + 1j * rng.uniform(-1, 1, batch + (n, n))
    a = x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)
    return ember.tensor(a.astype(NP[dtype])), a


def close(t, expected, dtype, scale=1.0):
    tol = {k: v * scale for k, v in TOL[dtype].items()}
    np.testing.assert_allclose(arr(t), expected, **tol)


def mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


@pytest.fixture
def rng():
    return np.random.default_rng(0)


SQUARE = [(3, 3), (2, 4, 4), (1, 1), (0, 3, 3), (2, 0, 0), (5, 5)]


# ------------------------------------------------------------------------------------------------ forward vs numpy


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("transposed", [False, True])
def test_inv_det_slogdet_solve(rng, dtype, shape, transposed):
    A, a = crand(rng, *shape, dtype=dtype, transposed=transposed)
    a = a + 2 * np.eye(shape[-1])  # well conditioned
    A = A + 2 * ember.eye(shape[-1], dtype=dtype)
    close(LA.inv(A), np.linalg.inv(a) if a.size else a, dtype)
    d = LA.det(A)
    assert d.dtype == dtype
    close(d, np.linalg.det(a) if a.size else np.ones(shape[:-2]), dtype)
    sign, logabs = LA.slogdet(A)
    assert sign.dtype == dtype and logabs.dtype == dtype.to_real()
    if a.size:
        s_np, l_np = np.linalg.slogdet(a)
        close(sign, s_np, dtype)
        close(logabs, l_np, dtype)
        close(ember.logdet(A), np.log(s_np) + l_np, dtype)
    B, b = crand(rng, *shape[:-1], 2, dtype=dtype)
    close(LA.solve(A, B), np.linalg.solve(a, b) if a.size else b, dtype)
    close(
        LA.solve(A, B.mT, left=False),
        np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2) if a.size else np.swapaxes(b, -1, -2),
        dtype,
    )
    if len(shape) == 2 and a.size:
        close(LA.tensorinv(A, ind=1), np.linalg.inv(a), dtype)


@pytest.mark.parametrize("dtype", CPLX)
def test_vector_rhs_and_tensorsolve(rng, dtype):
    A, a = crand(rng, 4, 4, dtype=dtype)
    b, bn = crand(rng, 4, dtype=dtype)
    close(LA.solve(A, b), np.linalg.solve(a, bn), dtype)
    T, t = crand(rng, 2, 3, 6, dtype=dtype)
    y, yn = crand(rng, 2, 3, dtype=dtype)
    close(LA.tensorsolve(T, y), np.linalg.tensorsolve(t, yn), dtype, scale=10)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", [(3,), (2, 5), (0,)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family(rng, dtype, shape, upper):
    n = 3 if shape[-1:] != (0,) else 0
    batch = shape[:-1] if len(shape) > 1 else ()
    if shape == (2, 5):
        n, batch = 5, (2,)
    A, a = hpd(rng, n, batch, dtype)
    L = LA.cholesky(A, upper=upper)
    ln = np.linalg.cholesky(a) if a.size else a
    close(L, mH(ln) if upper else ln, dtype)
    L2, info = LA.cholesky_ex(A, upper=upper)
    close(L2, arr(L), dtype)
    assert info.tolist() == np.zeros(batch, dtype=int).tolist()
    B, b = crand(rng, *batch, n, 2, dtype=dtype)
    close(ember.cholesky_solve(B, L, upper=upper), np.linalg.solve(a, b) if a.size else b, dtype, scale=10)
    close(ember.cholesky_inverse(L, upper=upper), np.linalg.inv(a) if a.size else a, dtype, scale=10)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(rng, dtype, shape, mode):
    A, a = crand(rng, *shape, dtype=dtype, transposed=True)
    Q, R = LA.qr(A, mode=mode)
    assert R.dtype == dtype
    np.testing.assert_allclose(
        np.abs(np.diagonal(arr(R), 0, -2, -1)),
        np.abs(
            np.diagonal(
                np.linalg.qr(a, mode="r" if mode == "r" else mode)[1] if mode != "r" else np.linalg.qr(a, mode="r"),
                0,
                -2,
                -1,
            )
        ),
        **TOL[dtype],
    )
    if mode == "r":
        return
    q, r = arr(Q), arr(R)
    close(Q @ R, a, dtype)
    np.testing.assert_allclose(
        mH(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), mH(q).shape[:-1] + (q.shape[-1],)), **TOL[dtype]
    )
    assert np.allclose(np.tril(r, -1), 0)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (2, 3, 2)])
def test_geqrf_householder_ormqr(rng, dtype, shape):
    A, a = crand(rng, *shape, dtype=dtype)
    h, tau = ember.geqrf(A)
    Q = LA.householder_product(h, tau)
    Qr, R = LA.qr(A)
    close(Q, arr(Qr), dtype, scale=10)  # LAPACK's reflectors: the same Q as qr
    close(ember.triu(h)[..., : shape[-1], :], arr(R), dtype, scale=10)
    m = shape[-2]
    C, c = crand(rng, *shape[:-2], m, 3, dtype=dtype)
    qfull = (
        arr(
            LA.householder_product(
                ember.cat([h, ember.zeros(*shape[:-1], m - shape[-1], dtype=dtype)], -1),
                ember.cat([tau, ember.zeros(*shape[:-2], m - tau.shape[-1], dtype=dtype)], -1),
            )
        )
        if m > shape[-1]
        else arr(Q)
    )
    close(ember.ormqr(h, tau, C), qfull @ c, dtype, scale=10)
    close(ember.ormqr(h, tau, C, transpose=True), mH(qfull) @ c, dtype, scale=10)
    D, d = crand(rng, *shape[:-2], 3, m, dtype=dtype)
    close(ember.ormqr(h, tau, D, left=False), d @ qfull, dtype, scale=10)
    close(ember.ormqr(h, tau, D, left=False, transpose=True), d @ mH(qfull), dtype, scale=10)
    # the composed path (taken when a gradient is recorded) computes the same
    Dg = D.clone().requires_grad_()
    close(ember.ormqr(h, tau, Dg, left=False, transpose=True), d @ mH(qfull), dtype, scale=10)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 5), (0, 2), (1, 1)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(rng, dtype, shape, full):
    A, a = crand(rng, *shape, dtype=dtype, transposed=True)
    U, S, Vh = LA.svd(A, full_matrices=full)
    assert S.dtype == dtype.to_real() and U.dtype == dtype
    close(S, np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(shape[:-2] + (0,)), dtype)
    close(LA.svdvals(A), arr(S), dtype)
    k = min(shape[-2:])
    us = arr(U)[..., :k] * arr(S)[..., None, :]
    close(ember.tensor(us.astype(NP[dtype])) @ Vh[..., :k, :], a, dtype)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("n,batch", [(4, ()), (3, (2,)), (0, ()), (1, (3,))])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(rng, dtype, n, batch, uplo):
    A, a = hpd(rng, n, batch, dtype)
    L, V = LA.eigh(A, UPLO=uplo)
    assert L.dtype == dtype.to_real()
    close(L, np.linalg.eigvalsh(a) if a.size else np.zeros(batch + (0,)), dtype, scale=10)
    close(LA.eigvalsh(A, UPLO=uplo), arr(L), dtype, scale=10)
    v = arr(V)
    close(V @ ember.diag_embed(L.to(dtype)) @ V.mH, a, dtype, scale=10)
    np.testing.assert_allclose(mH(v) @ v, np.broadcast_to(np.eye(n), batch + (n, n)), **TOL[dtype])


def _sorted(w):
    return np.sort_complex(np.round(w, 6))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, *CPLX])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1), (0, 0), (2, 0, 0), (7, 7)])
def test_eig(rng, dtype, shape):
    if dtype.is_complex:
        A, a = crand(rng, *shape, dtype=dtype, transposed=True)
    else:
        a = rng.uniform(-1, 1, shape)
        A = ember.tensor(a, dtype=dtype).mT
        a = np.swapaxes(a, -1, -2)
    L, V = LA.eig(A)
    cdt = dtype if dtype.is_complex else dtype.to_complex()
    assert L.dtype == cdt and V.dtype == cdt and L.shape == shape[:-1] and V.shape == shape
    tol = 1e-4 if cdt == ember.complex64 else 1e-10
    l, v = arr(L), arr(V)
    np.testing.assert_allclose(a @ v, v * l[..., None, :], atol=tol * 10)  # A V = V diag(L)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), np.ones(shape[:-1]), atol=tol)
    ref = np.linalg.eigvals(a) if a.size else np.zeros(shape[:-1])
    np.testing.assert_allclose(
        np.sort_complex(arr(LA.eigvals(A)).reshape(-1, shape[-1]) if a.size else arr(LA.eigvals(A))).round(3),
        np.sort_complex(ref.reshape(-1, shape[-1]) if a.size else ref).round(3),
        atol=2e-3,
    )


def test_eig_rotation_pairs():
    L, V = LA.eig(ember.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=ember.float64))
    assert L.tolist() == [1j, -1j]
    np.testing.assert_allclose(arr(V), np.array([[1, 1], [-1j, 1j]]) / np.sqrt(2), atol=1e-12)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3)])
def test_pinv_rank_cond_norms(rng, dtype, shape):
    A, a = crand(rng, *shape, dtype=dtype, transposed=True)
    close(LA.pinv(A), np.linalg.pinv(a) if a.size else np.zeros(shape[:-2] + shape[-2:][::-1]), dtype, scale=10)
    assert LA.matrix_rank(A).tolist() == (
        np.linalg.matrix_rank(a).tolist() if a.size else np.zeros(shape[:-2], int).tolist()
    )
    if a.size:
        c = LA.cond(A)
        assert c.dtype == dtype.to_real()
        close(c, np.linalg.cond(a), dtype, scale=10)
    for p in ["fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf]:
        if not a.size and p in (2, -2, "nuc", -1, -np.inf, 1, np.inf):
            continue
        n = LA.matrix_norm(A, ord=p)
        assert n.dtype == dtype.to_real()
        close(n, np.linalg.norm(a, ord=p, axis=(-2, -1)), dtype, scale=10)
    for p in [2, 1, np.inf, 3.5, 0]:
        close(
            LA.vector_norm(A, ord=p, dim=-1),
            np.linalg.norm(a, ord=p, axis=-1) if a.size else np.zeros(shape[:-1]),
            dtype,
        )
    close(LA.norm(A), np.linalg.norm(a.reshape(-1)), dtype)
    close(ember.norm(A), np.linalg.norm(a.reshape(-1)), dtype)
    if a.size and shape[-1] == shape[-2]:
        Ap = A + A.mH
        close(LA.pinv(Ap, hermitian=True), np.linalg.pinv(a + mH(a), hermitian=True), dtype, scale=100)
        assert LA.matrix_rank(Ap, hermitian=True).tolist() == np.linalg.matrix_rank(a + mH(a), hermitian=True).tolist()


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape", [(5, 3), (2, 6, 4), (3, 3)])
def test_lstsq(rng, dtype, driver, shape):
    A, a = crand(rng, *shape, dtype=dtype, transposed=True)
    B, b = crand(rng, *shape[:-1], 2, dtype=dtype)
    r = LA.lstsq(A, B, driver=driver)
    ref = np.linalg.pinv(a) @ b
    close(r.solution, ref, dtype, scale=100)
    if driver in ("gelsd", "gelss"):
        close(r.singular_values, np.linalg.svd(a, compute_uv=False), dtype, scale=10)
    if driver != "gelsy" and shape[-2] > shape[-1]:
        assert r.residuals.dtype == dtype.to_real()
        close(r.residuals, (np.abs(a @ ref - b) ** 2).sum(-2), dtype, scale=100)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular(rng, dtype, upper, left, unit):
    A, a = crand(rng, 2, 4, 4, dtype=dtype, transposed=True)
    a = (np.triu(a) if upper else np.tril(a)) + 3 * np.eye(4)
    if unit:
        a = a - np.diagonal(a, 0, -2, -1)[..., None] * np.eye(4) + np.eye(4)
    At = ember.tensor(a.astype(NP[dtype]))
    B, b = crand(rng, 2, 4, 3, dtype=dtype)
    if left:
        close(LA.solve_triangular(At, B, upper=upper, unitriangular=unit), np.linalg.solve(a, b), dtype, scale=10)
    else:
        close(
            LA.solve_triangular(At, B.mT, upper=upper, left=False, unitriangular=unit),
            np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2),
            dtype,
            scale=10,
        )


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (4, 2), (2, 5)])
def test_lu_family(rng, dtype, shape):
    A, a = crand(rng, *shape, dtype=dtype, transposed=True)
    P, L, U = LA.lu(A)
    close(P @ L @ U, a, dtype)
    LU, piv = LA.lu_factor(A)
    P2, L2, U2 = ember.lu_unpack(LU, piv)
    close(L2, arr(L), dtype)
    if shape[-1] != shape[-2]:
        return
    B, b = crand(rng, *shape[:-1], 2, dtype=dtype)
    close(LA.lu_solve(LU, piv, B), np.linalg.solve(a, b), dtype, scale=10)
    close(LA.lu_solve(LU, piv, B, adjoint=True), np.linalg.solve(mH(a), b), dtype, scale=10)
    Bt = B.mT
    close(
        LA.lu_solve(LU, piv, Bt, left=False),
        np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2),
        dtype,
        scale=10,
    )
    close(
        LA.lu_solve(LU, piv, Bt, left=False, adjoint=True),
        np.swapaxes(np.linalg.solve(np.conj(a), b), -1, -2),
        dtype,
        scale=10,
    )


@pytest.mark.parametrize("dtype", CPLX)
def test_matrix_exp_and_power(rng, dtype):
    A, a = crand(rng, 2, 4, 4, dtype=dtype)
    w, v = np.linalg.eig(a)
    close(LA.matrix_exp(A), v @ (np.exp(w)[..., None] * np.linalg.inv(v)), dtype, scale=10)
    close(
        LA.matrix_exp(A * 30),
        np.linalg.matrix_power(v @ (np.exp(w * 30 / 64)[..., None] * np.linalg.inv(v)), 64),
        dtype,
        scale=1e3,
    )
    close(LA.matrix_power(A, -2), np.linalg.matrix_power(np.linalg.inv(a), 2), dtype, scale=10)


@pytest.mark.parametrize("dtype", CPLX)
def test_products(rng, dtype):
    x, xn = crand(rng, 5, dtype=dtype)
    y, yn = crand(rng, 5, dtype=dtype)
    close(ember.vdot(x, y), np.vdot(xn, yn), dtype)
    close(ember.dot(x, y), np.dot(xn, yn), dtype)
    close(ember.inner(x, y), np.inner(xn, yn), dtype)
    M, m = crand(rng, 3, 5, dtype=dtype)
    close(ember.inner(M, x), np.inner(m, xn), dtype)
    mats = [crand(rng, *s, dtype=dtype) for s in [(3, 4), (4, 2), (2, 5)]]
    close(LA.multi_dot([t for t, _ in mats]), np.linalg.multi_dot([n for _, n in mats]), dtype)


@pytest.mark.parametrize("dtype", [ember.float64, *CPLX])
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 1), (3, 0), (2, 0, 0)])
def test_polar(rng, dtype, shape):
    if dtype.is_complex:
        A, a = crand(rng, *shape, dtype=dtype)
    else:
        a = rng.uniform(-1, 1, shape)
        A = ember.tensor(a)
    U, H = LA.polar(A)
    assert U.shape == shape and H.shape == shape[:-2] + (shape[-1], shape[-1]) and U.is_contiguous()
    tol = TOL.get(dtype, dict(rtol=1e-10, atol=1e-10))
    u, h = arr(U), arr(H)
    np.testing.assert_allclose(u @ h, a, **tol)
    np.testing.assert_allclose(mH(u) @ u, np.broadcast_to(np.eye(shape[-1]), shape[:-2] + (shape[-1],) * 2), **tol)
    np.testing.assert_allclose(h, mH(h), **tol)
    if h.size:  # H = (A^H A)^(1/2): positive semi-definite
        assert (np.linalg.eigvalsh(h) > -1e-5).all()
        np.testing.assert_allclose(h @ h, mH(a) @ a, **{k: v * 10 for k, v in tol.items()})


@pytest.mark.parametrize("dtype", [ember.float32, *CPLX])
@pytest.mark.parametrize("n,batch", [(4, ()), (3, (2,)), (0, ()), (2, (0,))])
def test_matrix_sqrth(rng, dtype, n, batch):
    if dtype.is_complex:
        A, a = hpd(rng, n, batch, dtype)
    else:
        x = rng.uniform(-1, 1, batch + (n, n))
        a = x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
        A = ember.tensor(a, dtype=dtype)
    X = LA.matrix_sqrth(A)
    assert X.shape == A.shape and X.dtype == dtype
    x = arr(X)
    np.testing.assert_allclose(x @ x, a, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(x, mH(x), atol=1e-5)
    # only the lower triangle is read; negative eigenvalues count as 0 (PyTorch's)
    np.testing.assert_allclose(
        arr(LA.matrix_sqrth(ember.tensor([[4.0, 100.0], [0.0, 9.0]]))), [[2, 0], [0, 3]], atol=1e-6
    )
    np.testing.assert_allclose(
        arr(LA.matrix_sqrth(ember.tensor([[1.0, 2.0], [2.0, 1.0]]))), np.full((2, 2), np.sqrt(3) / 2), atol=1e-6
    )


# ------------------------------------------------------------------------------------------------ gradients


def c(rng, *shape):
    return crand(rng, *shape)[0].requires_grad_()


def hermitian(X):
    return (X + X.mH) / 2


GRADS = {
    "inv": lambda X: LA.inv(X + 2 * ember.eye(3, dtype=X.dtype)),
    "det": lambda X: LA.det(X),
    "slogdet_sign": lambda X: LA.slogdet(X)[0],
    "slogdet_logabs": lambda X: LA.slogdet(X)[1],
    "logdet": lambda X: ember.logdet(X),
    "solve": lambda X: LA.solve(X + 2 * ember.eye(3, dtype=X.dtype), X[..., :2] * 1j),
    "solve_left_false": lambda X: LA.solve(X + 2 * ember.eye(3, dtype=X.dtype), X[..., :2, :], left=False),
    "solve_triangular": lambda X: LA.solve_triangular(ember.triu(X) + 3 * ember.eye(3, dtype=X.dtype), X, upper=True),
    "cholesky": lambda X: LA.cholesky(X @ X.mH + 3 * ember.eye(3, dtype=X.dtype)),
    "cholesky_upper": lambda X: LA.cholesky(X @ X.mH + 3 * ember.eye(3, dtype=X.dtype), upper=True),
    "cholesky_solve": lambda X: ember.cholesky_solve(X, ember.tril(X) + 3 * ember.eye(3, dtype=X.dtype)),
    "cholesky_inverse": lambda X: ember.cholesky_inverse(ember.triu(X) + 3 * ember.eye(3, dtype=X.dtype), upper=True),
    "qr": lambda X: LA.qr(X),
    "qr_wide": lambda X: LA.qr(X[..., :2, :]),
    "qr_tall": lambda X: LA.qr(X[..., :2]),
    "eigvalsh": lambda X: LA.eigvalsh(hermitian(X)),
    "eigh_invariant": lambda X: (lambda L, V: (L, V.abs(), V @ V.mH))(*LA.eigh(hermitian(X))),
    "svdvals": lambda X: LA.svdvals(X),
    "svd_invariant": lambda X: (lambda U, S, Vh: (S, U @ Vh, U.abs()))(*LA.svd(X, full_matrices=False)),
    "svd_tall": lambda X: (lambda U, S, Vh: U @ Vh)(*LA.svd(X[..., :2], full_matrices=False)),
    "pinv": lambda X: LA.pinv(X[..., :2]),
    "pinv_hermitian": lambda X: LA.pinv(hermitian(X) + 3 * ember.eye(3, dtype=X.dtype), hermitian=True),
    "lstsq": lambda X: LA.lstsq(X, X[..., :1] * (1 + 1j), driver="gelsd").solution,
    "lstsq_residuals": lambda X: (
        LA.lstsq(ember.cat([X, X[:1] * 2], 0)[..., :2], ember.cat([X, X[:1]], 0), driver="gels").residuals
    ),
    "matrix_exp": lambda X: LA.matrix_exp(X),
    "lu": lambda X: LA.lu(X)[1:],
    "lu_factor": lambda X: LA.lu_factor(X)[0],
    "lu_solve": lambda X: LA.lu_solve(*LA.lu_factor(X + 3 * ember.eye(3, dtype=X.dtype)), X, adjoint=True),
    "lu_solve_right": lambda X: LA.lu_solve(*LA.lu_factor(X + 3 * ember.eye(3, dtype=X.dtype)), X, left=False),
    "householder_product": lambda X: LA.householder_product(X, X[..., 0, :2] * 0.5),
    "ormqr": lambda X: ember.ormqr(X, X[..., 1, :] * 0.5, X * 1j, transpose=True),
    "ormqr_right": lambda X: ember.ormqr(X[..., :2], X[..., 1, :2] * 0.5, X, left=False),
    "eigvals": lambda X: LA.eigvals(X),
    "eig_invariant": lambda X: (lambda L, V: (L, V.abs()))(*LA.eig(X)),
    "polar": lambda X: LA.polar(X),
    "polar_tall": lambda X: LA.polar(X[..., :2]),
    "matrix_sqrth": lambda X: LA.matrix_sqrth(X @ X.mH + ember.eye(3, dtype=X.dtype)),
    "matrix_norm_nuc": lambda X: LA.matrix_norm(X, "nuc"),
    "matrix_norm_2": lambda X: LA.matrix_norm(X, 2),
    "matrix_norm_1": lambda X: LA.matrix_norm(X, 1),
    "vector_norm": lambda X: LA.vector_norm(X, 3.0, dim=-1),
    "vector_norm_2": lambda X: LA.vector_norm(X, dim=(-2, -1)),
    "cond": lambda X: LA.cond(X),
    "tensorinv": lambda X: LA.tensorinv(X[0] + 2 * ember.eye(3, dtype=X.dtype), ind=1),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck(name):
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    X = c(rng, 2, 3, 3) if name not in ("lstsq_residuals",) else c(rng, 3, 3)
    assert gradcheck(GRADS[name], (X,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_gradcheck_eig_real_input():
    rng = np.random.default_rng(3)
    X = ember.tensor(rng.uniform(-1, 1, (3, 3)), requires_grad=True)
    assert gradcheck(lambda A: ember.view_as_real(LA.eigvals(A)), (X,))
    assert gradcheck(lambda A: LA.eig(A)[1].abs(), (X,))


def test_gauge_errors():
    rng = np.random.default_rng(1)
    X = c(rng, 3, 3)
    with pytest.raises(
        RuntimeError,
        match=r"linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by e\^",
    ):
        LA.eig(X)[1].sum().abs().backward()
    with pytest.raises(RuntimeError, match=r"linalg_eigh_backward: The eigenvectors in the complex case"):
        LA.eigh(hermitian(X))[1].real.sum().backward()
    with pytest.raises(
        RuntimeError,
        match=r"svd_backward: The singular vectors in the complex case are specified up to multiplication by e\^",
    ):
        LA.svd(X)[0].real.sum().backward()


@needs_torch
def test_polar_and_sqrth_gradients_match_torch():
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (4, 3)) + 1j * rng.uniform(-1, 1, (4, 3))
    w = rng.uniform(-1, 1, (4, 3)) + 1j * rng.uniform(-1, 1, (4, 3))
    wh = rng.uniform(-1, 1, (3, 3)) + 1j * rng.uniform(-1, 1, (3, 3))
    s = a[:3] @ np.conj(a[:3]).T + np.eye(3)
    code = textwrap.dedent(
        """
        import json, sys, torch
        d = json.load(sys.stdin)
        f64 = lambda x: torch.tensor(x, dtype=torch.float64)
        c = lambda k: torch.complex(f64(d[k][0]), f64(d[k][1]))
        A = c("a").requires_grad_()
        U, H = torch.linalg.polar(A)
        ((U * c("w").conj()).real.sum() + (H * c("wh").conj()).real.sum()).backward()
        S = c("s").requires_grad_()
        (torch.linalg.matrix_sqrth(S) * c("wh").conj()).real.sum().backward()
        g = lambda t: [t.real.tolist(), t.imag.tolist()]
        print(json.dumps({"polar": g(A.grad), "sqrth": g(S.grad)}))
        """
    )
    enc = lambda x: [x.real.tolist(), x.imag.tolist()]  # noqa: E731
    out = subprocess.run(
        [TORCH_PY, "-c", code],
        input=json.dumps({"a": enc(a), "w": enc(w), "wh": enc(wh), "s": enc(s)}),
        capture_output=True,
        text=True,
        check=True,
    )
    ref = json.loads(out.stdout)
    t = lambda x: ember.tensor(x, dtype=ember.complex128)  # noqa: E731
    A = t(a).requires_grad_()
    U, H = LA.polar(A)
    ((U * t(w).conj()).real.sum() + (H * t(wh).conj()).real.sum()).backward()
    np.testing.assert_allclose(arr(A.grad), np.array(ref["polar"][0]) + 1j * np.array(ref["polar"][1]), atol=1e-8)
    S = t(s).requires_grad_()
    (LA.matrix_sqrth(S) * t(wh).conj()).real.sum().backward()
    np.testing.assert_allclose(arr(S.grad), np.array(ref["sqrth"][0]) + 1j * np.array(ref["sqrth"][1]), atol=1e-8)


# ------------------------------------------------------------------------------------------------ errors


def test_errors():
    z = ember.zeros(2, 2, dtype=ember.complex64)
    with pytest.raises(
        LA.LinAlgError,
        match="linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input "
        "matrix is singular.",
    ):
        LA.inv(z)
    with pytest.raises(
        LA.LinAlgError, match="torch.linalg.solve: The solver failed because the input matrix is singular."
    ):
        LA.solve(z, ember.ones(2, dtype=ember.complex64))
    with pytest.raises(
        RuntimeError,
        match="linalg.solve: Expected A and B to have the same dtype, but found A of type ComplexFloat and B of type "
        "Float instead",
    ):
        LA.solve(ember.eye(2, dtype=ember.complex64), ember.ones(2))
    with pytest.raises(
        LA.LinAlgError,
        match=r"linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
        r"\(the leading minor of order 1 is not positive-definite\).",
    ):
        LA.cholesky(-ember.eye(2, dtype=ember.complex128))
    with pytest.raises(
        RuntimeError, match="linalg.eig: A must be batches of square matrices, but they are 2 by 3 matrices"
    ):
        LA.eig(ember.ones(2, 3, dtype=ember.complex64))
    with pytest.raises(RuntimeError, match="linalg.eigvals: The input tensor A must have at least 2 dimensions."):
        LA.eigvals(ember.ones(2))
    with pytest.raises(
        NotImplementedError, match="linalg.eig: Expected a floating point or complex tensor as input. Got Long"
    ):
        LA.eig(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="torch.linalg.eig: input tensor should not contain infs or NaNs."):
        LA.eig(ember.tensor([[float("nan"), 1.0], [0.0, 1.0]]))
    with pytest.raises(
        NotImplementedError, match="linalg.inv: Expected a floating point or complex tensor as input. Got Long"
    ):
        LA.inv(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(
        RuntimeError, match="linalg.polar: input must have at least as many rows as columns, but got 2 by 3 matrices"
    ):
        LA.polar(ember.ones(2, 3, dtype=ember.complex64))
    with pytest.raises(RuntimeError, match="linalg.polar: The input tensor A must have at least 2 dimensions."):
        LA.polar(ember.ones(2))
    with pytest.raises(NotImplementedError, match="linalg.matrix_sqrth: Low precision dtypes not supported. Got Half"):
        LA.matrix_sqrth(ember.ones(2, 2, dtype=ember.float16))
    with pytest.raises(
        RuntimeError, match="linalg.matrix_sqrth: A must be batches of square matrices, but they are 2 by 3 matrices"
    ):
        LA.matrix_sqrth(ember.ones(2, 3))
    with pytest.raises(
        RuntimeError, match=r"linalg.vector_norm: dtype should be complex for complex inputs, but got Double"
    ):
        LA.vector_norm(ember.ones(2, dtype=ember.complex64), dtype=ember.float64)
    with pytest.raises(
        RuntimeError, match=r"linalg.vector_norm: dtype should be real for real inputs, but got ComplexDouble"
    ):
        LA.vector_norm(ember.ones(2), dtype=ember.complex128)
    r = ember.randn
    with pytest.raises(RuntimeError, match=r"torch.ormqr: other.shape\[-2\] must be equal to input.shape\[-2\]"):
        ember.ormqr(r(3, 2), r(2), r(2, 2))
    with pytest.raises(
        RuntimeError, match=r"torch.ormqr: tau.shape\[-1\] must be equal to min\(other.shape\[-2\], input.shape\[-1\]\)"
    ):
        ember.ormqr(r(3, 2), r(3), r(3, 2))
    with pytest.raises(RuntimeError, match=r"torch.ormqr: other.shape\[-1\] must be equal to input.shape\[-2\]"):
        ember.ormqr(r(3, 2), r(2), r(3, 2), left=False)
    with pytest.raises(
        RuntimeError,
        match="torch.ormqr: Expected input and tau to have the same dtype, but input has dtypeFloat and tau has dtype "
        "Double",
    ):
        ember.ormqr(r(3, 2), r(2, dtype=ember.float64), r(3, 2))
    with pytest.raises(
        RuntimeError,
        match=r"torch.ormqr: Expected batch dimensions of other to be equal to input.shape\[:-2\], but got \[4\]",
    ):
        ember.ormqr(r(2, 3, 2), r(2, 2), r(4, 3, 5))


def test_slogdet_logdet_complex_values():
    A = ember.tensor([[1j, 0], [0, 1]], dtype=ember.complex64)
    sign, logabs = LA.slogdet(A)
    assert sign.item() == 1j and logabs.item() == 0.0
    assert abs(ember.logdet(A).item() - 1.5707964j) < 1e-6
    assert LA.det(A).item() == 1j


def test_meta_shapes():
    A = ember.empty(2, 4, 3, device="meta", dtype=ember.complex64)
    h, tau = ember.geqrf(A)
    assert h.is_meta and h.shape == (2, 4, 3) and tau.shape == (2, 3) and tau.dtype == ember.complex64
    C = ember.empty(2, 4, 5, device="meta", dtype=ember.complex64)
    r = ember.ormqr(A, tau, C)
    assert r.is_meta and r.shape == (2, 4, 5)
    L, V = LA.eig(ember.empty(3, 5, 5, device="meta"))
    assert L.is_meta and L.shape == (3, 5) and L.dtype == ember.complex64 and V.shape == (3, 5, 5)
    assert LA.eigvals(ember.empty(5, 5, device="meta", dtype=ember.float64)).dtype == ember.complex128


META_OPS = {
    "inv": lambda A: LA.inv(A),
    "solve": lambda A: LA.solve(A, A[..., :2]),
    "solve_left_false": lambda A: LA.solve(A, A[..., :2, :], left=False),
    "det": lambda A: LA.det(A),
    "slogdet": lambda A: LA.slogdet(A),
    "cholesky": lambda A: LA.cholesky(A, upper=True),
    "cholesky_ex": lambda A: LA.cholesky_ex(A),
    "cholesky_inverse": lambda A: ember.cholesky_inverse(A),
    "qr": lambda A: LA.qr(A[..., :2], mode="complete"),
    "svd": lambda A: LA.svd(A[..., :2, :]),
    "svdvals": lambda A: LA.svdvals(A),
    "eigh": lambda A: LA.eigh(A),
    "eig": lambda A: LA.eig(A),
    "lstsq": lambda A: tuple(LA.lstsq(A[..., :2], A, driver="gelsd")),
    "lu": lambda A: LA.lu(A),
    "lu_factor": lambda A: LA.lu_factor(A),
    "lu_solve": lambda A: LA.lu_solve(*LA.lu_factor(A), A),
    "pinv": lambda A: LA.pinv(A[..., :2]),
    "matrix_rank": lambda A: LA.matrix_rank(A),
    "matrix_exp": lambda A: LA.matrix_exp(A),
    "matrix_norm": lambda A: LA.matrix_norm(A, "nuc"),
    "cond": lambda A: LA.cond(A),
    "polar": lambda A: LA.polar(A),
    "matrix_sqrth": lambda A: LA.matrix_sqrth(A),
    "solve_triangular": lambda A: LA.solve_triangular(A, A, upper=False),
}


@pytest.mark.parametrize("dtype", [ember.float64, ember.complex64])
@pytest.mark.parametrize("name", sorted(META_OPS))
def test_meta_matches_cpu_geometry(name, dtype):
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (2, 3, 3)) + (1j * rng.uniform(-1, 1, (2, 3, 3)) if dtype.is_complex else 0)
    a = a @ np.conj(np.swapaxes(a, -1, -2)) + 3 * np.eye(3)  # Hermitian positive-definite: every op accepts it
    cpu = META_OPS[name](ember.tensor(a.astype(NP.get(dtype, np.float64))))
    meta = META_OPS[name](ember.empty(2, 3, 3, dtype=dtype, device="meta"))
    cpu, meta = (cpu, meta) if isinstance(cpu, tuple) else ((cpu,), (meta,))
    for c_, m_ in zip(cpu, meta):
        assert m_.is_meta and m_.shape == c_.shape and m_.dtype == c_.dtype, (name, m_, c_)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("batch", [(), (2,), (0,)])
def test_ldl(rng, dtype, hermitian, batch):
    A, a = crand(rng, *batch, 4, 4, dtype=dtype)
    a = a + (mH(a) if hermitian else np.swapaxes(a, -1, -2)) + 8 * np.eye(4)  # Hermitian or complex symmetric
    A = ember.tensor(a.astype(NP[dtype]))
    LD, piv = LA.ldl_factor(A, hermitian=hermitian)
    B, b = crand(rng, *batch, 4, 2, dtype=dtype)
    close(LA.ldl_solve(LD, piv, B, hermitian=hermitian), np.linalg.solve(a, b) if a.size else b, dtype, scale=10)
    # no pivoting for this diagonally dominant A: L21 = a21 / a11, D2 = a22 - a21 conj?(a21) / a11 (closed form)
    two = np.array([[2 + 1j, 1 - 1j], [1 - 1j, 3]]) if not hermitian else np.array([[4, 2 - 1j], [2 + 1j, 6]])
    LD2, piv2 = LA.ldl_factor(ember.tensor(two.astype(NP[dtype])), hermitian=hermitian)
    a21 = two[1, 0]
    d2 = two[1, 1] - (a21 * (np.conj(a21) if hermitian else a21)) / two[0, 0]
    close(LD2, np.array([[two[0, 0], 0], [a21 / two[0, 0], d2]]), dtype)
    assert piv2.tolist() == [1, 2]


def test_vecdot_and_dist_complex(rng):
    X, x = crand(rng, 3, 4)
    Y, y = crand(rng, 3, 4)
    close(LA.vecdot(X, Y), (np.conj(x) * y).sum(-1), ember.complex128)  # conjugates its first argument
    close(ember.dist(X, Y), np.linalg.norm((x - y).ravel()), ember.complex128)
    close(ember.dist(X, Y, 3), np.sum(np.abs(x - y) ** 3) ** (1 / 3), ember.complex128)
