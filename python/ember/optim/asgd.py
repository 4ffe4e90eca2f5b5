import ember

from .optimizer import Optimizer, _check_not_differentiable, _check_range, _step_counter, _zeros


class ASGD(Optimizer):
    """Averaged SGD (Polyak and Juditsky; PyTorch's ASGD): SGD with a decaying rate eta and a running average `ax`
    of the parameters from step t0 on (state["ax"])."""

    _cpu_state_keys = ("step", "eta", "mu")

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _check_range("learning rate", lr)
        _check_range("weight_decay value", weight_decay)
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        init = {
            "step": _step_counter,
            "eta": lambda p: ember.tensor(float(group["lr"])),
            "mu": lambda p: ember.tensor(1.0),
            "ax": _zeros,
        }
        params, grads, s = self._gather(group, init)
        if params:
            ember._C._optim.asgd_step(
                params,
                grads,
                s["ax"],
                s["mu"],
                s["eta"],
                s["step"],
                group["lr"],
                group["lambd"],
                group["alpha"],
                group["t0"],
                group["weight_decay"],
                group["maximize"],
            )
