"""ember.fft: discrete Fourier transforms, as torch.fft.

Every function is a thin composition of the three internal transforms of ember's C++ FFT engine (docs/fft.md):
``_C._fft_c2c``, ``_C._fft_r2c`` and ``_C._fft_c2r``, which work on complex tensors in ``view_as_real``'s layout, as
torch.fft's are of aten's ``_fft_c2c``, ``_fft_r2c`` and ``_fft_c2r``. Gradients come from those ops (each is a linear
map whose adjoint is another transform) and from ``view_as_real``/``view_as_complex``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ember
from ember import _C

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "hfft2",
    "ihfft2",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_NORMS = (None, "backward", "ortho", "forward")


def _normalization(norm: str | None, forward: bool, name: str) -> int:
    """aten's normalization code: 0 none, 1 by 1/sqrt(n), 2 by 1/n (NumPy's norm names, per direction)."""
    if norm not in _NORMS:
        raise ValueError(f'Invalid normalization mode: "{norm}"')
    if norm == "ortho":
        return 1
    scaled_forward = norm == "forward"
    return 2 if scaled_forward == forward else 0


def _complex_input(x: ember.Tensor, name: str) -> ember.Tensor:
    """x as a complex tensor in view_as_real's layout (real inputs are made complex first)."""
    if not isinstance(x, ember.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if not x.is_complex():
        x = x.to(_complex_of(x.dtype, name))
    return ember.view_as_real(x.resolve_conj())


def _real_input(x: ember.Tensor, name: str) -> ember.Tensor:
    """x as a real floating tensor (integers and bool through the default float dtype)."""
    if not isinstance(x, ember.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype}")
    if not x.is_floating_point():
        x = x.to(ember.get_default_dtype())
    return x


def _complex_of(dtype: ember.dtype, name: str) -> ember.dtype:
    """The complex dtype a real input is transformed in: float64 -> complex128, float32 -> complex64, integers and
    bool through the default float dtype; 16-bit floats are not supported on the CPU (as PyTorch's)."""
    if dtype in (ember.float16, ember.bfloat16):
        raise RuntimeError(f"{name}: Unsupported dtype {dtype}")
    if not dtype.is_floating_point:
        dtype = ember.get_default_dtype()
    return ember.complex128 if dtype == ember.float64 else ember.complex64


def _check_tensor(x, name: str) -> None:
    if not isinstance(x, ember.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")


def _dims(x_ndim: int, dim, name: str) -> list[int]:
    dims = [dim] if isinstance(dim, int) else list(dim)
    out = []
    for d in dims:
        if not -x_ndim <= d < max(x_ndim, 1):
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-max(x_ndim, 1)}, {max(x_ndim, 1) - 1}], "
                f"but got {d})"
            )
        out.append(d % x_ndim if x_ndim else 0)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{name}: FFT dims must be unique")
    return out


