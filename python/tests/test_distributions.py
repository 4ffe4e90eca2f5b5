"""ember.distributions against scipy.stats: log_prob / cdf / icdf / entropy / mean / variance; sample shapes and
moments (fixed seeds, bounds of several standard errors); rsample gradients against closed forms; KL divergences
against closed forms and Monte Carlo; parameter validation; broadcasting; transforms."""

import math

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st
from conftest import to_np

import ember
import ember.distributions as D
from ember.distributions import constraints
from ember.distributions import transforms as T

f64 = ember.float64


def t64(x):
    return ember.tensor(np.asarray(x, np.float64).tolist(), dtype=f64)


def close(a, b, rtol=1e-6, atol=1e-9):
    np.testing.assert_allclose(to_np(a) if isinstance(a, ember.Tensor) else a, b, rtol=rtol, atol=atol)


# (name, ember distribution, scipy frozen distribution, values inside the support); parameters broadcast (2,1)x(3,)
A = np.array([[0.5], [2.0]])
B = np.array([0.7, 1.5, 3.0])
AB = np.broadcast_arrays(A, B)
CONTINUOUS = [
    ("Normal", lambda: D.Normal(t64(A), t64(B)), st.norm(AB[0], AB[1]), np.array([-1.0, 0.3, 2.5])),
    (
        "Uniform",
        lambda: D.Uniform(t64(A) - 1, t64(A) + t64(B)),
        st.uniform(AB[0] - 1, AB[1] + 1),
        np.array([1.05, 1.1, 1.19]),
    ),
    ("Exponential", lambda: D.Exponential(t64(B)), st.expon(scale=1 / B), np.array([0.1, 1.0, 4.0])),
    ("Laplace", lambda: D.Laplace(t64(A), t64(B)), st.laplace(AB[0], AB[1]), np.array([-1.0, 0.5, 3.0])),
    ("Cauchy", lambda: D.Cauchy(t64(A), t64(B)), st.cauchy(AB[0], AB[1]), np.array([-1.0, 0.5, 3.0])),
    ("Gumbel", lambda: D.Gumbel(t64(A), t64(B)), st.gumbel_r(AB[0], AB[1]), np.array([-1.0, 0.5, 3.0])),
    (
        "LogNormal",
        lambda: D.LogNormal(t64(A), t64(B)),
        st.lognorm(AB[1], scale=np.exp(AB[0])),
        np.array([0.2, 1.0, 5.0]),
    ),
    ("HalfNormal", lambda: D.HalfNormal(t64(B)), st.halfnorm(scale=B), np.array([0.1, 1.0, 2.0])),
    ("HalfCauchy", lambda: D.HalfCauchy(t64(B)), st.halfcauchy(scale=B), np.array([0.1, 1.0, 2.0])),
    ("Gamma", lambda: D.Gamma(t64(A), t64(B)), st.gamma(AB[0], scale=1 / AB[1]), np.array([0.1, 1.0, 2.0])),
    ("Chi2", lambda: D.Chi2(t64(B)), st.chi2(B), np.array([0.1, 1.0, 2.0])),
    ("Beta", lambda: D.Beta(t64(A), t64(B)), st.beta(AB[0], AB[1]), np.array([0.1, 0.5, 0.9])),
    (
        "StudentT",
        lambda: D.StudentT(t64(B) + 2, t64(A), t64(B)),
        st.t(AB[1] + 2, AB[0], AB[1]),
        np.array([-1.0, 0.5, 3.0]),
    ),
    ("Pareto", lambda: D.Pareto(t64(A), t64(B) + 2), st.pareto(AB[1] + 2, scale=AB[0]), np.array([2.1, 2.5, 4.0])),
    ("Weibull", lambda: D.Weibull(t64(A), t64(B)), st.weibull_min(AB[1], scale=AB[0]), np.array([0.1, 1.0, 2.0])),
    (
        "FisherSnedecor",
        lambda: D.FisherSnedecor(t64(A) + 1, t64(B) + 4),
        st.f(AB[0] + 1, AB[1] + 4),
        np.array([0.1, 1.0, 2.0]),
    ),
]
HAS = {  # which of cdf / icdf / entropy / mean / variance each family defines (as PyTorch)
    "Normal": "cdf icdf entropy mean variance",
    "Uniform": "cdf icdf entropy mean variance",
    "Exponential": "cdf icdf entropy mean variance",
    "Laplace": "cdf icdf entropy mean variance",
    "Cauchy": "cdf icdf entropy",
    "Gumbel": "entropy mean variance",
    "LogNormal": "cdf icdf entropy mean variance",
    "HalfNormal": "cdf icdf entropy mean variance",
    "HalfCauchy": "cdf icdf entropy",
    "Gamma": "cdf entropy mean variance",
    "Chi2": "cdf entropy mean variance",
    "Beta": "entropy mean variance",
    "StudentT": "entropy mean variance",
    "Pareto": "cdf icdf entropy mean variance",
    "Weibull": "cdf icdf entropy mean variance",
    "FisherSnedecor": "mean variance",
}


