"""Gradient cases of the linear algebra ops: the matrix products (every matmul case, the add* ops, einsum, tensordot,
linear, bilinear) and ember.linalg. Matrices are kept well conditioned: X X^T + n I for the positive-definite ones,
a dominant diagonal for inverses and solves, distinct singular values and eigenvalues for svd and eigh, whose
vectors are checked through functions that do not depend on their signs (U diag(w) U^T)."""

import ember
import ember.linalg as LA
import ember.nn.functional as F

from . import Case, make

CASES = []


def add(op, fn, inputs, id=None, **kw):
    CASES.append(Case(op, fn, inputs, id=id or op + "_%d" % sum(c.op == op for c in CASES), **kw))


def sym(a):
    return a + a.mT


def spd(a):
    """A symmetric positive-definite function of any square a."""
    return a @ a.mT + a.shape[-1] * ember.eye(a.shape[-1], dtype=a.dtype)


def dominant(a):
    """a with a dominant diagonal: far from singular."""
    return a + 4 * ember.eye(a.shape[-1], dtype=a.dtype)


def weights(n):
    return ember.arange(1.0, n + 1.0, dtype=ember.float64)


def vec_invariant(V, w):
    """V diag(w) V^T: unchanged when columns of V change sign."""
    return (V * w) @ V.mT


# ---- products
add("matmul", ember.matmul, lambda: (make(3, 4, noncontig=True), make(4, 2)))
add("matmul", ember.matmul, lambda: (make(2, 3, 4), make(4, 2, noncontig=True)), id="matmul_folded")
add("matmul", ember.matmul, lambda: (make(2, 3, 4), make(4)), id="matmul_folded_vec")
add("matmul", ember.matmul, lambda: (make(4), make(2, 4, 3)), id="matmul_vec_batched")
add("matmul", ember.matmul, lambda: (make(2, 1, 2, 3), make(3, 3, 2)), id="matmul_broadcast")
add("matmul", ember.matmul, lambda: (make(3, 2), make(2, 2, 4)), id="matmul_matrix_batched")
add("matmul", ember.matmul, lambda: (make(4), make(4)), id="matmul_dot")
add("matmul", ember.matmul, lambda: (make(4), make(4, 3)), id="matmul_vec_matrix")
add("matmul", lambda a, b: a @ b, lambda: (make(2, 3, 4), make(2, 4, 3)), id="matmul_operator")
add("mm", ember.mm, lambda: (make(3, 4), make(4, 2, noncontig=True)))
add("bmm", ember.bmm, lambda: (make(2, 3, 4), make(2, 4, 2)))
add("mv", ember.mv, lambda: (make(3, 4, noncontig=True), make(4)))
add("dot", ember.dot, lambda: (make(5), make(5)))
add("vdot", ember.vdot, lambda: (make(5), make(5)))
add("outer", ember.outer, lambda: (make(3), make(4)))
add("ger", ember.ger, lambda: (make(3), make(4)))
add("inner", ember.inner, lambda: (make(2, 4), make(3, 4)))
add("addmm", lambda c, a, b: ember.addmm(c, a, b, beta=0.5, alpha=2.0), lambda: (make(4), make(3, 5), make(5, 4)))
add(
    "addmm",
    lambda c, a, b: ember.addmm(c, a, b, beta=0.0),
    lambda: (make(3, 4), make(3, 5), make(5, 4)),
    id="addmm_beta0",
)
add("addmm", lambda c, a, b: c.clone().addmm_(a, b), lambda: (make(3, 4), make(3, 5), make(5, 4)), id="addmm_")
add("addmv", lambda c, a, v: ember.addmv(c, a, v, beta=2.0, alpha=0.5), lambda: (make(3), make(3, 4), make(4)))
add("addr", lambda c, a, b: ember.addr(c, a, b, beta=2.0, alpha=0.5), lambda: (make(3, 4), make(3), make(4)))
add(
    "baddbmm",
    lambda c, a, b: ember.baddbmm(c, a, b, beta=0.5, alpha=2.0),
    lambda: (make(1, 3, 2), make(2, 3, 4), make(2, 4, 2)),
)
add(
    "addbmm",
    lambda c, a, b: ember.addbmm(c, a, b, beta=0.5, alpha=2.0),
    lambda: (make(3, 2), make(2, 3, 4), make(2, 4, 2)),
)
add("einsum", lambda a, b: ember.einsum("bij,bjk->bik", a, b), lambda: (make(2, 3, 4), make(2, 4, 2)))
add("einsum", lambda a: ember.einsum("ii->i", a), lambda: (make(3, 3),), id="einsum_diagonal")
add(
    "einsum",
    lambda a, b, c: ember.einsum("ij,jk,kl->il", a, b, c),
    lambda: (make(2, 3), make(3, 4), make(4, 2)),
    id="einsum_chain",
)
add("einsum", lambda a, b: ember.einsum("...ij,jk", a, b), lambda: (make(2, 2, 3), make(3, 2)), id="einsum_ellipsis")
add("einsum", lambda a, b: ember.einsum("ij,ij->", a, b), lambda: (make(3, 4), make(3, 4)), id="einsum_full_sum")
add("einsum", lambda a, b: ember.einsum("...i,...i", a, b), lambda: (make(2, 1, 4), make(3, 4)), id="einsum_broadcast")
add("tensordot", lambda a, b: ember.tensordot(a, b, dims=([1, 2], [0, 1])), lambda: (make(2, 3, 4), make(3, 4, 2)))
add("tensordot", lambda a, b: ember.tensordot(a, b, dims=1), lambda: (make(2, 3), make(3, 2)), id="tensordot_int")
add("chain_matmul", lambda a, b, c: ember.chain_matmul(a, b, c), lambda: (make(2, 3), make(3, 4), make(4, 2)))
add("linalg.multi_dot", lambda a, b, c: LA.multi_dot([a, b, c]), lambda: (make(3), make(3, 4), make(4)))
add("linalg.vecdot", lambda a, b: LA.vecdot(a, b), lambda: (make(3, 4), make(4)))
add("linear", lambda x, w, b: F.linear(x, w, b), lambda: (make(2, 3, 4), make(5, 4), make(5)))
add("linear", lambda x, w: F.linear(x, w), lambda: (make(4), make(5, 4, noncontig=True)), id="linear_vec")
add("bilinear", lambda x1, x2, w, b: F.bilinear(x1, x2, w, b), lambda: (make(2, 3), make(2, 4), make(5, 3, 4), make(5)))

