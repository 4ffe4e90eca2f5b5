"""Gradient cases of ops/shape_more.cpp and ops/stats.cpp: the diagonal family and *_scatter ops (one recorded
formula each), the compositions (cross, kron, rot90, splits, stacks, cov, quantile, trapezoid, ...), the in-place
metadata ops and put_. Quantile inputs have distinct values (the sort's ties would make the gradient a choice)."""

import ember

from . import Case, make

CASES = []


def add(op, fn, inputs, **kw):
    CASES.append(Case(op, fn, inputs, **kw))


def long(values):
    return ember.tensor(values, dtype=ember.int64)


# ---- the diagonal family
add("diag", lambda a: ember.diag(a, 1), lambda: (make(3),))
add("diag", lambda a: ember.diag(a, -1), lambda: (make(3, 4, noncontig=True),), id="diag_2d")
add("diag_embed", lambda a: ember.diag_embed(a, 1, 0, 2), lambda: (make(2, 3),))
add("diagflat", lambda a: ember.diagflat(a, -1), lambda: (make(2, 2),))
add("trace", ember.trace, lambda: (make(3, 4, noncontig=True),))
add("diagonal_scatter", lambda a, s: ember.diagonal_scatter(a, s, 1), lambda: (make(3, 4), make(3)))
add("select_scatter", lambda a, s: ember.select_scatter(a, s, 1, -1), lambda: (make(3, 4), make(3)))
add("slice_scatter", lambda a, s: ember.slice_scatter(a, s, 1, 0, 4, 2), lambda: (make(3, 4), make(3, 2)))
add("as_strided_scatter", lambda a, s: ember.as_strided_scatter(a, s, (2, 2), (1, 2), 1), lambda: (make(6), make(2, 2)))
add("fill_diagonal_", lambda a: (a * 1).fill_diagonal_(0.5, wrap=True), lambda: (make(5, 2),))

# ---- products, rotations, joins
add("cross", lambda a, b: ember.cross(a, b), lambda: (make(3, 2), make(3, 2)))
add("cross", lambda a, b: ember.linalg.cross(a, b), lambda: (make(2, 3), make(1, 3)), id="linalg_cross")
add("kron", ember.kron, lambda: (make(2, 3), make(2, 1)))
add("rot90", lambda a: ember.rot90(a, 3, (1, 0)), lambda: (make(2, 3, noncontig=True),))
add("block_diag", lambda a, b, c: ember.block_diag(a, b, c), lambda: (make(2, 2), make(3), make(seed=2)))
add("cartesian_prod", ember.cartesian_prod, lambda: (make(2), make(3)))
add("combinations", lambda a: ember.combinations(a, 2, with_replacement=True), lambda: (make(3),))
add("atleast_1d", ember.atleast_1d, lambda: (make(seed=1),))
add("atleast_2d", lambda a, b: ember.atleast_2d(a, b), lambda: (make(seed=1), make(3)))
add("atleast_3d", ember.atleast_3d, lambda: (make(2, 3),))
add("ravel", ember.ravel, lambda: (make(2, 3, noncontig=True),))
add("tensor_split", lambda a: ember.tensor_split(a, 3, 1), lambda: (make(2, 7),))
add("tensor_split", lambda a: ember.tensor_split(a, [1, 4, 3]), lambda: (make(5, 2),), id="tensor_split_indices")
add("hsplit", lambda a: ember.hsplit(a, [1]), lambda: (make(2, 3),))
add("vsplit", lambda a: ember.vsplit(a, 2), lambda: (make(4, 3),))
add("dsplit", lambda a: ember.dsplit(a, [1]), lambda: (make(2, 2, 3),))
add("dstack", lambda a, b: ember.dstack([a, b]), lambda: (make(3), make(1, 3)))
add("column_stack", lambda a, b: ember.column_stack([a, b]), lambda: (make(3), make(3, 2)))
add("unsafe_chunk", lambda a: ember.unsafe_chunk(a, 2, 1), lambda: (make(2, 5),))
add("unsafe_split", lambda a: ember.unsafe_split(a, 2), lambda: (make(5),))
add("narrow_copy", lambda a: ember.narrow_copy(a, 1, 1, 2), lambda: (make(3, 4, noncontig=True),))
add("put", lambda a, v: ember.put(a, long([1, -1, 4]), v), lambda: (make(2, 3), make(3)))
add(
    "put",
    lambda a, v: ember.put(a, long([[1, 1], [0, 5]]), v, accumulate=True),
    lambda: (make(2, 3), make(2, 2)),
    id="put_accumulate",
)
add("index_reduce", lambda a, s: a.index_reduce(0, long([0, 2, 0]), s, "prod"), lambda: (make(3, 2), make(3, 2)))
add(
    "index_reduce",
    lambda a, s: ember.index_reduce(a, 1, long([1, 1]), s, "mean", include_self=False),
    lambda: (make(2, 3), make(2, 2)),
    id="index_reduce_mean",
)
add("fill", lambda a, v: ember.fill(a, v), lambda: (make(2, 3), make(seed=3)))
add("positive", ember.positive, lambda: (make(3),))
add("unsqueeze_", lambda a: (a * 1).unsqueeze_(1), lambda: (make(2, 3),))
add("t_", lambda a: (a * 1).t_(), lambda: (make(2, 3),))
add("squeeze_", lambda a: (a * 1).squeeze_(1), lambda: (make(2, 1, 3),))
add("transpose_", lambda a: (a * 1).transpose_(0, 2), lambda: (make(2, 1, 3),))
add("as_strided_", lambda a: ember.as_strided_(a * 1, (2, 3), (1, 3), 1), lambda: (make(10),))

