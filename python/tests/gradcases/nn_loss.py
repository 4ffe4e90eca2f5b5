"""Gradient cases of the loss functions (ember/nn/loss.cpp). Inputs stay away from the kinks of the piecewise losses
(|input - target| near beta/delta, margins); binary_cross_entropy's input is in (0, 1). ctc_loss's own gradient is a
kernel without a second derivative, so its cases check first derivatives only."""

import warnings

import ember
import ember.nn.functional as F

from . import Case, make

CASES = []


def add(op, fn, inputs, **kw):
    CASES.append(Case(op, fn, inputs, id=kw.pop("id", None) or op + "_%d" % sum(c.op == op for c in CASES), **kw))


def long(values):
    return ember.tensor(values, dtype=ember.int64)


def const(*shape, low=-2.0, high=2.0, seed=None):
    return make(*shape, low=low, high=high, requires_grad=False, seed=seed)


# ---- class targets (the fused log-softmax kernel and its formula) and probabilities
add("cross_entropy", lambda x: F.cross_entropy(x, long([0, 3, 1])), lambda: (make(3, 4, noncontig=True),))
add(
    "cross_entropy",
    lambda x, w: F.cross_entropy(x, long([0, 3, -100, 2]), weight=w, reduction="sum"),
    lambda: (make(4, 4), make(4, low=0.5, high=2.0)),
)
add(
    "cross_entropy",
    lambda x: F.cross_entropy(x, long([[0, 2], [1, 1]]), ignore_index=1, label_smoothing=0.2),
    lambda: (make(2, 3, 2),),
)
add(
    "cross_entropy",
    lambda x, w: F.cross_entropy(x, long([[2, 0, 1], [1, 2, 0]]), weight=w, reduction="none", label_smoothing=0.3),
    lambda: (make(2, 3, 3, noncontig=True), make(3, low=0.5, high=2.0)),
)
add("cross_entropy", lambda x: F.cross_entropy(x, long(2)), lambda: (make(4),), id="cross_entropy_unbatched")
add(
    "cross_entropy",
    lambda x, t: F.cross_entropy(x, (t - ember.logsumexp(t, 1, keepdim=True)).exp(), label_smoothing=0.1),
    lambda: (make(3, 4), make(3, 4)),
    id="cross_entropy_probs",
)
add(
    "cross_entropy",
    lambda x, w: F.cross_entropy(x, const(2, 3, 2, low=0, high=1), weight=w, reduction="sum"),
    lambda: (make(2, 3, 2), make(3, low=0.5, high=2.0)),
    id="cross_entropy_probs_weight",
)
add("nll_loss", lambda x: F.nll_loss(x, long([1, 0, 2])), lambda: (make(3, 3, noncontig=True),))
add(
    "nll_loss",
    lambda x, w: F.nll_loss(x, long([[1, -100], [0, 2]]), weight=w, reduction="none"),
    lambda: (make(2, 3, 2), make(3, low=0.5, high=2.0)),
)
add(
    "nll_loss",
    lambda x, w: F.nll_loss(x, long([[1, 4], [0, 2]]), weight=w, ignore_index=4),
    lambda: (make(2, 5, 2), make(5, low=0.5, high=2.0)),
)

# ---- regression losses (|input - target| kept away from 0 and from beta/delta)
add("mse_loss", lambda x, t: F.mse_loss(x, t), lambda: (make(3, 4, noncontig=True), make(3, 4, seed=1)))


def mse_broadcast(x, t):
    with warnings.catch_warnings():  # the target broadcasts on purpose
        warnings.simplefilter("ignore")
        return F.mse_loss(x, t, reduction="none")


add("mse_loss", mse_broadcast, lambda: (make(3, 1), make(4, seed=2)))
add(
    "l1_loss",
    lambda x: F.l1_loss(x, ember.zeros(3, 4, dtype=ember.float64), reduction="sum"),
    lambda: (make(3, 4, away_from=0),),
)
add(
    "smooth_l1_loss",
    lambda x: F.smooth_l1_loss(x, ember.zeros(3, 4, dtype=ember.float64), beta=0.5),
    lambda: (make(3, 4, away_from=[-0.5, 0, 0.5]),),
)
add(
    "smooth_l1_loss",
    lambda x: F.smooth_l1_loss(x, ember.zeros(4, dtype=ember.float64), beta=0.0, reduction="sum"),
    lambda: (make(4, away_from=0),),
    id="smooth_l1_loss_beta0",
)
add(
    "huber_loss",
    lambda x, t: F.huber_loss(x, t, delta=0.7, reduction="none"),
    lambda: (make(3, 4, low=-1.5, high=1.5), const(3, 4, low=-0.01, high=0.01, seed=3)),
)

