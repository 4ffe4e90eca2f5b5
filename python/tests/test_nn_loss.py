"""The loss functions of ember.nn.functional (ember/nn/loss.cpp, python/src/nn_loss.cpp) against NumPy references
written out here: every reduction, weights, ignore_index, label smoothing, class-probability targets, spatial
inputs, the legacy size_average/reduce arguments, gradients in closed form, and the error paths with PyTorch's
messages. ctc_loss is checked against a NumPy alpha recursion."""

import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F

RTOL = {ember.float32: 2e-5, ember.float64: 1e-12}
REDUCTIONS = ["none", "mean", "sum"]


def t(a, dtype=ember.float64, requires_grad=False):
    a = np.asarray(a)
    r = ember.tensor(a.tolist(), dtype=dtype).reshape(a.shape)
    return r.requires_grad_() if requires_grad else r


def long(a):
    a = np.asarray(a)
    return ember.tensor(a.tolist(), dtype=ember.int64).reshape(a.shape)


def arr(x):
    return np.array(x.tolist(), dtype=np.float64).reshape(tuple(x.shape))


def check(r, expected, dtype=ember.float64, rtol=None, atol=0):
    expected = np.asarray(expected, dtype=np.float64)
    assert r.dtype == dtype, (r.dtype, dtype)
    assert tuple(r.shape) == expected.shape, (tuple(r.shape), expected.shape)
    np.testing.assert_allclose(arr(r), expected, rtol=rtol or RTOL[dtype], atol=atol)


def reduce(per, reduction):
    return per if reduction == "none" else per.sum() if reduction == "sum" else per.mean()


def np_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def along(w, ndim, axis=1):
    shape = [1] * ndim
    shape[axis] = w.size
    return w.reshape(shape)


def ref_cross_entropy(x, target, weight=None, ignore_index=-100, reduction="mean", smoothing=0.0, logits=True):
    """x [N, C, d...], integer target [N, d...]: PyTorch's nll_loss of log_softmax(x), with label smoothing."""
    c = x.shape[1]
    logp = np_log_softmax(x, 1) if logits else x
    w = np.ones(c) if weight is None else weight
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    picked = np.take_along_axis(logp, safe[:, None], 1)[:, 0]
    wt = w[safe] * valid
    per = -picked * wt
    if smoothing:
        smooth = -(logp * along(w, x.ndim)).sum(1) * valid
        per = (1 - smoothing) * per + smoothing / c * smooth
    if reduction == "mean":
        return per.sum() / wt.sum()
    return reduce(per, reduction)


def ref_cross_entropy_probs(x, target, weight=None, reduction="mean", smoothing=0.0):
    c = x.shape[1]
    if smoothing:
        target = target * (1 - smoothing) + smoothing / c
    prod = np_log_softmax(x, 1) * target
    if weight is not None:
        prod = prod * along(weight, x.ndim)
    per = -prod.sum(1)
    if reduction == "mean":
        return per.sum() / (x.size / c)
    return reduce(per, reduction)


# ------------------------------------------------------------------------------------------ cross_entropy, nll


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("shape", [(5, 4), (3, 4, 2), (2, 3, 2, 3)])
def test_cross_entropy_class_indices(rng, reduction, dtype, shape):
    x = rng.standard_normal(shape) * 3
    target = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    target.reshape(-1)[0] = -100
    r = F.cross_entropy(t(x, dtype), long(target), reduction=reduction)
    check(r, ref_cross_entropy(x, target, reduction=reduction), dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.25, 1.0])
def test_cross_entropy_weight_ignore_index_smoothing(rng, reduction, smoothing):
    x = rng.standard_normal((6, 5, 2))
    target = rng.integers(0, 5, (6, 2))
    target[1, 0] = target[4, 1] = 3
    w = rng.uniform(0.2, 2.0, 5)
    r = F.cross_entropy(t(x), long(target), weight=t(w), ignore_index=3, reduction=reduction, label_smoothing=smoothing)
    check(r, ref_cross_entropy(x, target, w, 3, reduction, smoothing))


def test_cross_entropy_unbatched():
    x = np.array([0.5, -1.0, 2.0, 0.0])
    r = F.cross_entropy(t(x), long(2), reduction="none")
    check(r, -np_log_softmax(x, 0)[2])
    check(F.cross_entropy(t(x), long(2)), -np_log_softmax(x, 0)[2])
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    check(F.cross_entropy(t(x), t(probs)), -(np_log_softmax(x, 0) * probs).sum())


def test_cross_entropy_large_logits_are_stable():
    x = np.array([[1000.0, 0.0, -1000.0], [-1e4, 1e4, 0.0]])
    check(F.cross_entropy(t(x), long([1, 1]), reduction="none"), [1000.0, 0.0])
    check(F.cross_entropy(t(x, ember.float32), long([0, 2]), reduction="none"), [0.0, 1e4], ember.float32)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_class_probabilities(rng, reduction, smoothing):
    x = rng.standard_normal((4, 3, 2))
    target = rng.uniform(0, 1, (4, 3, 2))
    w = rng.uniform(0.5, 2.0, 3)
    for weight in (None, w):
        r = F.cross_entropy(
            t(x),
            t(target),
            weight=None if weight is None else t(weight),
            reduction=reduction,
            label_smoothing=smoothing,
        )
        check(r, ref_cross_entropy_probs(x, target, weight, reduction, smoothing))


