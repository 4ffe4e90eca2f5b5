"""Gradient cases of the reductions, scans, sorting and selection ops, and the norms. Inputs are kept away from ties
and kinks (random values are distinct; norms of order < 2 stay away from 0)."""

import math

import ember

from . import Case, make

CASES = []


def add(op, fn, inputs, id=None, **kw):
    CASES.append(Case(op, fn, inputs, id=id or op + "_%d" % sum(c.op == op for c in CASES), **kw))


def with_values(t, points):
    """t (a leaf) with the elements at `points` set (zeros, NaNs)."""
    with ember.no_grad():
        for idx, v in points:
            t[idx] = v
    return t


NAN = float("nan")

# ---- sums, products, means
add("sum", lambda a: a.sum(), lambda: (make(3, 4, noncontig=True),))
add("sum", lambda a: ember.sum(a, (0, -1), keepdim=True), lambda: (make(2, 3, 4),))
add("sum", lambda a: a.sum(1), lambda: (make(3, 4, noncontig=True),))
add("sum", lambda a: ember.sum(a, -1, dtype=ember.float64), lambda: (make(2, 3),))
add("sum", lambda a: a.sum(), lambda: (make(),))
add("nansum", lambda a: ember.nansum(a, 1), lambda: (with_values(make(3, 4), [((0, 1), NAN), ((2, 3), NAN)]),))
add("nansum", lambda a: a.nansum(), lambda: (make(3, 2, noncontig=True),))
add("prod", lambda a: a.prod(), lambda: (make(3, 4, low=0.5, high=1.5, noncontig=True),))
add("prod", lambda a: ember.prod(a, 1, keepdim=True), lambda: (make(3, 4, low=-1.5, high=1.5, away_from=0),))
add("prod", lambda a: ember.prod(a, (0, -1)), lambda: (make(2, 3, 2, low=0.5, high=1.5),))
add(
    "prod",
    lambda a: ember.prod(a, 1),
    lambda: (with_values(make(3, 4), [((0, 1), 0.0), ((2, 0), 0.0), ((2, 2), 0.0)]),),
    id="prod_zeros",
)
add("prod", lambda a: a.prod(), lambda: (with_values(make(2, 3), [((1, 1), 0.0)]),), id="prod_one_zero")
add("prod", lambda a: a.prod(), lambda: (with_values(make(2, 3), [((0, 0), 0.0), ((1, 2), 0.0)]),), id="prod_two_zeros")
add("prod", lambda a: a.prod(), lambda: (make(),))
add("mean", lambda a: a.mean(), lambda: (make(3, 4, noncontig=True),))
add("mean", lambda a: ember.mean(a, (0, -1), keepdim=True), lambda: (make(2, 3, 4),))
add("mean", lambda a: ember.mean(a, -2), lambda: (make(2, 3, 4),))
add("mean", lambda a: a.mean(), lambda: (make(),))
add("nanmean", lambda a: ember.nanmean(a, 1), lambda: (with_values(make(3, 4), [((0, 1), NAN), ((1, 3), NAN)]),))
add("nanmean", lambda a: a.nanmean(), lambda: (make(4, 2, noncontig=True),))

# ---- extrema (distinct values: no ties)
add("amax", lambda a: ember.amax(a, (0, -1)), lambda: (make(2, 3, 4),))
add("amax", lambda a: ember.amax(a, 1, keepdim=True), lambda: (make(3, 4, noncontig=True),))
add("amax", lambda a: ember.amax(a), lambda: (make(),))
add("amin", lambda a: ember.amin(a, -1), lambda: (make(3, 4, noncontig=True),))
add("amin", lambda a: ember.amin(a, (0, 2), keepdim=True), lambda: (make(2, 3, 4),))
add("max", lambda a: ember.max(a), lambda: (make(3, 4, noncontig=True),))
add("max", lambda a: ember.max(a, 1).values, lambda: (make(3, 4, noncontig=True),))
add("max", lambda a: ember.max(a, -1, keepdim=True).values, lambda: (make(2, 3, 4),))
add("max", lambda a: ember.max(a, 0).values, lambda: (make(),))
add("min", lambda a: a.min(), lambda: (make(4, 3),))
add("min", lambda a: ember.min(a, 0).values, lambda: (make(3, 4, noncontig=True),))
add("min", lambda a: ember.min(a, 1, keepdim=True).values, lambda: (make(2, 3, 4),))
add("aminmax", lambda a: ember.aminmax(a), lambda: (make(3, 4),))
add("aminmax", lambda a: ember.aminmax(a, dim=-1, keepdim=True), lambda: (make(3, 4, noncontig=True),))

# ---- moments and logsumexp
add("var", lambda a: a.var(), lambda: (make(3, 4, noncontig=True),))
add("var", lambda a: ember.var(a, (0, -1), correction=0, keepdim=True), lambda: (make(2, 3, 4),))
add("var", lambda a: ember.var(a, 1, correction=2), lambda: (make(3, 5),))
add("std", lambda a: a.std(), lambda: (make(3, 4, noncontig=True),))
add("std", lambda a: ember.std(a, -1, keepdim=True, correction=0), lambda: (make(2, 3, 4),))
add("var_mean", lambda a: ember.var_mean(a, 1), lambda: (make(3, 4, noncontig=True),))
add("var_mean", lambda a: ember.var_mean(a, (0, 2), keepdim=True, correction=0), lambda: (make(2, 3, 4),))
add("std_mean", lambda a: ember.std_mean(a, 0), lambda: (make(3, 4),))
add("std_mean", lambda a: ember.std_mean(a, keepdim=True), lambda: (make(2, 3, noncontig=True),))
add("logsumexp", lambda a: ember.logsumexp(a, 1), lambda: (make(3, 4, noncontig=True),))
add("logsumexp", lambda a: ember.logsumexp(a, (0, -1), keepdim=True), lambda: (make(2, 3, 4),))
add("logsumexp", lambda a: ember.logsumexp(a, 0), lambda: (make(),))

