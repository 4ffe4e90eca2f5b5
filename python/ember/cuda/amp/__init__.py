"""ember.cuda.amp (torch.cuda.amp): autocast for CUDA tensors (float16 by default), GradScaler, custom_fwd/bwd."""

import functools

from ... import _C
from ...amp import autocast_mode as _mode
from ...amp.grad_scaler import GradScaler as _GradScaler
from . import common  # noqa: F401


class autocast(_mode.autocast):
    """``ember.cuda.amp.autocast(args...)`` is ``ember.autocast("cuda", args...)``."""

    def __init__(self, enabled=True, dtype=_C.float16, cache_enabled=True):
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``ember.cuda.amp.GradScaler(args...)`` is ``ember.amp.GradScaler("cuda", args...)``."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        super().__init__(
            "cuda",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``ember.amp.custom_fwd(device_type="cuda")``."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)
    return _mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """``ember.amp.custom_bwd(device_type="cuda")``."""
    return _mode.custom_bwd(bwd, device_type="cuda")