def test_cross_entropy_gradient_is_softmax_minus_onehot(rng):
    x = rng.standard_normal((4, 5))
    target = np.array([1, 0, 4, 2])
    w = rng.uniform(0.5, 2.0, 5)
    xt = t(x, requires_grad=True)
    F.cross_entropy(xt, long(target), weight=t(w)).backward()
    p = np.exp(np_log_softmax(x, 1))
    onehot = np.eye(5)[target]
    wt = w[target][:, None]
    check(xt.grad, (p - onehot) * wt / w[target].sum())


def test_cross_entropy_ignored_rows_get_no_gradient(rng):
    x = t(rng.standard_normal((3, 4)), requires_grad=True)
    F.cross_entropy(x, long([1, -100, 2]), reduction="sum").backward()
    assert arr(x.grad)[1].tolist() == [0.0] * 4
    np.testing.assert_allclose(arr(x.grad).sum(1), 0, atol=1e-15)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_cross_entropy_gradient_kernel_matches_numpy_and_the_differentiable_formula(rng, dtype):
    # Note [Fused cross entropy]: without create_graph one kernel computes the gradient, with it ember ops do
    x = rng.standard_normal((7, 300)) * 4
    target = rng.integers(0, 300, 7)
    target[2] = target[5] = 17  # ignored
    target[0], target[1] = 0, 299  # the first and last classes
    w = rng.uniform(0.5, 2.0, 300)
    for kw in ({}, {"weight": t(w, dtype), "ignore_index": 17}, {"label_smoothing": 0.2, "reduction": "sum"}):
        xt = t(x, dtype, requires_grad=True)
        (fast,) = ember.autograd.grad(F.cross_entropy(xt, long(target), **kw), [xt])
        (graph,) = ember.autograd.grad(F.cross_entropy(xt, long(target), **kw), [xt], create_graph=True)
        assert fast.grad_fn is None and graph.grad_fn is not None
        np.testing.assert_allclose(arr(fast), arr(graph), rtol=RTOL[dtype], atol=1e-7)
    p = np.exp(np_log_softmax(x, 1))
    keep = (target != 17)[:, None]
    want = (p - np.eye(300)[target]) * w[target][:, None] * keep / (w[target] * keep[:, 0]).sum()
    (got,) = ember.autograd.grad(F.cross_entropy(xt, long(target), weight=t(w, dtype), ignore_index=17), [xt])
    np.testing.assert_allclose(arr(got), want, rtol=RTOL[dtype] * 10, atol=1e-8)


def test_cross_entropy_half_precision_input(rng):
    x = rng.standard_normal((4, 6)).astype(np.float32)
    target = np.array([0, 5, 2, 3])
    r = F.cross_entropy(t(x, ember.float16), long(target))
    assert r.dtype == ember.float16
    np.testing.assert_allclose(float(r), ref_cross_entropy(x.astype(np.float16).astype(np.float64), target), rtol=2e-3)


def test_cross_entropy_all_ignored_and_empty_are_nan():
    assert math.isnan(float(F.cross_entropy(t(np.zeros((2, 3))), long([-100, -100]))))
    assert math.isnan(float(F.cross_entropy(t(np.zeros((0, 3))), long(np.zeros(0, np.int64)))))
    assert float(F.cross_entropy(t(np.zeros((0, 3))), long(np.zeros(0, np.int64)), reduction="sum")) == 0


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(rng, reduction):
    logp = np_log_softmax(rng.standard_normal((5, 4, 3)), 1)
    target = rng.integers(0, 4, (5, 3))
    target[0, 0] = 1
    w = rng.uniform(0.5, 2, 4)
    check(
        F.nll_loss(t(logp), long(target), reduction=reduction),
        ref_cross_entropy(logp, target, reduction=reduction, logits=False),
    )
    check(
        F.nll_loss(t(logp), long(target), weight=t(w), ignore_index=1, reduction=reduction),
        ref_cross_entropy(logp, target, w, 1, reduction, logits=False),
    )


def test_nll_loss_unbatched_and_gradient():
    x = t([0.1, -0.2, 0.3], requires_grad=True)
    r = F.nll_loss(x, long(1), weight=t([1.0, 3.0, 1.0]))
    check(r, 0.2)
    r.backward()
    check(x.grad, [0.0, -1.0, 0.0])  # weighted mean: w / w


def test_nll_and_cross_entropy_accept_int32_targets():
    x = np.array([[0.0, 1.0], [2.0, 0.5]])
    r = F.cross_entropy(t(x), ember.tensor([1, 0], dtype=ember.int32))
    check(r, ref_cross_entropy(x, np.array([1, 0])))


