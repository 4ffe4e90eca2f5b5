"""Gradient clipping, as torch.nn.utils.clip_grad (the norms and scaling run in C++)."""
import warnings

from ... import _C
from ..._C import Tensor
from ...autograd.grad_mode import no_grad


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients so that their joint norm is at most max_norm; returns the joint norm before."""
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return _C.tensor(0.0)
    norms = _C.stack([_vector_norm(g, norm_type) for g in grads])
    total = norms.max() if norm_type == float("inf") else _vector_norm(norms, norm_type)
    if error_if_nonfinite and bool(_C.logical_or(total.isnan(), total.isinf())):
        raise RuntimeError("The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be "
                           "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`".format(norm_type))
    clip_coef = _C.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip_coef.to(g.dtype))
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("ember.nn.utils.clip_grad_norm is now deprecated in favor of ember.nn.utils.clip_grad_norm_.",
                  stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(min=-clip_value, max=clip_value)


def _vector_norm(t, ord):
    from ... import linalg
    return linalg.vector_norm(t, ord)
