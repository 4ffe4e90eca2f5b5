import ember

from .optimizer import Optimizer, _check_not_differentiable, _check_range, _step_counter, _zeros


class RMSprop(Optimizer):
    """RMSprop (Hinton), optionally centered and with momentum (PyTorch's RMSprop)."""

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_range("learning rate", lr)
        _check_range("epsilon value", eps)
        _check_range("momentum value", momentum)
        _check_range("weight_decay value", weight_decay)
        _check_range("alpha value", alpha)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        init = {"step": _step_counter, "square_avg": _zeros}
        if group["momentum"] > 0:
            init["momentum_buffer"] = _zeros
        if group["centered"]:
            init["grad_avg"] = _zeros
        params, grads, s = self._gather(group, init)
        if params:
            ember._C._optim.rmsprop_step(
                params,
                grads,
                s["square_avg"],
                s.get("grad_avg", []),
                s.get("momentum_buffer", []),
                s["step"],
                group["lr"],
                group["alpha"],
                group["eps"],
                group["weight_decay"],
                group["momentum"],
                group["centered"],
                group["maximize"],
            )
