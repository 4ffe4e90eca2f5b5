"""Gradient cases of the shape and indexing ops: views (ops/views.cpp), joining, splitting, reordering and
repetition (ops/shape.cpp), gather/scatter, index_*, masks and Python indexing (ops/index.cpp).

Ops that write by index (scatter, index_copy, index_put without accumulate, masked_scatter) use indices without
duplicates: with duplicates the written value is not a differentiable function of the sources. Ops that read or
add by index use duplicates on purpose."""

import ember

from . import Case, make

CASES = []


def add(op, fn, inputs, **kw):
    CASES.append(Case(op, fn, inputs, **kw))


def long(values):
    return ember.tensor(values, dtype=ember.int64)


def mask(values):
    return ember.tensor(values, dtype=ember.bool)


def nonleaf(fn):
    """fn applied to a non-leaf copy of the first input (in-place ops cannot write a leaf that requires grad)."""
    return lambda a, *rest: fn(a * 1, *rest)


# ---- views (formulas in ops/views.cpp)
add("reshape", lambda a: ember.reshape(a, (4, -1)), lambda: (make(2, 6, noncontig=True),))  # copies
add("reshape", lambda a: a.reshape(3, 2, 2), lambda: (make(2, 6),), id="reshape_view")
add("reshape", lambda a: a.view(6, 2).view_as(a), lambda: (make(2, 6),), id="view")
add("flatten", lambda a: ember.flatten(a, 1, -1), lambda: (make(2, 3, 2, noncontig=True),))
add("flatten", lambda a: ember.flatten(a), lambda: (make(seed=3),), id="flatten_0d")
add("unflatten", lambda a: ember.unflatten(a, -1, (2, -1)), lambda: (make(3, 4),))
add("permute", lambda a: ember.permute(a, (2, 0, -2)), lambda: (make(2, 3, 4, noncontig=True),))
add("transpose", lambda a: ember.transpose(a, 0, -1), lambda: (make(2, 3, 4),))
add("transpose", lambda a: a.mT, lambda: (make(2, 3, 4),), id="mT")
add("t", ember.t, lambda: (make(3, 4, noncontig=True),))
add("t", ember.t, lambda: (make(4),), id="t_1d")
add("squeeze", ember.squeeze, lambda: (make(2, 1, 3, 1),))
add("squeeze", lambda a: ember.squeeze(a, -2), lambda: (make(2, 1, 3),), id="squeeze_dim")
add("squeeze", lambda a: ember.squeeze(a, (0, 2)), lambda: (make(1, 3, 1),), id="squeeze_dims")
add("unsqueeze", lambda a: ember.unsqueeze(a, -1), lambda: (make(2, 3, noncontig=True),))
add("narrow", lambda a: ember.narrow(a, -1, 1, 2), lambda: (make(3, 4),))
add("select", lambda a: ember.select(a, 1, -1), lambda: (make(3, 4, noncontig=True),))
add("split", lambda a: ember.split(a, 2, dim=-1), lambda: (make(3, 5),))
add("split", lambda a: ember.split(a, [1, 3], 0), lambda: (make(4, 2),), id="split_sizes")
add("split_with_sizes", lambda a: a.split_with_sizes([2, 0, 1], 1), lambda: (make(2, 3),))
add("chunk", lambda a: ember.chunk(a, 3, -2), lambda: (make(5, 2),))
add("unbind", lambda a: ember.unbind(a, -1), lambda: (make(3, 2, noncontig=True),))
add("diagonal", lambda a: ember.diagonal(a, 1, 0, -1), lambda: (make(3, 2, 4),))
add("diagonal", lambda a: ember.diagonal(a, -1), lambda: (make(4, 3),), id="diagonal_below")
add("as_strided", lambda a: ember.as_strided(a, (2, 3), (1, 3), 1), lambda: (make(10),))
add("movedim", lambda a: ember.movedim(a, (0, 1), (-1, 0)), lambda: (make(2, 3, 4),))
add("movedim", lambda a: ember.movedim(a, (), ()), lambda: (make(seed=4),), id="movedim_0d")
add("broadcast_to", lambda a: ember.broadcast_to(a, (2, 3, 4)), lambda: (make(3, 1),))
add("broadcast_tensors", ember.broadcast_tensors, lambda: (make(3, 1), make(4), make(2, 1, 1)))
add("meshgrid", lambda a, b: ember.meshgrid(a, b, indexing="xy"), lambda: (make(3), make(2)))
add("meshgrid", lambda a, b, c: ember.meshgrid(a, b, c), lambda: (make(2), make(3), make(seed=5)), id="meshgrid_ij")
add("expand", lambda a: a.expand(2, -1, 4), lambda: (make(3, 1),))
add("expand", lambda a, b: a.expand_as(b), lambda: (make(1, 3), make(2, 3)), id="expand_as")
add("unfold", lambda a: a.unfold(1, 3, 1), lambda: (make(2, 5, noncontig=True),))  # overlapping windows
add("unfold", lambda a: a.unfold(0, 2, 2), lambda: (make(5, 2),), id="unfold_disjoint")
add("unfold", lambda a: a.unfold(-1, 2, 3), lambda: (make(7),), id="unfold_gaps")

# ---- Python indexing: basic indices are views, advanced ones go through index / index_put_
add("__getitem__", lambda a: a[1:, ::2], lambda: (make(3, 5),), id="getitem_slices")
add("__getitem__", lambda a: a[..., None, -1], lambda: (make(2, 3, noncontig=True),), id="getitem_ellipsis")
add("__getitem__", lambda a: a[[0, 2, 0]], lambda: (make(3, 2),), id="getitem_list_dup")
add("__getitem__", lambda a: a[:, long([[1, 1], [0, -1]])], lambda: (make(2, 3),), id="getitem_tensor_2d")
add("__getitem__", lambda a: a[long([0, 1, 1]), :, long([2, 0, 2])], lambda: (make(2, 2, 3),), id="getitem_separated")
add(
    "__getitem__",
    lambda a: a[mask([[True, False, True], [False, True, True]])],
    lambda: (make(2, 3),),
    id="getitem_mask",
)
add(
    "__getitem__",
    lambda a: a[1, mask([False, True, True])],
    lambda: (make(2, 3, noncontig=True),),
    id="getitem_int_mask",
)
add("__getitem__", lambda a: a[True], lambda: (make(3),), id="getitem_bool")


def setitem(index, shape):
    def fn(v):
        y = ember.zeros(*shape, dtype=ember.float64)
        y[index] = v * 2
        return y

    return fn


add("__setitem__", setitem(1, (3, 2)), lambda: (make(2),), id="setitem_int")
add("__setitem__", setitem((slice(None), slice(0, 2)), (2, 3)), lambda: (make(2, 2),), id="setitem_slice")
add("__setitem__", setitem([0, 2], (3, 2)), lambda: (make(2, 2),), id="setitem_list")
add("__setitem__", setitem((0, long([2, 0])), (2, 3)), lambda: (make(2),), id="setitem_view_advanced")


def setitem_mask(a):
    x = a * 1
    x[x > 0.5] = 0
    return x


add("__setitem__", setitem_mask, lambda: (make(3, 4, away_from=0.5),), id="setitem_mask_nonleaf")

# ---- joining
add("cat", lambda a, b, c: ember.cat([a, b, c], -1), lambda: (make(2, 3, noncontig=True), make(2, 1), make(2, 2)))
add(
    "cat",
    lambda a, b: ember.cat([a, ember.zeros(0, dtype=ember.float64), b]),
    lambda: (make(2, 3), make(1, 3)),
    id="cat_legacy_empty",
)
add(
    "cat",
    lambda a, b: ember.cat((a, b.to(ember.float32)), 0),
    lambda: (make(2), make(3)),
    id="cat_promote",
    eps=1e-3,
    atol=1e-3,
)
add("stack", lambda a, b: ember.stack([a, b], -1), lambda: (make(2, 3), make(2, 3, noncontig=True)))
add("hstack", lambda a, b: ember.hstack([a, b]), lambda: (make(3), make(2)))
add("hstack", lambda a, b: ember.hstack((a, b)), lambda: (make(2, 1), make(2, 3)), id="hstack_2d")
add("vstack", lambda a, b: ember.vstack([a, b]), lambda: (make(3), make(2, 3)))

