"""ember.amp: automatic mixed precision (torch.amp). docs/amp.md."""

from .autocast_mode import (  # noqa: F401
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_available,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
from .grad_scaler import GradScaler  # noqa: F401