@pytest.mark.parametrize("name,make,ref,values", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_against_scipy(name, make, ref, values):
    d = make()
    shape = ref.mean().shape if hasattr(ref.mean(), "shape") else ()
    assert tuple(d.batch_shape) == tuple(np.broadcast_shapes(shape)), d.batch_shape
    v = np.broadcast_to(values, d.batch_shape)
    close(d.log_prob(t64(v)), ref.logpdf(v), rtol=1e-6)
    has = HAS[name].split()
    if "cdf" in has:
        close(d.cdf(t64(v)), ref.cdf(v), rtol=1e-6)
    if "icdf" in has:
        q = np.broadcast_to(np.array([0.1, 0.5, 0.8]), d.batch_shape)
        close(d.icdf(t64(q)), ref.ppf(q), rtol=1e-6)
    if "entropy" in has:
        close(d.entropy(), np.broadcast_to(ref.entropy(), d.batch_shape), rtol=1e-6)
    if "mean" in has:
        close(d.mean, np.broadcast_to(ref.mean(), d.batch_shape), rtol=1e-6)
    if "variance" in has:
        close(d.variance, np.broadcast_to(ref.var(), d.batch_shape), rtol=1e-6)
        close(d.stddev, np.broadcast_to(ref.std(), d.batch_shape), rtol=1e-6)


@pytest.mark.parametrize("name,make,ref,values", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_samples(name, make, ref, values):
    ember.manual_seed(5)
    d = make()
    x = d.sample((4000,))
    assert tuple(x.shape) == (4000,) + tuple(d.batch_shape) and x.dtype == f64
    xs = to_np(x)
    assert to_np(d.support.check(x)).all()
    # Kolmogorov-Smirnov per batch element on the probability integral transform (a fixed seed: deterministic;
    # p > 1e-4 holds for any correct sampler)
    u = ref.cdf(xs)
    for idx in np.ndindex(*d.batch_shape):
        assert st.kstest(u[(slice(None),) + idx], "uniform").pvalue > 1e-4, idx
    assert d.sample().shape == d.batch_shape
    if d.has_rsample:
        assert d.rsample((2, 3)).shape == (2, 3) + tuple(d.batch_shape)


DISCRETE = [
    ("Bernoulli", lambda: D.Bernoulli(probs=t64([0.2, 0.5, 0.9])), st.bernoulli([0.2, 0.5, 0.9]), [0.0, 1.0, 1.0]),
    ("Geometric", lambda: D.Geometric(probs=t64([0.2, 0.5, 0.9])), st.geom([0.2, 0.5, 0.9], loc=-1), [0.0, 3.0, 1.0]),
    ("Poisson", lambda: D.Poisson(t64([0.5, 4.0, 30.0])), st.poisson([0.5, 4.0, 30.0]), [0.0, 3.0, 31.0]),
    (
        "Binomial",
        lambda: D.Binomial(t64([5.0, 10.0, 40.0]), probs=t64([0.2, 0.5, 0.9])),
        st.binom([5, 10, 40], [0.2, 0.5, 0.9]),
        [1.0, 5.0, 39.0],
    ),
    (
        "NegativeBinomial",
        lambda: D.NegativeBinomial(t64([3.0, 0.5, 10.0]), probs=t64([0.2, 0.5, 0.7])),
        st.nbinom([3.0, 0.5, 10.0], [0.8, 0.5, 0.3]),
        [0.0, 2.0, 20.0],
    ),
]


@pytest.mark.parametrize("name,make,ref,values", DISCRETE, ids=[c[0] for c in DISCRETE])
def test_discrete_against_scipy(name, make, ref, values):
    d = make()
    close(d.log_prob(t64(values)), ref.logpmf(values), rtol=1e-6)
    close(d.mean, ref.mean(), rtol=1e-6)
    close(d.variance, ref.var(), rtol=1e-6)
    if name in ("Bernoulli", "Geometric"):
        close(d.entropy(), ref.entropy(), rtol=1e-6)
    ember.manual_seed(6)
    x = to_np(d.sample((20000,)))
    assert to_np(d.support.check(t64(x))).all()
    m, v = ref.mean(), ref.var()
    assert (np.abs(x.mean(0) - m) <= 6 * np.sqrt(v / x.shape[0])).all(), (x.mean(0), m)


def test_binomial_logits_extremes():
    d = D.Binomial(10, logits=t64([-200.0, 0.0, 200.0]))
    lp = to_np(d.log_prob(t64([0.0, 5.0, 10.0])))
    assert np.isfinite(lp).all()
    close(lp, [0.0, st.binom(10, 0.5).logpmf(5), 0.0], atol=1e-8)
    # entropy needs one total_count (PyTorch's limitation too)
    close(D.Binomial(10, probs=t64([0.2, 0.7])).entropy(), st.binom(10, [0.2, 0.7]).entropy(), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="Inhomogeneous"):
        D.Binomial(t64([5.0, 10.0]), probs=t64([0.2, 0.7])).entropy()


def test_von_mises():
    loc, k = np.array([0.5, -2.0, 3.0]), np.array([0.3, 2.0, 40.0])
    d = D.VonMises(t64(loc), t64(k))
    x = np.array([0.1, -2.5, -3.0])
    close(d.log_prob(t64(x)), st.vonmises(k, loc=loc).logpdf(x), rtol=1e-6)  # scipy's pdf is 2 pi periodic
    close(d.variance, 1 - sp.i1e(k) / sp.i0e(k), rtol=1e-6)
    ember.manual_seed(26)
    s = to_np(d.sample((20000,)))
    assert s.shape == (20000, 3) and (s >= -math.pi).all() and (s < math.pi).all()
    np.testing.assert_allclose(np.angle(np.exp(1j * s).mean(0)), loc, atol=0.05)
    np.testing.assert_allclose(1 - np.abs(np.exp(1j * s).mean(0)), to_np(d.variance), atol=0.02)
    with pytest.raises(ValueError):
        D.VonMises(0.0, -1.0)


def test_kumaraswamy_and_logistic_normal():
    a, b = 2.0, 3.5
    d = D.Kumaraswamy(t64(a), t64(b))
    x = np.array([0.1, 0.5, 0.9])
    close(d.log_prob(t64(x)), np.log(a * b * x ** (a - 1) * (1 - x**a) ** (b - 1)))
    grid = np.linspace(1e-9, 1 - 1e-9, 200001)
    dens = a * b * grid ** (a - 1) * (1 - grid**a) ** (b - 1)
    close(d.mean, np.trapezoid(grid * dens, grid), rtol=1e-6)
    close(d.variance, np.trapezoid((grid - float(to_np(d.mean))) ** 2 * dens, grid), rtol=1e-5)
    close(d.entropy(), -np.trapezoid(dens * np.log(dens), grid), rtol=1e-5)
    ember.manual_seed(3)
    s = to_np(d.sample((20000,)))
    assert st.kstest(s, lambda y: 1 - (1 - y**a) ** b).pvalue > 1e-4
    ln = D.LogisticNormal(t64([0.0, 1.0]), t64([1.0, 0.5]))
    y = ln.sample((5,))
    assert y.shape == (5, 3) and np.allclose(to_np(y).sum(-1), 1)
    assert np.isfinite(to_np(ln.log_prob(y))).all()


def test_categorical_and_one_hot():
    p = np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])
    d = D.Categorical(probs=t64(p * 5))  # unnormalized probs are normalized
    close(d.probs, p)
    close(d.log_prob(ember.tensor([2, 0])), np.log([0.7, 0.3]))
    close(d.entropy(), st.entropy(p.T))
    assert d.batch_shape == (2,) and d.event_shape == ()
    dl = D.Categorical(logits=t64(np.log(p) + 3.0))
    close(dl.probs, p)
    ember.manual_seed(7)
    x = to_np(d.sample((20000,)))
    assert x.shape == (20000, 2) and x.dtype == np.int64
    for r in range(2):
        for k in range(3):
            assert abs(np.mean(x[:, r] == k) - p[r, k]) < 6 * math.sqrt(0.25 / 20000)
    assert to_np(d.enumerate_support()).tolist() == [[0, 0], [1, 1], [2, 2]]
    assert to_np(d.mode).tolist() == [2, 2]
    o = D.OneHotCategorical(probs=t64(p))
    assert o.event_shape == (3,) and o.batch_shape == (2,)
    s = o.sample((5,))
    assert s.shape == (5, 2, 3) and (to_np(s).sum(-1) == 1).all()
    close(o.log_prob(t64([[0, 0, 1], [1, 0, 0]])), np.log([0.7, 0.3]))
    close(o.entropy(), st.entropy(p.T))