# ---- statistics
add("diff", lambda a, p: ember.diff(a, 2, 1, prepend=p), lambda: (make(2, 4), make(2, 1)))
add("renorm", lambda a: ember.renorm(a, 2, 0, 1.0), lambda: (make(3, 4, low=0.5, high=2.0),))
add("dist", lambda a, b: ember.dist(a, b, 3), lambda: (make(2, 3), make(3, low=3, high=4)))
add(
    "cov",
    lambda a: ember.cov(
        a, aweights=ember.tensor([0.5, 1.0, 2.0, 1.5], dtype=ember.float64), fweights=long([1, 2, 1, 3])
    ),
    lambda: (make(2, 4),),
)
add("corrcoef", ember.corrcoef, lambda: (make(3, 5),))
add("vander", lambda a: ember.vander(a, 4), lambda: (make(3),))
add("vander", lambda a: ember.linalg.vander(a), lambda: (make(2, 3),), id="linalg_vander")
add("trapezoid", lambda y, x: ember.trapezoid(y, x, dim=0), lambda: (make(4, 2), make(4)))
add("trapz", lambda y: ember.trapz(y, dx=0.5), lambda: (make(2, 4),))
add("gradient", lambda y: ember.gradient(y, spacing=0.5, edge_order=2), lambda: (make(4, 3, noncontig=True),))
add(
    "gradient",
    lambda y, c: ember.gradient(y, spacing=[c], dim=1),
    lambda: (make(2, 4), ember.tensor([0.0, 0.5, 1.5, 1.75], dtype=ember.float64)),
    id="gradient_coordinates",
)
add("cumulative_trapezoid", lambda y, x: ember.cumulative_trapezoid(y, x), lambda: (make(2, 4), make(2, 4)))
add(
    "quantile",
    lambda a: ember.quantile(a, ember.tensor([0.2, 0.55], dtype=ember.float64), dim=1),
    lambda: (make(2, 5),),
)
add("quantile", lambda a: ember.quantile(a, 0.4, interpolation="midpoint"), lambda: (make(6),), id="quantile_mid")
add("nanquantile", lambda a: ember.nanquantile(a, 0.3, 0, keepdim=True), lambda: (make(5, 2),))
