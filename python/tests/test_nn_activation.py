"""Activations and softmax (ember/nn/activation.cpp, the UnaryOp activation kernels in backend/cpu/unary.cpp and
vec_math.cpp, backend/cpu/softmax.cpp, python/src/nn_activation.cpp): values against NumPy on random inputs in
every layout (the contiguous Sleef path and the strided scalar path), special values, 0-d and empty inputs,
in-place forms, the random activations under manual_seed, and the errors PyTorch raises."""

import math
import warnings

import numpy as np
import pytest
from conftest import LAYOUTS, assert_equal, from_np, make_layout, to_np

import ember
import ember.nn.functional as F


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    return np.where(x > 0, scale * x, scale * alpha * np.expm1(x * input_scale))


# name -> (ember call, float64 NumPy reference)
ACTIVATIONS = {
    "relu": (F.relu, lambda x: np.where(x > 0, x, np.where(np.isnan(x), x, 0))),
    "relu6": (F.relu6, lambda x: np.where(np.isnan(x), x, np.clip(x, 0, 6))),
    "hardtanh": (lambda t: F.hardtanh(t, -2.5, 1.5), lambda x: np.where(np.isnan(x), x, np.clip(x, -2.5, 1.5))),
    "leaky_relu": (lambda t: F.leaky_relu(t, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (lambda t: F.elu(t, 1.5), lambda x: _elu(x, 1.5)),
    "selu": (F.selu, lambda x: _elu(x, SELU_ALPHA, SELU_SCALE)),
    "celu": (lambda t: F.celu(t, 0.5), lambda x: _elu(x, 0.5, 1.0, 2.0)),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "silu": (F.silu, lambda x: x * _sigmoid(x)),
    "mish": (F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "threshold": (lambda t: F.threshold(t, 0.5, -7.0), lambda x: np.where(x > 0.5, x, np.where(np.isnan(x), x, -7.0))),
    "logsigmoid": (F.logsigmoid, lambda x: -np.logaddexp(0, -x)),
    "hardshrink": (lambda t: F.hardshrink(t, 0.7), lambda x: np.where(np.abs(x) > 0.7, x, np.where(np.isnan(x), x, 0))),
    "softshrink": (
        lambda t: F.softshrink(t, 0.7),
        lambda x: np.where(x > 0.7, x - 0.7, np.where(x < -0.7, x + 0.7, x * 0)),
    ),
    "softplus": (
        lambda t: F.softplus(t, beta=2, threshold=5),
        lambda x: np.where(2 * x > 5, x, np.log1p(np.exp(2 * x)) / 2),
    ),
    "gelu": (F.gelu, lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))),
    "sigmoid": (F.sigmoid, _sigmoid),
    "tanh": (F.tanh, np.tanh),
}
INPLACE = [
    "relu",
    "relu6",
    "hardtanh",
    "leaky_relu",
    "elu",
    "selu",
    "celu",
    "hardswish",
    "hardsigmoid",
    "silu",
    "mish",
    "threshold",
]
SPECIAL = [0.0, -0.0, 1e-30, -1e-30, 3.0, -3.0, 25.0, -25.0, 100.0, -100.0, math.inf, -math.inf, math.nan]


def _values(rng, shape, dtype):
    return (rng.standard_normal(shape) * 4).astype(np.float32 if dtype is ember.float32 else np.float64)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_numpy(name, dtype, layout, rng):
    fn, ref = ACTIVATIONS[name]
    t, a = make_layout(rng, (3, 37), dtype, layout, values=_values)
    got = fn(t)
    assert got.dtype is dtype and tuple(got.shape) == (3, 37)
    with np.errstate(all="ignore"):
        exp = ref(a.astype(np.float64))
    tol = dict(rtol=2e-6, atol=1e-6) if dtype is ember.float32 else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(to_np(got), exp, **tol)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_special_values(name, dtype):
    fn, ref = ACTIVATIONS[name]
    a = np.array(SPECIAL, dtype=np.float32 if dtype is ember.float32 else np.float64)
    for t, x in ((from_np(a), a), (from_np(np.repeat(a, 2))[::2], a)):  # the vector path and the strided one
        with np.errstate(all="ignore"):
            exp = ref(x.astype(np.float64))
        np.testing.assert_allclose(to_np(fn(t)), exp, rtol=2e-6, atol=1e-30, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_0d_empty_and_16_bit(name):
    fn, ref = ACTIVATIONS[name]
    assert fn(ember.zeros(0, 3)).shape == (0, 3)
    np.testing.assert_allclose(fn(ember.tensor(-1.25, dtype=ember.float64)).item(), ref(np.array(-1.25)), rtol=1e-12)
    for dtype in (ember.float16, ember.bfloat16):
        x = ember.tensor([-2.0, -0.5, 0.25, 1.75], dtype=dtype)
        got = fn(x)
        assert got.dtype is dtype
        np.testing.assert_allclose(to_np(got.float()), ref(to_np(x.float()).astype(np.float64)), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_forms_write_the_input(name, rng):
    fn, _ = ACTIVATIONS[name]
    kwargs = {"hardtanh": (-2.5, 1.5), "leaky_relu": (0.2,), "elu": (1.5,), "celu": (0.5,), "threshold": (0.5, -7.0)}
    a = rng.standard_normal(40).astype(np.float32) * 4
    expected = fn(from_np(a))
    x = from_np(a)
    v = x._version
    r = getattr(F, name)(x, *kwargs.get(name, ()), inplace=True)
    assert r is x and x._version > v
    assert_equal(x, to_np(expected))
    if hasattr(F, name + "_"):  # relu_, elu_, hardtanh_, ...
        y = from_np(a)
        assert getattr(F, name + "_")(y, *kwargs.get(name, ())) is y
        assert_equal(y, to_np(expected))


def test_inplace_records_the_gradient():
    x = ember.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
    y = x * 1.0
    F.leaky_relu(y, 0.1, inplace=True)
    assert y.grad_fn.name() == "LeakyReluBackward0"
    y.sum().backward()
    assert_equal(x.grad, np.array([0.1, 0.1, 1.0, 1.0], np.float32))
    with pytest.raises(RuntimeError, match="leaf"):
        F.elu(x, inplace=True)
    z = x * 1.0
    ember.selu_(z).sum().backward()
    assert x.grad.shape == (4,)


def test_top_level_and_method_forms():
    x = ember.tensor([-1.0, 0.25, 2.0])
    assert_equal(ember.selu(x), to_np(F.selu(x)))
    assert_equal(ember.celu(x, 0.5), to_np(F.celu(x, 0.5)))
    assert_equal(ember.threshold(x, 0.5, 9.0), np.array([9.0, 9.0, 2.0], np.float32))
    assert_equal(ember.hardshrink(x), np.array([-1.0, 0.0, 2.0], np.float32))
    assert_equal(x.hardshrink(0.1), np.array([-1.0, 0.25, 2.0], np.float32))
    y = x.clone()
    assert ember.relu_(y) is y and y.tolist() == [0.0, 0.25, 2.0]
    assert ember.threshold_(x.clone(), 0.5, 9.0).tolist() == [9.0, 9.0, 2.0]
    assert ember.rrelu(x, 0.1, 0.3).tolist() == pytest.approx([-0.2, 0.25, 2.0])


def test_integer_inputs_raise_like_pytorch():
    i = ember.tensor([1, -2])
    with pytest.raises(RuntimeError, match="\"leaky_relu_cpu\" not implemented for 'Long'"):
        F.leaky_relu(i)
    with pytest.raises(RuntimeError, match="\"elu_cpu\" not implemented for 'Long'"):
        F.elu(i)
    assert_equal(F.relu(i), np.array([1, 0]))  # relu keeps integer dtypes, as PyTorch


def test_parameter_errors():
    with pytest.raises(RuntimeError, match=r"lambda must be greater or equal to 0, but found to be -1\."):
        F.softshrink(ember.ones(3), -1.0)
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        F.celu(ember.ones(3), 0.0)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        F.rrelu(ember.ones(3), 0.5, 0.1, training=True)
    with pytest.raises(ValueError, match="approximate argument must be either none or tanh"):
        F.gelu(ember.ones(3), approximate="fast")


def test_prelu(rng):
    a = rng.standard_normal((2, 3, 4))
    w = np.array([0.1, 0.2, 0.3])
    got = F.prelu(from_np(a), from_np(w))
    np.testing.assert_allclose(to_np(got), np.where(a > 0, a, w[None, :, None] * a), rtol=1e-15)
    np.testing.assert_allclose(to_np(F.prelu(from_np(a), from_np(w[:1]))), np.where(a > 0, a, 0.1 * a), rtol=1e-15)
    np.testing.assert_allclose(
        to_np(from_np(a[0, 0]).prelu(from_np(w[:1]))), np.where(a[0, 0] > 0, a[0, 0], 0.1 * a[0, 0])
    )
    with pytest.raises(
        RuntimeError,
        match="Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and channel size = 3.",
    ):
        F.prelu(ember.ones(2, 3), ember.ones(2))
    with pytest.raises(RuntimeError, match="Found parameter numbers = 3 and channel size = 1."):
        F.prelu(ember.ones(3), ember.ones(3))
    with pytest.raises(RuntimeError, match="Expected `weight` to be a scalar or 1D tensor, but got ndim = 2"):
        F.prelu(ember.ones(2, 4), ember.ones(2, 2))


def test_glu(rng):
    a = rng.standard_normal((4, 6))
    np.testing.assert_allclose(to_np(F.glu(from_np(a))), a[:, :3] * _sigmoid(a[:, 3:]), rtol=1e-14)
    np.testing.assert_allclose(to_np(F.glu(from_np(a), 0)), a[:2] * _sigmoid(a[2:]), rtol=1e-14)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        F.glu(ember.ones(2, 3), 1)
    with pytest.raises(RuntimeError, match="glu does not support scalars because halving size must be even"):
        F.glu(ember.tensor(1.0))
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.glu(ember.ones(2, 4), 5)


def test_rrelu_draws_slopes_in_the_bounds_and_repeats_under_manual_seed():
    x = ember.linspace(-3, 3, 2000)
    ember.manual_seed(5)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    a, b = to_np(x), to_np(y)
    neg = a < 0
    slopes = b[neg] / a[neg]
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6 and slopes.std() > 0.03
    assert_equal(y[~ember.tensor(neg.tolist())], a[~neg])
    ember.manual_seed(5)
    assert_equal(F.rrelu(x, 0.1, 0.3, training=True), b)
    # the gradient is the slope drawn for each element
    xg = x.clone().requires_grad_()
    ember.manual_seed(5)
    F.rrelu(xg, 0.1, 0.3, training=True).sum().backward()
    np.testing.assert_allclose(to_np(xg.grad)[neg], slopes, rtol=1e-6)
    np.testing.assert_allclose(to_np(F.rrelu(x, 0.1, 0.3)), np.where(a >= 0, a, 0.2 * a), rtol=1e-6)


# ---------------------------------------------------------------------------------------------------- softmax


def _softmax(a, dim):
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def _log_softmax(a, dim):
    m = a.max(axis=dim, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(axis=dim, keepdims=True))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_softmax_family_matches_numpy(dim, dtype, layout, rng):
    t, a = make_layout(rng, (5, 7, 300), dtype, layout, values=_values)
    a = a.astype(np.float64)
    tol = dict(rtol=2e-6, atol=1e-7) if dtype is ember.float32 else dict(rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(to_np(F.softmax(t, dim)), _softmax(a, dim), **tol)
    np.testing.assert_allclose(to_np(ember.log_softmax(t, dim)), _log_softmax(a, dim), rtol=tol["rtol"], atol=1e-5)
    np.testing.assert_allclose(to_np(F.softmin(t, dim)), _softmax(-a, dim), **tol)
    np.testing.assert_allclose(to_np(t.softmax(dim)), _softmax(a, dim), **tol)


def test_softmax_is_stable_and_handles_infinities():
    x = ember.tensor([[1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -999.0]])
    np.testing.assert_allclose(to_np(F.softmax(x, 1)), _softmax(to_np(x).astype(np.float64), 1), rtol=1e-6)
    np.testing.assert_allclose(to_np(F.log_softmax(x, 1)), _log_softmax(to_np(x).astype(np.float64), 1), rtol=1e-6)
    inf = math.inf
    m = ember.tensor([[0.0, -inf, 0.0], [-inf, -inf, -inf], [inf, 0.0, 0.0], [math.nan, 0.0, 1.0]])
    got = to_np(F.softmax(m, 1))
    np.testing.assert_allclose(got[0], [0.5, 0.0, 0.5])  # -inf masks an entry
    assert np.isnan(got[1:]).all()  # all -inf, +inf and NaN rows give NaN, as in PyTorch
    lg = to_np(F.log_softmax(m, 1))
    np.testing.assert_allclose(lg[0], [-math.log(2), -inf, -math.log(2)], rtol=1e-6)
    # the same along a dim that is not the last one (the strided kernel)
    np.testing.assert_allclose(to_np(F.softmax(m.t().contiguous(), 0)).T, got, equal_nan=True)


def test_softmax_shapes_dtypes_and_dim_none():
    assert F.softmax(ember.tensor(3.0), 0).item() == 1.0
    assert F.log_softmax(ember.tensor(3.0), -1).item() == 0.0
    assert F.softmax(ember.zeros(0, 4), 1).shape == (0, 4)
    assert F.softmax(ember.zeros(3, 0), 1).shape == (3, 0)
    h = ember.tensor([[1.0, 2.0, 3.0]], dtype=ember.float16)
    assert F.softmax(h, 1).dtype is ember.float16
    r = F.softmax(h, 1, dtype=ember.float64)
    assert r.dtype is ember.float64
    np.testing.assert_allclose(to_np(r), _softmax(np.array([[1.0, 2.0, 3.0]]), 1), rtol=1e-15)
    np.testing.assert_allclose(
        to_np(F.log_softmax(h.bfloat16(), 1).float()), _log_softmax(np.array([[1.0, 2.0, 3.0]]), 1), rtol=1e-2
    )
    assert ember.softmax(ember.ones(2, 2), 0, dtype=ember.float64).dtype is ember.float64
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        r = F.softmax(ember.ones(2, 3, 4))  # 3-d: dim 0, PyTorch's legacy choice
    np.testing.assert_allclose(to_np(r), np.full((2, 3, 4), 0.5))
    with pytest.warns(UserWarning, match="log_softmax"):
        assert F.log_softmax(ember.ones(2, 4)).shape == (2, 4)
    with pytest.raises(RuntimeError, match="\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"):
        F.softmax(ember.tensor([1, 2]), 0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        F.softmax(ember.ones(2, 3), 2)


def test_softmax_in_several_threads(four_threads, rng):
    a = rng.standard_normal((64, 2048)).astype(np.float32)
    t = from_np(a)
    for dim in (0, 1):
        np.testing.assert_allclose(to_np(F.softmax(t, dim)), _softmax(a.astype(np.float64), dim), rtol=2e-6, atol=1e-9)


def test_softmax_gradient_formulas():
    x = ember.tensor([[0.5, -1.0, 2.0], [0.0, 0.3, -0.7]], dtype=ember.float64, requires_grad=True)
    g = ember.tensor([[1.0, 2.0, -1.0], [0.5, 0.0, 1.5]], dtype=ember.float64)
    y = F.softmax(x, 1)
    assert y.grad_fn.name() == "SoftmaxBackward0"
    y.backward(g)
    yn, gn = to_np(y.detach()), to_np(g)
    np.testing.assert_allclose(to_np(x.grad), yn * (gn - (gn * yn).sum(1, keepdims=True)), rtol=1e-14)
    x.grad = None
    z = F.log_softmax(x, 1)
    assert z.grad_fn.name() == "LogSoftmaxBackward0"
    z.backward(g)
    np.testing.assert_allclose(to_np(x.grad), gn - np.exp(to_np(z.detach())) * gn.sum(1, keepdims=True), rtol=1e-14)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("dim", [0, 1, 2])  # inner 7 * 300, 300 (more than one block of columns), 1 (rows)
def test_softmax_gradient_kernel_matches_numpy(dim, dtype, log, rng):
    # Without create_graph the gradient is one kernel (softmax_backward in backend/cpu/softmax.cpp); against the
    # closed forms in float64, for a non-contiguous grad_out, along each dim; with create_graph the formula as ops.
    a, gn = rng.standard_normal((5, 7, 300)), rng.standard_normal((300, 7, 5)).transpose(2, 1, 0)
    x = ember.tensor(a, dtype=dtype, requires_grad=True)
    g = ember.tensor(np.ascontiguousarray(gn.transpose(2, 1, 0)), dtype=dtype).permute(2, 1, 0)
    fn = F.log_softmax if log else F.softmax
    y = fn(x, dim)
    with ember.profiler.profile() as prof:
        (gx,) = ember.autograd.grad(y, x, g)
    assert "ember::softmax_backward" in [e.name for e in prof.events()]
    yn = (_log_softmax if log else _softmax)(a, dim)
    want = gn - np.exp(yn) * gn.sum(dim, keepdims=True) if log else yn * (gn - (gn * yn).sum(dim, keepdims=True))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype is ember.float32 else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(to_np(gx), want, **tol)
    (gx2,) = ember.autograd.grad(fn(x, dim), x, g, create_graph=True)
    assert gx2.requires_grad
    np.testing.assert_allclose(to_np(gx2.detach()), want, **tol)


def test_gumbel_softmax():
    logits = ember.tensor([[1.0, 2.0, 0.5, -1.0]] * 500, requires_grad=True)
    ember.manual_seed(3)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(to_np(y.detach()).sum(1), 1.0, rtol=1e-5)
    ember.manual_seed(3)
    assert_equal(F.gumbel_softmax(logits, tau=0.5).detach(), to_np(y.detach()))
    ember.manual_seed(3)
    h = F.gumbel_softmax(logits, hard=True)
    hn = to_np(h.detach())
    assert set(np.unique(hn)) == {0.0, 1.0} and (hn.sum(1) == 1).all()
    # the most likely class wins most often: softmax([1, 2, 0.5, -1]) puts 0.63 on class 1
    freq = hn.mean(0)
    assert freq.argmax() == 1 and 0.55 < freq[1] < 0.72
    # straight-through: the gradient is the soft sample's
    w = ember.linspace(0, 1, 4)
    (h * w).sum().backward()
    g_hard = to_np(logits.grad)
    logits.grad = None
    ember.manual_seed(3)
    (F.gumbel_softmax(logits, tau=1.0) * w).sum().backward()
    np.testing.assert_allclose(g_hard, to_np(logits.grad), rtol=1e-5, atol=1e-7)


def test_functional_names():
    for name in [
        "relu",
        "relu_",
        "relu6",
        "elu",
        "elu_",
        "selu",
        "selu_",
        "celu",
        "celu_",
        "leaky_relu",
        "leaky_relu_",
        "prelu",
        "rrelu",
        "rrelu_",
        "glu",
        "gelu",
        "logsigmoid",
        "hardshrink",
        "tanhshrink",
        "softsign",
        "softplus",
        "softmin",
        "softmax",
        "log_softmax",
        "softshrink",
        "gumbel_softmax",
        "tanh",
        "sigmoid",
        "hardsigmoid",
        "silu",
        "mish",
        "hardswish",
        "hardtanh",
        "hardtanh_",
        "threshold",
        "threshold_",
    ]:
        assert callable(getattr(F, name)), name
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.softmax(ember.ones(2), dim=0)


# ---- GELU's accuracy, and the fused activation backward (Note [Fused activation backward])

_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_K = math.sqrt(2 / math.pi)


def _gelu_exact(x):  # erfc keeps relative accuracy where 1 + erf(z) would cancel
    return 0.5 * x * _erfc(-x / math.sqrt(2))


def _gelu_tanh_exact(x):  # x/2 (1 + tanh(u)) without the cancellation for x << 0
    with np.errstate(over="ignore"):
        return x / (1 + np.exp(-2 * _K * (x + 0.044715 * x**3)))


@pytest.mark.parametrize("n", [1, 15, 16, 129, 4099])  # vector tails and the blocks of 8 vectors
def test_gelu_float32_has_relative_accuracy_in_the_tails(n):
    x = np.concatenate([np.linspace(-14.5, 20, 200_001), [-1e-30, 1e-30, -0.0, 0.0]]).astype(np.float32)
    x = np.resize(x, max(n, 1) * (len(x) // max(n, 1)))  # a length of n per row below
    t = from_np(x.reshape(-1, n) if n > 1 else x)
    got = to_np(F.gelu(t)).reshape(-1).astype(np.float64)
    ref = _gelu_exact(x.astype(np.float64))
    normal = np.abs(ref) > 1.2e-38  # float32's normal range; below it the result is subnormal or 0
    np.testing.assert_allclose(got[normal], ref[normal], rtol=6e-7, atol=0)
    np.testing.assert_allclose(got[~normal], ref[~normal], rtol=0, atol=1e-44)  # 7 subnormal steps


def test_gelu_tanh_accuracy_and_special_values():
    x = np.linspace(-9, 20, 100_003)
    got32 = to_np(F.gelu(from_np(x.astype(np.float32)), approximate="tanh")).astype(np.float64)
    ref32 = _gelu_tanh_exact(x.astype(np.float32).astype(np.float64))
    # Relative error bounded by the conditioning of u (x^3 rounds in float32): 1e-6 near 0, 2e-5 at x = -9.
    np.testing.assert_allclose(got32, ref32, rtol=2e-5, atol=0)
    mid = np.abs(x) < 3
    np.testing.assert_allclose(got32[mid], ref32[mid], rtol=1.5e-6, atol=0)
    np.testing.assert_allclose(to_np(F.gelu(from_np(x), approximate="tanh")), _gelu_tanh_exact(x), rtol=1e-13)
    # float64 'none' is PyTorch's 1 + erf(z): absolute accuracy where that cancels (x < -3)
    np.testing.assert_allclose(to_np(F.gelu(from_np(x))), _gelu_exact(x), rtol=1e-13, atol=2e-15)
    for dtype in (np.float32, np.float64):
        s = from_np(np.array([math.inf, -math.inf, math.nan, -100.0, 100.0], dtype))
        for approximate in ("none", "tanh"):
            got = to_np(F.gelu(s, approximate=approximate))
            assert got[0] == math.inf and np.isnan(got[1]) and np.isnan(got[2]), (dtype, approximate)
            assert got[3] == 0 and got[4] == 100


def _sig(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _gelu_tanh_grad(x):
    u = _K * (x + 0.044715 * x**3)
    t = np.tanh(u)
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _K * (1 + 3 * 0.044715 * x * x)


def _mish_grad(x):
    t = np.tanh(np.logaddexp(0, x))
    return t + x * _sig(x) * (1 - t * t)


# name -> (ember call, float64 NumPy derivative)
FUSED_GRADS = {
    "relu": (F.relu, lambda x: (x > 0) * 1.0),
    "sigmoid": (ember.sigmoid, lambda x: _sig(x) * (1 - _sig(x))),
    "tanh": (ember.tanh, lambda x: 1 - np.tanh(x) ** 2),
    "gelu": (F.gelu, lambda x: 0.5 * _erfc(-x / math.sqrt(2)) + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)),
    "gelu_tanh": (lambda t: F.gelu(t, approximate="tanh"), _gelu_tanh_grad),
    "silu": (F.silu, lambda x: _sig(x) * (1 + x * (1 - _sig(x)))),
    "mish": (F.mish, _mish_grad),
    "softplus": (lambda t: F.softplus(t, beta=2, threshold=5), lambda x: np.where(2 * x > 5, 1.0, _sig(2 * x))),
    "elu": (lambda t: F.elu(t, 1.5), lambda x: np.where(x > 0, 1.0, 1.5 * np.exp(np.minimum(x, 0)))),
    "selu": (F.selu, lambda x: SELU_SCALE * np.where(x > 0, 1.0, SELU_ALPHA * np.exp(np.minimum(x, 0)))),
    "celu": (lambda t: F.celu(t, 0.5), lambda x: np.where(x > 0, 1.0, np.exp(np.minimum(x, 0) / 0.5))),
    "leaky_relu": (lambda t: F.leaky_relu(t, 0.2), lambda x: np.where(x > 0, 1.0, 0.2)),
    "hardtanh": (lambda t: F.hardtanh(t, -2.5, 1.5), lambda x: ((x > -2.5) & (x < 1.5)) * 1.0),
    "hardsigmoid": (F.hardsigmoid, lambda x: ((x > -3) & (x < 3)) / 6.0),
    "hardswish": (F.hardswish, lambda x: np.where(x < -3, 0.0, np.where(x <= 3, x / 3 + 0.5, 1.0))),
}


def _grad(fn, x_np, g, create_graph, strided=False):
    base = from_np(np.repeat(x_np, 2) if strided else x_np).requires_grad_()
    x = base[::2] if strided else base
    (gx,) = ember.autograd.grad(fn(x), base, g, create_graph=create_graph)
    out = to_np(gx.detach())
    return out[::2] if strided else out


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(FUSED_GRADS))
def test_fused_activation_backward_against_numpy(name, dtype, rng):
    fn, deriv = FUSED_GRADS[name]
    x = (rng.standard_normal(1037) * 4).astype(dtype)
    x[:10] = [0.0, -0.0, 3.0, -3.0, 1.5, -2.5, 25.0, -25.0, 1e-30, -1e-30]  # kinks, saturation, tiny
    g = rng.standard_normal(1037).astype(dtype)
    with np.errstate(all="ignore"):
        exp = g.astype(np.float64) * deriv(x.astype(np.float64))
    # float32: the derivatives of sigmoid and tanh come from the rounded result (1 - r^2 cancels), as PyTorch's
    tol = dict(rtol=1e-12, atol=1e-13) if dtype == np.float64 else dict(rtol=2e-5, atol=3e-6)
    if name in ("sigmoid", "tanh") and dtype == np.float32:
        tol = dict(rtol=1e-4, atol=3e-6)
    # the vector path (contiguous), the strided scalar path, a broadcast gradient, and the composed formula that
    # create_graph uses: all four against NumPy
    np.testing.assert_allclose(_grad(fn, x, from_np(g), False), exp, **tol, err_msg=name)
    np.testing.assert_allclose(_grad(fn, x, from_np(g), False, strided=True), exp, **tol, err_msg=name)
    ones = from_np(np.ones(1, dtype)).expand(1037)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(_grad(fn, x, ones, False), deriv(x.astype(np.float64)), **tol, err_msg=name)
    np.testing.assert_allclose(_grad(fn, x, from_np(g), True), exp, **tol, err_msg=name)


@pytest.mark.parametrize("name", ["gelu", "silu", "hardswish", "elu"])
def test_fused_activation_backward_16_bit_and_second_derivative(name, rng):
    fn, deriv = FUSED_GRADS[name]
    x = np.array([-2.0, -0.5, 0.25, 1.75], np.float32)
    for dtype in (ember.float16, ember.bfloat16):
        t = ember.tensor(x.tolist(), dtype=dtype, requires_grad=True)
        fn(t).sum().backward()
        assert t.grad.dtype is dtype
        np.testing.assert_allclose(
            to_np(t.grad.float()), deriv(to_np(t.detach().float()).astype(np.float64)), rtol=2e-2, atol=1e-2
        )
    # create_graph records the composed formula, so the gradient has its own gradient (central differences here)
    xs = from_np(x.astype(np.float64)).requires_grad_()
    (d,) = ember.autograd.grad(fn(xs).sum(), xs, create_graph=True)
    d.sum().backward()
    h = 1e-6
    second = (deriv(x.astype(np.float64) + h) - deriv(x.astype(np.float64) - h)) / (2 * h)
    np.testing.assert_allclose(to_np(xs.grad), second, rtol=1e-5, atol=1e-7)