def test_multinomial():
    p = np.array([0.2, 0.3, 0.5])
    d = D.Multinomial(10, probs=t64(p))
    x = [3.0, 3.0, 4.0]
    close(d.log_prob(t64(x)), st.multinomial(10, p).logpmf(x))
    close(d.entropy(), st.multinomial(10, p).entropy(), rtol=1e-6)
    close(d.mean, 10 * p)
    close(d.variance, 10 * p * (1 - p))
    ember.manual_seed(8)
    s = to_np(d.sample((5000,)))
    assert s.shape == (5000, 3) and (s.sum(-1) == 10).all()
    assert (np.abs(s.mean(0) - 10 * p) < 6 * np.sqrt(10 * p * (1 - p) / 5000)).all()


def test_dirichlet():
    a = np.array([0.5, 1.5, 3.0])
    d = D.Dirichlet(t64(a))
    x = np.array([0.2, 0.3, 0.5])
    close(d.log_prob(t64(x)), st.dirichlet(a).logpdf(x))
    close(d.entropy(), st.dirichlet(a).entropy())
    close(d.mean, st.dirichlet(a).mean())
    close(d.variance, st.dirichlet(a).var())
    ember.manual_seed(9)
    s = to_np(d.sample((20000,)))
    np.testing.assert_allclose(s.sum(-1), 1, rtol=1e-12)
    assert (np.abs(s.mean(0) - st.dirichlet(a).mean()) < 6 * np.sqrt(st.dirichlet(a).var() / 20000)).all()


