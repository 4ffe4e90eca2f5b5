"""ember.utils, as torch.utils: helpers outside the tensor API proper."""

from . import benchmark, checkpoint, data, dlpack, hooks  # noqa: F401
