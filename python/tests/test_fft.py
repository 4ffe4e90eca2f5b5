"""ember.fft against numpy.fft (the reference for values: same definitions, same n/s/dim/norm semantics), its
gradients against finite differences, and its errors."""

import numpy as np
import pytest

import ember
import ember.fft as efft

RNG = np.random.default_rng(0)
NORMS = [None, "backward", "ortho", "forward"]


def cplx(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def real(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def check(got, want, tol=1e-10):
    got = got.resolve_conj().numpy()  # an inverse transform of a real input is a conjugate view (as PyTorch)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max(initial=0)))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 5, 8, 13])
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_c2c_one_dim(name, n, norm):
    x = cplx(3, 7, 6)
    for dim in (-1, 1, 0):
        check(getattr(efft, name)(ember.tensor(x), n=n, dim=dim, norm=norm), getattr(np.fft, name)(x, n, dim, norm))
    r = real(4, 9)  # a real input is transformed as complex
    check(getattr(efft, name)(ember.tensor(r), n=n, norm=norm), getattr(np.fft, name)(r, n, -1, norm))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 6, 7, 16])
def test_real_transforms_one_dim(n, norm):
    r, c = real(5, 11), cplx(5, 6)
    check(efft.rfft(ember.tensor(r), n=n, norm=norm), np.fft.rfft(r, n, -1, norm))
    check(efft.ihfft(ember.tensor(r), n=n, norm=norm), np.fft.ihfft(r, n, -1, norm))
    check(efft.irfft(ember.tensor(c), n=n, norm=norm), np.fft.irfft(c, n, -1, norm))
    check(efft.hfft(ember.tensor(c), n=n, norm=norm), np.fft.hfft(c, n, -1, norm))
    check(efft.rfft(ember.tensor(r), n=n, dim=0, norm=norm), np.fft.rfft(r, n, 0, norm))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    "s,dim", [(None, None), ((4, 6), None), (None, (0, 2)), ((5, -1), (2, 0)), ((3,), (1,)), ((6, 4, 8), None)]
)
def test_n_dim(s, dim, norm):
    x, r = cplx(4, 5, 6), real(4, 5, 6)
    # NumPy's s has no -1 ("the input's size"): spell it out for the reference
    axes = dim if dim is not None else (None if s is None else tuple(range(3 - len(s), 3)))
    ns = None if s is None else tuple(x.shape[a] if n == -1 else n for n, a in zip(s, axes))
    for name in ("fftn", "ifftn"):
        check(getattr(efft, name)(ember.tensor(x), s=s, dim=dim, norm=norm), getattr(np.fft, name)(x, ns, axes, norm))
    check(efft.rfftn(ember.tensor(r), s=s, dim=dim, norm=norm), np.fft.rfftn(r, ns, axes, norm))
    if s is None or -1 not in s:  # irfftn's -1 means 2 * (size - 1) along the last dim, NumPy's default
        check(efft.irfftn(ember.tensor(x), s=s, dim=dim, norm=norm), np.fft.irfftn(x, ns, axes, norm))


def test_two_dim_and_hermitian_n_dim_against_closed_forms():
    x, r = cplx(3, 6, 8), real(3, 6, 8)
    check(efft.fft2(ember.tensor(x)), np.fft.fft2(x))
    check(efft.ifft2(ember.tensor(x), s=(4, 5)), np.fft.ifft2(x, (4, 5)))
    check(efft.rfft2(ember.tensor(r)), np.fft.rfft2(r))
    check(efft.irfft2(ember.tensor(x), s=(6, 10)), np.fft.irfft2(x, (6, 10)))
    # hfftn is irfftn of the conjugate with the forward scaling: n * irfftn(conj(x)); ihfftn is conj(rfftn(x)) / n
    n = 6 * 14
    check(efft.hfft2(ember.tensor(x), s=(6, 14)), np.fft.irfft2(np.conj(x), (6, 14)) * n)
    check(efft.ihfft2(ember.tensor(r)), np.conj(np.fft.rfft2(r)) / (6 * 8))
    check(efft.hfftn(ember.tensor(x), dim=(0, 2)), np.fft.irfftn(np.conj(x), axes=(0, 2)) * (3 * 14))
    check(efft.ihfftn(ember.tensor(r), norm="ortho"), np.conj(np.fft.rfftn(r, norm="ortho")))


def test_float32_complex64_and_noncontiguous_inputs():
    x = cplx(8, 16, dtype=np.complex64)
    t = ember.tensor(x).t()  # non-contiguous
    got = efft.fft(t, dim=0)
    assert got.dtype == ember.complex64
    check(got, np.fft.fft(x.T, axis=0), tol=1e-5)
    r = real(10, 12, dtype=np.float32)
    assert efft.rfft(ember.tensor(r)).dtype == ember.complex64
    assert efft.fft(ember.tensor([1, 2, 3])).dtype == ember.complex64  # integers through the default float dtype
    assert efft.irfft(ember.tensor(x)).dtype == ember.float32
    check(efft.fft(ember.tensor(r)[:, ::3]), np.fft.fft(r[:, ::3]), tol=1e-5)


