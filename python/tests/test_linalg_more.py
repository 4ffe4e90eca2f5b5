"""The LU and LDL^T families, the *_ex forms, the Cholesky helpers and the composed matrix functions of
ember.linalg, against NumPy and scipy.linalg: batched, non-contiguous, empty (0x0 and batch 0) and singular inputs,
and the errors (LinAlgError for singular / not positive-definite inputs, with PyTorch's messages). Gradients:
gradcases/linalg_more.py.
"""

import numpy as np
import pytest
import scipy.linalg as sl
from conftest import from_np, make_layout
from test_linalg import arr, spd

import ember
import ember.linalg as LA

FLOATS = [ember.float32, ember.float64]
TOL = {ember.float32: dict(rtol=1e-4, atol=1e-4), ember.float64: dict(rtol=1e-10, atol=1e-10)}
LAYOUTS = ["contiguous", "transposed", "stepped"]


def close(t, expected, **tol):
    expected = np.asarray(expected, dtype=np.float64)
    assert tuple(t.shape) == expected.shape, (tuple(t.shape), expected.shape)
    np.testing.assert_allclose(arr(t), expected, **(tol or TOL[t.dtype]))


def rand(rng, *shape, dtype=ember.float64, layout="contiguous", shift=0.0):
    def values(rng, shape, dtype):
        a = rng.uniform(-1, 1, shape)
        if shift and len(shape) >= 2:
            a = a + shift * np.eye(shape[-2], shape[-1])
        return np.array(a, dtype=np.float32 if dtype is ember.float32 else np.float64, ndmin=0)

    t, a = make_layout(rng, shape, dtype, layout, values)
    return t, np.asarray(a, np.float64)


SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


# ------------------------------------------------------------------------------------------------ LU


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 4, 4), (2, 3, 3, 2)])
def test_lu_factor_matches_scipy(rng, dtype, layout, shape):
    t, a = rand(rng, *shape, dtype=dtype, layout=layout)
    LU, piv = LA.lu_factor(t)
    assert piv.dtype == ember.int32 and tuple(piv.shape) == shape[:-2] + (min(shape[-2:]),)
    flat = a.reshape((-1,) + shape[-2:])
    lus, pivs = zip(*[sl.lu_factor(m) for m in flat]) if shape[-2] == shape[-1] else (None, None)
    if lus is not None:
        close(LU, np.stack(lus).reshape(shape))
        np.testing.assert_array_equal(arr(piv).reshape(-1, shape[-1]), np.stack(pivs) + 1)
    # P L U reconstructs A, and P L U from lu_unpack equals linalg.lu
    P, L, U = ember.lu_unpack(LU, piv)
    close(P @ L @ U, a)
    P2, L2, U2 = LA.lu(t)
    for x, y in ((P, P2), (L, L2), (U, U2)):
        close(x, arr(y))
    for m, Pm, Lm, Um in zip(
        flat,
        arr(P2).reshape((-1,) + P2.shape[-2:]),
        arr(L2).reshape((-1,) + L2.shape[-2:]),
        arr(U2).reshape((-1,) + U2.shape[-2:]),
    ):
        ps, ls, us = sl.lu(m)
        tol = TOL[dtype]
        np.testing.assert_allclose(Pm, ps, **tol)
        np.testing.assert_allclose(Lm, ls, **tol)
        np.testing.assert_allclose(Um, us, **tol)


