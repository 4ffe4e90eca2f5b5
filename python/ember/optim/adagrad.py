import ember

from .optimizer import Optimizer, _check_not_differentiable, _check_range


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.), with learning-rate decay (PyTorch's Adagrad). State is created eagerly, as PyTorch
    does, so that state_dict() right after construction has it."""

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        _check_range("learning rate", lr)
        _check_range("lr_decay value", lr_decay)
        _check_range("weight_decay value", weight_decay)
        _check_range("initial_accumulator_value value", initial_accumulator_value)
        _check_range("epsilon value", eps)
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = ember.tensor(0.0)
                state["sum"] = ember.full_like(p, group["initial_accumulator_value"])

    def _update_group(self, group):
        init = {
            "step": lambda p: ember.tensor(0.0),
            "sum": lambda p: ember.full_like(p, group["initial_accumulator_value"]),
        }
        params, grads, s = self._gather(group, init)
        if params:
            ember._C._optim.adagrad_step(
                params,
                grads,
                s["sum"],
                s["step"],
                group["lr"],
                group["lr_decay"],
                group["weight_decay"],
                group["eps"],
                group["maximize"],
            )
