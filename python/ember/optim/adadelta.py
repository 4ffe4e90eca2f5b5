import ember

from .optimizer import Optimizer, _check_not_differentiable, _check_range, _step_counter, _zeros


class Adadelta(Optimizer):
    """Adadelta (Zeiler) (PyTorch's Adadelta)."""

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        _check_range("learning rate", lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_range("epsilon value", eps)
        _check_range("weight_decay value", weight_decay)
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        params, grads, s = self._gather(group, {"step": _step_counter, "square_avg": _zeros, "acc_delta": _zeros})
        if params:
            ember._C._optim.adadelta_step(
                params,
                grads,
                s["square_avg"],
                s["acc_delta"],
                s["step"],
                group["lr"],
                group["rho"],
                group["eps"],
                group["weight_decay"],
                group["maximize"],
            )