def test_lu_factor_ex_info_and_errors():
    S = ember.tensor(SINGULAR)
    LU, piv, info = LA.lu_factor_ex(S)
    assert info.item() == 2 and info.dtype == ember.int32
    close(LU, [[2.0, 4.0], [0.5, 0.0]])
    assert piv.tolist() == [2, 2]
    msg = "U\\[2,2\\] is zero and using it on lu_solve would result in a division by zero"
    with pytest.raises(RuntimeError, match="torch.linalg.lu_factor: " + msg):
        LA.lu_factor(S)
    with pytest.raises(RuntimeError, match=r"torch.linalg.lu_factor_ex: \(Batch element 1\): " + msg):
        LA.lu_factor_ex(ember.stack([ember.eye(2), S]), check_errors=True)
    # torch.lu never raises; get_infos hands info back
    assert ember.lu(S, get_infos=True).info.item() == 2
    assert len(ember.lu(S)) == 2 and len(S.lu(get_infos=True)) == 3
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented"):
        LA.lu_factor(ember.eye(2), pivot=False)
    with pytest.raises(RuntimeError, match="Expected tensor with 2 or more dimensions"):
        LA.lu_factor(ember.ones(3))
    with pytest.raises(RuntimeError, match="linalg.lu: Expected tensor with 2 or more dimensions"):
        LA.lu(ember.ones(3))
    with pytest.raises(RuntimeError, match="floating point"):
        LA.lu_factor(ember.ones(2, 2, dtype=ember.int64))


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3), (3, 0), (0, 2)])
def test_lu_empty(shape):
    t = ember.zeros(*shape)
    LU, piv, info = LA.lu_factor_ex(t)
    assert tuple(LU.shape) == shape and tuple(piv.shape) == shape[:-2] + (min(shape[-2:]),)
    assert tuple(info.shape) == shape[:-2]
    P, L, U = LA.lu(t)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(P.shape) == shape[:-2] + (m, m) and tuple(L.shape) == shape[:-2] + (m, k)
    assert tuple(U.shape) == shape[:-2] + (k, n)
    if shape[:-2] != (0,):
        close(P, np.broadcast_to(np.eye(m), shape[:-2] + (m, m)))


def test_lu_unpack_options_and_errors():
    LU, piv = LA.lu_factor(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    P, L, U = ember.lu_unpack(LU, piv, unpack_data=False)
    assert L.numel() == 0 and U.numel() == 0
    close(P, [[0.0, 1.0], [1.0, 0.0]])
    P, L, U = ember.lu_unpack(LU, piv, unpack_pivots=False)
    assert P.numel() == 0
    close(L @ U, [[3.0, 4.0], [1.0, 2.0]])
    with pytest.raises(RuntimeError, match="LU_pivots is expected to be a contiguous tensor of torch.int32"):
        ember.lu_unpack(LU, piv.long())
    with pytest.raises(RuntimeError, match="pivots passed to lu_unpack must be between 1 and LU.size"):
        ember.lu_unpack(LU, ember.tensor([3, 2], dtype=ember.int32))
    with pytest.raises(RuntimeError, match="pivots passed to lu_unpack must be between 1 and LU.size"):
        ember.lu_unpack(LU, ember.tensor([0, 2], dtype=ember.int32))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(rng, dtype, left, adjoint):
    A, a = rand(rng, 2, 1, 4, 4, dtype=dtype, shift=3.0)
    B, b = rand(rng, 3, 4, 2, dtype=dtype, layout="transposed") if left else rand(rng, 3, 2, 4, dtype=dtype)
    LU, piv = LA.lu_factor(A)
    X = LA.lu_solve(LU, piv, B, left=left, adjoint=adjoint)
    op = np.swapaxes(a, -1, -2) if adjoint else a
    expected = (
        np.linalg.solve(op, b)
        if left
        else np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    )
    close(X, expected)
    if left and not adjoint:  # the deprecated forms
        close(ember.lu_solve(B, LU, piv), expected)
        close(B.lu_solve(LU, piv), expected)


def test_lu_solve_errors():
    LU, piv = LA.lu_factor(ember.eye(2))
    with pytest.raises(RuntimeError, match="linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"):
        LA.lu_solve(LU, piv.long(), ember.ones(2, 1))
    with pytest.raises(RuntimeError, match="The input tensor B must have at least 2 dimensions"):
        LA.lu_solve(LU, piv, ember.ones(2))
    with pytest.raises(RuntimeError, match=r"Incompatible shapes of A and B for the equation AX = B \(2x2 and 3x1\)"):
        LA.lu_solve(LU, piv, ember.ones(3, 1))
    with pytest.raises(RuntimeError, match=r"equation XA = B \(2x2 and 1x3\)"):
        LA.lu_solve(LU, piv, ember.ones(1, 3), left=False)
    with pytest.raises(RuntimeError, match="Expected LU and B to have the same dtype"):
        LA.lu_solve(LU, piv, ember.ones(2, 1, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="A must be batches of square matrices"):
        LA.lu_solve(ember.ones(2, 3), piv, ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="Number of pivots per batch should be same as the dimension"):
        LA.lu_solve(LU, ember.tensor([1, 2, 3], dtype=ember.int32), ember.ones(2, 3))
    # empty right-hand sides and batches
    assert tuple(LA.lu_solve(LU, piv, ember.ones(2, 0)).shape) == (2, 0)
    assert tuple(LA.lu_solve(LU, piv, ember.ones(0, 2, 3)).shape) == (0, 2, 3)


# ------------------------------------------------------------------------------------------------ *_ex forms


def test_linalg_error_type():
    assert issubclass(LA.LinAlgError, RuntimeError)
    with pytest.raises(
        LA.LinAlgError,
        match="linalg.inv: The diagonal element 2 is zero, the inversion could not "
        "be completed because the input matrix is singular.",
    ):
        LA.inv(ember.tensor(SINGULAR))
    with pytest.raises(
        LA.LinAlgError,
        match=r"torch.linalg.solve: \(Batch element 1\): The solver failed because "
        "the input matrix is singular.",
    ):
        LA.solve(ember.stack([ember.eye(2), ember.tensor(SINGULAR)]), ember.ones(2, 2, 1))
    with pytest.raises(
        LA.LinAlgError,
        match="linalg.cholesky: The factorization could not be completed because the "
        r"input is not positive-definite \(the leading minor of order 2 is not positive-definite\).",
    ):
        LA.cholesky(ember.tensor(SINGULAR))


@pytest.mark.parametrize("dtype", FLOATS)
def test_inv_ex_solve_ex(rng, dtype):
    A, a = rand(rng, 3, 4, 4, dtype=dtype, layout="stepped", shift=3.0)
    X, info = LA.inv_ex(A)
    close(X, np.linalg.inv(a))
    assert info.tolist() == [0, 0, 0] and info.dtype == ember.int32
    B, b = rand(rng, 4, dtype=dtype)
    X, info = LA.solve_ex(A, B)
    close(X, np.linalg.solve(a, b[:, None])[..., 0])
    assert info.tolist() == [0, 0, 0]
    X, info = LA.solve_ex(A, B.expand(3, 2, 4), left=False)
    close(
        X, np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.broadcast_to(b, (3, 2, 4)).swapaxes(-1, -2)), -1, -2)
    )


