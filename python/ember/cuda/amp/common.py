"""torch.cuda.amp.common."""

from ... import _C


def amp_definitely_not_available():
    """True when no CUDA device is present (autocast("cuda") and GradScaler("cuda") then disable themselves)."""
    return not _C._cuda_device_count() > 0
