"""Helpers shared by the models; the layers they share are torchvision.ops.misc's (ember.vision.ops.misc)."""

from ..ops.misc import Conv2dNormActivation, SqueezeExcitation

__all__ = ["make_divisible", "Conv2dNormActivation", "SqueezeExcitation"]


def make_divisible(v, divisor, min_value=None):
    """v rounded to a multiple of divisor (at least min_value), never below 90% of v (the MobileNet rule)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v
