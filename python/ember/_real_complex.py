"""The negative bit, which ember's tensors never have (docs/dtypes.md): is_neg, resolve_neg, is_inference;
conj_physical_ as a function; scalar_tensor; and the torch.has_* build flags. The conjugate bit (conj, is_conj,
resolve_conj: ember/ops/conj_bit.cpp) and the complex views and helpers themselves (real, imag, view_as_real, angle,
...) are C++ (ember._C)."""

from . import _C


def _check_tensor(name, input):
    if not isinstance(input, _C.Tensor):
        raise TypeError("{}(): argument 'input' (position 1) must be Tensor, not {}".format(name, type(input).__name__))


def conj_physical_(input):
    """In-place version of :func:`ember.conj_physical`: conjugates a complex tensor's elements in place (a real
    tensor is left as it is), and returns it."""
    _check_tensor("conj_physical_", input)
    return input.conj_physical_()


def resolve_neg(input):
    """Returns `input` with its negation materialized: ember has no negative bit, so `input` itself."""
    _check_tensor("resolve_neg", input)
    return input


def is_neg(input):
    """Returns True if `input`'s negative bit is set: always False, as ember has none."""
    _check_tensor("is_neg", input)
    return False


def is_inference(input):
    """Returns True if `input` is an inference tensor: always False, as ember's inference_mode makes none
    (docs/differences.md)."""
    _check_tensor("is_inference", input)
    return False


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """Returns a 0-dimensional tensor holding the number `s`, in the default floating-point dtype (the default
    complex dtype for a complex number) unless `dtype` says otherwise.

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
    if not isinstance(s, (bool, int, float, complex)):
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not {}".format(type(s).__name__))
    if dtype is None:
        dtype = _C.get_default_dtype()
        if isinstance(s, complex):
            dtype = _C.float64.to_complex() if dtype == _C.float64 else _C.complex64
    t = _C.full((), s, dtype=dtype, device=device)
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
has_spectral = True  # ember.fft: its own transforms on the CPU, cuFFT on CUDA

__all__ = [
    "conj_physical_",
    "is_inference",
    "is_neg",
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
