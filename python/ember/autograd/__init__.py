"""ember.autograd: reverse-mode automatic differentiation (the engine is C++: ember/autograd/)."""

from .. import _C
from .._C import Tensor
from . import functional, graph, profiler, profiler_util  # noqa: F401
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "backward",
    "grad",
    "Function",
    "gradcheck",
    "gradgradcheck",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "detect_anomaly",
    "set_detect_anomaly",
    "functional",
]


def _tensors(x, what):
    if isinstance(x, Tensor):
        return [x]
    x = list(x)
    for i, t in enumerate(x):
        if not isinstance(t, Tensor):
            raise TypeError("%s[%d] must be a Tensor, got %s" % (what, i, type(t).__name__))
    return x


def _grads(g, n):
    if g is None:
        return None
    if isinstance(g, Tensor):
        return [g]
    g = list(g)
    if len(g) != n:
        raise RuntimeError(
            "grad can be implicitly created only for scalar outputs"
            if not g
            else "got %d gradients for %d outputs" % (len(g), n)
        )
    return g


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` (weighted by grad_tensors) into the leaves' .grad."""
    tensors = _tensors(tensors, "tensors")
    if inputs is not None:
        inputs = _tensors(inputs, "inputs")
    _C._autograd_backward(tensors, _grads(grad_tensors, len(tensors)), retain_graph, bool(create_graph), inputs)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """Returns the gradients of outputs with respect to inputs (a tuple), without touching .grad."""
    if is_grads_batched:
        raise NotImplementedError("ember.autograd.grad: is_grads_batched=True is not supported")
    outputs = _tensors(outputs, "outputs")
    inputs = _tensors(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    r = _C._autograd_grad(
        outputs, inputs, _grads(grad_outputs, len(outputs)), retain_graph, bool(create_graph), bool(allow_unused)
    )
    if materialize_grads:
        from .. import zeros_like

        r = tuple(zeros_like(i) if g is None else g for g, i in zip(r, inputs))
    return r
