"""Complex sampling (randn, rand, normal_, uniform_, normal, the *_like forms), complex cumprod with its gradient and
gradgradcheck with complex inputs. References: the distributions' moments, NumPy's cumprod, finite differences."""

import numpy as np
import pytest

import ember

N = 40000


@pytest.mark.parametrize("dtype", [ember.complex64, ember.complex128])
def test_randn_parts_are_independent_normals_of_variance_half(dtype):
    ember.manual_seed(1)
    z = ember.randn(N, dtype=dtype)
    assert z.dtype == dtype
    re, im = z.real.double().numpy(), z.imag.double().numpy()
    # 5 standard errors: var(sample var) = 2 s^4 / N for a normal
    tol = 5 * np.sqrt(2 * 0.25 / N)
    assert abs(re.var() - 0.5) < tol and abs(im.var() - 0.5) < tol
    assert abs(re.mean()) < 5 * np.sqrt(0.5 / N) and abs(im.mean()) < 5 * np.sqrt(0.5 / N)
    assert abs(np.corrcoef(re, im)[0, 1]) < 5 / np.sqrt(N)
    assert abs((np.abs(z.numpy()) ** 2).mean() - 1.0) < 0.05  # E|z|^2 = 1
    r = ember.randn_like(z)
    assert r.dtype == dtype and r.shape == z.shape and not np.array_equal(r.numpy(), z.numpy())


def test_rand_and_uniform_fill_both_parts():
    ember.manual_seed(2)
    z = ember.rand(N, dtype=ember.complex64).numpy()
    for part in (z.real, z.imag):
        assert part.min() >= 0 and part.max() < 1
        assert abs(part.mean() - 0.5) < 5 * np.sqrt(1 / 12 / N)
    u = ember.empty(N, dtype=ember.complex128).uniform_(-2, 3).numpy()
    for part in (u.real, u.imag):
        assert part.min() >= -2 and part.max() < 3 and abs(part.mean() - 0.5) < 5 * np.sqrt(25 / 12 / N)
    assert ember.rand_like(ember.zeros(3, dtype=ember.complex128)).dtype == ember.complex128


def test_normal_on_complex_tensors():
    ember.manual_seed(3)
    z = ember.zeros(N, dtype=ember.complex128).normal_(1.0, 2.0).numpy()
    # the mean goes to both parts, each part's std is std / sqrt(2) (PyTorch's)
    for part in (z.real, z.imag):
        assert abs(part.mean() - 1.0) < 5 * np.sqrt(2 / N) and abs(part.std() - np.sqrt(2)) < 0.05
    m = ember.full((N,), 1 - 2j, dtype=ember.complex64)
    s = ember.normal(m, 2.0)
    assert s.dtype == ember.complex64
    s = s.numpy()
    assert abs(s.real.mean() - 1) < 0.05 and abs(s.imag.mean() + 2) < 0.05 and abs(s.real.std() - np.sqrt(2)) < 0.05
    s2 = ember.normal(m.conj(), ember.full((N,), 2.0)).numpy()  # a conjugate mean, a tensor std
    assert abs(s2.imag.mean() - 2) < 0.05 and abs(s2.imag.std() - np.sqrt(2)) < 0.05
    with pytest.raises(RuntimeError, match="normal expects standard deviation to be non-complex"):
        ember.normal(ember.zeros(2), ember.ones(2, dtype=ember.complex64))
    with pytest.raises(RuntimeError, match="normal expects standard deviation to be non-complex"):
        ember.normal(0.0, ember.ones(2, dtype=ember.complex64))
    # in place through a conjugate view and into a non-contiguous one: both parts drawn
    x = ember.zeros(4, 6, dtype=ember.complex128)
    x.conj().t().normal_()
    assert (x.numpy().real != 0).all() and (x.numpy().imag != 0).all()


def test_complex_creation():
    for f in (ember.zeros, ember.ones, ember.empty):
        t = f(2, 3, dtype=ember.complex64)
        assert t.dtype == ember.complex64 and t.shape == (2, 3)
    np.testing.assert_array_equal(ember.ones(2, dtype=ember.complex128).numpy(), np.ones(2, np.complex128))
    assert ember.full((2,), 1 + 2j).dtype == ember.complex64
    np.testing.assert_array_equal(ember.full((2,), 1 + 2j, dtype=ember.complex128).numpy(), [1 + 2j, 1 + 2j])


