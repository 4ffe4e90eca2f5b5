"""Loading the image files of the folder-based datasets: PIL images with Pillow (as torchvision), else arrays decoded
by ember.vision.io."""

import numpy as np

from .. import _pil
from .. import io as _io
from .folder import default_loader

__all__ = ["load_rgb", "load_raw"]


def load_rgb(path):
    return default_loader(path)


def load_raw(path, what):
    """A file's image unconverted (a palette mask stays a "P" image of class indices): PIL with Pillow. Without it,
    gray files decode to uint8 [H, W] arrays; palette files need Pillow (ember.vision.io expands palettes to RGB)."""
    if _pil.available():
        with open(path, "rb") as f:
            img = _pil.Image.open(f)
            img.load()
            return img
    data = _io.read_file(path)
    raw = bytes(data.numpy()[:64])
    # PNG color type 3 (palette) is byte 25 of the file (IHDR's color type).
    if raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) > 25 and raw[25] == 3:
        raise ImportError(
            "%s: %s is a palette PNG; reading its class indices needs Pillow (pip install pillow)" % (what, path)
        )
    img = _io.decode_image(data).numpy()
    return np.ascontiguousarray(img[0] if img.shape[0] == 1 else img.transpose(1, 2, 0))
