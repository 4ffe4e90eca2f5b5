"""ember.vision.io: reading and writing images (torchvision.io's names). PNG goes through libpng, PGM/PPM (P5/P6)
through ember's own parser; all of it C++ (ember/vision/png.cpp, pnm.cpp)."""

import enum
import os

from .. import _C

_V = _C._vision

__all__ = [
    "ImageReadMode",
    "read_file",
    "write_file",
    "decode_png",
    "decode_image",
    "encode_png",
    "read_image",
    "write_png",
]


class ImageReadMode(enum.IntEnum):
    """The channels an image is decoded to (torchvision.io.ImageReadMode)."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4


def _mode(mode):
    if isinstance(mode, str):
        try:
            return ImageReadMode[mode.upper()]
        except KeyError:
            raise ValueError(
                "unknown image read mode %r (expected one of %s)" % (mode, ", ".join(m.name for m in ImageReadMode))
            ) from None
    if isinstance(mode, bool) or not isinstance(mode, int):
        raise TypeError("mode must be an ImageReadMode, got %s" % type(mode).__name__)
    return ImageReadMode(mode) if 0 <= mode <= 4 else int(mode)  # the C++ side names the bad value


def _path(path):
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError("expected a path (str, bytes or os.PathLike), got %s" % type(path).__name__)
    return os.fspath(path)


def read_file(path):
    """The bytes of a file as a uint8 1-d tensor."""
    return _V.read_file(_path(path))


def write_file(filename, data):
    """Writes a uint8 1-d tensor (or bytes) to a file."""
    _V.write_file(_path(filename), data)


def _chw(hwc):
    return hwc.permute(2, 0, 1).contiguous()


def decode_png(input, mode=ImageReadMode.UNCHANGED):
    """Decodes PNG bytes (a uint8 1-d tensor or bytes) into a uint8 [C, H, W] tensor. 16-bit images are scaled to
    8 bits; palette images become RGB; transparency becomes an alpha channel."""
    return _chw(_V.decode_png(input, _mode(mode)))


def decode_image(input, mode=ImageReadMode.UNCHANGED):
    """Decodes PNG or binary PGM/PPM bytes into a uint8 [C, H, W] tensor."""
    return _chw(_V.decode_image(input, _mode(mode)))


def read_image(path, mode=ImageReadMode.UNCHANGED):
    """Reads a PNG or binary PGM/PPM file into a uint8 [C, H, W] tensor."""
    return _chw(_V.read_image(_path(path), _mode(mode)))


def encode_png(input, compression_level=6):
    """Encodes a uint8 [C, H, W] tensor (C = 1, 2, 3 or 4) as PNG; returns the file's bytes as a uint8 1-d tensor."""
    _check_level(compression_level)
    return _V.encode_png(input, compression_level)


def write_png(input, filename, compression_level=6):
    """Writes a uint8 [C, H, W] tensor as a PNG file."""
    write_file(filename, encode_png(input, compression_level))


def _check_level(level):
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError("compression_level must be an int, got %s" % type(level).__name__)
    if not 0 <= level <= 9:
        raise ValueError("Compression level should be between 0 and 9, got %d" % level)


def _read_hwc(path, mode=ImageReadMode.RGB):
    """A file decoded to a uint8 [H, W, C] tensor (the layout of a PIL image's array)."""
    return _V.read_image(_path(path), _mode(mode))