# ---- reordering and repetition
add("flip", lambda a: ember.flip(a, (0, -1)), lambda: (make(3, 2, 4, noncontig=True),))
add("flip", ember.fliplr, lambda: (make(2, 3),), id="fliplr")
add("flip", ember.flipud, lambda: (make(3, 2),), id="flipud")
add("roll", lambda a: ember.roll(a, (1, -2), (0, 1)), lambda: (make(3, 4, noncontig=True),))
add("roll", lambda a: ember.roll(a, 2), lambda: (make(2, 3),), id="roll_flat")
add("roll", lambda a: ember.roll(a, (1, 2), (-1, -1)), lambda: (make(2, 5),), id="roll_same_dim")
add("repeat", lambda a: a.repeat(2, 1, 3), lambda: (make(2, 2, noncontig=True),))
add("repeat", lambda a: a.repeat(3), lambda: (make(seed=6),), id="repeat_0d")
add("tile", lambda a: ember.tile(a, (2,)), lambda: (make(2, 3),))
add("tile", lambda a: a.tile(2, 1, 2), lambda: (make(3, 1),), id="tile_lead")
add("repeat_interleave", lambda a: ember.repeat_interleave(a, 2, dim=-1), lambda: (make(2, 3, noncontig=True),))
add("repeat_interleave", lambda a: ember.repeat_interleave(a, 3), lambda: (make(2, 2),), id="repeat_interleave_flat")
add(
    "repeat_interleave",
    lambda a: a.repeat_interleave(long([2, 0, 1]), dim=0),
    lambda: (make(3, 2),),
    id="repeat_interleave_tensor",
)
add("tril", lambda a: ember.tril(a, -1), lambda: (make(3, 4, noncontig=True),))
add("tril", lambda a: a.tril(1), lambda: (make(2, 3, 3),), id="tril_batch")
add("triu", lambda a: ember.triu(a, 1), lambda: (make(4, 3),))
add("tril_", nonleaf(lambda x: x.tril_()), lambda: (make(3, 3),))
add("triu_", nonleaf(lambda x: x[1:].triu_(-1)), lambda: (make(3, 3),), id="triu__view")

# ---- gather / scatter (indices with repeats where the op reads or adds)
add("gather", lambda a: ember.gather(a, -1, long([[0, 0, 2], [1, 2, 1]])), lambda: (make(2, 3, noncontig=True),))
add("gather", lambda a: ember.gather(a, 0, long([[1], [1], [0]])), lambda: (make(2, 3),), id="gather_small")
add("scatter", lambda a, s: ember.scatter(a, 0, long([[1, 0], [0, 2]]), s), lambda: (make(3, 4), make(3, 4)))
add("scatter", lambda a: ember.scatter(a, 1, long([[2], [0]]), 1.5), lambda: (make(2, 3),), id="scatter_value")
add("scatter_", nonleaf(lambda x, s: x.scatter_(-1, long([[1, 0]]), s)), lambda: (make(2, 3), make(1, 2)))
add(
    "scatter_add",
    lambda a, s: ember.scatter_add(a, 0, long([[1, 1, 0], [1, 1, 2]]), s),
    lambda: (make(3, 3, noncontig=True), make(2, 3)),
)
add("scatter_add_", nonleaf(lambda x, s: x.scatter_add_(1, long([[0, 0]]), s)), lambda: (make(2, 3), make(2, 3)))
for red in ["sum", "prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        add(
            "scatter_reduce",
            lambda a, s, red=red, inc=include_self: ember.scatter_reduce(
                a, 1, long([[0, 0, 2, 0], [1, 1, 1, 2]]), s, red, include_self=inc
            ),
            lambda: (make(2, 3, low=0.5, seed=10), make(2, 5, low=0.5, seed=11)),
            id="scatter_reduce_%s_%s" % (red, include_self),
        )
add(
    "scatter_reduce_",
    nonleaf(lambda x, s: x.scatter_reduce_(0, long([1, 1, 0]), s, "prod")),
    lambda: (make(3, low=0.5), make(3, low=0.5)),
)
add(
    "scatter_reduce_",
    nonleaf(lambda x, s: x[1:].scatter_reduce_(0, long([1, 1, 0]), s, "amax", include_self=False)),
    lambda: (make(3, seed=12), make(3, seed=13)),
    id="scatter_reduce__view",
)