def test_multivariate_normal_parameterizations():
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3, 3))
    cov = m @ m.T + 3 * np.eye(3)
    loc = np.array([0.5, -1.0, 2.0])
    x = np.array([[0.1, 0.2, 0.3], [1.0, -1.0, 0.0]])
    ref = st.multivariate_normal(loc, cov)
    L = np.linalg.cholesky(cov)
    for d in (
        D.MultivariateNormal(t64(loc), covariance_matrix=t64(cov)),
        D.MultivariateNormal(t64(loc), scale_tril=t64(L)),
        D.MultivariateNormal(t64(loc), precision_matrix=t64(np.linalg.inv(cov))),
    ):
        assert d.batch_shape == () and d.event_shape == (3,)
        close(d.log_prob(t64(x)), ref.logpdf(x))
        close(d.entropy(), ref.entropy())
        close(d.covariance_matrix, cov, rtol=1e-9)
        close(d.scale_tril, L, rtol=1e-9)
        close(d.precision_matrix, np.linalg.inv(cov), rtol=1e-8)
        close(d.variance, np.diag(cov))
    ember.manual_seed(10)
    s = to_np(D.MultivariateNormal(t64(loc), covariance_matrix=t64(cov)).sample((20000,)))
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.15 * np.abs(cov).max())
    # batched loc against one covariance
    db = D.MultivariateNormal(t64(np.zeros((4, 3))), covariance_matrix=t64(cov))
    assert db.batch_shape == (4,) and db.sample((2,)).shape == (2, 4, 3)
    with pytest.raises(ValueError, match="Exactly one of"):
        D.MultivariateNormal(t64(loc))
    with pytest.raises(ValueError):
        D.MultivariateNormal(t64(loc), covariance_matrix=t64(-np.eye(3)))


def test_lowrank_multivariate_normal():
    W = np.array([[1.0, 0.5], [0.2, -0.3], [0.0, 1.0]])
    Dg = np.array([0.5, 1.0, 2.0])
    loc = np.array([1.0, 0.0, -1.0])
    cov = W @ W.T + np.diag(Dg)
    d = D.LowRankMultivariateNormal(t64(loc), t64(W), t64(Dg))
    ref = st.multivariate_normal(loc, cov)
    x = np.array([0.3, -0.2, 0.5])
    close(d.log_prob(t64(x)), ref.logpdf(x))
    close(d.entropy(), ref.entropy())
    close(d.covariance_matrix, cov)
    close(d.variance, np.diag(cov))


def test_independent_and_expand():
    base = D.Normal(t64(np.zeros((2, 3))), t64(np.ones((2, 3))))
    d = D.Independent(base, 1)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    close(d.log_prob(t64(np.zeros((2, 3)))), 3 * st.norm.logpdf(0) * np.ones(2))
    close(d.entropy(), 3 * st.norm.entropy() * np.ones(2))
    e = d.expand((4, 2))
    assert e.batch_shape == (4, 2) and e.sample().shape == (4, 2, 3)
    n = D.Normal(t64(0.0), t64(1.0)).expand((5,))
    assert n.batch_shape == (5,) and n.sample((2,)).shape == (2, 5)
    for dist in (
        D.Gamma(t64(2.0), t64(1.0)),
        D.Beta(t64(2.0), t64(1.0)),
        D.Bernoulli(probs=t64(0.3)),
        D.Categorical(probs=t64([0.5, 0.5])),
        D.Dirichlet(t64([1.0, 2.0])),
        D.Poisson(t64(2.0)),
        D.StudentT(t64(3.0)),
        D.LogNormal(t64(0.0), t64(1.0)),
        D.Gumbel(t64(0.0), t64(1.0)),
        D.MultivariateNormal(t64([0.0, 0.0]), scale_tril=t64(np.eye(2))),
    ):
        ex = dist.expand((3,))
        assert ex.batch_shape == (3,) and ex.sample().shape == (3,) + tuple(dist.event_shape), type(dist)
        assert ex.log_prob(ex.sample()).shape == (3,)


