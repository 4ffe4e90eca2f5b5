import ember

from .optimizer import Optimizer, _check_betas, _check_not_differentiable, _check_range, _step_counter, _zeros


class RAdam(Optimizer):
    """Rectified Adam (Liu et al.) (PyTorch's RAdam)."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
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
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        params, grads, s = self._gather(group, {"step": _step_counter, "exp_avg": _zeros, "exp_avg_sq": _zeros})
        if params:
            ember._C._optim.radam_step(
                params,
                grads,
                s["exp_avg"],
                s["exp_avg_sq"],
                s["step"],
                group["lr"],
                group["betas"],
                group["eps"],
                group["weight_decay"],
                group["decoupled_weight_decay"],
                group["maximize"],
            )
