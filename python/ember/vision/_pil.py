"""Pillow, when it is installed (an optional dependency, as for torchvision): the one place ember.vision imports it.

Without Pillow, `Image` is None, no object is a PIL image, and the loaders decode through ember.vision.io.
"""

try:  # Pillow is optional
    from PIL import Image, ImageEnhance, ImageOps
except ImportError:  # pragma: no cover - exercised where Pillow is absent
    Image = ImageEnhance = ImageOps = None

__all__ = ["Image", "ImageEnhance", "ImageOps", "available", "is_pil_image", "require"]


def available():
    return Image is not None


def is_pil_image(obj):
    return Image is not None and isinstance(obj, Image.Image)


def require(what):
    """Image, or an ImportError naming `what` when Pillow is not installed."""
    if Image is None:
        raise ImportError("%s needs Pillow (pip install pillow), which is not installed" % what)
    return Image
