"""ember.utils, as torch.utils: helpers outside the tensor API proper."""
from . import dlpack  # noqa: F401
