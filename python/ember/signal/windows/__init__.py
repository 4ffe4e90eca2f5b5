"""ember.signal.windows: torch.signal.windows's eleven windows, computed in C++ (ember/ops/signal.h; docs/signal.md)."""

from ..._C import _signal
from ..._C._signal import *  # noqa: F403  (every name of _signal.__all__)

__all__ = list(_signal.__all__)