# ---- inverses, solves, determinants
add("inverse", lambda a: ember.inverse(dominant(a)), lambda: (make(3, 3),))
add("linalg.inv", lambda a: LA.inv(dominant(a)), lambda: (make(2, 3, 3),))
add("linalg.solve", lambda a, b: LA.solve(dominant(a), b), lambda: (make(3, 3), make(3, 2)))
add("linalg.solve", lambda a, b: LA.solve(dominant(a), b), lambda: (make(2, 3, 3), make(3)), id="linalg.solve_vec")
add(
    "linalg.solve",
    lambda a, b: LA.solve(dominant(a), b),
    lambda: (make(3, 3), make(2, 3, 2)),
    id="linalg.solve_broadcast",
)
add(
    "linalg.solve",
    lambda a, b: LA.solve(dominant(a), b, left=False),
    lambda: (make(3, 3), make(2, 3)),
    id="linalg.solve_right",
)
for upper in (True, False):
    for left in (True, False):
        for unit in (False, True):
            add(
                "linalg.solve_triangular",
                lambda a, b, u=upper, l=left, t=unit: LA.solve_triangular(
                    dominant(a), b, upper=u, left=l, unitriangular=t
                ),
                lambda l=left: (make(3, 3), make(3, 2) if l else make(2, 3)),
                id="linalg.solve_triangular_%s_%s_%s"
                % ("upper" if upper else "lower", "left" if left else "right", "unit" if unit else "nonunit"),
            )
add("det", lambda a: ember.det(a), lambda: (make(3, 3),))
add("linalg.det", lambda a: LA.det(a), lambda: (make(2, 3, 3),))
add(
    "linalg.det",
    lambda a: LA.det(a @ ember.tensor([[1.0, 0, 1], [0, 1, 1], [0, 0, 0]], dtype=ember.float64)),
    lambda: (make(3, 3),),
    id="linalg.det_singular",
    gradgrad=False,
)
add("logdet", lambda a: ember.logdet(spd(a)), lambda: (make(3, 3),))
add("slogdet", lambda a: ember.slogdet(a)[1], lambda: (make(3, 3),))
add("linalg.slogdet", lambda a: LA.slogdet(a).logabsdet, lambda: (make(2, 3, 3),))
add("pinverse", lambda a: ember.pinverse(a), lambda: (make(4, 3),))
add("linalg.pinv", lambda a: LA.pinv(a), lambda: (make(3, 4),))
add("linalg.pinv", lambda a: LA.pinv(sym(a), hermitian=True), lambda: (make(3, 3),), id="linalg.pinv_hermitian")
add("matrix_power", lambda a: ember.matrix_power(a, 3), lambda: (make(3, 3),))
add("linalg.matrix_power", lambda a: LA.matrix_power(dominant(a), -2), lambda: (make(2, 3, 3),))