def test_ex_forms_singular():
    S = ember.tensor(SINGULAR)
    inv, info = LA.inv_ex(S)
    assert info.item() == 2 and not ember.isfinite(inv).all().item()
    r, info = LA.solve_ex(ember.stack([ember.eye(2), S]), ember.ones(2, 2))
    assert info.tolist() == [0, 2]
    close(r[0], [1.0, 1.0])
    L, info = LA.cholesky_ex(S)
    assert info.item() == 2
    close(L[:, 0], [1.0, 2.0])
    with pytest.raises(LA.LinAlgError, match="linalg.inv_ex: The diagonal element 2 is zero"):
        LA.inv_ex(S, check_errors=True)
    with pytest.raises(LA.LinAlgError, match="torch.linalg.solve_ex: The solver failed"):
        LA.solve_ex(S, ember.ones(2), check_errors=True)
    with pytest.raises(LA.LinAlgError, match="linalg.cholesky_ex: The factorization could not be completed"):
        LA.cholesky_ex(S, check_errors=True)
    with pytest.raises(RuntimeError, match="floating point"):
        LA.inv_ex(ember.ones(2, 2, dtype=ember.int64))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex(rng, dtype, upper):
    A, a = spd(rng, 4, (2,), dtype)
    L, info = LA.cholesky_ex(A, upper=upper)
    expected = np.linalg.cholesky(a)
    close(L, np.swapaxes(expected, -1, -2) if upper else expected)
    assert info.tolist() == [0, 0]
    assert tuple(LA.cholesky_ex(ember.zeros(0, 3, 3)).L.shape) == (0, 3, 3)


# ------------------------------------------------------------------------------------------------ Cholesky helpers


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(rng, dtype, upper):
    A, a = spd(rng, 4, (2,), dtype)
    L = LA.cholesky(A, upper=upper)
    B, b = rand(rng, 3, 1, 4, 2, dtype=dtype, layout="transposed")
    close(ember.cholesky_solve(B, L, upper=upper), np.linalg.solve(a, b))
    close(B.cholesky_solve(L, upper), np.linalg.solve(a, b))
    close(ember.cholesky_inverse(L, upper=upper), np.linalg.inv(a))
    close(L.cholesky_inverse(upper), np.linalg.inv(a))
    assert tuple(ember.cholesky_inverse(ember.zeros(0, 0)).shape) == (0, 0)


