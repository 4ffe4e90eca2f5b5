"""The internal spectral ops ember._C._fft_c2c, _fft_r2c and _fft_c2r (aten's semantics, complex tensors in
view_as_real's layout) against numpy.fft: sizes of every engine path, batches, strided inputs, zero-size batches,
both dtypes, the three normalizations; gradients by finite differences; errors; and PyTorch 2.15 when installed."""

import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

import ember
from ember import _C

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")

# normalization -> numpy's norm for the forward transform and for the backward one
FWD_NORM = {0: "backward", 1: "ortho", 2: "forward"}
BWD_NORM = {0: "forward", 1: "ortho", 2: "backward"}


def layout(z, dtype=np.float64):
    """A complex array as ember's view_as_real layout."""
    return ember.tensor(np.stack([z.real, z.imag], -1).astype(dtype))


def complex_of(t):
    a = t.numpy().astype(np.float64)
    return a[..., 0] + 1j * a[..., 1]


def rand_complex(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def tol(dtype, n):
    return (2e-5 if dtype == np.float32 else 1e-12) * max(1.0, np.log2(max(n, 2)))


LENGTHS = [*range(1, 21), 64, 97, 128, 1000, 1024, 1155, 4099]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_c2c_1d(n, dtype):
    rng = np.random.default_rng(n)
    z = rand_complex(rng, (3, n))
    for norm in (0, 1, 2):
        for forward in (True, False):
            got = complex_of(_C._fft_c2c(layout(z, dtype), [1], norm, forward))
            want = (
                np.fft.fft(z, axis=1, norm=FWD_NORM[norm]) if forward else np.fft.ifft(z, axis=1, norm=BWD_NORM[norm])
            )
            scale = np.abs(want).max() + 1e-30
            assert np.abs(got - want).max() / scale < tol(dtype, n), (n, norm, forward)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_r2c_c2r_1d(n, dtype):
    rng = np.random.default_rng(n + 1)
    x = rng.standard_normal((2, n))
    for norm in (0, 1, 2):
        got = complex_of(_C._fft_r2c(ember.tensor(x.astype(dtype)), [-1], norm, True))
        want = np.fft.rfft(x, axis=-1, norm=FWD_NORM[norm])
        assert got.shape == want.shape
        assert np.abs(got - want).max() / np.abs(want).max() < tol(dtype, n)
        full = complex_of(_C._fft_r2c(ember.tensor(x.astype(dtype)), [1], norm, False))
        assert np.abs(full - np.fft.fft(x, axis=-1, norm=FWD_NORM[norm])).max() / np.abs(want).max() < tol(dtype, n)
        spec = np.fft.rfft(x, axis=-1)
        back = _C._fft_c2r(layout(spec, dtype), [1], norm, n).numpy()
        want_back = np.fft.irfft(spec, n=n, axis=-1, norm=BWD_NORM[norm])
        assert back.dtype == dtype and back.shape == (2, n)
        assert np.abs(back - want_back).max() / np.abs(want_back).max() < tol(dtype, n)


def test_c2r_ignores_imaginary_dc_and_nyquist():
    rng = np.random.default_rng(5)
    for n in (8, 9):
        spec = rand_complex(rng, n // 2 + 1)  # not Hermitian at 0 (and n/2): numpy ignores those imaginary parts
        got = _C._fft_c2r(layout(spec), [0], 0, n).numpy()
        np.testing.assert_allclose(got, np.fft.irfft(spec, n=n, norm="forward"), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dims", [[0], [1], [2], [0, 2], [2, 0], [0, 1, 2], [-1, -3]])
def test_multidim_and_batches(dims):
    rng = np.random.default_rng(len(dims))
    z = rand_complex(rng, (6, 5, 9))
    for norm in (0, 1, 2):
        got = complex_of(_C._fft_c2c(layout(z), dims, norm, True))
        np.testing.assert_allclose(got, np.fft.fftn(z, axes=dims, norm=FWD_NORM[norm]), rtol=1e-11, atol=1e-11)
        x = z.real
        r = complex_of(_C._fft_r2c(ember.tensor(x), dims, norm, True))
        np.testing.assert_allclose(r, np.fft.rfftn(x, axes=dims, norm=FWD_NORM[norm]), rtol=1e-11, atol=1e-11)
        last = dims[-1] % 3
        n = x.shape[last]
        spec = np.fft.rfftn(x, axes=dims)
        back = _C._fft_c2r(layout(spec), dims, norm, n).numpy()
        s = [x.shape[d % 3] for d in dims]
        want = np.fft.irfftn(spec, s=s, axes=dims, norm=BWD_NORM[norm])
        np.testing.assert_allclose(back, want, rtol=1e-11, atol=1e-11)


def test_non_contiguous_inputs():
    rng = np.random.default_rng(7)
    z = rand_complex(rng, (8, 12, 10))
    t = layout(z).permute(2, 0, 1, 3)[::2, :, 1::3]  # (5, 8, 4, 2) with odd strides
    zz = z.transpose(2, 0, 1)[::2, :, 1::3]
    assert not t.is_contiguous()
    for dims in ([0], [1], [2], [0, 1, 2]):
        got = complex_of(_C._fft_c2c(t, dims, 0, False))
        np.testing.assert_allclose(got, np.fft.ifftn(zz, axes=dims, norm="forward"), rtol=1e-11, atol=1e-11)
    # the (re, im) pair itself strided: a layout built by stacking on a leading dim and moving it last
    pair = ember.tensor(np.stack([z.real, z.imag], 0)).permute(1, 2, 3, 0)
    np.testing.assert_allclose(
        complex_of(_C._fft_c2c(pair, [1], 0, True)), np.fft.fft(z, axis=1), rtol=1e-11, atol=1e-11
    )
    x = rng.standard_normal((10, 7))
    xt = ember.tensor(x).t()
    np.testing.assert_allclose(
        complex_of(_C._fft_r2c(xt, [1], 0, True)), np.fft.rfft(x.T, axis=1), rtol=1e-11, atol=1e-11
    )
    spec = np.fft.rfft(x, axis=0)  # (6, 7)
    st = layout(spec.T).transpose(0, 1)  # (6, 7, 2) with the transform dim strided
    np.testing.assert_allclose(
        _C._fft_c2r(st, [0], 0, 10).numpy(), np.fft.irfft(spec, n=10, axis=0, norm="forward"), rtol=1e-11, atol=1e-11
    )


def test_batches_of_every_lane_count():
    # 1..17 lines: whole vector groups of lines plus the scalar remainder
    rng = np.random.default_rng(11)
    for lines in range(1, 18):
        for n in (13, 24):  # rows gathered in blocks of 8 (4) points through transposes, and a tail
            z = rand_complex(rng, (lines, n))
            for dtype in (np.float32, np.float64):
                got = complex_of(_C._fft_c2c(layout(z, dtype), [1], 0, True))
                want = np.fft.fft(z, axis=1)
                assert np.abs(got - want).max() < tol(dtype, n) * np.abs(want).max()
                got = complex_of(_C._fft_r2c(ember.tensor(z.real.astype(dtype)), [1], 0, True))
                want = np.fft.rfft(z.real, axis=1)
                assert np.abs(got - want).max() < tol(dtype, n) * np.abs(want).max()


def test_large_batched_2d_parallel():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 256, 256)).astype(np.float32)
    got = complex_of(_C._fft_r2c(ember.tensor(x), [1, 2], 0, True))
    want = np.fft.rfftn(x.astype(np.float64), axes=(1, 2))
    assert np.abs(got - want).max() / np.abs(want).max() < 1e-5


def test_zero_size_batches_and_empty_dims():
    assert _C._fft_c2c(ember.zeros(0, 3, 2), [0], 0, True).shape == (0, 3, 2)
    assert _C._fft_c2c(ember.zeros(4, 0, 2), [0], 0, True).shape == (4, 0, 2)
    assert _C._fft_r2c(ember.zeros(0, 6), [1], 0, True).shape == (0, 4, 2)
    assert _C._fft_c2r(ember.zeros(0, 4, 2), [1], 0, 7).shape == (0, 7)
    z = layout(np.array([1 + 2j, 3 - 1j]))
    same = _C._fft_c2c(z, [], 0, True)  # no dims: a copy, as aten
    assert same.tolist() == z.tolist() and same.data_ptr() != z.data_ptr()


def test_errors():
    c = ember.zeros(4, 5, 2)
    with pytest.raises(RuntimeError, match=r"_fft_c2c: dims must be unique, but got \[0, 0\]"):
        _C._fft_c2c(c, [0, 0], 0, True)
    with pytest.raises(IndexError, match="Dimension out of range"):
        _C._fft_c2c(c, [2], 0, True)
    with pytest.raises(ValueError, match="normalization must be 0"):
        _C._fft_c2c(c, [0], 3, True)
    with pytest.raises(RuntimeError, match=r"view_as_real's layout .* shape \[4, 5\]"):
        _C._fft_c2c(ember.zeros(4, 5), [0], 0, True)
    with pytest.raises(TypeError, match="Only supports floating-point dtypes, but found: int64"):
        _C._fft_r2c(ember.zeros(4, dtype=ember.int64), [0], 0, True)
    with pytest.raises(NotImplementedError, match="float32 and float64"):
        _C._fft_r2c(ember.zeros(4, dtype=ember.float16), [0], 0, True)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        _C._fft_r2c(ember.zeros(4, 0), [1], 0, True)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        _C._fft_c2r(c, [1], 0, 0)
    with pytest.raises(RuntimeError, match=r"last_dim_size / 2 \+ 1 = 11, but got 5"):
        _C._fft_c2r(c, [1], 0, 20)
    with pytest.raises(RuntimeError, match="at least one dim"):
        _C._fft_r2c(ember.zeros(4), [], 0, True)


def _gc(f, x):
    return ember.autograd.gradcheck(f, (x,), eps=1e-6, atol=1e-7, rtol=1e-5)


def test_gradients_by_finite_differences():
    rng = np.random.default_rng(2)
    zc = ember.tensor(rng.standard_normal((3, 5, 2)), requires_grad=True)
    for norm in (0, 1, 2):
        for forward in (True, False):
            assert _gc(lambda t, n=norm, f=forward: _C._fft_c2c(t, [0, 1], n, f), zc)
    xr = ember.tensor(rng.standard_normal((4, 6)), requires_grad=True)
    xo = ember.tensor(rng.standard_normal((3, 7)), requires_grad=True)
    for norm in (0, 1, 2):
        for onesided in (True, False):
            assert _gc(lambda t, n=norm, o=onesided: _C._fft_r2c(t, [1], n, o), xr)
            assert _gc(lambda t, n=norm, o=onesided: _C._fft_r2c(t, [0, 1], n, o), xo)
    for n_out, shape in ((6, (3, 4, 2)), (7, (3, 4, 2)), (1, (2, 1, 2))):
        s = ember.tensor(rng.standard_normal(shape), requires_grad=True)
        for norm in (0, 1, 2):
            assert _gc(lambda t, n=norm, k=n_out: _C._fft_c2r(t, [1], n, k), s)
            assert _gc(lambda t, n=norm, k=n_out: _C._fft_c2r(t, [0, 1], n, k), s)
    y = _C._fft_c2r(ember.tensor(rng.standard_normal((4, 2)), requires_grad=True), [0], 0, 6)
    assert y.grad_fn.name() == "FftC2RBackward0"
    assert ember.autograd.gradgradcheck(lambda t: _C._fft_r2c(t, [1], 1, True), (xr,))


@needs_torch
def test_against_pytorch():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 10))
    z = rand_complex(rng, (3, 6))
    script = textwrap.dedent(
        f"""
        import json, torch
        x = torch.tensor({x.tolist()}, dtype=torch.float64, requires_grad=True)
        z = torch.view_as_complex(torch.tensor({np.stack([z.real, z.imag], -1).tolist()}, dtype=torch.float64))
        z.requires_grad_()
        r = torch._fft_r2c(x, [1], 1, True)
        c = torch._fft_c2r(z, [0, 1], 2, 10)
        g = torch.view_as_real(r).sin().sum()
        gx, = torch.autograd.grad(g, x)
        h = c.cos().sum()
        gz, = torch.autograd.grad(h, z)
        print(json.dumps([torch.view_as_real(r).tolist(), c.tolist(), gx.tolist(), torch.view_as_real(gz).tolist()]))
        """
    )
    out = subprocess.run([TORCH_PY, "-c", script], capture_output=True, text=True, check=True)
    r_t, c_t, gx_t, gz_t = json.loads(out.stdout.strip().splitlines()[-1])
    xe = ember.tensor(x, requires_grad=True)
    ze = layout(z).requires_grad_()
    r = _C._fft_r2c(xe, [1], 1, True)
    c = _C._fft_c2r(ze, [0, 1], 2, 10)
    (gx,) = ember.autograd.grad(r.sin().sum(), xe)
    (gz,) = ember.autograd.grad(c.cos().sum(), ze)
    np.testing.assert_allclose(r.detach().numpy(), r_t, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c.detach().numpy(), c_t, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gx.numpy(), gx_t, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gz.numpy(), gz_t, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [512, 1000, 1155, 2187, 4096, 2**15, 3 * 2**14, 5**7, 2**16 + 2])
def test_long_single_transforms(n):
    # one long line goes through the split (six-step) transform; 2**16 + 2 = 2 * 32769: its half has the factor 32769
    rng = np.random.default_rng(n)
    z = rand_complex(rng, n)
    for dtype in (np.float64, np.float32):
        for forward in (True, False):
            got = complex_of(_C._fft_c2c(layout(z, dtype), [0], 2 if forward else 0, forward))
            want = np.fft.fft(z, norm="forward") if forward else np.fft.ifft(z, norm="forward")
            assert np.abs(got - want).max() / np.abs(want).max() < tol(dtype, n)
        x = z.real.astype(dtype)
        got = complex_of(_C._fft_r2c(ember.tensor(x), [0], 0, True))
        want = np.fft.rfft(x.astype(np.float64))
        assert np.abs(got - want).max() / np.abs(want).max() < tol(dtype, n)
        back = _C._fft_c2r(layout(want, dtype), [0], 2, n).numpy()  # irfft of a long line (split too when even)
        assert np.abs(back - x).max() / np.abs(x).max() < tol(dtype, n)
