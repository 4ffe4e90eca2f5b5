import ember

from .optimizer import Optimizer, _check_betas, _check_not_differentiable, _check_range, _step_counter, _zeros


class Adam(Optimizer):
    """Adam (Kingma & Ba), with amsgrad and L2 weight decay added to the gradient (PyTorch's Adam)."""

    _decoupled = False

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
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
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        init = {"step": _step_counter, "exp_avg": _zeros, "exp_avg_sq": _zeros}
        if group["amsgrad"]:
            init["max_exp_avg_sq"] = _zeros
        params, grads, s = self._gather(group, init)
        if params:
            ember._C._optim.adam_step(
                params,
                grads,
                s["exp_avg"],
                s["exp_avg_sq"],
                s.get("max_exp_avg_sq", []),
                s["step"],
                group["lr"],
                group["betas"],
                group["eps"],
                group["weight_decay"],
                group["amsgrad"],
                group["maximize"],
                self._decoupled,
            )


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): the parameter shrinks by lr * weight_decay."""

    _decoupled = True

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ):
        super().__init__(
            params,
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
        )
