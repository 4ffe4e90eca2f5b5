"""PyTorch's complex-number helpers, defined for real tensors as PyTorch defines them there (ember has no complex
dtype): conj, conj_physical, resolve_conj, resolve_neg, real return the tensor itself; imag raises; angle is 0 or pi
(NaN for NaN); isreal is all True; is_conj, is_neg and is_inference are False. Also scalar_tensor, logit_, and the
torch.has_* build flags. The numeric work (angle) is a composition of C++ ops."""
import math

from . import _C
from ._C import Tensor

_IMAG_ERROR = "imag is not implemented for tensors with non-complex dtypes."


def _check_tensor(name, input):
    if not isinstance(input, Tensor):
        raise TypeError("{}(): argument 'input' (position 1) must be Tensor, not {}".format(name, type(input).__name__))


def _write_out(result, out):
    if out is None:
        return result
    if out.shape != result.shape:
        out.resize_(result.shape)
    return out.copy_(result)


def _constant(name, doc, result):
    """A function of a tensor that returns result(input) (the input itself, or False)."""
    def f(input):
        _check_tensor(name, input)
        return result(input)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _identity(name, doc):
    return _constant(name, doc, lambda t: t)


def _false(name, doc):
    return _constant(name, doc, lambda t: False)


conj = _identity("conj", "The conjugate of a real tensor is the tensor itself (torch.conj).")
conj_physical_ = _identity("conj_physical_", "In-place conjugate: a real tensor is left as it is.")
resolve_conj = _identity("resolve_conj", "A real tensor has no conjugate bit: the tensor itself.")
resolve_neg = _identity("resolve_neg", "A real tensor has no negative bit: the tensor itself.")
real = _identity("real", "The real part of a real tensor is the tensor itself (torch.real).")
is_conj = _false("is_conj", "False: real tensors have no conjugate bit.")
is_neg = _false("is_neg", "False: real tensors have no negative bit.")
is_inference = _false("is_inference", "False: ember's inference_mode makes no inference tensors (docs/differences.md).")


def conj_physical(input, *, out=None):
    """torch.conj_physical: for a real tensor, the tensor itself (a copy into `out` when given)."""
    _check_tensor("conj_physical", input)
    return input if out is None else _write_out(input, out)


def imag(input):
    _check_tensor("imag", input)
    raise RuntimeError(_IMAG_ERROR)


def isreal(input):
    """All True: every element of a real tensor is real (NaN and inf included)."""
    _check_tensor("isreal", input)
    return _C.ones_like(input, dtype=_C.bool)


def angle(input, *, out=None):
    """The argument of a real number: 0 for x >= 0 (and -0.0), pi for x < 0, NaN for NaN; integer and bool tensors
    give the default float dtype. Its gradient is zero, as PyTorch's for real inputs."""
    _check_tensor("angle", input)
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    result = _C.zeros_like(x).masked_fill_(x < 0, math.pi).masked_fill_(_C.isnan(x), math.nan)
    if x.requires_grad and _C.is_grad_enabled():
        # a zero that depends on x (finite elements only, so that inf * 0 makes no NaN): the gradient is zeros
        result = result + _C.where(_C.isfinite(x), x, _C.zeros_like(x)) * 0
    return _write_out(result, out)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """A 0-dim tensor holding the number s, in the default float dtype unless `dtype` says otherwise."""
    if isinstance(s, Tensor) and s.numel() == 1:
        s = s.item()  # a one-element tensor is a Scalar, as in PyTorch
    if isinstance(s, complex):
        raise RuntimeError("scalar_tensor: ember has no complex dtype (got {!r})".format(s))
    if not isinstance(s, (bool, int, float)):
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not {}".format(type(s).__name__))
    t = _C.full((), s, dtype=dtype if dtype is not None else _C.get_default_dtype(), device=device)
    if pin_memory:
        t = t.pin_memory()
    return t.requires_grad_() if requires_grad else t


def _logit_(self, eps=None):
    """In-place logit (Tensor.logit_): floating tensors only, as the result cannot be cast back to an integer one."""
    if not self.is_floating_point():
        raise RuntimeError("logit_: result type Float can't be cast to the desired output type {}".format(
            str(self.dtype).split(".")[-1].capitalize()))
    return self.copy_(_C.logit(self, eps))


def _real_get(self):
    return self


def _real_set(self, value):
    self.copy_(value)


def _imag_get(self):
    raise RuntimeError(_IMAG_ERROR)


def _imag_set(self, value):
    raise RuntimeError(_IMAG_ERROR)


def _build_flags():
    cuda = bool(_C._cuda_is_built())
    # cuDNN is part of every CUDA build; LAPACK comes with OpenBLAS; oneDNN runs on OpenMP; no MKL, MPS or FFT.
    return {"has_cuda": cuda, "has_cudnn": cuda, "has_lapack": True, "has_mkl": False, "has_mkldnn": True,
            "has_openmp": True, "has_mps": False, "has_spectral": False}


_FUNCTIONS = (conj, conj_physical, conj_physical_, resolve_conj, resolve_neg, is_conj, is_neg, is_inference, real,
              imag, isreal, angle)


def install(namespace):
    """Adds the functions and flags to ember's namespace and the methods/properties to Tensor (never replacing one
    that exists)."""
    for f in _FUNCTIONS:
        f.__module__ = "ember"
        namespace.setdefault(f.__name__, f)
    scalar_tensor.__module__ = "ember"
    namespace.setdefault("scalar_tensor", scalar_tensor)
    namespace.setdefault("get_device", Tensor.get_device)
    for name, value in _build_flags().items():
        namespace.setdefault(name, value)
    methods = {f.__name__: f for f in _FUNCTIONS if f.__name__ not in ("real", "imag")}
    methods["logit_"] = _logit_
    for name, f in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, f)
    if not hasattr(Tensor, "real"):
        Tensor.real = property(_real_get, _real_set, doc="The real part: the tensor itself (real dtypes).")
        Tensor.imag = property(_imag_get, _imag_set, doc="Raises RuntimeError: ember has no complex dtypes.")
    namespace.setdefault("logit_", Tensor.logit_)
