import ember

from .optimizer import Optimizer, _check_not_differentiable, _check_range


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay (PyTorch's SGD)."""

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        _check_range("learning rate", lr)
        _check_range("momentum value", momentum)
        _check_range("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        params, grads, _ = self._gather(group, {})
        if not params:
            return
        momentum = group["momentum"]
        bufs = [self.state[p].get("momentum_buffer") for p in params] if momentum != 0 else []
        bufs = ember._C._optim.sgd_step(
            params,
            grads,
            bufs,
            group["lr"],
            momentum,
            group["dampening"],
            group["weight_decay"],
            group["nesterov"],
            group["maximize"],
        )
        if momentum != 0:
            for p, b in zip(params, bufs):
                self.state[p]["momentum_buffer"] = b
