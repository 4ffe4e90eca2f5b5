"""ember.backends.mkldnn: oneDNN (formerly MKL-DNN), which runs ember's CPU convolutions and 16-bit matmuls.

`enabled` is PyTorch's switch for its fused CPU RNN, and means that here: while True (the default), a float32 LSTM or
GRU on the CPU runs each layer and direction as one fused node (the LSTM's backward has no derivative of its own, as
PyTorch's; the GRU's differentiates the layer run again step by step); False runs them step by step, with derivatives
of every order. Convolutions run on oneDNN either way.
"""

import contextlib
import sys
import types

from ... import _C


def is_available():
    return True


def set_flags(_enabled=None, _deterministic=None):
    """Sets `enabled` when given; returns the previous values (enabled, deterministic). `deterministic` is accepted
    for PyTorch's signature and has nothing to switch: ember's oneDNN results depend only on the sizes and the thread
    count (Note [Exact splits] in ember/backend/cpu/dnnl.cpp), so it always reads False as PyTorch's default."""
    orig = (_C._get_mkldnn_enabled(), False)
    if _enabled is not None:
        _C._set_mkldnn_enabled(bool(_enabled))
    return orig


@contextlib.contextmanager
def flags(enabled=False, deterministic=False):
    """with flags(enabled=...): the switch holds that value for the block and is restored after."""
    orig = set_flags(enabled, deterministic)
    try:
        yield
    finally:
        set_flags(*orig)


class _MkldnnModule(types.ModuleType):
    enabled = property(lambda self: _C._get_mkldnn_enabled(), lambda self, v: _C._set_mkldnn_enabled(bool(v)))


sys.modules[__name__].__class__ = _MkldnnModule
