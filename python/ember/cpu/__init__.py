"""ember.cpu: CPU counterparts of ember.cuda's helpers (torch.cpu)."""

from . import amp  # noqa: F401


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """CPU ops complete before they return; nothing to wait for."""