def crand(rng, *shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("dtype", [ember.complex64, ember.complex128])
def test_cumprod_complex_against_numpy(dtype):
    rng = np.random.default_rng(4)
    for shape, dim in (((7,), 0), ((3, 5), 1), ((4, 3, 2), 0), ((2, 9), -1), ((0, 3), 1), ((), 0)):
        a = crand(rng, *shape) * 0.8
        t = ember.tensor(a, dtype=dtype)
        tol = 1e-5 if dtype == ember.complex64 else 1e-12
        np.testing.assert_allclose(t.cumprod(dim).numpy(), np.cumprod(a, axis=dim % max(len(shape), 1)), rtol=tol)
    a = crand(rng, 5, 4)
    t = ember.tensor(a)
    np.testing.assert_allclose(t.t().cumprod(1).numpy(), np.cumprod(a.T, 1), rtol=1e-12)  # non-contiguous
    np.testing.assert_allclose(t.conj().cumprod(0).resolve_conj().numpy(), np.cumprod(a.conj(), 0), rtol=1e-12)
    u = ember.tensor(a)
    u.cumprod_(0)
    np.testing.assert_allclose(u.numpy(), np.cumprod(a, 0), rtol=1e-12)


def test_cumprod_and_prod_complex_gradients():
    rng = np.random.default_rng(5)
    x = ember.tensor(crand(rng, 4, 3), requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: t.cumprod(0), (x,))
    assert ember.autograd.gradcheck(lambda t: t.cumprod(1), (x,))
    z = ember.tensor([1 + 2j, 0j, 0.5 - 1j, 2 + 0j], dtype=ember.complex128, requires_grad=True)  # a zero
    assert ember.autograd.gradcheck(lambda t: t.cumprod(0), (z,))
    assert ember.autograd.gradcheck(lambda t: t.prod(), (z,))
    assert ember.autograd.gradcheck(lambda t: t.prod(1), (x,))
    # a closed form: L = Re(sum(cumprod(x))) for x = (a, b): d/dx conj-Wirtinger = conj(1 + b), conj(a)
    a, b = 1 + 2j, 3 - 1j
    v = ember.tensor([a, b], requires_grad=True)
    v.cumprod(0).real.sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [np.conj(1 + b), np.conj(a)], rtol=1e-12)


def test_gradgradcheck_complex_inputs():
    rng = np.random.default_rng(6)
    x = ember.tensor(crand(rng, 3), requires_grad=True)
    for fn in (
        lambda t: t.cumprod(0),
        lambda t: t.prod(),
        lambda t: (t * t.conj()).exp(),
        lambda t: t.conj().sin() * t,
    ):
        assert ember.autograd.gradgradcheck(fn, (x,))
        assert ember.autograd.gradgradcheck(fn, (x,), fast_mode=True)

    class WrongSecond(ember.autograd.Function):
        """x^2 with a correct first derivative whose own derivative is lost (detached)."""

        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * (2 * t).conj().detach()

    assert ember.autograd.gradcheck(WrongSecond.apply, (x,))
    assert not ember.autograd.gradgradcheck(WrongSecond.apply, (x,), raise_exception=False)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sum_of_a_whole_tensor(dtype):
    # Note [Complex sums by lanes]: whole contiguous sums go through the real kernel, tails and conjugate views too
    rng = np.random.default_rng(9)
    for n in (1, 100, 2047, 2048, 2049, 5000, 70001):
        a = crand(rng, n).astype(dtype)
        ref = a.astype(np.complex128).sum()
        tol = (1e-5 if dtype == np.complex64 else 1e-12) * np.sqrt(n)
        t = ember.tensor(a)
        np.testing.assert_allclose(t.sum().item(), ref, rtol=tol, atol=tol)
        np.testing.assert_allclose(t.conj().sum().item(), np.conj(ref), rtol=tol, atol=tol)
        np.testing.assert_allclose(t.reshape(1, n).sum(1).numpy(), [ref], rtol=tol, atol=tol)
    b = crand(rng, 70, 60).astype(dtype)
    t = ember.tensor(b)
    np.testing.assert_allclose(t.t().sum().item(), b.sum(), rtol=1e-4)  # not contiguous: the complex kernel
    np.testing.assert_allclose(t[:, 7:].sum().item(), b[:, 7:].sum(), rtol=1e-4)
    c = ember.tensor([complex("nan"), 1 + 1j] * 3000)
    s = c.sum().item()
    assert np.isnan(s.real) and s.imag == 3000
