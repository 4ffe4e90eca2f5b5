"""Gradient cases of the activations, softmax and dropout (ember.nn.functional; top-level names where PyTorch has
them). Inputs stay away from the kinks; random ops fix the seed inside the function, so that every call of the
function (gradcheck calls it many times) draws the same mask."""

import ember
import ember.nn.functional as F

from . import Case, make

CASES = []


def add(op, fn, inputs, id=None, **kw):
    CASES.append(Case(op, fn, inputs, id=id or op + "_%d" % sum(c.op == op for c in CASES), **kw))


def seeded(fn, seed=0):
    def f(*args):
        ember.manual_seed(seed)
        return fn(*args)

    return f


def x34(kinks=None, **kw):
    return lambda: (make(3, 4, noncontig=True, away_from=kinks, **kw),)


# ---- elementwise activations (UnaryOp formulas), functional and top-level names
add("relu", lambda a: F.relu(a), x34(0), id="F.relu")
add("relu_", lambda a: ember.relu_(a * 1.0), x34(0))
add("relu6", lambda a: F.relu6(a * 4), x34([0, 1.5]))
add("hardtanh", lambda a: F.hardtanh(a, -0.5, 1.0), x34([-0.5, 1.0]))
add("hardtanh_", lambda a: F.hardtanh_(a * 1.0), x34([-1, 1]))
add("leaky_relu", lambda a: F.leaky_relu(a, 0.2), x34(0))
add("leaky_relu_", lambda a: F.leaky_relu_(a * 1.0), x34(0))
add("elu", lambda a: F.elu(a, alpha=1.5), x34(0))
add("elu_", lambda a: F.elu_(a * 1.0), x34(0))
add("selu", ember.selu, x34(0))
add("selu", lambda a: F.selu(a), x34(0), id="F.selu")
add("selu_", lambda a: ember.selu_(a * 1.0), x34(0))
add("celu", lambda a: ember.celu(a, 0.7), x34(0))
add("celu_", lambda a: ember.celu_(a * 1.0, alpha=2.0), x34(0))
add("hardswish", lambda a: F.hardswish(a * 2), x34([-1.5, 1.5]))
add("hardsigmoid", lambda a: F.hardsigmoid(a * 2), x34([-1.5, 1.5]))
add("silu", lambda a: F.silu(a, inplace=False), x34(), id="F.silu")
add("mish", lambda a: F.mish(a), x34(), id="F.mish")
add("softsign", lambda a: F.softsign(a), x34(0))
add("tanhshrink", lambda a: F.tanhshrink(a), x34())
add("threshold", lambda a: ember.threshold(a, 0.5, -2.0), x34(0.5))
add("threshold_", lambda a: ember.threshold_(a * 1.0, 0.5, -2.0), x34(0.5))
add("logsigmoid", lambda a: F.logsigmoid(a * 5), x34())
add("hardshrink", lambda a: ember.hardshrink(a, 0.7), x34([-0.7, 0.7]))
add("hardshrink", lambda a: a.hardshrink(), x34([-0.5, 0.5]), id="Tensor.hardshrink")
add("softshrink", lambda a: F.softshrink(a, 0.7), x34([-0.7, 0.7]))
add("gelu", lambda a: F.gelu(a, approximate="tanh"), x34(), id="F.gelu")
add("softplus", lambda a: F.softplus(a, beta=0.5), x34(), id="F.softplus")
add("prelu", ember.prelu, lambda: (make(2, 3, 4, away_from=0), make(3, low=0.1, high=0.5)))
add("prelu", lambda a, w: F.prelu(a, w), lambda: (make(2, 3, noncontig=True, away_from=0), make(1)))
add("prelu", lambda a, w: a.prelu(w), lambda: (make(5, away_from=0), make(1)), id="Tensor.prelu")
add("rrelu", lambda a: ember.rrelu(a, 0.1, 0.3), x34(0))
add("rrelu", seeded(lambda a: F.rrelu(a, 0.1, 0.3, training=True)), x34(0), id="rrelu_training")
add("rrelu_", seeded(lambda a: ember.rrelu_(a * 1.0, 0.1, 0.3, training=True)), x34(0))
add("glu", lambda a: F.glu(a, 0), lambda: (make(4, 3, noncontig=True),))
add("glu", lambda a: F.glu(a), lambda: (make(2, 6),))

# ---- softmax family
add("softmax", lambda a: ember.softmax(a, 1), lambda: (make(3, 5, noncontig=True),))
add("softmax", lambda a: a.softmax(0), lambda: (make(4, 2, 3),))
add(
    "softmax",
    lambda a: F.softmax(a.float(), -1, dtype=ember.float64),
    lambda: (make(2, 3),),
    gradgrad=False,
    eps=1e-3,
    atol=1e-3,
    id="softmax_dtype",
)
add("softmax", lambda a: ember.softmax(a, 0), lambda: (make(),))
add("log_softmax", lambda a: ember.log_softmax(a, -1), lambda: (make(3, 5, noncontig=True),))
add("log_softmax", lambda a: a.log_softmax(1), lambda: (make(2, 4, 3),))
add("softmin", lambda a: F.softmin(a, 1), lambda: (make(3, 4),))
add("gumbel_softmax", seeded(lambda a: F.gumbel_softmax(a, tau=0.5)), lambda: (make(3, 4),))

# ---- dropout (the seed fixed inside, so that every call draws the same mask)
add("dropout", seeded(lambda a: ember.dropout(a, 0.4, True)), lambda: (make(4, 5),))
add("dropout", seeded(lambda a: F.dropout(a, 0.3)), lambda: (make(4, 5, noncontig=True),), id="F.dropout")
add("dropout_", seeded(lambda a: ember.dropout_(a * 1.0, 0.3, True)), lambda: (make(6),))
add("native_dropout", seeded(lambda a: ember.native_dropout(a, 0.4, True)[0]), lambda: (make(5, 3, noncontig=True),))
add(
    "native_dropout_backward",
    lambda g: ember.native_dropout_backward(g, ember.arange(12).reshape(3, 4) % 3 > 0, 1.5),
    lambda: (make(3, 4),),
)
add("alpha_dropout", seeded(lambda a: ember.alpha_dropout(a, 0.3, True)), lambda: (make(4, 5),))
add("alpha_dropout_", seeded(lambda a: ember.alpha_dropout_(a * 1.0, 0.3, True)), lambda: (make(4, 5),))
add("feature_dropout", seeded(lambda a: ember.feature_dropout(a, 0.5, True)), lambda: (make(3, 4, 2),))
add("feature_dropout_", seeded(lambda a: ember.feature_dropout_(a * 1.0, 0.5, True)), lambda: (make(3, 4, 2),))
add("feature_alpha_dropout", seeded(lambda a: ember.feature_alpha_dropout(a, 0.5, True)), lambda: (make(3, 4, 2),))
add(
    "feature_alpha_dropout_",
    seeded(lambda a: ember.feature_alpha_dropout_(a * 1.0, 0.5, True)),
    lambda: (make(3, 4, 2),),
)
add("dropout2d", seeded(lambda a: F.dropout2d(a, 0.5)), lambda: (make(2, 3, 2, 2),))
add("dropout1d", seeded(lambda a: F.dropout1d(a, 0.5)), lambda: (make(3, 4),))
add("dropout3d", seeded(lambda a: F.dropout3d(a, 0.5)), lambda: (make(2, 2, 1, 2, 2),))
