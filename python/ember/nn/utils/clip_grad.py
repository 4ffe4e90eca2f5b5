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
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (as if concatenated into one vector); 0 for none."""
    tensors = [tensors] if isinstance(tensors, Tensor) else [t for t in tensors if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return _C.tensor(0.0)
    device = tensors[0].device  # norms on several devices meet on the first one's, as PyTorch's
    norms = _C.stack([_vector_norm(t, norm_type).to(device) for t in tensors])
    total = norms.max() if norm_type == float("inf") else _vector_norm(norms, norm_type)
    if error_if_nonfinite and bool(_C.logical_or(total.isnan(), total.isinf())):
        raise RuntimeError(
            "The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`".format(norm_type)
        )
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients by max_norm / (total_norm + 1e-6) where that is below 1."""
    grads = _grads(parameters)
    if not grads:
        return
    clip_coef = _C.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip_coef.to(device=g.device, dtype=g.dtype))


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients so that their joint norm is at most max_norm; returns the joint norm before."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    grads = _grads(parameters)
    if not grads:
        return _C.tensor(0.0)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn(
        "ember.nn.utils.clip_grad_norm is now deprecated in favor of ember.nn.utils.clip_grad_norm_.", stacklevel=2
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(min=-clip_value, max=clip_value)


def _vector_norm(t, ord):
    from ... import linalg

    return linalg.vector_norm(t, ord)
