"""ember.vision: torchvision-like datasets, transforms, models and image utilities (docs/vision.md).

The per-pixel work runs in C++: ember's ops (interpolate, grid_sample, flip, pad, arithmetic) and the kernels and
codecs of ember/vision/ (IDX and gzip readers, PNG through libpng, JPEG through libjpeg, PGM/PPM, grayscale and
hue). PIL images (Pillow is optional) are transformed by Pillow, as torchvision does.
"""

from . import datasets, io, models, ops, transforms, utils  # noqa: F401

__all__ = ["datasets", "io", "models", "ops", "transforms", "utils"]