# ---- index_*
add("index_select", lambda a: ember.index_select(a, -1, long([2, 0, 2])), lambda: (make(2, 3, noncontig=True),))
add(
    "index_select",
    lambda a: a.index_select(0, ember.tensor([1, 1], dtype=ember.int32)),
    lambda: (make(2, 2),),
    id="index_select_int32",
)
add("index_select", lambda a: a.index_select(0, long(0)), lambda: (make(seed=7),), id="index_select_0d")
add(
    "index_add",
    lambda a, s: ember.index_add(a, 0, long([2, 0, 2]), s, alpha=-1.5),
    lambda: (make(3, 2, noncontig=True), make(3, 2)),
)
add("index_add_", nonleaf(lambda x, s: x.index_add_(1, long([0, 0]), s)), lambda: (make(2, 3), make(2, 2)))
add("index_copy", lambda a, s: ember.index_copy(a, -1, long([2, 0]), s), lambda: (make(2, 3), make(2, 2)))
add("index_copy_", nonleaf(lambda x, s: x[:, 1:].index_copy_(0, long([1]), s)), lambda: (make(2, 3), make(1, 2)))
add("index_fill", lambda a: ember.index_fill(a, 1, long([-1, 0]), 2.0), lambda: (make(2, 3, noncontig=True),))
add("index_fill_", nonleaf(lambda x: x.index_fill_(0, long([1]), -1.0)), lambda: (make(3, 2),))

# ---- advanced indexing
add(
    "index_put",
    lambda a, v: ember.index_put(a, (long([0, 2, 0]), long([1, 1, 1])), v, accumulate=True),
    lambda: (make(3, 2, noncontig=True), make(3)),
)
add("index_put", lambda a, v: a.index_put((long([2, 0]),), v), lambda: (make(3, 2), make(2)), id="index_put_bcast")
add(
    "index_put",
    lambda a, v: a.index_put((None, mask([True, False, True])), v),
    lambda: (make(2, 3), make(seed=8)),
    id="index_put_mask",
)
add(
    "index_put_",
    lambda a, v: ember.index_put_(a * 1, (long([1, 1]),), v, accumulate=True),
    lambda: (make(2, 3), make(2, 3)),
)

# ---- masks and take
add(
    "masked_select",
    lambda a: ember.masked_select(a, mask([[True], [False], [True]])),
    lambda: (make(3, 2, noncontig=True),),
)
add(
    "masked_select",
    lambda a: ember.masked_select(a, mask([True, False])),
    lambda: (make(3, 2),),
    id="masked_select_bcast",
)
add(
    "masked_scatter",
    lambda a, s: ember.masked_scatter(a, mask([[True, False, True], [False, False, True]]), s),
    lambda: (make(2, 3), make(5)),
)
add(
    "masked_scatter",
    lambda a, s: a.masked_scatter(mask([[True], [False]]), s),
    lambda: (make(3), make(2, 2)),
    id="masked_scatter_bcast",
)
add(
    "masked_scatter_",
    nonleaf(lambda x, s: x.masked_scatter_(mask([False, True, True]), s)),
    lambda: (make(2, 3), make(2, 3)),
)
add("masked_fill", lambda a: ember.masked_fill(a, mask([[True, False, True]]), 0.5), lambda: (make(2, 3),))
add("masked_fill_", nonleaf(lambda x: x.masked_fill_(mask([True, False]), -1.0)), lambda: (make(3, 2),))
add("take", lambda a: ember.take(a, long([[0, -1], [4, 0]])), lambda: (make(2, 3, noncontig=True),))
add("take_along_dim", lambda a: ember.take_along_dim(a, long([[0, 2], [1, 1]]), 1), lambda: (make(2, 3),))
add(
    "take_along_dim",
    lambda a: ember.take_along_dim(a, long([5, 0, 5])),
    lambda: (make(2, 3),),
    id="take_along_dim_flat",
)
add(
    "take_along_dim",
    lambda a: ember.take_along_dim(a, long([[0], [2]]), -1),
    lambda: (make(1, 3),),
    id="take_along_dim_bcast",
)