def test_cholesky_helpers_errors():
    with pytest.raises(RuntimeError, match="b should have at least 2 dimensions, but has 1 dimensions instead"):
        ember.cholesky_solve(ember.ones(2), ember.eye(2))
    with pytest.raises(RuntimeError, match="Expected b and A to have the same dtype"):
        ember.cholesky_solve(ember.ones(2, 1), ember.eye(2, dtype=ember.float64))
    with pytest.raises(
        RuntimeError,
        match="Incompatible matrix sizes for cholesky_solve: each A matrix is 2 by 2 but each b matrix is 3 by 1",
    ):
        ember.cholesky_solve(ember.ones(3, 1), ember.eye(2))
    with pytest.raises(RuntimeError, match="cholesky_inverse: The input tensor A must have at least 2 dimensions"):
        ember.cholesky_inverse(ember.ones(3))
    with pytest.raises(RuntimeError, match="cholesky_inverse: A must be batches of square matrices"):
        ember.cholesky_inverse(ember.ones(2, 3))
    with pytest.raises(LA.LinAlgError, match=r"cholesky_inverse: \(Batch element 1\): The diagonal element 2 is zero"):
        ember.cholesky_inverse(ember.stack([ember.eye(2), ember.tensor([[1.0, 0.0], [1.0, 0.0]])]))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_triangular_solve(rng, upper, transpose, unitriangular):
    A, a = rand(rng, 4, 4, shift=3.0)
    B, b = rand(rng, 2, 4, 3)
    X, C = ember.triangular_solve(B, A, upper=upper, transpose=transpose, unitriangular=unitriangular)
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        np.fill_diagonal(t, 1.0)
    if transpose:
        t = t.T
    close(X, np.linalg.solve(t, b))
    close(C, np.broadcast_to(a, (2, 4, 4)))
    X2, _ = B.triangular_solve(A, upper, transpose, unitriangular)
    close(X2, arr(X))
    with pytest.raises(RuntimeError, match="torch.triangular_solve: Expected b to have at least 2 dimensions"):
        ember.triangular_solve(ember.ones(2), ember.eye(2))


