"""ember.vision.transforms: torchvision-style image transforms on ember tensors, PIL images (with Pillow, transformed by
Pillow as torchvision does) and NumPy HWC arrays (which stand in for PIL images without Pillow). docs/vision.md lists
the differences from torchvision."""

from . import functional  # noqa: F401
from .autoaugment import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide  # noqa: F401
from .transforms import *  # noqa: F401,F403
from .transforms import __all__ as _all

__all__ = list(_all) + ["functional", "AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide", "AugMix"]