@pytest.mark.parametrize("fn", [F.cross_entropy, F.nll_loss])
def test_class_target_errors(fn):
    x = t(np.zeros((3, 5)))
    with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
        fn(x, long([0, 1, 5]))
    with pytest.raises(IndexError, match=r"^Target -3 is out of bounds\.$"):
        fn(x, long([0, -3, 1]))
    with pytest.raises(ValueError, match=r"^Expected input batch_size \(3\) to match target batch_size \(4\)\.$"):
        fn(x, long([0, 1, 2, 3]))
    with pytest.raises(RuntimeError, match="^expected scalar type Long but found Float$"):
        fn(x, t([0.0, 1.0, 2.0], ember.float32))
    with pytest.raises(RuntimeError, match=r"^Expected target size \[2, 4\], got \[2, 5\]$"):
        fn(t(np.zeros((2, 3, 4))), long(np.zeros((2, 5), np.int64)))
    with pytest.raises(
        RuntimeError,
        match=r"^weight tensor should be defined either for all 5 classes or no classes "
        r"but got weight tensor of shape: \[4\]$",
    ):
        fn(x, long([0, 1, 2]), weight=t(np.ones(4)))
    with pytest.raises(ValueError, match="^foo is not a valid value for reduction$"):
        fn(x, long([0, 1, 2]), reduction="foo")
    with pytest.raises(ValueError, match=r"^Expected 1 or more dimensions \(got 0\)$"):
        fn(t(1.0), long(0))


def test_cross_entropy_probability_target_errors():
    x = t(np.zeros((3, 5)))
    with pytest.raises(RuntimeError, match="^label_smoothing must be between 0.0 and 1.0. Got: 1.5$"):
        F.cross_entropy(x, long([0, 1, 2]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="^ignore_index is not supported for floating point target$"):
        F.cross_entropy(x, t(np.full((3, 5), 0.2)), ignore_index=1)
    with pytest.raises(
        RuntimeError, match="^Expected floating point type for target with class probabilities, got Long$"
    ):
        F.cross_entropy(x, long(np.zeros((3, 5), np.int64)))


def test_legacy_size_average_and_reduce():
    x, target = t([[0.0, 1.0], [1.0, 0.0]]), long([0, 0])
    per = ref_cross_entropy(arr(x), np.array([0, 0]), reduction="none")
    with pytest.warns(
        UserWarning, match="size_average and reduce args will be deprecated, please use reduction='sum' instead."
    ):
        check(F.cross_entropy(x, target, size_average=False), per.sum())
    with pytest.warns(UserWarning, match="reduction='none'"):
        check(F.nll_loss(x, target, reduce=False), -arr(x)[:, 0])
    with pytest.warns(UserWarning, match="reduction='mean'"):
        check(F.mse_loss(x, x * 0, size_average=True), 0.5)


# ------------------------------------------------------------------------------------------ regression losses


def pair(rng, shape=(3, 4)):
    return rng.standard_normal(shape) * 2, rng.standard_normal(shape) * 2


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_l1(rng, reduction):
    a, b = pair(rng)
    check(F.mse_loss(t(a), t(b), reduction=reduction), reduce((a - b) ** 2, reduction))
    check(F.l1_loss(t(a), t(b), reduction=reduction), reduce(np.abs(a - b), reduction))
    check(
        F.mse_loss(t(a, ember.float32), t(b, ember.float32), reduction=reduction),
        reduce((a.astype(np.float32) - b.astype(np.float32)) ** 2, reduction),
        ember.float32,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 3.0])