# ------------------------------------------------------------------------------------------------ matrix functions


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 5, 3)])
def test_matrix_rank(rng, dtype, shape):
    t, a = rand(rng, *shape, dtype=dtype)
    low = t[..., :1] * t[..., :1, :] if t.shape[-1] > 0 else t  # rank one
    np_dtype = np.float32 if dtype is ember.float32 else np.float64
    close(LA.matrix_rank(t).double(), np.linalg.matrix_rank(a.astype(np_dtype)), rtol=0, atol=0)
    close(LA.matrix_rank(low).double(), np.linalg.matrix_rank(arr(low).astype(np_dtype)), rtol=0, atol=0)
    assert LA.matrix_rank(t).dtype == ember.int64
    s = np.linalg.svd(a, compute_uv=False)
    u = np.sort(s, axis=None)  # a threshold halfway between two singular values: one equal to a value would
    mid = float(u[len(u) // 2 - 1] + u[len(u) // 2]) / 2  # hang on its last bit (it did, on CI's CPU)
    close(LA.matrix_rank(t, atol=mid).double(), (s > mid).sum(-1), rtol=0, atol=0)
    close(LA.matrix_rank(t, mid).double(), (s > mid).sum(-1), rtol=0, atol=0)  # the deprecated tol
    close(LA.matrix_rank(t, rtol=0.5).double(), (s > 0.5 * s.max(-1, keepdims=True)).sum(-1), rtol=0, atol=0)
    atol = ember.full(shape[:-2], mid, dtype=dtype)
    close(LA.matrix_rank(t, atol=atol, rtol=0.0).double(), (s > mid).sum(-1), rtol=0, atol=0)


def test_matrix_rank_hermitian_empty_errors(rng):
    A, a = spd(rng, 4)
    assert LA.matrix_rank(A, hermitian=True).item() == 4
    assert LA.matrix_rank(ember.ones(3, 3), hermitian=True).item() == 1
    assert LA.matrix_rank(ember.zeros(0, 3)).item() == 0
    assert LA.matrix_rank(ember.zeros(2, 0, 0)).tolist() == [0, 0]
    with pytest.raises(RuntimeError, match="matrix_rank: The input tensor input must have at least 2 dimensions"):
        LA.matrix_rank(ember.ones(3))
    with pytest.raises(RuntimeError, match="A must be batches of square matrices"):
        LA.matrix_rank(ember.ones(2, 3), hermitian=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", float("inf"), -float("inf"), 1, -1])
def test_cond(rng, dtype, p):
    t, a = rand(rng, 3, 4, 4, dtype=dtype, layout="transposed", shift=1.0)
    close(LA.cond(t, p), np.linalg.cond(a, p))
    if p in (None, 2, -2):
        r, ra = rand(rng, 2, 3, 5, dtype=dtype)
        close(LA.cond(r, p), np.linalg.cond(ra, p))


def test_cond_singular_empty_errors():
    S = ember.tensor(SINGULAR)
    for p in ("fro", 1, -1, float("inf")):
        assert LA.cond(S, p).item() == float("inf")
    assert LA.cond(S, "nuc").item() > 1e6  # from the singular values, as PyTorch
    assert LA.cond(ember.zeros(0, 0)).item() == 0 and LA.cond(ember.zeros(0, 0), "fro").item() == 0
    assert np.isnan(LA.cond(ember.zeros(2, 2), 2).item())
    with pytest.raises(RuntimeError, match="linalg.cond got an invalid norm type: 3"):
        LA.cond(ember.ones(2, 2), 3)
    with pytest.raises(RuntimeError, match="linalg.cond got an invalid norm type: abc"):
        LA.cond(ember.ones(2, 2), "abc")
    with pytest.raises(RuntimeError, match=r"linalg.cond\(ord=fro\): A must be batches of square matrices"):
        LA.cond(ember.ones(2, 3), "fro")
    with pytest.raises(RuntimeError, match="linalg.cond: The input tensor must have at least 2 dimensions"):
        LA.cond(ember.ones(3))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
def test_matrix_exp(rng, dtype, scale):
    t, a = rand(rng, 3, 4, 4, dtype=dtype, layout="stepped")
    t = t * scale
    a = a * scale
    expected = np.stack([sl.expm(m) for m in a])
    big = np.abs(expected).max()
    tol = dict(rtol=1e-4, atol=1e-5 * big) if dtype is ember.float32 else dict(rtol=1e-11, atol=1e-12 * big)
    close(LA.matrix_exp(t), expected, **tol)
    close(ember.matrix_exp(t[1]), expected[1], **tol)
    close(t[1].matrix_exp(), expected[1], **tol)


def test_matrix_exp_closed_forms_and_errors():
    # a rotation generator: exp([[0, -x], [x, 0]]) = [[cos, -sin], [sin, cos]]; a mixed batch (different scalings)
    x = np.array([0.3, 7.0, 40.0])
    g = np.zeros((3, 2, 2))
    g[:, 0, 1], g[:, 1, 0] = -x, x
    r = LA.matrix_exp(ember.tensor(g.tolist(), dtype=ember.float64))
    close(r, np.stack([[np.cos(x), -np.sin(x)], [np.sin(x), np.cos(x)]]).transpose(2, 0, 1), rtol=1e-9, atol=1e-9)
    close(LA.matrix_exp(ember.zeros(3, 3)), np.eye(3))
    assert tuple(LA.matrix_exp(ember.zeros(0, 0)).shape) == (0, 0)
    assert tuple(LA.matrix_exp(ember.zeros(0, 2, 2)).shape) == (0, 2, 2)
    with pytest.raises(
        RuntimeError, match="matrix_exp: Expected a floating point or complex tensor as input. Got Long"
    ):
        LA.matrix_exp(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="linalg.matrix_exp: A must be batches of square matrices"):
        LA.matrix_exp(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="linalg.matrix_exp: The input tensor A must have at least 2 dimensions"):
        LA.matrix_exp(ember.ones(3))


def test_tensorinv_tensorsolve(rng):
    t, a = rand(rng, 4, 6, shift=0.0)
    a = a.reshape(4, 6)
    A = from_np((a @ a.T + 4 * np.eye(4)).reshape(4, 2, 2), ember.float64)
    close(LA.tensorinv(A, ind=1), np.linalg.tensorinv(arr(A), ind=1))
    A2 = from_np((np.eye(6) * 2 + 0.1).reshape(2, 3, 6), ember.float64)
    close(LA.tensorinv(A2), np.linalg.tensorinv(arr(A2)))
    B, b = rand(rng, 2, 3)
    close(LA.tensorsolve(A2, B), np.linalg.tensorsolve(arr(A2), b))
    A3 = A2.permute(2, 0, 1)
    close(LA.tensorsolve(A3, B, dims=(0,)), np.linalg.tensorsolve(arr(A3), b, axes=(0,)))
    with pytest.raises(RuntimeError, match="Expected a strictly positive integer for 'ind', but got 0"):
        LA.tensorinv(A, ind=0)
    with pytest.raises(RuntimeError, match=r"prod\(self.shape\[ind:\]\) == prod\(self.shape\[:ind\]\), but got 6 != 4"):
        LA.tensorinv(ember.ones(4, 2, 3), ind=1)
    with pytest.raises(LA.LinAlgError):
        LA.tensorinv(ember.zeros(4, 2, 2), ind=1)
    with pytest.raises(RuntimeError, match="but got 6 != 9"):
        LA.tensorsolve(ember.ones(2, 3, 6), ember.ones(3, 3))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 2), (5, 5), (2, 6, 4), (4, 0), (0, 3, 2)])
