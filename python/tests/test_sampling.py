"""The distribution samplers (ember/ops/sampling.cpp): Tensor.exponential_/geometric_/cauchy_/log_normal_,
ember._standard_gamma (+ its reparameterization gradient), _sample_dirichlet, poisson, binomial.

Statistics use fixed seeds, so every check is deterministic; the bounds are still several standard errors wide
(or Kolmogorov-Smirnov p-values above 1e-4), so that a correct sampler passes for any seed."""

import math

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st
from conftest import to_np

import ember

N = 40_000


def ks_ok(samples, cdf):
    return st.kstest(np.asarray(samples, np.float64).ravel(), cdf).pvalue > 1e-4


def mean_ok(x, mean, var, z=6.0):
    x = np.asarray(x, np.float64).ravel()
    return abs(x.mean() - mean) <= z * math.sqrt(var / x.size) + 1e-12


# -- in-place samplers -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16], ids=lambda d: repr(d).split(".")[-1]
)
def test_exponential_(dtype):
    ember.manual_seed(0)
    t = ember.empty(N, dtype=dtype)
    assert t.exponential_(2.5) is t
    x = to_np(t).astype(np.float64)
    assert t.dtype == dtype and (x >= 0).all()
    if dtype in (ember.float32, ember.float64):
        assert ks_ok(x, st.expon(scale=1 / 2.5).cdf)
    assert mean_ok(x, 1 / 2.5, 1 / 2.5**2)
    assert math.isinf(ember.empty(3).exponential_(0).min().item())
    assert ember.empty(3).exponential_(float("inf")).max().item() == 0


def test_geometric_():
    ember.manual_seed(1)
    x = to_np(ember.empty(N, dtype=ember.float64).geometric_(0.3))
    assert (x >= 1).all() and (x == np.round(x)).all()
    assert mean_ok(x, 1 / 0.3, 0.7 / 0.09)
    # the pmf (trials up to the first success) against counts
    for k in range(1, 6):
        assert abs(np.mean(x == k) - st.geom(0.3).pmf(k)) < 6 * math.sqrt(0.25 / N)
    xi = ember.empty(1000, dtype=ember.int64).geometric_(0.5)
    assert xi.dtype == ember.int64 and xi.min().item() >= 1


def test_cauchy_():
    ember.manual_seed(2)
    x = to_np(ember.empty(N, dtype=ember.float64).cauchy_(1.5, 0.5))
    assert ks_ok(x, st.cauchy(loc=1.5, scale=0.5).cdf)
    assert (to_np(ember.empty(4).cauchy_(3.0, 0.0)) == 3.0).all()


def test_log_normal_():
    ember.manual_seed(3)
    t = ember.empty(N, dtype=ember.float64).log_normal_(0.5, 0.25)
    x = to_np(t)
    assert (x > 0).all()
    assert ks_ok(np.log(x), st.norm(0.5, 0.25).cdf)
    d = ember.empty(5).log_normal_()  # PyTorch's defaults: mean 1, std 2
    assert d.dtype == ember.float32


def test_inplace_samplers_noncontiguous_and_empty():
    ember.manual_seed(4)
    base = ember.zeros(20, 30)
    v = base.t()
    v.exponential_()
    assert (to_np(base) > 0).mean() > 0.99
    cols = ember.zeros(10, 4)
    cols[:, 1].cauchy_()
    c = to_np(cols)
    assert (c[:, [0, 2, 3]] == 0).all() and (c[:, 1] != 0).all()
    for f in (
        lambda t: t.exponential_(),
        lambda t: t.geometric_(0.5),
        lambda t: t.cauchy_(),
        lambda t: t.log_normal_(),
    ):
        e = ember.empty(0, 3)
        assert f(e).shape == (0, 3)


def test_inplace_samplers_reproduce_and_take_generators():
    for f in (
        lambda t, **g: t.exponential_(1.5, **g),
        lambda t, **g: t.geometric_(0.2, **g),
        lambda t, **g: t.cauchy_(0, 1, **g),
        lambda t, **g: t.log_normal_(0, 1, **g),
    ):
        ember.manual_seed(7)
        a = to_np(f(ember.empty(50)))
        ember.manual_seed(7)
        b = to_np(f(ember.empty(50)))
        np.testing.assert_array_equal(a, b)
        g = ember.Generator().manual_seed(7)
        c = to_np(f(ember.empty(50), generator=g))
        np.testing.assert_array_equal(a, c)
        assert not np.array_equal(a, to_np(f(ember.empty(50))))  # the stream advanced