def test_smooth_l1_and_huber(rng, reduction, beta):
    a, b = pair(rng)
    d = np.abs(a - b)
    smooth = d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    check(F.smooth_l1_loss(t(a), t(b), reduction=reduction, beta=beta), reduce(smooth, reduction))
    if beta > 0:
        huber = np.where(d < beta, 0.5 * d * d, beta * (d - 0.5 * beta))
        check(F.huber_loss(t(a), t(b), reduction=reduction, delta=beta), reduce(huber, reduction))


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
def test_smooth_l1_and_huber_long_runs_and_gradients(rng, name):
    fn, k = getattr(F, name), 0.7
    # Long float32 runs (the vectorized loop, split over threads), with points on the boundary |d| == k.
    a = (rng.standard_normal(70001) * 2).astype(np.float32)
    b = (rng.standard_normal(70001) * 2).astype(np.float32)
    b[:50] = a[:50] - np.float32(k)
    d = np.abs(a - b)
    q = 0.5 * d * d / k if name == "smooth_l1_loss" else 0.5 * d * d
    lin = d - 0.5 * k if name == "smooth_l1_loss" else k * (d - 0.5 * k)
    kw = {"beta": k} if name == "smooth_l1_loss" else {"delta": k}
    got = fn(ember.tensor(a), ember.tensor(b), reduction="none", **kw).numpy()
    np.testing.assert_allclose(got, np.where(d < np.float32(k), q, lin), rtol=2e-6, atol=1e-7)
    # First and second derivatives, with a target that broadcasts, and PyTorch's node name.
    x = t(rng.standard_normal((3, 4)) * 2).requires_grad_()
    y = t(rng.standard_normal((1, 4)) * 2).requires_grad_()
    with pytest.warns(UserWarning):
        assert fn(x, y, reduction="none", **kw).grad_fn.name() == (
            "SmoothL1LossBackward0" if name == "smooth_l1_loss" else "HuberLossBackward0"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ember.autograd.gradcheck(lambda u, v: fn(u, v, reduction="none", **kw), (x, y))
        assert ember.autograd.gradgradcheck(lambda u, v: fn(u, v, **kw), (x, y))
    # PyTorch's backward: clamp(d / beta, -1, 1) and clamp(d, -delta, delta); NaN stays NaN.
    z = t([float("nan"), 1.0, 2.0, 0.3]).requires_grad_()
    fn(z, t(np.zeros(4)), **kw).backward()
    expected = [1.0, 1.0, 0.3 / 0.7] if name == "smooth_l1_loss" else [0.7, 0.7, 0.3]
    assert np.isnan(z.grad.tolist()[0])
    np.testing.assert_allclose(z.grad.tolist()[1:], np.array(expected) / 4)
    h = fn(t(a[:300], ember.float16), t(b[:300], ember.float16), reduction="none", **kw)
    assert h.dtype is ember.float16
    np.testing.assert_allclose(h.numpy().astype(np.float64), np.where(d < k, q, lin)[:300], rtol=2e-3, atol=1e-3)


def test_elementwise_losses_warn_when_the_target_broadcasts():
    a, b = t(np.ones((3, 1))), t(np.zeros(3))
    msg = (
        r"Using a target size \(ember.Size\(\[3\]\)\) that is different to the input size "
        r"\(ember.Size\(\[3, 1\]\)\)\. "
        r"This will likely lead to incorrect results due to broadcasting\. Please ensure they have the same size\."
    )
    for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss):
        with pytest.warns(UserWarning, match=msg):
            r = fn(a, b, reduction="none")
        assert tuple(r.shape) == (3, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.mse_loss(a, a)


def test_regression_loss_errors():
    a = t([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^smooth_l1_loss does not support negative values for beta.$"):
        F.smooth_l1_loss(a, a, beta=-1)
    with pytest.raises(RuntimeError, match="^huber_loss does not support non-positive values for delta.$"):
        F.huber_loss(a, a, delta=0)
    with (
        pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\)"),
        pytest.warns(UserWarning, match="different to the input size"),
    ):
        F.mse_loss(a, t([1.0, 2.0, 3.0]))


# ------------------------------------------------------------------------------------------ binary and probabilistic


def ref_bce(x, y, w=None):
    with np.errstate(divide="ignore"):
        per = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log(1 - x), -100))
    return per if w is None else per * w


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(rng, reduction):
    x = rng.uniform(0, 1, (3, 4))
    x[0, 0], x[1, 1] = 0.0, 1.0
    y = rng.uniform(0, 1, (3, 4))
    y[0, 0], y[1, 1] = 0.0, 1.0
    w = rng.uniform(0.5, 2, 4)
    check(F.binary_cross_entropy(t(x), t(y), reduction=reduction), reduce(ref_bce(x, y), reduction))
    check(F.binary_cross_entropy(t(x), t(y), weight=t(w), reduction=reduction), reduce(ref_bce(x, y, w), reduction))


def test_binary_cross_entropy_clamps_log_and_gradient_stays_finite():
    x = t([0.0, 1.0, 0.0, 1.0], requires_grad=True)
    y = t([1.0, 0.0, 0.0, 1.0])
    r = F.binary_cross_entropy(x, y, reduction="none")
    check(r, [100.0, 100.0, 0.0, 0.0])
    r.sum().backward()
    # PyTorch's formula: (x - y) / max(x (1 - x), 1e-12)
    check(x.grad, [-1e12, 1e12, 0.0, 0.0])


def test_binary_cross_entropy_gradient(rng):
    x = rng.uniform(0.1, 0.9, 5)
    y = rng.uniform(0, 1, 5)
    xt, yt = t(x, requires_grad=True), t(y, requires_grad=True)
    F.binary_cross_entropy(xt, yt, reduction="sum").backward()
    check(xt.grad, (x - y) / (x * (1 - x)))
    check(yt.grad, np.log(1 - x) - np.log(x))