def _shape_and_dims(x: ember.Tensor, s, dim, name: str) -> tuple[list[int], list[int]]:
    """torch.fft's canonical (s, dim) of an n-dimensional transform."""
    _check_tensor(x, name)
    if dim is not None:
        dims = _dims(x.dim(), dim, name)
        if s is not None:
            s = list(s)
            if len(s) != len(dims):
                raise RuntimeError(
                    f"When given, dim and shape arguments must have the same length. Got dim length {len(dims)} "
                    f"and shape length {len(s)}"
                )
    elif s is not None:
        s = list(s)
        if len(s) > x.dim():
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.dim()} dimensions.")
        dims = list(range(x.dim() - len(s), x.dim()))
    else:
        dims = list(range(x.dim()))
    shape = [x.shape[d] for d in dims] if s is None else [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, dims


def _resize(x: ember.Tensor, dims: Sequence[int], sizes: Sequence[int]) -> ember.Tensor:
    """x cut down or zero-padded at the end of each of `dims` to `sizes` (dims of x itself)."""
    pads = [0] * (2 * x.dim())
    padded = False
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            pads[2 * (x.dim() - 1 - d) + 1] = n - have
            padded = True
    if padded:
        x = ember.nn.functional.pad(x, pads)
    return x


def _finish(result: ember.Tensor, out: ember.Tensor | None) -> ember.Tensor:
    if out is None:
        return result
    if out.dtype != result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {result.dtype}, but got {out.dtype} instead")
    out.resize_(result.shape)
    out.copy_(result)
    return out


def _c2c(x, shape, dims, norm, forward, name, out):
    if x.is_complex():
        x = _resize(x, dims, shape)
        r = _C._fft_c2c(_complex_input(x, name), dims, _normalization(norm, forward, name), forward)
        return _finish(ember.view_as_complex(r), out)
    # a real input: the two-sided r2c (and its conjugate for an inverse transform), as PyTorch's
    x = _resize(_real_input(x, name), dims, shape)
    r = ember.view_as_complex(_C._fft_r2c(x, dims, _normalization(norm, forward, name), False))
    return _finish(r if forward else r.conj(), out)


def _r2c(x, shape, dims, norm, forward, name, out):
    x = _resize(_real_input(x, name), dims, shape)
    r = ember.view_as_complex(_C._fft_r2c(x, dims, _normalization(norm, forward, name), True))
    return _finish(r if forward else r.conj(), out)


def _c2r(x, shape, dims, last_size, norm, forward, name, out):
    x = _resize(
        x if x.is_complex() else x.to(_complex_of(x.dtype, name)), dims, list(shape[:-1]) + [last_size // 2 + 1]
    )
    if forward:  # hfft: the c2r of the conjugate
        x = x.conj()
    r = _C._fft_c2r(_complex_input(x, name), dims, _normalization(norm, forward, name), last_size)
    return _finish(r, out)


def _one_dim(x, n, dim, name):
    _check_tensor(x, name)
    dims = _dims(x.dim(), dim, name)
    size = x.shape[dims[0]] if n is None else n
    if size <= 0:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    return [size], dims


# ---- one dimension


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional discrete Fourier transform of ``input``, as :func:`torch.fft.fft`."""
    shape, dims = _one_dim(input, n, dim, "fft")
    return _c2c(input, shape, dims, norm, True, "fft", out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional inverse discrete Fourier transform, as :func:`torch.fft.ifft`."""
    shape, dims = _one_dim(input, n, dim, "ifft")
    return _c2c(input, shape, dims, norm, False, "ifft", out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional Fourier transform of a real signal (the n // 2 + 1 non-negative frequencies)."""
    shape, dims = _one_dim(input, n, dim, "rfft")
    return _r2c(input, shape, dims, norm, True, "rfft", out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`rfft`: ``n`` real points (default ``2 * (input.size(dim) - 1)``)."""
    _check_tensor(input, "irfft")
    dims = _dims(input.dim(), dim, "irfft")
    last = 2 * (input.shape[dims[0]] - 1) if n is None else n
    if last <= 0:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    return _c2r(input, [last], dims, last, norm, False, "irfft", out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: a real result of ``n`` points."""
    _check_tensor(input, "hfft")
    dims = _dims(input.dim(), dim, "hfft")
    last = 2 * (input.shape[dims[0]] - 1) if n is None else n
    if last <= 0:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    return _c2r(input, [last], dims, last, norm, True, "hfft", out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`hfft`: the first half of the Hermitian spectrum of a real signal."""
    shape, dims = _one_dim(input, n, dim, "ihfft")
    return _r2c(input, shape, dims, norm, False, "ihfft", out)


# ---- n dimensions


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional discrete Fourier transform over ``dim`` (default: all dims, or the last ``len(s)``)."""
    shape, dims = _shape_and_dims(input, s, dim, "fftn")
    return _c2c(input, shape, dims, norm, True, "fftn", out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional inverse discrete Fourier transform."""
    shape, dims = _shape_and_dims(input, s, dim, "ifftn")
    return _c2c(input, shape, dims, norm, False, "ifftn", out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional Fourier transform of a real signal (the last dim halved)."""
    shape, dims = _shape_and_dims(input, s, dim, "rfftn")
    return _r2c(input, shape, dims, norm, True, "rfftn", out)


def _c2r_shape(input, s, dim, name):
    shape, dims = _shape_and_dims(input, s, dim, name)
    if s is None or list(s)[-1] == -1:
        shape[-1] = 2 * (input.shape[dims[-1]] - 1)
    if shape[-1] <= 0:
        raise RuntimeError(f"Invalid number of data points ({shape[-1]}) specified")
    return shape, dims


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`rfftn` (the last dim's output size defaults to ``2 * (input.size(dim[-1]) - 1)``)."""
    shape, dims = _c2r_shape(input, s, dim, "irfftn")
    return _c2r(input, shape, dims, shape[-1], norm, False, "irfftn", out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional :func:`hfft`: complex transforms over all but the last dim, then a Hermitian one."""
    shape, dims = _c2r_shape(input, s, dim, "hfftn")
    x = input if input.is_complex() else input.to(_complex_of(input.dtype, "hfftn"))
    x = _resize(x, dims, shape[:-1] + [shape[-1] // 2 + 1])
    if len(dims) > 1:
        x = _c2c(x, [x.shape[d] for d in dims[:-1]], dims[:-1], norm, True, "hfftn", None)
    return _c2r(x, shape[-1:], dims[-1:], shape[-1], norm, True, "hfftn", out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`hfftn`: a Hermitian half-spectrum of a real n-dimensional signal."""
    shape, dims = _shape_and_dims(input, s, dim, "ihfftn")
    x = _resize(_real_input(input, "ihfftn"), dims, shape)
    r = _r2c(x, shape[-1:], dims[-1:], norm, False, "ihfftn", None)
    if len(dims) > 1:
        r = _c2c(r, [r.shape[d] for d in dims[:-1]], dims[:-1], norm, False, "ihfftn", None)
    return _finish(r, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the two-dimensional :func:`fftn` of ``input``, over its last two dims by default."""
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the two-dimensional :func:`ifftn` of ``input``, over its last two dims by default."""
    return ifftn(input, s, dim, norm, out=out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the two-dimensional :func:`rfftn` of ``input``, over its last two dims by default."""
    return rfftn(input, s, dim, norm, out=out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the two-dimensional :func:`irfftn` of ``input``, over its last two dims by default."""
    return irfftn(input, s, dim, norm, out=out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the two-dimensional :func:`hfftn` of ``input``, over its last two dims by default."""
    return hfftn(input, s, dim, norm, out=out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Computes the two-dimensional :func:`ihfftn` of ``input``, over its last two dims by default."""
    return ihfftn(input, s, dim, norm, out=out)


# ---- helpers


def _reciprocal(x):
    """1 / x with IEEE's signed infinities for a zero (as PyTorch's C++ computes it; Python raises)."""
    x = float(x)
    return math.copysign(math.inf, x) if x == 0 else 1.0 / x


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point transform: ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n)``."""
    k = ember.arange(n, dtype=dtype, device=device)
    k = ember.where(k < (n + 1) // 2, k, k - n) * _reciprocal(n * d)
    k.requires_grad_(requires_grad)
    return _finish(k, out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an ``n``-point real transform: ``[0, 1, ..., n // 2] / (d n)``."""
    k = ember.arange(n // 2 + 1, dtype=dtype, device=device) * _reciprocal(n * d)
    k.requires_grad_(requires_grad)
    return _finish(k, out)


def _shift_dims(input, dim):
    if dim is None:
        return list(range(input.dim()))
    return _dims(input.dim(), dim, "fftshift")


def fftshift(input, dim=None):
    """Moves the zero frequency to the middle: a roll by ``size // 2`` along each of ``dim`` (default all)."""
    dims = _shift_dims(input, dim)
    return ember.roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`: a roll by ``(size + 1) // 2``."""
    dims = _shift_dims(input, dim)
    return ember.roll(input, [(input.shape[d] + 1) // 2 for d in dims], dims)
