"""Gradient test cases, one list per op family (elementwise.py, reduce.py, shape.py).

A Case names the public op it covers (`op`, the name in the ember namespace), a function of the inputs, and
a factory for the inputs. test_gradcheck_ops.py runs gradcheck on every case (and gradgradcheck where
`gradgrad`), and checks that every public differentiable op has at least one case, so a new op without a
gradient test fails that check.
"""

import numpy as np

import ember


class Case:
    def __init__(self, op, fn, inputs, gradgrad=True, id=None, **check):
        self.op = op  # the public name covered, e.g. "mul"
        self.fn = fn  # fn(*inputs) -> tensor or tuple of tensors
        self.inputs = inputs  # () -> tuple of inputs (tensors that require grad are checked)
        self.gradgrad = gradgrad
        self.id = id or op
        self.check = check  # gradcheck options (eps, atol, rtol) for ops that lose precision


def make(*shape, low=-2.0, high=2.0, noncontig=False, requires_grad=True, seed=None, away_from=None):
    """A float64 tensor of the given shape with values uniform in [low, high). noncontig: a transposed or
    strided layout with the same values. away_from: push values at least 0.1 away from these points (for
    functions with kinks)."""
    rng = np.random.default_rng(seed if seed is not None else hash(shape) % 2**32)
    a = rng.uniform(low, high, size=shape)
    if away_from is not None:
        for p in np.atleast_1d(away_from):
            close = np.abs(a - p) < 0.1
            a[close] = p + np.where(a[close] >= p, 0.1, -0.1) + np.sign(a[close] - p + 1e-12) * 0.05
    t = ember.tensor(a.tolist(), dtype=ember.float64).reshape(shape)
    if noncontig and t.dim() >= 2:
        t = t.transpose(0, 1).contiguous().transpose(0, 1)
    elif noncontig and t.dim() == 1:
        t = ember.stack([t, t], 1)[:, 0]
    t = t.detach()
    if requires_grad:
        t.requires_grad_(True)
    return t
