"""Helpers shared by the distributions (PyTorch's torch.distributions.utils)."""

import math
from functools import update_wrapper
from numbers import Number

import ember

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "probs_to_logits",
    "clamp_probs",
    "lazy_property",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
    "euler_constant",
]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


class _Finfo:
    def __init__(self, eps, tiny, max):
        self.eps, self.tiny, self.max = eps, tiny, max


_FINFO = {
    ember.float16: _Finfo(0.0009765625, 6.103515625e-05, 65504.0),
    ember.bfloat16: _Finfo(0.0078125, 1.1754943508222875e-38, 3.3895313892515355e38),
    ember.float32: _Finfo(1.1920928955078125e-07, 1.1754943508222875e-38, 3.4028234663852886e38),
    ember.float64: _Finfo(2.220446049250313e-16, 2.2250738585072014e-308, 1.7976931348623157e308),
}


def finfo(dtype):
    """eps / tiny / max of a floating dtype (what the distributions need of torch.finfo)."""
    return _FINFO[dtype]


def broadcast_all(*values):
    """Broadcasts tensors and numbers to one shape; numbers become tensors of the tensors' dtype and device (or of
    the default dtype)."""
    if not all(isinstance(v, (ember.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number or ember.Tensor.")
    if all(isinstance(v, Number) for v in values):
        return tuple(ember.tensor(float(v), dtype=ember.get_default_dtype()) for v in values)
    ref = next(v for v in values if isinstance(v, ember.Tensor))
    dtype = ref.dtype if ref.is_floating_point() else ember.get_default_dtype()
    values = [
        v if isinstance(v, ember.Tensor) else ember.tensor(float(v), dtype=dtype, device=ref.device) for v in values
    ]
    return tuple(ember.broadcast_tensors(*values))


def _standard_normal(shape, dtype, device):
    return ember.randn(shape, dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sums the rightmost `dim` dimensions of value."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps = clamp_probs(probs)
    if is_binary:
        return ember.log(ps) - ember.log1p(-ps)
    return ember.log(ps)


class lazy_property:
    """A property computed on first access and then stored on the instance (PyTorch's lazy_property)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    if not (-n <= diag < n):
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = _tril_indices(n, diag, mat.device)
    return mat[..., rows, cols]


def _tril_indices(n, diag, device):
    r = ember.arange(n, device=device).unsqueeze(-1).expand(n, n)
    c = ember.arange(n, device=device).unsqueeze(0).expand(n, n)
    keep = (c - r) <= diag
    return r[keep], c[keep]


def vec_to_tril_matrix(vec, diag=0):
    # vec holds n(n+1)/2 + n*diag... elements: solve for n as PyTorch does.
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = finfo(vec.dtype).eps
    if not math.isclose(n, round(n), rel_tol=eps):
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as the lower "
            "triangular part of a square D x D matrix."
        )
    n = round(n)
    rows, cols = _tril_indices(n, diag, vec.device)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    mat[..., rows, cols] = vec
    return mat


class _BinaryParams:
    """The probs / logits pair of a binary parameterization (Bernoulli, Binomial, Geometric, RelaxedBernoulli): exactly
    one is given; the other is computed on first use."""

    def _init_binary_params(self, probs, logits):
        """Sets self.probs or self.logits (broadcast to tensors) and self._param; returns whether it was a number."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        return isinstance(probs if probs is not None else logits, Number)

    def _expand_binary(self, new):
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class _LocMeanMode:
    """mean and mode at the location parameter (the symmetric unimodal families)."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