def test_geqrf_householder_product(rng, dtype, shape):
    t, a = rand(rng, *shape, dtype=dtype, layout="contiguous")
    qa, tau = ember.geqrf(t)
    k = min(shape[-2:])
    assert tuple(qa.shape) == shape and tuple(tau.shape) == shape[:-2] + (k,)
    for i, m in enumerate(a.reshape((-1,) + shape[-2:]) if k else []):
        (qr, tau_ref), _ = sl.lapack.dgeqrf(m)[:2], None
        close(qa.reshape((-1,) + shape[-2:])[i], qr)
        close(tau.reshape(-1, k)[i], tau_ref)
    Q = LA.householder_product(qa, tau)
    close(Q, np.linalg.qr(a)[0] if k else np.eye(shape[-2], shape[-1]) + np.zeros(shape))
    close(ember.orgqr(qa, tau), arr(Q))
    close(qa.orgqr(tau), arr(Q))
    a2, tau2 = t.geqrf()
    close(a2, arr(qa))


def test_geqrf_householder_errors():
    a, tau = ember.geqrf(ember.zeros(3, 2))
    assert tau.tolist() == [0.0, 0.0]
    x = ember.ones(3, 2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        ember.geqrf(x)[0].sum().backward()
    close(LA.householder_product(ember.ones(3, 2), ember.ones(2)), [[0.0, 1.0], [-1.0, 1.0], [-1.0, 0.0]])
    fn = "torch.linalg.householder_product: "
    with pytest.raises(RuntimeError, match=fn + r"input.shape\[-1\] must be greater than or equal to tau.shape\[-1\]"):
        LA.householder_product(ember.ones(3, 2), ember.ones(3))
    with pytest.raises(RuntimeError, match=fn + r"input.shape\[-2\] must be greater than or equal to input.shape"):
        LA.householder_product(ember.ones(2, 3), ember.ones(2))
    with pytest.raises(RuntimeError, match=fn + "input must have at least 2 dimensions"):
        LA.householder_product(ember.ones(3), ember.ones(2))
    with pytest.raises(RuntimeError, match=fn + "tau dtype Double does not match input dtype Float"):
        LA.householder_product(ember.ones(3, 2), ember.ones(2, dtype=ember.float64))
    with pytest.raises(RuntimeError, match=fn + r"Expected batch dimensions of tau to be equal to input.shape\[:-2\]"):
        LA.householder_product(ember.ones(2, 3, 2), ember.ones(3, 2))
    with pytest.raises(RuntimeError, match="torch.geqrf: input must have at least 2 dimensions"):
        ember.geqrf(ember.ones(3))


def test_names_exported():
    for name in (
        "lu_factor",
        "lu_factor_ex",
        "lu",
        "lu_solve",
        "solve_ex",
        "inv_ex",
        "cholesky_ex",
        "matrix_rank",
        "cond",
        "matrix_exp",
        "tensorinv",
        "tensorsolve",
        "householder_product",
        "LinAlgError",
        "ldl_factor",
        "ldl_factor_ex",
        "ldl_solve",
    ):
        assert name in LA.__all__ and hasattr(LA, name)
    for name in (
        "lu",
        "lu_solve",
        "lu_unpack",
        "cholesky_solve",
        "cholesky_inverse",
        "matrix_exp",
        "triangular_solve",
        "orgqr",
        "geqrf",
    ):
        assert callable(getattr(ember, name))
    for name in (
        "lu",
        "lu_solve",
        "cholesky_solve",
        "cholesky_inverse",
        "matrix_exp",
        "triangular_solve",
        "orgqr",
        "geqrf",
    ):
        assert callable(getattr(ember.Tensor, name))


def test_cpu_autocast_runs_in_float32(rng):
    """PyTorch 1.13's CPU autocast fp32 list: the deprecated lu/lu_solve, the Cholesky helpers, triangular_solve,
    householder_product/orgqr, geqrf, tensorinv/tensorsolve (matrix_rank and cond through their factorizations);
    linalg.lu_factor and linalg.lu_solve are not on it and refuse bfloat16."""
    A32, _ = rand(rng, 3, 3, dtype=ember.float32, shift=3.0)
    A = A32.bfloat16()
    B = ember.ones(3, 2, dtype=ember.bfloat16)
    L = LA.cholesky(A32 @ A32.mT).bfloat16()
    LU, piv = LA.lu_factor(A32)
    tau = ember.ones(3, dtype=ember.bfloat16)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        results = [
            ember.lu(A)[0],
            ember.lu_solve(B, LU.bfloat16(), piv),
            ember.cholesky_solve(B, L),
            ember.cholesky_inverse(L),
            ember.triangular_solve(B, A)[0],
            LA.householder_product(A, tau),
            ember.orgqr(A, tau),
            ember.geqrf(A)[0],
            LA.tensorinv(A, ind=1),
            LA.tensorsolve(A, B[:, 0]),
            LA.cond(A),
            LA.inv_ex(A)[0],
            LA.cholesky_ex(L @ L.mT)[0],
        ]
        assert all(r.dtype == ember.float32 for r in results), [r.dtype for r in results]
        assert LA.matrix_rank(A).item() == 3
        with pytest.raises(RuntimeError, match="lu_factor"):
            LA.lu_factor(A)


# ------------------------------------------------------------------------------------------------ LDL^T


def sym_indefinite(rng, *shape, dtype=ember.float64, layout="contiguous"):
    t, a = rand(rng, *shape, dtype=dtype, layout=layout)
    s = a + np.swapaxes(a, -1, -2)
    return from_np(s, dtype), s


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 5, 5), (2, 1, 6, 6)])
def test_ldl_factor_matches_lapack(rng, dtype, shape):
    t, a = sym_indefinite(rng, *shape, dtype=dtype)
    LD, piv, info = LA.ldl_factor_ex(t)
    assert piv.dtype == ember.int32 and tuple(piv.shape) == shape[:-1] and tuple(info.shape) == shape[:-2]
    lapack = sl.lapack.ssytrf if dtype is ember.float32 else sl.lapack.dsytrf
    n = shape[-1]
    flat = a.reshape(-1, n, n).astype(np.float32 if dtype is ember.float32 else np.float64)
    for i, m in enumerate(flat):
        ld, ipiv, code = lapack(m, lower=1)
        close(LD.reshape(-1, n, n)[i], np.tril(ld))
        np.testing.assert_array_equal(arr(piv).reshape(-1, n)[i], ipiv)
        assert code == 0
    B, b = rand(rng, *shape[:-2], n, 3, dtype=dtype, layout="transposed")
    close(
        LA.ldl_solve(LD, piv, B),
        np.linalg.solve(a, b),
        **(dict(rtol=1e-3, atol=1e-3) if dtype is ember.float32 else {}),
    )
    LD2, piv2 = LA.ldl_factor(t, hermitian=True)
    close(LD2, arr(LD))