def test_binary_cross_entropy_errors():
    with pytest.raises(
        ValueError,
        match=r"^Using a target size \(ember.Size\(\[3\]\)\) that is different to the input "
        r"size \(ember.Size\(\[3, 1\]\)\) is deprecated. Please ensure they have the same size.$",
    ):
        F.binary_cross_entropy(t(np.full((3, 1), 0.5)), t(np.zeros(3)))
    with pytest.raises(RuntimeError, match="^all elements of input should be between 0 and 1$"):
        F.binary_cross_entropy(t([0.5, 1.5]), t([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="^all elements of input should be between 0 and 1$"):
        F.binary_cross_entropy(t([0.5, math.nan]), t([0.0, 1.0]))


def ref_bce_logits(x, y, w=None, pw=None):
    log_sig = -np.logaddexp(0, -x)
    log_1m_sig = -np.logaddexp(0, x)
    per = -((1 if pw is None else pw) * y * log_sig + (1 - y) * log_1m_sig)
    return per if w is None else per * w


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_with_logits(rng, reduction):
    x = rng.standard_normal((3, 4)) * 4
    x[0, :2] = [200.0, -200.0]
    y = rng.uniform(0, 1, (3, 4))
    w, pw = rng.uniform(0.5, 2, 4), rng.uniform(0.5, 3, 4)
    check(F.binary_cross_entropy_with_logits(t(x), t(y), reduction=reduction), reduce(ref_bce_logits(x, y), reduction))
    check(
        F.binary_cross_entropy_with_logits(t(x), t(y), weight=t(w), pos_weight=t(pw), reduction=reduction),
        reduce(ref_bce_logits(x, y, w, pw), reduction),
    )
    # top level: (input, target, weight, pos_weight, reduction as an int)
    check(ember.binary_cross_entropy_with_logits(t(x), t(y), t(w), t(pw), 2), ref_bce_logits(x, y, w, pw).sum())


def test_binary_cross_entropy_with_logits_gradient_at_zero_logits():
    x = t([0.0, 0.0, 30.0, -30.0], requires_grad=True)
    y = t([1.0, 0.0, 1.0, 0.0])
    F.binary_cross_entropy_with_logits(x, y, reduction="sum").backward()
    sig = 1 / (1 + np.exp(-np.array([0.0, 0.0, 30.0, -30.0])))
    check(x.grad, sig - np.array([1.0, 0.0, 1.0, 0.0]), atol=1e-15)


@pytest.mark.parametrize("weighted", ["none", "weight", "pos_weight", "both"])
def test_binary_cross_entropy_with_logits_gradients(rng, weighted):
    # PyTorch's derivatives for input and target (one node), against finite differences to the second order; a weight
    # that requires grad takes the composition's gradients.
    x = t(rng.standard_normal((3, 4)) * 3, requires_grad=True)
    y = t(rng.uniform(0, 1, (3, 4)), requires_grad=True)
    w = t(rng.uniform(0.5, 2, 4)) if weighted in ("weight", "both") else None
    pw = t(rng.uniform(0.5, 3, 4)) if weighted in ("pos_weight", "both") else None

    def f(a, b):
        return F.binary_cross_entropy_with_logits(a, b, weight=w, pos_weight=pw, reduction="none")

    assert f(x, y).grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    assert ember.autograd.gradcheck(f, (x, y))
    assert ember.autograd.gradgradcheck(f, (x, y))
    if w is not None:
        w.requires_grad_()
        assert ember.autograd.gradcheck(lambda a, b, c: F.binary_cross_entropy_with_logits(a, b, weight=c), (x, y, w))


def test_binary_cross_entropy_with_logits_error():
    with pytest.raises(
        ValueError,
        match=r"^Target size \(ember.Size\(\[3\]\)\) must be the same as input size "
        r"\(ember.Size\(\[3, 1\]\)\)$",
    ):
        F.binary_cross_entropy_with_logits(t(np.zeros((3, 1))), t(np.zeros(3)))


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
def test_kl_div(rng, reduction):
    x = np_log_softmax(rng.standard_normal((3, 4)), 1)
    p = np.exp(np_log_softmax(rng.standard_normal((3, 4)), 1))
    p[0, 0] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        per = np.where(p > 0, p * np.log(np.where(p > 0, p, 1)), 0) - p * x
    expected = per.sum() / 3 if reduction == "batchmean" else reduce(per, reduction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(F.kl_div(t(x), t(p), reduction=reduction), expected)
        lp = np.log(np.where(p > 0, p, 1e-300))
        per_log = np.exp(lp) * (lp - x)
        expected_log = per_log.sum() / 3 if reduction == "batchmean" else reduce(per_log, reduction)
        check(F.kl_div(t(x), t(lp), reduction=reduction, log_target=True), expected_log)


def test_kl_div_mean_warns_and_top_level_takes_int_reduction():
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size"):
        F.kl_div(t([0.0]), t([1.0]))
    check(ember.kl_div(t([0.0, -1.0]), t([0.5, 0.5]), 2), 0.5 * math.log(0.5) * 2 + 0.5)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_poisson_nll_loss(rng, reduction):
    x = rng.uniform(0.1, 3, (3, 4))
    y = rng.integers(0, 5, (3, 4)).astype(np.float64)
    check(F.poisson_nll_loss(t(x), t(y), reduction=reduction), reduce(np.exp(x) - y * x, reduction))
    stirling = np.where(
        y > 1, y * np.log(np.where(y > 1, y, 1)) - y + 0.5 * np.log(2 * np.pi * np.where(y > 1, y, 1)), 0
    )
    check(
        F.poisson_nll_loss(t(x), t(y), log_input=False, full=True, eps=1e-3, reduction=reduction),
        reduce(x - y * np.log(x + 1e-3) + stirling, reduction),
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gaussian_nll_loss(rng, reduction):
    x, y = pair(rng)
    var = rng.uniform(0.5, 2, (3, 4))
    var[0, 0] = 1e-9  # clamped to eps
    v = np.maximum(var, 1e-6)
    check(
        F.gaussian_nll_loss(t(x), t(y), t(var), reduction=reduction),
        reduce(0.5 * (np.log(v) + (x - y) ** 2 / v), reduction),
    )
    v1 = rng.uniform(0.5, 2, 3)
    expected = 0.5 * (np.log(v1)[:, None] + (x - y) ** 2 / v1[:, None]) + 0.5 * math.log(2 * math.pi)
    check(F.gaussian_nll_loss(t(x), t(y), t(v1), full=True, reduction=reduction), reduce(expected, reduction))
    check(F.gaussian_nll_loss(t(x), t(y), t(v1[:, None]), full=True, reduction=reduction), reduce(expected, reduction))


def test_gaussian_nll_loss_errors():
    x = t(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="^var is of incorrect size$"):
        F.gaussian_nll_loss(x, x, t(np.ones(4)))
    with pytest.raises(ValueError, match="^var has negative entry/entries$"):
        F.gaussian_nll_loss(x, x, t(-np.ones((3, 4))))


# ------------------------------------------------------------------------------------------ margin and embedding


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding_loss(rng, reduction):
    a, b = pair(rng, (4, 5))
    y = np.array([1.0, -1.0, -1.0, 1.0])
    cos = (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12))
    per = np.where(y == 1, 1 - cos, np.maximum(cos - 0.2, 0))
    check(F.cosine_embedding_loss(t(a), t(b), t(y), margin=0.2, reduction=reduction), reduce(per, reduction))
    with pytest.raises(
        RuntimeError,
        match=r"^1D target tensor expects 2D input tensors, but found inputs with sizes "
        r"\[5\] and \[5\]\.$",
    ):
        F.cosine_embedding_loss(t(a[0]), t(b[0]), t(y))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking_and_hinge_embedding(rng, reduction):
    a, b = pair(rng, (6,))
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    check(
        F.margin_ranking_loss(t(a), t(b), t(y), margin=0.5, reduction=reduction),
        reduce(np.maximum(-y * (a - b) + 0.5, 0), reduction),
    )
    check(
        F.hinge_embedding_loss(t(a), t(y), margin=1.5, reduction=reduction),
        reduce(np.where(y == 1, a, np.maximum(1.5 - a, 0)), reduction),
    )
    with pytest.raises(RuntimeError, match="margin_ranking_loss : All input tensors should have same dimension"):
        F.margin_ranking_loss(t(a), t(b), t(y[None]))


def ref_pairwise(a, b, p, eps):
    d = np.abs(a - b + eps)
    return np.max(d, -1) if p == math.inf else (d**p).sum(-1) ** (1 / p)


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_triplet_margin_loss(rng, swap, p):
    a, pos, neg = (rng.standard_normal((5, 3)) for _ in range(3))
    dp, dn = ref_pairwise(a, pos, p, 1e-6), ref_pairwise(a, neg, p, 1e-6)
    if swap:
        dn = np.minimum(dn, ref_pairwise(pos, neg, p, 1e-6))
    per = np.maximum(1.0 + dp - dn, 0)
    for reduction in REDUCTIONS:
        check(F.triplet_margin_loss(t(a), t(pos), t(neg), p=p, swap=swap, reduction=reduction), reduce(per, reduction))


def test_soft_margin_losses(rng):
    x = rng.standard_normal((3, 4)) * 3
    x[0, 0] = 800.0
    y = np.where(rng.uniform(size=(3, 4)) < 0.5, -1.0, 1.0)
    for reduction in REDUCTIONS:
        check(F.soft_margin_loss(t(x), t(y), reduction=reduction), reduce(np.logaddexp(0, -y * x), reduction))
    yl = rng.uniform(0, 1, (3, 4))
    w = rng.uniform(0.5, 2, 4)
    per = (yl * np.logaddexp(0, -x) + (1 - yl) * np.logaddexp(0, x)) * w
    for reduction in REDUCTIONS:
        check(
            F.multilabel_soft_margin_loss(t(x), t(yl), weight=t(w), reduction=reduction), reduce(per.mean(1), reduction)
        )


@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss(rng, p):
    x = rng.standard_normal((4, 5))
    y = np.array([0, 4, 2, 2])
    w = rng.uniform(0.5, 2, 5)
    z = np.maximum(0.7 - x[np.arange(4), y][:, None] + x, 0) ** p * w[y][:, None]
    z[np.arange(4), y] = 0
    for reduction in REDUCTIONS:
        check(
            F.multi_margin_loss(t(x), long(y), p=p, margin=0.7, weight=t(w), reduction=reduction),
            reduce(z.sum(1) / 5, reduction),
        )
    with pytest.raises(RuntimeError, match="^only p == 1 and p == 2 supported$"):
        F.multi_margin_loss(t(x), long(y), p=3)
    with pytest.raises(RuntimeError, match="^target out of range$"):
        F.multi_margin_loss(t(x), long([0, 1, 5, 0]))


# ------------------------------------------------------------------------------------------ CTC


def ref_ctc(log_probs, targets, input_lengths, target_lengths, blank=0):
    """Negative log-likelihoods by the alpha recursion of Graves et al. (2006), in log space."""
    out = []
    for n, (il, tl) in enumerate(zip(input_lengths, target_lengths)):
        lab = [blank]
        for c in targets[n][:tl]:
            lab += [c, blank]
        alpha = np.full(len(lab), -np.inf)
        alpha[0] = log_probs[0, n, blank]
        if tl:
            alpha[1] = log_probs[0, n, lab[1]]
        for step in range(1, il):
            new = np.full(len(lab), -np.inf)
            for s in range(len(lab)):
                terms = [alpha[s]] + ([alpha[s - 1]] if s > 0 else [])
                if s > 1 and lab[s] != lab[s - 2]:
                    terms.append(alpha[s - 2])
                new[s] = np.logaddexp.reduce(terms) + log_probs[step, n, lab[s]]
            alpha = new
        out.append(-np.logaddexp.reduce(alpha[-2:] if tl else alpha[-1:]))
    return np.array(out)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_loss_padded_and_concatenated(rng, reduction):
    steps, batch, classes = 8, 3, 5
    lp = np_log_softmax(rng.standard_normal((steps, batch, classes)), 2)
    targets = [[1, 2, 2, 4], [3, 1, 0, 0], [2, 0, 0, 0]]
    il, tl = [8, 6, 5], [4, 2, 1]
    nll = ref_ctc(lp, targets, il, tl)
    expected = (nll / np.maximum(tl, 1)).mean() if reduction == "mean" else reduce(nll, reduction)
    check(F.ctc_loss(t(lp), long(targets), long(il), long(tl), reduction=reduction), expected, rtol=1e-10)
    flat = long([1, 2, 2, 4, 3, 1, 2])
    check(F.ctc_loss(t(lp), flat, tuple(il), tuple(tl), reduction=reduction), expected, rtol=1e-10)
    check(
        F.ctc_loss(t(lp, ember.float32), long(targets), il, tl, reduction=reduction), expected, ember.float32, rtol=1e-5
    )


def test_ctc_loss_other_blank_and_unbatched(rng):
    lp = np_log_softmax(rng.standard_normal((6, 4)), 1)
    nll = ref_ctc(lp[:, None], [[0, 1, 1]], [6], [3], blank=3)
    check(F.ctc_loss(t(lp), long([0, 1, 1]), 6, 3, blank=3, reduction="none"), nll[0])
    check(ember.ctc_loss(t(lp), long([0, 1, 1]), 6, 3, 3, 2), nll[0])  # top level: reduction as an int


def test_ctc_loss_impossible_alignment_and_zero_infinity(rng):
    lp = t(np_log_softmax(rng.standard_normal((3, 2, 3)), 2), requires_grad=True)
    targets, il, tl = long([[1, 1, 1], [2, 0, 0]]), [3, 3], [3, 1]  # 1 1 1 needs 5 steps (blanks between)
    r = F.ctc_loss(lp, targets, il, tl, reduction="none")
    assert math.isinf(float(r[0])) and math.isfinite(float(r[1]))
    r = F.ctc_loss(lp, targets, il, tl, reduction="sum", zero_infinity=True)
    check(r, ref_ctc(arr(lp), [[1, 1, 1], [2]], il, tl)[1])
    r.backward()
    assert np.all(arr(lp.grad)[:, 0] == 0) and np.all(np.isfinite(arr(lp.grad)))


def test_ctc_loss_gradient_through_log_softmax_is_softmax_minus_occupancy(rng):
    x = t(rng.standard_normal((5, 1, 3)), requires_grad=True)
    F.ctc_loss(x - ember.logsumexp(x, 2, keepdim=True), long([[1, 2]]), [5], [2], reduction="sum").backward()
    g = arr(x.grad)[:, 0]
    # Each step's posterior occupancy sums to 1, so the gradient with respect to the logits sums to 0 per step.
    np.testing.assert_allclose(g.sum(1), 0, atol=1e-12)
    # Finite differences of the NumPy loss.
    base = arr(x)
    eps = 1e-6
    for i, c in [(0, 0), (2, 1), (4, 2)]:
        hi, lo = base.copy(), base.copy()
        hi[i, 0, c] += eps
        lo[i, 0, c] -= eps
        fd = (
            ref_ctc(np_log_softmax(hi, 2), [[1, 2]], [5], [2])[0]
            - ref_ctc(np_log_softmax(lo, 2), [[1, 2]], [5], [2])[0]
        ) / (2 * eps)
        np.testing.assert_allclose(g[i, c], fd, rtol=1e-6, atol=1e-9)


def test_ctc_loss_double_backward_raises(rng):
    lp = t(rng.standard_normal((4, 1, 3)), requires_grad=True)
    loss = F.ctc_loss(lp, long([[1]]), [4], [1])
    (g,) = ember.autograd.grad(loss, lp, create_graph=True)
    with pytest.raises(NotImplementedError, match="ctc_loss_backward"):
        g.sum().backward()


def test_ctc_loss_errors(rng):
    lp = t(np_log_softmax(rng.standard_normal((4, 2, 3)), 2))
    with pytest.raises(RuntimeError, match=r"^Expected input_lengths to have value at most 4, but got value 5"):
        F.ctc_loss(lp, long([[1], [1]]), [5, 4], [1, 1])
    with pytest.raises(RuntimeError, match=r"^Expected tensor to have size at least 2 at dimension 1, but got size 1"):
        F.ctc_loss(lp, long([[1], [1]]), [4, 4], [2, 1])
    with pytest.raises(RuntimeError, match="target label 3 of sample 1 is out of range for 3 classes"):
        F.ctc_loss(lp, long([[1], [3]]), [4, 4], [1, 1])
    with pytest.raises(RuntimeError, match="^blank must be in label range$"):
        F.ctc_loss(lp, long([[1], [1]]), [4, 4], [1, 1], blank=3)
    with pytest.raises(RuntimeError, match="input_lengths must have one value per sample"):
        F.ctc_loss(lp, long([[1], [1]]), [4], [1, 1])


def test_losses_on_strided_inputs_and_threads(rng, four_threads):
    x = rng.standard_normal((7, 300)) * 2  # several rows per thread
    target = rng.integers(0, 7, 300)
    xt = t(x).t()  # [300, 7], not contiguous
    check(F.cross_entropy(xt, long(target), reduction="none"), ref_cross_entropy(x.T, target, reduction="none"))
    xs = rng.standard_normal((2, 5, 40, 30))
    ts = rng.integers(0, 5, (2, 40, 30))
    check(
        F.cross_entropy(t(xs).permute(0, 1, 3, 2), long(ts.transpose(0, 2, 1)), reduction="none"),
        ref_cross_entropy(xs.transpose(0, 1, 3, 2), ts.transpose(0, 2, 1), reduction="none"),
    )
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((6, 4))
    check(F.mse_loss(t(a), t(b).t(), reduction="none"), (a - b.T) ** 2)


def test_triplet_margin_with_distance_loss(rng):
    a, pos, neg = (rng.standard_normal((4, 3)) for _ in range(3))

    def cos_dist(x, y):
        return 1 - (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)

    dn = np.minimum(cos_dist(a, neg), cos_dist(pos, neg))
    r = F.triplet_margin_with_distance_loss(
        t(a),
        t(pos),
        t(neg),
        margin=0.5,
        swap=True,
        reduction="none",
        distance_function=lambda x, y: 1 - F.cosine_similarity(x, y),
    )
    check(r, np.maximum(0.5 + cos_dist(a, pos) - dn, 0))
    check(
        F.triplet_margin_with_distance_loss(t(a), t(pos), t(neg)),
        np.maximum(1 + ref_pairwise(a, pos, 2, 1e-6) - ref_pairwise(a, neg, 2, 1e-6), 0).mean(),
    )
    with pytest.raises(ValueError, match="expected margin to be greater than 0, got 0.0 instead"):
        F.triplet_margin_with_distance_loss(t(a), t(pos), t(neg), margin=0.0)


def ref_multilabel_margin(x, y):
    out = []
    for row, labels in zip(x, y):
        labels = list(labels[: list(labels).index(-1)] if -1 in list(labels) else labels)
        others = [i for i in range(len(row)) if i not in labels]
        out.append(sum(max(0, 1 - row[j] + row[i]) for j in labels for i in others) / len(row))
    return np.array(out)


def test_multilabel_margin_loss(rng):
    x = rng.standard_normal((3, 5)) * 0.5
    y = np.array([[3, 0, -1, 1, 2], [4, 4, 1, -1, -1], [-1, 2, 2, 2, 2]])
    for reduction in REDUCTIONS:
        check(
            F.multilabel_margin_loss(t(x), long(y), reduction=reduction), reduce(ref_multilabel_margin(x, y), reduction)
        )
    check(F.multilabel_margin_loss(t([0.1, 0.2, 0.4, 0.8]), long([3, 0, -1, 1]), reduction="none"), 0.85)
    with pytest.raises(RuntimeError, match="^argument #2 'target' is out of range$"):
        F.multilabel_margin_loss(t(x), long([[3, 5, -1, 1, 2]] * 3))


@pytest.mark.parametrize("classes", [45, 5000])  # vectors and a tail; chunks of the row (backend/cpu/loss.cpp)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["float32", "float64"])
def test_cross_entropy_rows_with_nan_and_infinities(classes, dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, classes)) * 4
    x[1, 7] = np.nan  # in the vectors
    x[2, classes - 1] = np.nan  # in the tail
    x[3, 0] = np.inf
    x[4] = -np.inf
    x[5, 3] = -np.inf
    target = np.array([0, 1, 2, 3, 4, 5]) * 7 % classes
    with np.errstate(all="ignore"):
        m = np.max(np.where(np.isnan(x), -np.inf, x), 1, keepdims=True)
        m = np.where(np.isinf(m), 0.0, m)
        lse = np.log(np.exp(x - m).sum(1)) + m[:, 0]
        want = lse - x[np.arange(6), target]
    got = F.cross_entropy(t(x, dtype), long(target), reduction="none").numpy().astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype is ember.float32 else 1e-12, equal_nan=True)
