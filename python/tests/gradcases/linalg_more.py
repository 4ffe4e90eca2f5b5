"""Gradient cases of the LU family, the *_ex forms, the Cholesky helpers and the composed matrix functions
(ops/lapack_more.cpp). Inputs are kept well conditioned (dominant diagonals, X X^T + n I); triangular inputs go
through tril/triu first, as PyTorch's gradcheck_wrapper_triangular_input does (cholesky_solve and cholesky_inverse
differentiate their factor as a full matrix, as PyTorch's formulas do)."""

import ember
import ember.linalg as LA

from . import Case, make

CASES = []


def add(op, fn, inputs, id=None, **kw):
    CASES.append(Case(op, fn, inputs, id=id or op + "_%d" % sum(c.op == op for c in CASES), **kw))


def dominant(a):
    return a + 4 * ember.eye(a.shape[-2], a.shape[-1], dtype=a.dtype)


def spd(a):
    return a @ a.mT + a.shape[-1] * ember.eye(a.shape[-1], dtype=a.dtype)


def ident_pivots(*shape):
    n = shape[-1]
    return ember.arange(1, n + 1, dtype=ember.int32).expand(*shape).contiguous()


# ---- LU
add("linalg.lu_factor", lambda a: LA.lu_factor(a).LU, lambda: (make(3, 3),))
add("linalg.lu_factor", lambda a: LA.lu_factor(a).LU, lambda: (make(2, 3, 5, noncontig=True),), id="lu_factor_wide")
add("linalg.lu_factor", lambda a: LA.lu_factor(a).LU, lambda: (make(5, 3),), id="lu_factor_tall")
add("linalg.lu_factor_ex", lambda a: LA.lu_factor_ex(a).LU, lambda: (make(2, 4, 4),))
add("linalg.lu", lambda a: LA.lu(a)[1:], lambda: (make(4, 4),))
add("linalg.lu", lambda a: LA.lu(a)[1:], lambda: (make(2, 3, 5),), id="lu_wide")
add("linalg.lu", lambda a: LA.lu(a)[1:], lambda: (make(5, 3),), id="lu_tall")
add("linalg.lu", lambda a: LA.lu(a).U, lambda: (make(5, 3),), id="lu_tall_U_only")
add("linalg.lu", lambda a: LA.lu(a).L, lambda: (make(3, 5),), id="lu_wide_L_only")
add("lu", lambda a: ember.lu(a)[0], lambda: (make(3, 3),))
add("lu_unpack", lambda a: ember.lu_unpack(*LA.lu_factor(a))[1:], lambda: (make(2, 4, 3),))
for left in (True, False):
    for adjoint in (True, False):
        add(
            "linalg.lu_solve",
            lambda a, b, l=left, ad=adjoint: LA.lu_solve(*LA.lu_factor(dominant(a)), b, left=l, adjoint=ad),
            lambda l=left: (make(3, 3), make(3, 2) if l else make(2, 3)),
            id="lu_solve_%d%d" % (left, adjoint),
        )
# the LU input itself (fixed identity pivots): PyTorch's gradient with respect to LU
add(
    "linalg.lu_solve",
    lambda lu, b: LA.lu_solve(dominant(lu), ident_pivots(2, 3), b),
    lambda: (make(2, 3, 3), make(3, 2)),
    id="lu_solve_wrt_LU",
)
add(
    "linalg.lu_solve",
    lambda lu, b: LA.lu_solve(dominant(lu), ident_pivots(3), b, left=False, adjoint=True),
    lambda: (make(3, 3), make(2, 2, 3, noncontig=True)),
    id="lu_solve_wrt_LU_right_adjoint",
)
add("lu_solve", lambda b, a: ember.lu_solve(b, *ember.lu(dominant(a))), lambda: (make(3, 2), make(3, 3)))

# ---- the *_ex forms
add("linalg.inv_ex", lambda a: LA.inv_ex(dominant(a)).inverse, lambda: (make(2, 3, 3),))
add("linalg.solve_ex", lambda a, b: LA.solve_ex(dominant(a), b).result, lambda: (make(3, 3), make(3)))
add("linalg.cholesky_ex", lambda a: LA.cholesky_ex(spd(a), upper=True).L, lambda: (make(3, 3),))

