import ember

from .optimizer import Optimizer, _check_betas, _check_not_differentiable, _check_range, _step_counter, _zeros


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat), with momentum decay (PyTorch's NAdam)."""

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
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
        _check_range("momentum_decay value", momentum_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        init = {
            "step": _step_counter,
            "mu_product": lambda p: ember.tensor(1.0),
            "exp_avg": _zeros,
            "exp_avg_sq": _zeros,
        }
        params, grads, s = self._gather(group, init)
        if params:
            ember._C._optim.nadam_step(
                params,
                grads,
                s["exp_avg"],
                s["exp_avg_sq"],
                s["mu_product"],
                s["step"],
                group["lr"],
                group["betas"],
                group["eps"],
                group["weight_decay"],
                group["momentum_decay"],
                group["decoupled_weight_decay"],
                group["maximize"],
            )