def test_ldl_upper_triangle_ignored_broadcast_and_empty(rng):
    t, a = sym_indefinite(rng, 4, 4)
    garbage = t.tril() + 100 * ember.ones(4, 4, dtype=ember.float64).triu(1)
    LD, piv = LA.ldl_factor(garbage)
    LD2, piv2 = LA.ldl_factor(t)
    close(LD, arr(LD2))
    B, b = rand(rng, 2, 3, 4, 2)
    close(LA.ldl_solve(LD, piv, B), np.linalg.solve(a, b))  # the factor broadcast over B's batch
    close(LA.ldl_solve(LD, piv.long(), B), np.linalg.solve(a, b))
    assert tuple(LA.ldl_factor(ember.zeros(0, 0)).LD.shape) == (0, 0)
    assert tuple(LA.ldl_factor(ember.zeros(2, 0, 0)).pivots.shape) == (2, 0)
    assert tuple(LA.ldl_solve(LD, piv, ember.zeros(4, 0, dtype=ember.float64)).shape) == (4, 0)


def test_ldl_errors():
    LD, piv, info = LA.ldl_factor_ex(ember.zeros(2, 3, 3))
    assert info.tolist() == [1, 1]
    with pytest.raises(
        LA.LinAlgError,
        match=r"torch.linalg.ldl_factor: \(Batch element 0\): The factorization could "
        "not be completed because the block diagonal matrix D is exactly singular",
    ):
        LA.ldl_factor(ember.zeros(2, 3, 3))
    with pytest.raises(LA.LinAlgError, match="D is exactly singular"):
        LA.ldl_factor_ex(ember.zeros(3, 3), check_errors=True)
    with pytest.raises(RuntimeError, match="ldl_factor_ex: A must be batches of square matrices"):
        LA.ldl_factor(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="ldl_factor_ex: The input tensor A must have at least 2 dimensions"):
        LA.ldl_factor(ember.ones(3))
    with pytest.raises(RuntimeError, match="floating point"):
        LA.ldl_factor(ember.ones(3, 3, dtype=ember.int64))
    LD, piv = LA.ldl_factor(ember.eye(3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="Expected b and A to have the same dtype"):
        LA.ldl_solve(LD, piv, ember.ones(3, 1))
    with pytest.raises(
        RuntimeError,
        match="Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is "
        "3 by 3 but each b matrix is 4 by 1",
    ):
        LA.ldl_solve(LD, piv, ember.ones(4, 1, dtype=ember.float64))
    with pytest.raises(RuntimeError, match=r"Expected LD.shape\[:-1\] and pivots.shape to be the same"):
        LA.ldl_solve(LD, piv[:2], ember.ones(3, 1, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="B must have at least 2 dimensions"):
        LA.ldl_solve(LD, piv, ember.ones(3, dtype=ember.float64))
    x = ember.ones(3, 3, dtype=ember.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'linalg_ldl_factor_ex' is not implemented"):
        LA.ldl_factor(x + 2 * ember.eye(3, dtype=ember.float64))[0].sum().backward()
    with pytest.raises(NotImplementedError, match="the derivative for 'linalg_ldl_solve' is not implemented"):
        LA.ldl_solve(LD, piv, x).sum().backward()


def test_out_tuples(rng):
    A, a = rand(rng, 2, 3, 3, shift=3.0)
    LU, piv = LA.lu_factor(A)
    out = (ember.empty(2, 3, 3, dtype=ember.float64), ember.empty(2, 3, dtype=ember.int32))
    r = LA.lu_factor(A, out=out)
    assert r.LU is out[0] and r.pivots is out[1]
    close(out[0], arr(LU))
    assert out[1].tolist() == piv.tolist()
    o = (ember.empty(2, 3, 3, dtype=ember.float64), ember.empty(2, dtype=ember.int32))
    LA.inv_ex(A, out=o)
    close(o[0], np.linalg.inv(a))
    with pytest.raises(TypeError, match="out= must be a tuple of 2 tensors"):
        LA.inv_ex(A, out=o[:1])
    with pytest.raises(RuntimeError, match="out= has shape"):
        LA.lu_factor(A, out=(ember.empty(3, 3, dtype=ember.float64), out[1]))
    P = ember.empty(2, 3, 3, dtype=ember.float64)
    r = ember.lu_unpack(
        LU, piv, out=(P, ember.empty(2, 3, 3, dtype=ember.float64), ember.empty(2, 3, 3, dtype=ember.float64))
    )
    close(r.P @ r.L @ r.U, a)


def test_expanded_batches(rng):
    """Batches broadcast from one matrix (stride 0) factor and solve like copies."""
    A, a = rand(rng, 1, 4, 4, shift=3.0)
    E = A.expand(3, 4, 4)
    e = np.broadcast_to(a, (3, 4, 4))
    LU, piv = LA.lu_factor(E)
    P, L, U = ember.lu_unpack(LU, piv)
    close(P @ L @ U, e)
    close(LA.inv_ex(E).inverse, np.linalg.inv(e))
    close(LA.matrix_exp(E), np.stack([sl.expm(m) for m in e]))
    S, s = spd(rng, 4)
    close(ember.cholesky_inverse(LA.cholesky(S).expand(2, 4, 4)), np.broadcast_to(np.linalg.inv(s), (2, 4, 4)))
    LD, piv = LA.ldl_factor(S.expand(2, 4, 4))
    B, b = rand(rng, 4, 1)
    close(LA.ldl_solve(LD, piv, B.expand(2, 4, 1)), np.broadcast_to(np.linalg.solve(s, b), (2, 4, 1)))
    close(LA.householder_product(*ember.geqrf(E)), np.linalg.qr(e)[0])