def test_inplace_sampler_errors():
    with pytest.raises(RuntimeError, match=r"exponential_ expects lambda >= 0.0"):
        ember.empty(3).exponential_(-1)
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\)"):
        ember.empty(3).geometric_(0)
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\)"):
        ember.empty(3).geometric_(1.5)
    with pytest.raises(RuntimeError, match=r"log_normal_ expects std > 0.0"):
        ember.empty(3).log_normal_(0, 0)
    for name, f in (
        ("exponential_", lambda t: t.exponential_()),
        ("cauchy_", lambda t: t.cauchy_()),
        ("log_normal_", lambda t: t.log_normal_()),
    ):
        with pytest.raises(RuntimeError, match=name):
            f(ember.empty(3, dtype=ember.int64))


# -- gamma ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.01, 0.3, 1.0, 2.5, 40.0, 3000.0])
def test_standard_gamma_distribution(alpha):
    ember.manual_seed(10)
    x = to_np(ember._standard_gamma(ember.full((N,), alpha, dtype=ember.float64)))
    assert (x > 0).all()
    assert ks_ok(x, st.gamma(alpha).cdf)
    assert mean_ok(x, alpha, alpha)


def test_standard_gamma_dtypes_broadcast_and_edges():
    ember.manual_seed(11)
    a = ember.tensor([[0.5], [4.0]]).expand(2, 5000)  # non-contiguous parameters
    x = ember._standard_gamma(a)
    assert x.shape == (2, 5000) and x.dtype == ember.float32
    m = to_np(x).mean(1)
    assert abs(m[0] - 0.5) < 6 * math.sqrt(0.5 / 5000) and abs(m[1] - 4.0) < 6 * math.sqrt(4.0 / 5000)
    z = to_np(ember._standard_gamma(ember.zeros(3)))  # alpha 0: the dtype's smallest normal number, as PyTorch
    np.testing.assert_array_equal(z, np.full(3, np.finfo(np.float32).tiny))
    assert ember._standard_gamma(ember.empty(0)).shape == (0,)
    h = ember._standard_gamma(ember.full((100,), 3.0, dtype=ember.float16))
    assert h.dtype == ember.float16 and (to_np(h) > 0).all()
    with pytest.raises(RuntimeError, match="_standard_gamma: expects all elements of alpha to be non-negative"):
        ember._standard_gamma(ember.tensor([1.0, -1.0]))
    with pytest.raises(RuntimeError, match="_standard_gamma"):
        ember._standard_gamma(ember.tensor([1, 2]))


def _gamma_grad_reference(alpha, x):
    """-(d/dalpha P(alpha, x)) / pdf(x), the derivative by central differences of scipy's gammainc."""
    h = 1e-5 * max(alpha, 1.0)
    dP = (sp.gammainc(alpha + h, x) - sp.gammainc(alpha - h, x)) / (2 * h)
    return -dP / st.gamma(alpha).pdf(x)


@pytest.mark.parametrize("alpha", [0.05, 0.5, 1.0, 3.0, 25.0, 400.0, 2e4])
def test_standard_gamma_grad_against_finite_differences(alpha):
    qs = np.array([0.01, 0.2, 0.5, 0.8, 0.99])
    xs = st.gamma(alpha).ppf(qs)
    got = to_np(
        ember._standard_gamma_grad(
            ember.full((5,), alpha, dtype=ember.float64), ember.tensor(xs.tolist(), dtype=ember.float64)
        )
    )
    want = np.array([_gamma_grad_reference(alpha, x) for x in xs])
    rtol = 2e-3 if alpha >= 1e4 else 1e-5  # Wilson-Hilferty above 1e4 (Note [Gamma reparameterization gradient])
    np.testing.assert_allclose(got, want, rtol=rtol)


def test_standard_gamma_grad_matches_torch_values():
    # torch._standard_gamma_grad(torch.tensor([1., 2.]), torch.tensor([0.5, 1.])) in PyTorch 1.13
    got = to_np(ember._standard_gamma_grad(ember.tensor([1.0, 2.0]), ember.tensor([0.5, 1.0])))
    np.testing.assert_allclose(got, [0.8070, 0.7507], atol=1e-4)