# ---- factorizations
add("cholesky", lambda a: ember.cholesky(spd(a)), lambda: (make(3, 3),))
add("linalg.cholesky", lambda a: LA.cholesky(spd(a)), lambda: (make(2, 3, 3),))
add("linalg.cholesky", lambda a: LA.cholesky(spd(a), upper=True), lambda: (make(3, 3),), id="linalg.cholesky_upper")
add("qr", lambda a: ember.qr(a), lambda: (make(4, 3),))
add("linalg.qr", lambda a: LA.qr(a), lambda: (make(2, 3, 3),))
add("linalg.qr", lambda a: LA.qr(a), lambda: (make(3, 5),), id="linalg.qr_wide")
add("linalg.qr", lambda a: LA.qr(a, mode="complete"), lambda: (make(3, 4),), id="linalg.qr_complete")
add("linalg.qr", lambda a: LA.qr(a).R, lambda: (make(4, 3),), id="linalg.qr_R")
add(
    "svd",
    lambda a: (lambda r: (r.S, vec_invariant(r.U, weights(3)), vec_invariant(r.V, weights(3))))(ember.svd(a)),
    lambda: (make(4, 3),),
)
add("linalg.svd", lambda a: (lambda r: (r.S, r.U @ r.Vh))(LA.svd(a, full_matrices=False)), lambda: (make(3, 4),))
add(
    "linalg.svd",
    lambda a: (lambda r: (r.S, vec_invariant(r.U, weights(3))))(LA.svd(a, full_matrices=False)),
    lambda: (make(4, 3),),
    id="linalg.svd_U",
)
add(
    "linalg.svd",
    lambda a: (lambda r: vec_invariant(r.Vh.mT, weights(3)))(LA.svd(a, full_matrices=False)),
    lambda: (make(2, 3, 4),),
    id="linalg.svd_V",
)
add(
    "linalg.svd",
    lambda a: (lambda r: (r.S, r.U[..., :3] @ r.Vh))(LA.svd(a, full_matrices=True)),
    lambda: (make(4, 3),),
    id="linalg.svd_full",
)
add("linalg.svdvals", lambda a: LA.svdvals(a), lambda: (make(2, 3, 4),))
add(
    "linalg.eigh",
    lambda a: (lambda r: (r.eigenvalues, vec_invariant(r.eigenvectors, weights(3))))(LA.eigh(sym(a))),
    lambda: (make(2, 3, 3),),
)
add("linalg.eigh", lambda a: LA.eigh(sym(a), UPLO="U").eigenvalues, lambda: (make(3, 3),), id="linalg.eigh_values")
add("linalg.eigvalsh", lambda a: LA.eigvalsh(sym(a)), lambda: (make(3, 3),))
add("linalg.lstsq", lambda a, b: LA.lstsq(a, b).solution, lambda: (make(5, 3), make(5, 2)))
add("linalg.lstsq", lambda a, b: LA.lstsq(a, b).solution, lambda: (make(3, 5), make(3)), id="linalg.lstsq_wide_vec")
add(
    "linalg.lstsq",
    lambda a, b: LA.lstsq(a, b, driver="gelsd")[:2],
    lambda: (make(5, 3), make(5, 2)),
    id="linalg.lstsq_residuals",
)

# ---- norms
for order in ["fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")]:
    add(
        "linalg.matrix_norm",
        lambda a, o=order: LA.matrix_norm(a, o),
        lambda: (make(2, 3, 4),),
        id="linalg.matrix_norm_%s" % order,
    )
add("linalg.norm", lambda a: LA.norm(a, "nuc", dim=(0, 2)), lambda: (make(3, 2, 4),))
add("linalg.norm", lambda a: LA.norm(a), lambda: (make(3, 4),), id="linalg.norm_vector")