def test_mixture_same_family():
    w = np.array([0.3, 0.7])
    locs, scales = np.array([-1.0, 2.0]), np.array([0.5, 1.5])
    d = D.MixtureSameFamily(D.Categorical(probs=t64(w)), D.Normal(t64(locs), t64(scales)))
    x = np.array([-1.0, 0.0, 3.0])
    want = np.log((w * st.norm(locs, scales).pdf(x[:, None])).sum(-1))
    close(d.log_prob(t64(x)), want)
    close(d.cdf(t64(x)), (w * st.norm(locs, scales).cdf(x[:, None])).sum(-1))
    mean = (w * locs).sum()
    close(d.mean, mean)
    close(d.variance, (w * (scales**2 + locs**2)).sum() - mean**2)
    ember.manual_seed(11)
    s = to_np(d.sample((20000,)))
    assert s.shape == (20000,)
    assert abs(s.mean() - mean) < 6 * math.sqrt(float(to_np(d.variance)) / 20000)


def test_relaxed():
    ember.manual_seed(12)
    rb = D.RelaxedBernoulli(t64(0.3), probs=t64([0.2, 0.8]))
    x = rb.rsample((1000,))
    assert x.shape == (1000, 2) and (to_np(x) > 0).all() and (to_np(x) < 1).all()
    # as the temperature goes to 0, samples approach Bernoulli(p): mean ~ p
    cold = to_np(D.RelaxedBernoulli(t64(0.01), probs=t64([0.2, 0.8])).sample((20000,)))
    assert (np.abs((cold > 0.5).mean(0) - [0.2, 0.8]) < 6 * math.sqrt(0.16 / 20000)).all()
    # the density integrates to 1 over (0, 1)
    grid = np.linspace(1e-6, 1 - 1e-6, 200001)
    dens = np.exp(to_np(D.RelaxedBernoulli(t64(0.7), probs=t64(0.3)).log_prob(t64(grid))))
    assert abs(np.trapezoid(dens, grid) - 1) < 1e-3
    rc = D.RelaxedOneHotCategorical(t64(0.5), probs=t64([0.2, 0.3, 0.5]))
    y = rc.rsample((7,))
    assert y.shape == (7, 3)
    np.testing.assert_allclose(to_np(y).sum(-1), 1, rtol=1e-9)
    assert np.isfinite(to_np(rc.log_prob(y))).all()


def test_continuous_bernoulli():
    for p in (0.2, 0.5, 0.8):
        d = D.ContinuousBernoulli(probs=t64(p))
        grid = np.linspace(0, 1, 100001)
        dens = np.exp(to_np(d.log_prob(t64(grid))))
        assert abs(np.trapezoid(dens, grid) - 1) < 1e-6
        assert abs(np.trapezoid(grid * dens, grid) - float(to_np(d.mean))) < 1e-6
        assert abs(np.trapezoid((grid - float(to_np(d.mean))) ** 2 * dens, grid) - float(to_np(d.variance))) < 1e-6
        ent = -np.trapezoid(dens * np.log(dens), grid)
        assert abs(ent - float(to_np(d.entropy()))) < 1e-5
        close(d.cdf(d.icdf(t64([0.1, 0.6]))), [0.1, 0.6], rtol=1e-6)


# -- rsample gradients ----------------------------------------------------------------------------------------------


def test_rsample_gradients_location_scale():
    ember.manual_seed(13)
    loc = ember.tensor(0.5, dtype=f64, requires_grad=True)
    scale = ember.tensor(2.0, dtype=f64, requires_grad=True)
    x = D.Normal(loc, scale).rsample((1000,))
    x.sum().backward()
    assert loc.grad.item() == pytest.approx(1000)
    close(scale.grad, ((to_np(x.detach()) - 0.5) / 2.0).sum(), rtol=1e-9)  # d x / d scale = eps


@pytest.mark.parametrize(
    "make,dmean",
    [
        (lambda a, b: D.Gamma(a, b), lambda a, b: (1 / b, -a / b**2)),
        (lambda a, b: D.Beta(a, b), lambda a, b: (b / (a + b) ** 2, -a / (a + b) ** 2)),
    ],
    ids=["Gamma", "Beta"],
)
def test_rsample_gradients_gamma_beta(make, dmean):
    # d E[x] / d params by pathwise gradients of many samples against the closed form
    ember.manual_seed(14)
    a = ember.tensor(1.7, dtype=f64, requires_grad=True)
    b = ember.tensor(2.5, dtype=f64, requires_grad=True)
    n = 40000
    make(a, b).rsample((n,)).mean().backward()
    want = dmean(1.7, 2.5)
    assert abs(a.grad.item() - want[0]) < 0.03 * max(1, abs(want[0])), (a.grad.item(), want[0])
    assert abs(b.grad.item() - want[1]) < 0.03 * max(1, abs(want[1])), (b.grad.item(), want[1])