def test_prime_and_large_sizes():
    for n in (4099, 1 << 14, 1000):
        x = cplx(n)
        check(efft.fft(ember.tensor(x)), np.fft.fft(x), tol=1e-9)
        r = real(n)
        check(efft.irfft(efft.rfft(ember.tensor(r)), n=n), r, tol=1e-9)


def test_round_trips_and_out():
    x = cplx(5, 12)
    check(efft.ifft(efft.fft(ember.tensor(x))), x)
    out = ember.empty(0, dtype=ember.complex128)
    res = efft.fft(ember.tensor(x), out=out)
    assert res is out
    check(out, np.fft.fft(x))
    with pytest.raises(RuntimeError, match="dtype"):
        efft.fft(ember.tensor(x), out=ember.empty(0))


def test_freqs_and_shifts():
    for n, d in ((8, 1.0), (9, 0.5), (1, 2.0)):
        check(efft.fftfreq(n, d, dtype=ember.float64), np.fft.fftfreq(n, d))
        check(efft.rfftfreq(n, d, dtype=ember.float64), np.fft.rfftfreq(n, d))
    a = np.arange(30.0).reshape(5, 6)
    check(efft.fftshift(ember.tensor(a)), np.fft.fftshift(a))
    check(efft.ifftshift(ember.tensor(a)), np.fft.ifftshift(a))
    check(efft.fftshift(ember.tensor(a), dim=0), np.fft.fftshift(a, axes=0))
    check(efft.ifftshift(ember.tensor(a), dim=(1,)), np.fft.ifftshift(a, axes=(1,)))
    assert efft.fftfreq(4, requires_grad=True).requires_grad
    # a zero spacing or length divides by zero as IEEE (and PyTorch) does: signed infinities, nan at 0 (fuzz finding)
    inf = float("inf")
    nan = float("nan")
    np.testing.assert_equal(efft.fftfreq(5, 0.0).tolist(), [nan, inf, inf, -inf, -inf])
    np.testing.assert_equal(efft.fftfreq(4, -0.0).tolist(), [nan, -inf, inf, inf])
    np.testing.assert_equal(efft.rfftfreq(0).tolist(), [nan])
    assert efft.fftfreq(0).shape == (0,)


def test_gradients_against_finite_differences():
    # a real loss of complex intermediates: d/dx sum |fft(x) * w|^2 for real x, by central differences
    x0 = real(12)
    w = cplx(7)

    def loss_np(x):
        return float(np.sum(np.abs(np.fft.rfft(x) * w) ** 2))

    x = ember.tensor(x0, requires_grad=True)
    loss = (efft.rfft(x) * ember.tensor(w)).abs().pow(2).sum()
    loss.backward()
    eps = 1e-6
    fd = np.array([(loss_np(x0 + eps * e) - loss_np(x0 - eps * e)) / (2 * eps) for e in np.eye(12)])
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-6, atol=1e-6)
    # irfft back to real: the gradient of sum(irfft(c) * v) w.r.t. the real and imaginary parts of c
    c0, v = cplx(7), real(12)
    re = ember.tensor(c0.real, requires_grad=True)
    im = ember.tensor(c0.imag, requires_grad=True)
    (efft.irfft(ember.complex(re, im), n=12) * ember.tensor(v)).sum().backward()

    def f(c):
        return float(np.sum(np.fft.irfft(c, 12) * v))

    fd_re = np.array([(f(c0 + eps * e) - f(c0 - eps * e)) / (2 * eps) for e in np.eye(7)])
    fd_im = np.array([(f(c0 + 1j * eps * e) - f(c0 - 1j * eps * e)) / (2 * eps) for e in np.eye(7)])
    np.testing.assert_allclose(re.grad.numpy(), fd_re, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(im.grad.numpy(), fd_im, rtol=1e-6, atol=1e-6)


def test_errors():
    x = ember.tensor(cplx(4))
    with pytest.raises(ValueError, match="Invalid normalization mode"):
        efft.fft(x, norm="bogus")
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\)"):
        efft.fft(x, n=0)
    with pytest.raises(RuntimeError, match="real input"):
        efft.rfft(x)
    with pytest.raises(IndexError, match="Dimension out of range"):
        efft.fft(x, dim=3)
    with pytest.raises(RuntimeError, match="same length"):
        efft.fftn(ember.tensor(cplx(3, 3)), s=(3,), dim=(0, 1))
    with pytest.raises(TypeError):
        efft.fft([1.0, 2.0])