# ---- Cholesky helpers, triangular_solve
for upper in (False, True):
    tri = (lambda x: ember.triu(x)) if upper else (lambda x: ember.tril(x))
    add(
        "cholesky_solve",
        lambda b, l, u=upper, t=tri: ember.cholesky_solve(b, dominant(t(l)), upper=u),
        lambda: (make(3, 2), make(2, 3, 3)),
        id="cholesky_solve_%d" % upper,
    )
    add(
        "cholesky_inverse",
        lambda l, u=upper, t=tri: ember.cholesky_inverse(dominant(t(l)), upper=u),
        lambda: (make(2, 3, 3),),
        id="cholesky_inverse_%d" % upper,
    )
add(
    "cholesky_solve",
    lambda b, a: ember.cholesky_solve(b, LA.cholesky(spd(a))),
    lambda: (make(3, 2), make(3, 3)),
    id="cholesky_solve_through_cholesky",
)
for transpose in (False, True):
    add(
        "triangular_solve",
        lambda b, a, t=transpose: ember.triangular_solve(b, dominant(ember.triu(a)), transpose=t)[0],
        lambda: (make(2, 3, 2), make(3, 3)),
        id="triangular_solve_%d" % transpose,
    )

# ---- matrix functions
add("matrix_exp", lambda a: ember.matrix_exp(a), lambda: (make(3, 3),))
add("matrix_exp", lambda a: ember.matrix_exp(4 * a), lambda: (make(3, 3, noncontig=True),), id="matrix_exp_squaring")
# a batch whose matrices need different numbers of squarings
add(
    "matrix_exp",
    lambda a: LA.matrix_exp(a * ember.tensor([0.1, 5.0], dtype=a.dtype).reshape(2, 1, 1)),
    lambda: (make(2, 3, 3),),
    id="matrix_exp_batch_mixed",
)
add("linalg.cond", lambda a: LA.cond(dominant(a)), lambda: (make(3, 3),))
for p in ("fro", "nuc", 1, -1, float("inf"), -2):
    add("linalg.cond", lambda a, p=p: LA.cond(dominant(a), p), lambda: (make(2, 3, 3),), id="cond_%s" % p)
add("linalg.tensorinv", lambda a: LA.tensorinv(dominant(a).reshape(2, 2, 4), ind=2), lambda: (make(4, 4),))
add(
    "linalg.tensorsolve", lambda a, b: LA.tensorsolve(dominant(a).reshape(2, 3, 6), b), lambda: (make(6, 6), make(2, 3))
)
add(
    "linalg.tensorsolve",
    lambda a, b: LA.tensorsolve(dominant(a).reshape(6, 2, 3), b, dims=(0,)),
    lambda: (make(6, 6), make(2, 3)),
    id="tensorsolve_dims",
)
add("linalg.householder_product", lambda a, t: LA.householder_product(a, t), lambda: (make(4, 3), make(2)))
add("orgqr", lambda a, t: ember.orgqr(a, t), lambda: (make(2, 4, 3), make(2, 3)))
add("ormqr", lambda a, t, c: ember.ormqr(a, t, c), lambda: (make(4, 3), make(3), make(4, 2)))
add(
    "ormqr", lambda a, t, c: ember.ormqr(a, t, c, left=False, transpose=True), lambda: (make(4, 3), make(3), make(2, 4))
)
add("linalg.eigvals", lambda a: ember.view_as_real(LA.eigvals(a)), lambda: (make(3, 3),))
add("linalg.eig", lambda a: LA.eig(a)[1].abs(), lambda: (make(3, 3),), gradgrad=False)
add("linalg.polar", lambda a: LA.polar(a), lambda: (make(4, 3),))
add("linalg.matrix_sqrth", lambda a: LA.matrix_sqrth(spd(a)), lambda: (make(3, 3),))