def test_standard_gamma_backward():
    # E[d x / d alpha] = d E[x] / d alpha = 1 for x ~ Gamma(alpha, 1)
    ember.manual_seed(12)
    a = ember.tensor([0.4, 2.0, 15.0], dtype=ember.float64, requires_grad=True)
    x = ember._standard_gamma(a.unsqueeze(0).expand(N, 3))
    x.sum().backward()
    g = to_np(a.grad) / N
    np.testing.assert_allclose(g, 1.0, atol=0.05)
    # the gradient of each sample is standard_gamma_grad(alpha, x)
    a2 = ember.tensor([0.7, 3.0], requires_grad=True)
    y = ember._standard_gamma(a2)
    y.backward(ember.ones(2))
    np.testing.assert_allclose(to_np(a2.grad), to_np(ember._standard_gamma_grad(a2.detach(), y.detach())), rtol=1e-6)


def test_sample_dirichlet():
    ember.manual_seed(13)
    alpha = ember.tensor([0.5, 1.0, 3.0], dtype=ember.float64)
    x = to_np(ember._sample_dirichlet(alpha.expand(N, 3)))
    np.testing.assert_allclose(x.sum(1), 1.0, rtol=1e-12)
    a = np.array([0.5, 1.0, 3.0])
    mean, var = a / a.sum(), a * (a.sum() - a) / (a.sum() ** 2 * (a.sum() + 1))
    for k in range(3):
        assert mean_ok(x[:, k], mean[k], var[k])
    small = to_np(ember._sample_dirichlet(ember.full((1000, 2), 1e-3)))
    assert np.isfinite(small).all() and (small > 0).all()
    with pytest.raises(RuntimeError, match="_sample_dirichlet"):
        ember._sample_dirichlet(ember.tensor([1.0, -2.0]))


# -- poisson and binomial ----------------------------------------------------------------------------------------


def _pmf_close(x, pmf, support):
    """Every probability of the support within 6 standard errors of its frequency."""
    n = x.size
    for k in support:
        p = pmf(k)
        assert abs(np.mean(x == k) - p) <= 6 * math.sqrt(max(p * (1 - p), 1 / n) / n), (k, np.mean(x == k), p)


@pytest.mark.parametrize("rate", [0.0, 0.3, 4.0, 9.99, 10.0, 60.0, 1e5])
def test_poisson(rate):
    ember.manual_seed(20)
    x = to_np(ember.poisson(ember.full((N,), rate, dtype=ember.float64)))
    assert (x >= 0).all() and (x == np.round(x)).all()
    assert mean_ok(x, rate, rate)
    if 0 < rate <= 60:
        lo, hi = int(st.poisson(rate).ppf(0.001)), int(st.poisson(rate).ppf(0.999))
        _pmf_close(x, st.poisson(rate).pmf, range(lo, hi + 1))


def test_poisson_dtype_broadcast_errors():
    ember.manual_seed(21)
    r = ember.tensor([1.0, 50.0]).unsqueeze(0).expand(3, 2)
    y = ember.poisson(r)
    assert y.shape == (3, 2) and y.dtype == ember.float32
    assert ember.poisson(ember.empty(0, 4)).shape == (0, 4)
    with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
        ember.poisson(ember.tensor([1.0, -1.0]))
    with pytest.raises(RuntimeError, match="poisson"):
        ember.poisson(ember.tensor([float("nan")]))
    with pytest.raises(RuntimeError, match="poisson"):
        ember.poisson(ember.tensor([1, 2]))


@pytest.mark.parametrize("n,p", [(1, 0.3), (10, 0.5), (25, 0.1), (100, 0.3), (100, 0.9), (5000, 0.02), (1e6, 0.5)])
def test_binomial(n, p):
    ember.manual_seed(22)
    x = to_np(ember.binomial(ember.full((N,), float(n), dtype=ember.float64), ember.full((N,), p, dtype=ember.float64)))
    assert (x >= 0).all() and (x <= n).all() and (x == np.round(x)).all()
    assert mean_ok(x, n * p, n * p * (1 - p))
    if n <= 5000:
        b = st.binom(int(n), p)
        _pmf_close(x, b.pmf, range(int(b.ppf(0.001)), int(b.ppf(0.999)) + 1))