def test_rsample_gradient_dirichlet():
    ember.manual_seed(15)
    a = ember.tensor([1.0, 2.0, 3.0], dtype=f64, requires_grad=True)
    x = D.Dirichlet(a).rsample((40000,))
    x[:, 0].mean().backward()
    # d/da_j of E[x_0] = a_0 / sum(a): (1/6 - 1/36, -1/36, -1/36)
    np.testing.assert_allclose(to_np(a.grad), [5 / 36, -1 / 36, -1 / 36], atol=0.01)


def test_log_prob_gradients_gradcheck():
    from ember.autograd import gradcheck

    for fn, args in (
        (lambda l, s: D.Normal(l, s).log_prob(t64([0.3, -1.0])), (t64([0.1, 0.2]), t64([1.5, 0.7]))),
        (lambda a, b: D.Gamma(a, b).log_prob(t64([0.3, 2.0])), (t64([1.1, 2.2]), t64([0.5, 1.7]))),
        (lambda a, b: D.Beta(a, b).log_prob(t64([0.3, 0.6])), (t64([1.1, 2.2]), t64([0.5, 1.7]))),
        (
            lambda L: D.MultivariateNormal(t64([0.0, 0.0]), scale_tril=L.tril()).log_prob(t64([0.3, 0.2])),
            (t64([[1.0, 0.0], [0.3, 2.0]]),),
        ),
    ):
        inputs = tuple(x.requires_grad_() for x in args)
        assert gradcheck(fn, inputs)


# -- KL divergence ---------------------------------------------------------------------------------------------------


def mc_kl(p, q, n=200000):
    ember.manual_seed(16)
    x = p.sample((n,))
    return to_np((p.log_prob(x) - q.log_prob(x)).mean(0))


KL_PAIRS = [
    ("Normal", D.Normal(t64([0.0, 1.0]), t64([1.0, 2.0])), D.Normal(t64([0.5, -1.0]), t64([1.5, 0.5]))),
    ("Uniform", D.Uniform(t64([0.0, 0.2]), t64([1.0, 0.5])), D.Uniform(t64([-1.0, 0.0]), t64([2.0, 1.0]))),
    ("Exponential", D.Exponential(t64([1.0, 3.0])), D.Exponential(t64([2.0, 0.5]))),
    ("Laplace", D.Laplace(t64([0.0, 1.0]), t64([1.0, 2.0])), D.Laplace(t64([0.5, -1.0]), t64([1.5, 0.5]))),
    ("Gamma", D.Gamma(t64([2.0, 0.7]), t64([1.0, 3.0])), D.Gamma(t64([1.5, 1.0]), t64([2.0, 1.0]))),
    ("Beta", D.Beta(t64([2.0, 0.7]), t64([1.0, 3.0])), D.Beta(t64([1.5, 1.0]), t64([2.0, 1.0]))),
    ("Bernoulli", D.Bernoulli(probs=t64([0.2, 0.7])), D.Bernoulli(probs=t64([0.5, 0.4]))),
    (
        "Categorical",
        D.Categorical(probs=t64([[0.2, 0.8], [0.5, 0.5]])),
        D.Categorical(probs=t64([[0.4, 0.6], [0.9, 0.1]])),
    ),
    ("Poisson", D.Poisson(t64([1.0, 5.0])), D.Poisson(t64([2.0, 4.0]))),
    ("Geometric", D.Geometric(probs=t64([0.3, 0.6])), D.Geometric(probs=t64([0.5, 0.2]))),
    ("Gumbel", D.Gumbel(t64([0.0, 1.0]), t64([1.0, 2.0])), D.Gumbel(t64([0.5, -1.0]), t64([1.5, 0.5]))),
    ("Binomial", D.Binomial(10, probs=t64([0.3, 0.6])), D.Binomial(10, probs=t64([0.5, 0.2]))),
    ("ExponentialGamma", D.Exponential(t64([1.0, 3.0])), D.Gamma(t64([2.0, 0.7]), t64([1.0, 3.0]))),
    ("NormalLaplace", D.Normal(t64([0.0, 1.0]), t64([1.0, 2.0])), D.Laplace(t64([0.5, -1.0]), t64([1.5, 0.5]))),
    ("HalfNormal", D.HalfNormal(t64([1.0, 2.0])), D.HalfNormal(t64([1.5, 0.5]))),
    ("LogNormal", D.LogNormal(t64([0.0, 1.0]), t64([1.0, 2.0])), D.LogNormal(t64([0.5, -1.0]), t64([1.5, 0.5]))),
    ("Dirichlet", D.Dirichlet(t64([[1.0, 2.0, 3.0]])), D.Dirichlet(t64([[2.0, 2.0, 0.5]]))),
    (
        "Independent",
        D.Independent(D.Normal(t64([[0.0, 1.0]]), t64([[1.0, 2.0]])), 1),
        D.Independent(D.Normal(t64([[0.5, -1.0]]), t64([[1.5, 0.5]])), 1),
    ),
    (
        "MVN",
        D.MultivariateNormal(t64([0.0, 1.0]), covariance_matrix=t64([[2.0, 0.3], [0.3, 1.0]])),
        D.MultivariateNormal(t64([1.0, -1.0]), covariance_matrix=t64([[1.0, -0.2], [-0.2, 0.5]])),
    ),
]


