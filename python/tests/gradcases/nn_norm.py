"""Gradient cases of the normalization ops, embeddings and padding. gradcheck runs layer_norm's and batch_norm's
fused backward kernels; gradgradcheck (create_graph) their composite formulas."""

import ember
import ember.nn.functional as F

from . import Case, make

CASES = []


def add(op, fn, inputs, id=None, **kw):
    CASES.append(Case(op, fn, inputs, id=id or op + "_%d" % sum(c.op == op for c in CASES), **kw))


def const(*shape, low=0.5, high=1.5, seed=7):
    return make(*shape, low=low, high=high, requires_grad=False, seed=seed)


def idx(values):
    return ember.tensor(values, dtype=ember.int64)


# ---- layer_norm
add(
    "layer_norm", lambda x, w, b: ember.layer_norm(x, [4], w, b), lambda: (make(3, 4, noncontig=True), make(4), make(4))
)
add("layer_norm", lambda x, w: F.layer_norm(x, (3, 2), w, eps=1e-3), lambda: (make(2, 3, 2), make(3, 2)))
add("layer_norm", lambda x, b: F.layer_norm(x, [5], bias=b), lambda: (make(2, 5), make(5)))
add("layer_norm", lambda x: F.layer_norm(x, [3]), lambda: (make(3),))

# ---- rms_norm (a composition)
add("rms_norm", lambda x, w: ember.rms_norm(x, [4], w, 1e-3), lambda: (make(3, 4, noncontig=True), make(4)))
add("rms_norm", lambda x: F.rms_norm(x, (2, 3)), lambda: (make(2, 2, 3),))

# ---- batch_norm: training (batch statistics; the running ones are updated in place on every call) and eval
add(
    "batch_norm",
    lambda x, w, b: F.batch_norm(x, const(3), const(3), w, b, training=True),
    lambda: (make(4, 3, noncontig=True), make(3), make(3)),
)
add(
    "batch_norm",
    lambda x, w, b: F.batch_norm(x, None, None, w, b, True, 0.1, 1e-3),
    lambda: (make(2, 3, 2, 2), make(3), make(3)),
)
add("batch_norm", lambda x: F.batch_norm(x, None, None, training=True), lambda: (make(3, 2, 3),))
add(
    "batch_norm",
    lambda x, w, b: F.batch_norm(x, const(3, low=-0.5, high=0.5), const(3, seed=8), w, b),
    lambda: (make(2, 3, 4), make(3), make(3)),
    id="batch_norm_eval",
)
add(
    "batch_norm",
    lambda x, w, b: ember.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    lambda: (make(5, 2), make(2), make(2)),
    id="batch_norm_top",
)

# ---- group_norm, instance_norm
add("group_norm", lambda x, w, b: ember.group_norm(x, 2, w, b), lambda: (make(2, 4, 3), make(4), make(4)))
add("group_norm", lambda x, w: F.group_norm(x, 3, w), lambda: (make(2, 3, 2, 2), make(3)))
add("group_norm", lambda x: F.group_norm(x, 1), lambda: (make(3, 2, 2),))
add(
    "instance_norm",
    lambda x, w, b: ember.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    lambda: (make(2, 3, 4), make(3), make(3)),
)
add("instance_norm", lambda x: F.instance_norm(x, const(3), const(3, seed=9)), lambda: (make(2, 3, 2, 2),))
add(
    "instance_norm",
    lambda x: F.instance_norm(x, const(3), const(3, seed=9), use_input_stats=False),
    lambda: (make(2, 3, 4),),
    id="instance_norm_eval",
)

# ---- local_response_norm, normalize
add("local_response_norm", lambda x: F.local_response_norm(x, 3, alpha=0.5), lambda: (make(2, 4, 3),))
add(
    "local_response_norm",
    lambda x: F.local_response_norm(x, 2, alpha=0.3, beta=0.5, k=2.0),
    lambda: (make(1, 3, 2, 2),),
)
add("normalize", lambda x: F.normalize(x), lambda: (make(3, 4, noncontig=True),))
add("normalize", lambda x: F.normalize(x, p=3, dim=0), lambda: (make(3, 4, low=0.5),))

# ---- embeddings
add("embedding", lambda w: ember.embedding(w, idx([[0, 2], [2, 4]])), lambda: (make(5, 3),))
# padding_idx and scale_grad_by_freq change the gradient on purpose (it is no longer the derivative): test_nn_misc.py
add("embedding", lambda w: F.embedding(idx([1, 3, 0]), w, padding_idx=2), lambda: (make(4, 2),), id="embedding_F")
add(
    "embedding_bag",
    lambda w: F.embedding_bag(idx([0, 2, 1, 2, 3]), w, idx([0, 2, 2]), mode="sum"),
    lambda: (make(4, 3),),
)
add("embedding_bag", lambda w: F.embedding_bag(idx([[0, 2], [1, 3]]), w), lambda: (make(4, 3),))
add("embedding_bag", lambda w: F.embedding_bag(idx([0, 2, 1, 3]), w, idx([0, 1]), mode="max"), lambda: (make(4, 3),))
add(
    "embedding_bag",
    lambda w, p: F.embedding_bag(idx([0, 2, 1, 3]), w, idx([0, 3]), mode="sum", per_sample_weights=p, padding_idx=2),
    lambda: (make(4, 3), make(4)),
    id="embedding_bag_weights",
)

# ---- padding
add("constant_pad_nd", lambda x: ember.constant_pad_nd(x, [1, 2, 0, 1], 0.5), lambda: (make(2, 3, noncontig=True),))
add("pad", lambda x: F.pad(x, (1, -1, 2, 0)), lambda: (make(2, 3, 4),))
add("pad", lambda x: F.pad(x, (2, 1), mode="reflect"), lambda: (make(2, 3, 4),), id="pad_reflect")
add("pad", lambda x: F.pad(x, (1, 2, 2, 0), mode="replicate"), lambda: (make(1, 2, 3, 3),), id="pad_replicate")
add("pad", lambda x: F.pad(x, (2, 1, -1, 1, 1, 0), mode="circular"), lambda: (make(1, 1, 2, 3, 3),), id="pad_circular")
