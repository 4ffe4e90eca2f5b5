"""ember.utils, as torch.utils: helpers outside the tensor API proper."""
from . import checkpoint, dlpack, hooks  # noqa: F401