@pytest.mark.parametrize("name,p,q", KL_PAIRS, ids=[k[0] for k in KL_PAIRS])
def test_kl_against_monte_carlo(name, p, q):
    kl = to_np(D.kl_divergence(p, q))
    assert kl.shape == tuple(p.batch_shape)
    mc = mc_kl(p, q)
    # MC standard error of mean(log p - log q) is below ~1% here; 6 SE plus a small absolute slack
    np.testing.assert_allclose(kl, mc, rtol=0.05, atol=0.01)


def test_kl_closed_forms_and_edges():
    # Normal: the textbook formula
    kl = to_np(D.kl_divergence(D.Normal(t64(1.0), t64(2.0)), D.Normal(t64(0.0), t64(1.0))))
    assert kl == pytest.approx(math.log(1 / 2) + (4 + 1) / 2 - 0.5)
    # Uniform: infinite where p's support leaves q's
    u = to_np(D.kl_divergence(D.Uniform(t64([0.0, 0.0]), t64([1.0, 3.0])), D.Uniform(t64([0.0, 0.0]), t64([2.0, 2.0]))))
    assert u[0] == pytest.approx(math.log(2)) and math.isinf(u[1])
    # Categorical with a zero probability in q
    c = to_np(D.kl_divergence(D.Categorical(probs=t64([0.5, 0.5])), D.Categorical(probs=t64([1.0, 0.0]))))
    assert math.isinf(c)
    assert to_np(D.kl_divergence(D.Bernoulli(probs=t64(0.0)), D.Bernoulli(probs=t64(0.0)))) == 0
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(1.0))


def test_register_kl_most_specific():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return ember.tensor(42.0)

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 42.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 2.0)).item() != 42.0
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)


# -- validation ------------------------------------------------------------------------------------------------------


def test_parameter_validation():
    for make in (
        lambda: D.Normal(0.0, -1.0),
        lambda: D.Exponential(-1.0),
        lambda: D.Gamma(t64([1.0, -1.0]), 1.0),
        lambda: D.Bernoulli(probs=t64(1.5)),
        lambda: D.Categorical(probs=t64([-0.1, 1.1])),
        lambda: D.Beta(0.0, 1.0),
        lambda: D.Poisson(-1.0),
        lambda: D.Uniform(1.0, 0.0),
        lambda: D.Dirichlet(t64([1.0, 0.0])),
        lambda: D.Binomial(2.5, probs=t64(0.5)),
        lambda: D.MultivariateNormal(t64([0.0]), scale_tril=t64([[-1.0]])),
    ):
        with pytest.raises(ValueError):
            make()
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Categorical(probs=t64([0.5, 0.5]), logits=t64([0.0, 0.0]))
    D.Normal(0.0, -1.0, validate_args=False)  # no check when asked


def test_sample_validation_and_default_switch():
    d = D.Exponential(t64(1.0))
    with pytest.raises(ValueError, match="support"):
        d.log_prob(t64(-1.0))
    with pytest.raises(ValueError, match="broadcastable"):
        D.Normal(t64([0.0, 0.0]), t64([1.0, 1.0])).log_prob(t64([0.0, 0.0, 0.0]))
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(0.0, -1.0)
        assert D.Exponential(t64(1.0)).log_prob(t64(-1.0)).item() == pytest.approx(1.0)
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


def test_shapes_scalars_and_broadcast():
    d = D.Normal(0.0, 1.0)
    assert d.batch_shape == () and d.sample().shape == () and d.sample((3, 2)).shape == (3, 2)
    assert d.sample().dtype == ember.get_default_dtype()
    d2 = D.Normal(t64([[0.0], [1.0]]), 2.0)
    assert d2.batch_shape == (2, 1) and d2.loc.dtype == f64 and d2.scale.dtype == f64
    assert d2.log_prob(t64([0.0, 1.0, 2.0])).shape == (2, 3)
    assert D.Normal(ember.zeros(0, 3, dtype=f64), 1.0).sample((2,)).shape == (2, 0, 3)
    with pytest.warns(UserWarning):
        assert D.Normal(0.0, 1.0).sample_n(4).shape == (4,)


