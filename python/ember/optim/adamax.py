import ember

from .optimizer import Optimizer, _check_betas, _check_not_differentiable, _check_range, _step_counter, _zeros


class Adamax(Optimizer):
    """Adamax, Adam's infinity-norm variant (PyTorch's Adamax)."""

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_range("learning rate", lr)
        _check_range("epsilon value", eps)
        _check_betas(betas)
        _check_range("weight_decay value", weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        params, grads, s = self._gather(group, {"step": _step_counter, "exp_avg": _zeros, "exp_inf": _zeros})
        if params:
            ember._C._optim.adamax_step(
                params,
                grads,
                s["exp_avg"],
                s["exp_inf"],
                s["step"],
                group["lr"],
                group["betas"],
                group["eps"],
                group["weight_decay"],
                group["maximize"],
            )
