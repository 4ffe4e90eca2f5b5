"""PyTorch's complex-number helpers, defined for real tensors as PyTorch defines them there (ember has no complex
dtype): conj, conj_physical, resolve_conj, resolve_neg, real return the tensor itself; imag raises; angle is 0 or pi
(NaN for NaN); isreal is all True; is_conj, is_neg and is_inference are False. Also scalar_tensor and the
torch.has_* build flags. The numeric work (angle) is a composition of C++ ops. Their Tensor methods are attached by
ember._tensor."""

import math as _math

from . import _C

_IMAG_ERROR = "imag is not implemented for tensors with non-complex dtypes."


def _check_tensor(name, input):
    if not isinstance(input, _C.Tensor):
        raise TypeError("{}(): argument 'input' (position 1) must be Tensor, not {}".format(name, type(input).__name__))


def _write_out(result, out):
    if out is None:
        return result
    if out.shape != result.shape:
        out.resize_(result.shape)
    return out.copy_(result)


def conj(input):
    """Returns the complex conjugate of `input`: for ember's real dtypes, `input` itself.

    Args:
        input (Tensor): the input tensor.
    """
    _check_tensor("conj", input)
    return input


def conj_physical(input, *, out=None):
    """Computes the elementwise complex conjugate of `input`: for ember's real dtypes, `input` itself.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): a tensor `input` is copied into (and returned) instead.
    """
    _check_tensor("conj_physical", input)
    return input if out is None else _write_out(input, out)


def conj_physical_(input):
    """In-place version of :func:`ember.conj_physical`: a real tensor is left as it is, and returned."""
    _check_tensor("conj_physical_", input)
    return input


def resolve_conj(input):
    """Returns `input` with its conjugation materialized: real tensors have no conjugate bit, so `input` itself."""
    _check_tensor("resolve_conj", input)
    return input


def resolve_neg(input):
    """Returns `input` with its negation materialized: real tensors have no negative bit, so `input` itself."""
    _check_tensor("resolve_neg", input)
    return input


def real(input):
    """Returns the real part of `input`: for ember's real dtypes, `input` itself."""
    _check_tensor("real", input)
    return input


def imag(input):
    """Returns the imaginary part of a complex tensor; raises RuntimeError, as ember's tensors are real."""
    _check_tensor("imag", input)
    raise RuntimeError(_IMAG_ERROR)


def is_conj(input):
    """Returns True if `input`'s conjugate bit is set: always False, as real tensors have none."""
    _check_tensor("is_conj", input)
    return False


def is_neg(input):
    """Returns True if `input`'s negative bit is set: always False, as real tensors have none."""
    _check_tensor("is_neg", input)
    return False


def is_inference(input):
    """Returns True if `input` is an inference tensor: always False, as ember's inference_mode makes none
    (docs/differences.md)."""
    _check_tensor("is_inference", input)
    return False


def isreal(input):
    """Returns a boolean tensor of `input`'s shape that says which elements are real: all True for a real tensor
    (NaN and inf included).

    Example::

        >>> ember.isreal(ember.tensor([1.0, float("nan")]))
        tensor([True, True])
    """
    _check_tensor("isreal", input)
    return _C.ones_like(input, dtype=_C.bool)


def angle(input, *, out=None):
    """Computes the elementwise angle (argument, in radians) of `input`.

    For a real number it is 0 for x >= 0 (and -0.0), pi for x < 0, and NaN for NaN. Integer and bool tensors give
    the default floating-point dtype. Its gradient is zero, as PyTorch's for real inputs.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        >>> ember.angle(ember.tensor([-2.0, 0.0, 3.0]))
        tensor([3.1416, 0.0000, 0.0000])
    """
    _check_tensor("angle", input)
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    result = _C.zeros_like(x).masked_fill_(x < 0, _math.pi).masked_fill_(_C.isnan(x), _math.nan)
    if x.requires_grad and _C.is_grad_enabled():
        # a zero that depends on x (finite elements only, so that inf * 0 makes no NaN): the gradient is zeros
        result = result + _C.where(_C.isfinite(x), x, _C.zeros_like(x)) * 0
    return _write_out(result, out)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """Returns a 0-dimensional tensor holding the number `s`, in the default floating-point dtype unless `dtype`
    says otherwise.

    Args:
        s (Number): the value (a one-element tensor is taken as its number).

    Keyword args:
        dtype (dtype, optional): the result's dtype.
        layout (layout, optional): accepted for PyTorch's signature; ember's tensors are strided.
        device (device, optional): the result's device.
        pin_memory (bool): return the tensor in pinned memory (CPU only).
        requires_grad (bool): whether autograd records operations on the result.

    Example::

        >>> ember.scalar_tensor(3)
        tensor(3.)
    """
    if isinstance(s, _C.Tensor) and s.numel() == 1:
        s = s.item()  # a one-element tensor is a Scalar, as in PyTorch
    if isinstance(s, complex):
        raise RuntimeError("scalar_tensor: ember has no complex dtype (got {!r})".format(s))
    if not isinstance(s, (bool, int, float)):
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not {}".format(type(s).__name__))
    t = _C.full((), s, dtype=dtype if dtype is not None else _C.get_default_dtype(), device=device)
    if pin_memory:
        t = t.pin_memory()
    return t.requires_grad_() if requires_grad else t


# The build's features, as torch.has_*: cuDNN is part of every CUDA build; LAPACK comes with OpenBLAS; oneDNN runs on
# OpenMP; no MKL, MPS or FFT.
has_cuda = bool(_C._cuda_is_built())
has_cudnn = has_cuda
has_lapack = True
has_mkl = False
has_mkldnn = True
has_openmp = True
has_mps = False
has_spectral = False

__all__ = [
    "angle",
    "conj",
    "conj_physical",
    "conj_physical_",
    "imag",
    "is_conj",
    "is_inference",
    "is_neg",
    "isreal",
    "real",
    "resolve_conj",
    "resolve_neg",
    "scalar_tensor",
    "has_cuda",
    "has_cudnn",
    "has_lapack",
    "has_mkl",
    "has_mkldnn",
    "has_mps",
    "has_openmp",
    "has_spectral",
]