def test_constraints():
    assert to_np(constraints.positive.check(t64([-1.0, 0.0, 1.0]))).tolist() == [False, False, True]
    assert to_np(constraints.unit_interval.check(t64([0.0, 1.0, 1.5]))).tolist() == [True, True, False]
    assert to_np(constraints.simplex.check(t64([[0.5, 0.5], [0.7, 0.7]]))).tolist() == [True, False]
    assert to_np(constraints.integer_interval(0, 3).check(t64([0.0, 2.5, 3.0]))).tolist() == [True, False, True]
    assert to_np(
        constraints.lower_cholesky.check(t64([[[1.0, 0.0], [2.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]]]))
    ).tolist() == [True, False]
    assert to_np(constraints.positive_definite.check(t64([[2.0, 0.5], [0.5, 1.0]]))).item()
    assert not to_np(constraints.positive_definite.check(t64([[1.0, 2.0], [2.0, 1.0]]))).item()
    assert constraints.independent(constraints.real, 2).event_dim == 2
    assert constraints.is_dependent(D.Uniform(0.0, 1.0).arg_constraints["low"])


# -- transforms ------------------------------------------------------------------------------------------------------


def _fd_logdet(t, x, eps=1e-6):
    """log |d y_i / d x_i| of an elementwise transform by central differences (x: 1-d float64 NumPy)."""
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        cols.append((to_np(t(t64(x + e))) - to_np(t(t64(x - e)))) / (2 * eps))
    return np.log(np.abs(np.diag(np.stack(cols, -1))))  # elementwise: the Jacobian is diagonal


@pytest.mark.parametrize(
    "t,x",
    [
        (T.ExpTransform(), [0.3, -1.0]),
        (T.AffineTransform(1.0, -2.5), [0.3, -1.0]),
        (T.SigmoidTransform(), [0.3, -1.0]),
        (T.TanhTransform(), [0.3, -1.0]),
        (T.PowerTransform(t64(2.5)), [0.3, 1.7]),
        (T.SoftplusTransform(), [0.3, -1.0]),
        (T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform()]), [0.3, -1.0]),
    ],
    ids=["exp", "affine", "sigmoid", "tanh", "power", "softplus", "compose"],
)
def test_elementwise_transforms(t, x):
    x = np.array(x)
    y = t(t64(x))
    close(t.inv(y), x, rtol=1e-9, atol=1e-12)
    close(t.log_abs_det_jacobian(t64(x), y), _fd_logdet(t, x), rtol=1e-5, atol=1e-7)
    assert t.inv.inv is t or isinstance(t, T.ComposeTransform)


def test_stick_breaking_and_softmax():
    t = T.StickBreakingTransform()
    x = np.array([0.3, -1.0, 0.5])
    y = t(t64(x))
    assert y.shape == (4,) and to_np(y).sum() == pytest.approx(1.0)
    close(t.inv(y), x, rtol=1e-9)
    # log det of the map onto the first K-1 coordinates
    cols = []
    for i in range(3):
        e = np.zeros(3)
        e[i] = 1e-6
        cols.append((to_np(t(t64(x + e)))[:3] - to_np(t(t64(x - e)))[:3]) / 2e-6)
    close(t.log_abs_det_jacobian(t64(x), y), np.linalg.slogdet(np.stack(cols, -1))[1], rtol=1e-5)
    s = T.SoftmaxTransform()(t64([1.0, 2.0, 3.0]))
    close(s, sp.softmax([1.0, 2.0, 3.0]))
    assert T.AbsTransform()(t64([-2.0])).item() == 2.0
    assert D.biject_to(constraints.simplex)(t64(x)).shape == (4,)


def test_transformed_distribution():
    base = D.Normal(t64([0.0, 1.0]), t64([1.0, 0.5]))
    d = D.TransformedDistribution(base, [T.AffineTransform(2.0, 3.0), T.ExpTransform()])
    ref = st.lognorm(np.array([3.0, 1.5]), scale=np.exp(np.array([2.0, 5.0])))
    x = np.array([3.0, 50.0])
    close(d.log_prob(t64(x)), ref.logpdf(x))
    close(d.cdf(t64(x)), ref.cdf(x))
    close(d.icdf(t64([0.3, 0.6])), ref.ppf([0.3, 0.6]))
    assert d.support.check(t64([1.0, 2.0])).all().item()
    dn = D.TransformedDistribution(base, [T.AffineTransform(0.0, -1.0)])  # decreasing: the cdf flips
    close(dn.cdf(t64([0.5, 0.5])), 1 - st.norm([0.0, 1.0], [1.0, 0.5]).cdf([-0.5, -0.5]))
    with pytest.raises(ValueError):
        D.TransformedDistribution(base, ["not a transform"])