def test_binomial_edges_broadcast_errors():
    ember.manual_seed(23)
    y = ember.binomial(ember.tensor([[0.0], [7.0]]), ember.tensor([0.0, 1.0, 0.5]))
    assert y.shape == (2, 3) and y.dtype == ember.float32
    v = to_np(y)
    np.testing.assert_array_equal(v[0], 0)
    assert v[1, 0] == 0 and v[1, 1] == 7 and 0 <= v[1, 2] <= 7
    with pytest.raises(RuntimeError, match=r"binomial: expects count >= 0 and prob in \[0, 1\]"):
        ember.binomial(ember.tensor([5.0]), ember.tensor([1.5]))
    with pytest.raises(RuntimeError, match="binomial"):
        ember.binomial(ember.tensor([-5.0]), ember.tensor([0.5]))
    with pytest.raises(RuntimeError, match="binomial"):
        ember.binomial(ember.tensor([5]), ember.tensor([0.5]))


@pytest.mark.parametrize("kappa", [0.0, 1e-6, 0.01, 0.5, 2.0, 50.0, 1e4])
def test_sample_von_mises(kappa):
    ember.manual_seed(24)
    x = to_np(
        ember._sample_von_mises(ember.zeros(N, dtype=ember.float64), ember.full((N,), kappa, dtype=ember.float64))
    )
    assert (x >= -math.pi).all() and (x < math.pi).all()
    ref = st.vonmises(kappa).cdf if kappa > 0 else st.uniform(-math.pi, 2 * math.pi).cdf
    assert ks_ok(x, ref)


def test_sample_von_mises_loc_wraps_and_errors():
    ember.manual_seed(25)
    y = to_np(ember._sample_von_mises(ember.tensor([[3.0], [-3.0]]), ember.tensor([5.0, 100.0])))
    assert y.shape == (2, 2) and (y >= -math.pi).all() and (y < math.pi).all()
    # around loc = 3 (near pi) samples wrap to the negative side
    w = to_np(
        ember._sample_von_mises(
            ember.full((5000,), 3.0, dtype=ember.float64), ember.full((5000,), 4.0, dtype=ember.float64)
        )
    )
    assert (w < 0).mean() > 0.1
    c = np.angle(np.exp(1j * w).mean())
    assert abs(c - 3.0) < 0.02
    with pytest.raises(RuntimeError, match="_sample_von_mises: expects finite loc and concentration >= 0"):
        ember._sample_von_mises(ember.tensor([0.0]), ember.tensor([-1.0]))


def test_sampler_autograd_as_pytorch():
    r = ember.tensor([1.0, 2.0], requires_grad=True)
    p = ember.poisson(r)
    assert p.requires_grad
    p.sum().backward()
    np.testing.assert_array_equal(to_np(r.grad), [0.0, 0.0])  # PoissonBackward0: zeros
    c = ember.tensor([5.0], requires_grad=True)
    b = ember.binomial(c, ember.tensor([0.5]))
    with pytest.raises(NotImplementedError, match="binomial"):
        b.sum().backward()
    d = ember._sample_dirichlet(ember.tensor([1.0, 2.0], requires_grad=True))
    with pytest.raises(NotImplementedError, match="_sample_dirichlet"):
        d.sum().backward()
    with ember.no_grad():
        assert not ember.poisson(r).requires_grad


def test_samplers_reproduce():
    fs = [
        lambda **g: ember._standard_gamma(ember.full((300,), 0.7), **g),
        lambda **g: ember.poisson(ember.full((300,), 30.0), **g),
        lambda **g: ember.binomial(ember.full((300,), 40.0), ember.full((300,), 0.4), **g),
        lambda **g: ember._sample_dirichlet(ember.ones(100, 3), **g),
        lambda **g: ember._sample_von_mises(ember.zeros(300), ember.full((300,), 2.0), **g),
    ]
    for f in fs:
        ember.manual_seed(99)
        a = to_np(f())
        ember.manual_seed(99)
        np.testing.assert_array_equal(a, to_np(f()))
        g = ember.Generator().manual_seed(99)
        np.testing.assert_array_equal(a, to_np(f(generator=g)))
