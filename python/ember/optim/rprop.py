import ember

from .optimizer import Optimizer, _check_not_differentiable, _check_range, _step_counter, _zeros


class Rprop(Optimizer):
    """Resilient backpropagation (PyTorch's Rprop): each element's step size grows by etas[1] while its gradient
    keeps its sign and shrinks by etas[0] when the sign flips, within step_sizes; the move is -sign(grad) * step."""

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _check_range("learning rate", lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("Invalid eta values: {}, {}".format(etas[0], etas[1]))
        defaults = dict(
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        _check_not_differentiable(defaults)
        super().__init__(params, defaults)

    def _update_group(self, group):
        init = {"step": _step_counter, "prev": _zeros, "step_size": lambda p: ember.full_like(p.grad, group["lr"])}
        params, grads, s = self._gather(group, init)
        if params:
            ember._C._optim.rprop_step(
                params,
                grads,
                s["prev"],
                s["step_size"],
                s["step"],
                group["lr"],
                group["etas"],
                group["step_sizes"],
                group["maximize"],
            )
