"""Stochastic weight averaging and EMA of weights (PyTorch's torch.optim.swa_utils).

The averaging runs as whole-tensor ember ops (`lerp_`, `add_`, `copy_`) in C++, one call per tensor.
See docs/optim_schedulers.md.
"""

import itertools
import math
import warnings
from copy import deepcopy

from .. import _C
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from .lr_scheduler import LRScheduler, _check_optimizer, _format_param

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _is_float(t):
    return t.dtype.is_floating_point


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA over lists of tensors: ema = decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        for p_ema, p_model in zip(ema_param_list, current_param_list):
            if _is_float(p_ema):
                p_ema.lerp_(p_model, 1 - decay)
            else:  # integer buffers: the float result is truncated by copy_, as in PyTorch
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """In-place equal-weight running average over lists of tensors: avg += (current - avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        weight = 1.0 / (float(num_averaged) + 1)
        for p_avg, p_model in zip(averaged_param_list, current_param_list):
            if _is_float(p_avg):
                p_avg.lerp_(p_model, weight)
            else:
                p_avg.copy_(p_avg + (p_model - p_avg) / (float(num_averaged) + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """EMA of one tensor, returning the new average: decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """Equal-weight running average of one tensor, returning avg + (current - avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and with use_buffers, buffers) hold a running average.

    update_parameters(model) copies model's values the first time, then applies `avg_fn` (per tensor,
    returning the new value) or `multi_avg_fn` (in place, on lists of tensors); the default is the
    equal-weight SWA average. `n_averaged` counts the updates; the state dict holds 'n_averaged' and
    'module.*', as in PyTorch. Without use_buffers the buffers are copied from `model` at each update.
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        assert avg_fn is None or multi_avg_fn is None, "Only one of avg_fn and multi_avg_fn should be provided"
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _C.tensor(0, dtype=_C.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        if self.use_buffers:
            self_tensors = itertools.chain(self.module.parameters(), self.module.buffers())
            model_tensors = itertools.chain(model.parameters(), model.buffers())
        else:
            self_tensors = self.parameters()
            model_tensors = model.parameters()

        with no_grad():
            averaged, current = [], []
            first = bool(self.n_averaged == 0)
            for p_avg, p_model in zip(self_tensors, model_tensors):
                p_avg = p_avg.detach()
                p_model = p_model.detach().to(p_avg.device)
                averaged.append(p_avg)
                current.append(p_model)
                if first:
                    p_avg.copy_(p_model)

            if not first:
                if self.avg_fn is not None:
                    for p_avg, p_model in zip(averaged, current):
                        p_avg.copy_(self.avg_fn(p_avg, p_model, self.n_averaged.to(p_avg.device)))
                else:
                    # group by (device, dtype) like PyTorch, so a multi_avg_fn sees uniform lists
                    groups = {}
                    for p_avg, p_model in zip(averaged, current):
                        key = (str(p_avg.device), p_avg.dtype)
                        pair = groups.setdefault(key, ([], []))
                        pair[0].append(p_avg)
                        pair[1].append(p_model)
                    fn = self.multi_avg_fn if self.multi_avg_fn is not None else get_swa_multi_avg_fn()
                    for avg_list, cur_list in groups.values():
                        fn(avg_list, cur_list, self.n_averaged.to(avg_list[0].device))

            if not self.use_buffers:
                # buffers are not averaged: keep them in sync with the source model
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged.add_(1)


def update_bn(loader, model, device=None):
    """Recompute the BatchNorm running statistics of `model` with one pass over `loader`.

    Each BatchNorm's stats are reset and its momentum set to None (a cumulative average over batches)
    for the pass; a batch that is a list or tuple contributes its first element.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return

    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its swa_lr over anneal_epochs steps ('cos' or 'linear'), then holds it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        _check_optimizer(optimizer)
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must by one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # invert lr = alpha * swa_lr + (1 - alpha) * lr0 for lr0
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.", UserWarning
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / span)))
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha) for group in self.optimizer.param_groups
        ]
        alpha = self.anneal_func(max(0, min(1, step / span)))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