# ---- norms (orders below 2 are not smooth at 0, and inf at ties: inputs away from both)
for p in [2, 1, 3, 1.5, 0.5, math.inf, -math.inf, 0]:
    add(
        "norm",
        lambda a, p=p: ember.norm(a, p, dim=1),
        lambda: (make(3, 4, away_from=0, noncontig=True),),
        id="norm_p%s" % p,
    )
    add(
        "linalg.vector_norm",
        lambda a, p=p: ember.linalg.vector_norm(a, p, dim=(0, -1), keepdim=True),
        lambda: (make(2, 3, 2, away_from=0),),
        id="vector_norm_p%s" % p,
    )
add("norm", lambda a: ember.norm(a), lambda: (make(3, 4),), id="norm_fro")
add("norm", lambda a: ember.norm(a, "fro", dim=(0, 1), keepdim=True), lambda: (make(2, 3, 2),), id="norm_fro_dims")
add("linalg.vector_norm", lambda a: ember.linalg.vector_norm(a), lambda: (make(4, 3, noncontig=True),))
add("linalg.vector_norm", lambda a: ember.linalg.vector_norm(a, 3), lambda: (make(),))

# ---- scans
add("cumsum", lambda a: ember.cumsum(a, 0), lambda: (make(3, 4, noncontig=True),))
add("cumsum", lambda a: a.cumsum(-1, dtype=ember.float64), lambda: (make(2, 3, 4),))
add("cumsum", lambda a: a.cumsum(0), lambda: (make(),))
add("cumsum", lambda a: a.clone().cumsum_(1), lambda: (make(3, 4),), id="cumsum_")
add("cumprod", lambda a: ember.cumprod(a, 1), lambda: (make(3, 4, low=0.5, high=1.5, noncontig=True),))
add(
    "cumprod",
    lambda a: ember.cumprod(a, -1),
    lambda: (with_values(make(3, 5), [((0, 1), 0.0), ((1, 0), 0.0), ((1, 3), 0.0), ((2, 4), 0.0)]),),
    id="cumprod_zeros",
)
add(
    "cumprod",
    lambda a: ember.cumprod(a, 0),
    lambda: (with_values(make(4, 2), [((1, 0), 0.0), ((2, 0), 0.0), ((0, 1), 0.0)]),),
    id="cumprod_zeros_dim0",
)
add("cumprod", lambda a: a.cumprod(0), lambda: (make(),))
add("cumprod", lambda a: a.clone().cumprod_(0), lambda: (with_values(make(3, 2), [((1, 1), 0.0)]),), id="cumprod_")
add("cummax", lambda a: ember.cummax(a, 1).values, lambda: (make(3, 4, noncontig=True),))
add("cummax", lambda a: ember.cummax(a, 0).values, lambda: (make(),))
add("cummin", lambda a: ember.cummin(a, -2).values, lambda: (make(4, 3, noncontig=True),))
add("logcumsumexp", lambda a: ember.logcumsumexp(a, 1), lambda: (make(3, 4, noncontig=True),))
add("logcumsumexp", lambda a: ember.logcumsumexp(a, 0), lambda: (make(4, 2, low=-30, high=30),))
add("logcumsumexp", lambda a: ember.logcumsumexp(a, 0), lambda: (make(),))

# ---- sorting and selection
add("sort", lambda a: ember.sort(a).values, lambda: (make(3, 4, noncontig=True),))
add("sort", lambda a: ember.sort(a, 0, descending=True).values, lambda: (make(4, 3),))
add("sort", lambda a: ember.sort(a).values, lambda: (make(),))
add("msort", ember.msort, lambda: (make(4, 3, noncontig=True),))
add("topk", lambda a: ember.topk(a, 2).values, lambda: (make(3, 5, noncontig=True),))
add("topk", lambda a: ember.topk(a, 3, dim=0, largest=False).values, lambda: (make(4, 3),))
add("kthvalue", lambda a: ember.kthvalue(a, 2, 1).values, lambda: (make(3, 4, noncontig=True),))
add("kthvalue", lambda a: ember.kthvalue(a, 3, 0, keepdim=True).values, lambda: (make(4, 3),))
add("median", lambda a: ember.median(a), lambda: (make(3, 5, noncontig=True),))
add("median", lambda a: ember.median(a, 1).values, lambda: (make(3, 4, noncontig=True),))
add("median", lambda a: ember.median(a, -1, keepdim=True).values, lambda: (make(2, 3, 5),))
add("nanmedian", lambda a: ember.nanmedian(a), lambda: (with_values(make(3, 3), [((1, 1), NAN)]),))
add("nanmedian", lambda a: ember.nanmedian(a, 1).values, lambda: (with_values(make(3, 4), [((0, 2), NAN)]),))
add("mode", lambda a: ember.mode(a, 1).values, lambda: (make(3, 4, noncontig=True),))
add("mode", lambda a: ember.mode(a, 0, keepdim=True).values, lambda: (make(4, 3),))
