"""ember.cpu.amp (torch.cpu.amp): autocast for CPU tensors, bfloat16 by default."""

from ... import _C
from ...amp.autocast_mode import autocast as _autocast
from ...amp.grad_scaler import GradScaler as _GradScaler


class autocast(_autocast):
    """``ember.cpu.amp.autocast(args...)`` is ``ember.autocast("cpu", args...)``."""

    def __init__(self, enabled=True, dtype=_C.bfloat16, cache_enabled=True):
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``ember.cpu.amp.GradScaler(args...)`` is ``ember.amp.GradScaler("cpu", args...)``."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        super().__init__(
            "cpu",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )
