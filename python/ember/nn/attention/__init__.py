"""ember.nn.attention: SDPBackend and sdpa_kernel, PyTorch's way of choosing an attention backend. ember has one (the
MATH composition) on every device, so the choice is recorded (ember.backends.cuda's switches) and selects nothing."""

import contextlib
import enum

from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3


_SWITCH = {
    SDPBackend.MATH: "math",
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Enables only `backends` (one SDPBackend or a list) inside the block."""
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    for b in chosen:
        if not isinstance(b, SDPBackend) or b is SDPBackend.ERROR:
            raise AssertionError("Backend must be an instance of SDPBackend, got %r" % (b,))
    old = dict(_cuda._SDP)
    _cuda._SDP.update({name: b in chosen for b, name in _SWITCH.items()})
    try:
        yield
    finally:
        _cuda._SDP.update(old)