# ---- binary and probabilistic losses
add(
    "binary_cross_entropy",
    lambda x, t: F.binary_cross_entropy(x, t),
    lambda: (make(3, 4, low=0.05, high=0.95), make(3, 4, low=0, high=1, seed=4)),
)
add(
    "binary_cross_entropy",
    lambda x, w: F.binary_cross_entropy(x, const(2, 3, low=0, high=1), weight=w, reduction="none"),
    lambda: (make(2, 3, low=0.05, high=0.95), make(3, low=0.5, high=2.0)),
)
add(
    "binary_cross_entropy_with_logits",
    lambda x, t: ember.binary_cross_entropy_with_logits(x, t),
    lambda: (make(3, 4), make(3, 4, low=0, high=1, seed=5)),
)
add(
    "binary_cross_entropy_with_logits",
    lambda x, w, pw: F.binary_cross_entropy_with_logits(
        x, const(2, 3, low=0, high=1), weight=w, pos_weight=pw, reduction="sum"
    ),
    lambda: (make(2, 3), make(3, low=0.5, high=2.0), make(3, low=0.5, high=3.0)),
)
add("kl_div", lambda x, t: ember.kl_div(x, t), lambda: (make(3, 4), make(3, 4, low=0.1, high=1.0, seed=6)))
add("kl_div", lambda x, t: F.kl_div(x, t, reduction="batchmean", log_target=True), lambda: (make(3, 4), make(3, 4)))
add(
    "poisson_nll_loss",
    lambda x, t: ember.poisson_nll_loss(x, t, True, False, 1e-8, 1),
    lambda: (make(3, 4), make(3, 4, low=0, high=3)),
)
add(
    "poisson_nll_loss",
    lambda x: F.poisson_nll_loss(x, const(3, 4, low=0, high=4), log_input=False, full=True, reduction="sum"),
    lambda: (make(3, 4, low=0.5, high=3),),
)
add(
    "gaussian_nll_loss",
    lambda x, v: F.gaussian_nll_loss(x, const(3, 4), v, full=True),
    lambda: (make(3, 4), make(3, 4, low=0.5, high=2.0)),
)
add(
    "gaussian_nll_loss",
    lambda x, v: F.gaussian_nll_loss(x, const(3, 4), v, reduction="none"),
    lambda: (make(3, 4), make(3, low=0.5, high=2.0)),
)

# ---- margin and embedding losses (inputs away from the hinges)
add(
    "cosine_embedding_loss",
    lambda a, b: ember.cosine_embedding_loss(a, b, ember.tensor([1.0, -1.0, 1.0]), 0.0, 1),
    lambda: (make(3, 5), make(3, 5, seed=7)),
)
add(
    "cosine_embedding_loss",
    lambda a, b: F.cosine_embedding_loss(a, b, ember.tensor(-1.0), margin=-0.9),
    lambda: (make(5), make(5, seed=8)),
)
add(
    "margin_ranking_loss",
    lambda a, b: ember.margin_ranking_loss(a, b, ember.tensor([1.0, -1.0, 1.0, -1.0]), 5.0, 1),
    lambda: (make(4), make(4, seed=9)),
)
add(
    "triplet_margin_loss",
    lambda a, p, n: ember.triplet_margin_loss(a, p, n, margin=10.0),
    lambda: (make(3, 4), make(3, 4, seed=10), make(3, 4, seed=11)),
)
add(
    "triplet_margin_loss",
    lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=10.0, p=3, swap=True),
    lambda: (make(3, 4), make(3, 4, seed=12), make(3, 4, seed=13)),
)
add(
    "hinge_embedding_loss",
    lambda x: ember.hinge_embedding_loss(x, ember.tensor([1.0, -1.0, -1.0, 1.0]), 3.0, 1),
    lambda: (make(4),),
)
add(
    "soft_margin_loss", lambda x: F.soft_margin_loss(x, ember.tensor([[1.0, -1.0], [-1.0, 1.0]])), lambda: (make(2, 2),)
)
add(
    "multilabel_soft_margin_loss",
    lambda x, w: F.multilabel_soft_margin_loss(x, const(3, 4, low=0, high=1), w),
    lambda: (make(3, 4), make(4, low=0.5, high=2.0)),
)
add("multi_margin_loss", lambda x: F.multi_margin_loss(x, long([0, 2, 1]), margin=10.0), lambda: (make(3, 4),))
add(
    "multi_margin_loss",
    lambda x, w: F.multi_margin_loss(x, long([3, 1]), p=2, margin=10.0, weight=w, reduction="none"),
    lambda: (make(2, 4), make(4, low=0.5, high=2.0)),
)


# ---- CTC (first derivatives: the beta recursion has no formula of its own)
def ctc_inputs():
    return (make(6, 2, 4),)


add(
    "ctc_loss",
    lambda x: ember.ctc_loss(
        x - ember.logsumexp(x, 2, keepdim=True), long([[1, 2, 2], [3, 1, 0]]), long([6, 5]), long([3, 2])
    ),
    ctc_inputs,
    gradgrad=False,
)
add(
    "ctc_loss",
    lambda lp: F.ctc_loss(lp, long([1, 2, 2, 3, 1]), (6, 5), (3, 2), reduction="sum"),
    ctc_inputs,
    gradgrad=False,
    id="ctc_loss_raw_concatenated",
)
add(
    "ctc_loss",
    lambda lp: F.ctc_loss(
        lp, long([[1, 1, 1], [2, 0, 0]]), (3, 4), (3, 1), blank=0, reduction="none", zero_infinity=True
    ),
    ctc_inputs,
    gradgrad=False,
    id="ctc_loss_zero_infinity",
)
add(
    "triplet_margin_with_distance_loss",
    lambda a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda x, y: 1 - F.cosine_similarity(x, y), margin=5.0, swap=True
    ),
    lambda: (make(3, 4), make(3, 4, seed=14), make(3, 4, seed=15)),
)
add(
    "multilabel_margin_loss",
    lambda x: F.multilabel_margin_loss(x * 0.1, long([[3, 0, -1, 1], [1, 1, 2, -1]])),
    lambda: (make(2, 4),),
)
