"""ember.optim: PyTorch's optimizers, with each group's update done by one fused C++ call."""
from . import lr_scheduler, swa_utils  # noqa: F401
