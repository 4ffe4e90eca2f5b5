"""ember.vision.io: reading and writing images (torchvision.io's names). JPEG goes through libjpeg (libjpeg-turbo),
PNG through libpng, PGM/PPM (P5/P6) through ember's own parser; all of it C++ (ember/vision/jpeg.cpp, png.cpp,
pnm.cpp). EXIF orientation is read from the file's bytes here (_exif_orientation) and applied by ember ops."""

import enum
import os
import struct

import ember

from .. import _C

_V = _C._vision

__all__ = [
    "ImageReadMode",
    "read_file",
    "write_file",
    "decode_jpeg",
    "encode_jpeg",
    "write_jpeg",
    "decode_png",
    "decode_gif",
    "decode_webp",
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
    RGBA = RGB_ALPHA  # torchvision's alias


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
    """The decoders' [H, W, C] pixels as [C, H, W]: a permuted view, as torchvision returns (a copy would cost as
    much as the decode itself: fresh pages touched once more)."""
    return hwc.permute(2, 0, 1)


def _check_bytes(input, op):
    if isinstance(input, (bytes, bytearray, memoryview)):
        return input
    if not isinstance(input, ember.Tensor):
        raise TypeError("%s: expected a uint8 1-d tensor of the file's bytes, got %s" % (op, type(input).__name__))
    if input.device.type != "cpu":
        raise ValueError("%s: the input tensor must be a CPU tensor, got one on %s" % (op, input.device))
    return input  # the C++ side checks the dtype and the shape


def _raw(data):
    if isinstance(data, ember.Tensor):
        return bytes(data.contiguous().numpy())
    return bytes(data)


# ---------------------------------------------------------------------------- EXIF orientation


def _tiff_orientation(tiff):
    """The Orientation tag (0x0112) of IFD0 in TIFF-structured EXIF data, or 1."""
    if len(tiff) < 8 or tiff[:2] not in (b"II", b"MM"):
        return 1
    e = "<" if tiff[:2] == b"II" else ">"
    (offset,) = struct.unpack(e + "I", tiff[4:8])
    if offset + 2 > len(tiff):
        return 1
    (count,) = struct.unpack(e + "H", tiff[offset : offset + 2])
    for k in range(count):
        entry = offset + 2 + 12 * k
        if entry + 12 > len(tiff):
            return 1
        tag, typ, n = struct.unpack(e + "HHI", tiff[entry : entry + 8])
        if tag == 0x0112 and typ == 3 and n >= 1:
            (value,) = struct.unpack(e + "H", tiff[entry + 8 : entry + 10])
            return value if 1 <= value <= 8 else 1
    return 1


def _exif_orientation(data):
    """The EXIF orientation (1..8; 1 when absent or unreadable) of JPEG (APP1 "Exif") or PNG (eXIf chunk) bytes."""
    if data[:3] == b"\xff\xd8\xff":
        pos = 2
        while pos + 4 <= len(data) and data[pos] == 0xFF:
            marker = data[pos + 1]
            if marker in (0xD9, 0xDA):  # end of image, start of scan: no more metadata
                break
            (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
            if marker == 0xE1 and data[pos + 4 : pos + 10] == b"Exif\x00\x00":
                return _tiff_orientation(data[pos + 10 : pos + 2 + length])
            pos += 2 + length
        return 1
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        pos = 8
        while pos + 8 <= len(data):
            (length,) = struct.unpack(">I", data[pos : pos + 4])
            kind = data[pos + 4 : pos + 8]
            if kind == b"eXIf":
                return _tiff_orientation(data[pos + 8 : pos + 8 + length])
            if kind in (b"IDAT", b"IEND"):
                break
            pos += 12 + length
    return 1


def _apply_orientation(img, orientation):
    """A [C, H, W] image turned upright as the EXIF orientation says (PIL's ImageOps.exif_transpose)."""
    if orientation == 2:
        return img.flip(-1)
    if orientation == 3:
        return img.flip(-1).flip(-2)
    if orientation == 4:
        return img.flip(-2)
    if orientation == 5:
        return img.transpose(-1, -2).contiguous()
    if orientation == 6:
        return img.transpose(-1, -2).flip(-1)
    if orientation == 7:
        return img.transpose(-1, -2).flip(-1).flip(-2)
    if orientation == 8:
        return img.transpose(-1, -2).flip(-2)
    return img


def _decode(kernel, input, mode, apply_exif_orientation, op):
    input = _check_bytes(input, op)
    out = _chw(kernel(input, _mode(mode)))
    if apply_exif_orientation:
        out = _apply_orientation(out, _exif_orientation(_raw(input)))
    return out


# ---------------------------------------------------------------------------- decoding


def decode_png(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decodes PNG bytes (a uint8 1-d tensor or bytes) into a uint8 [C, H, W] tensor. 16-bit images are scaled to
    8 bits; palette images become RGB; transparency becomes an alpha channel."""
    return _decode(_V.decode_png, input, mode, apply_exif_orientation, "decode_png")


def decode_jpeg(input, mode=ImageReadMode.UNCHANGED, device="cpu", apply_exif_orientation=False):
    """Decodes JPEG bytes into a uint8 [C, H, W] tensor (C = 1 for gray files, 3 otherwise, or what mode asks);
    a list of byte tensors decodes to a list of images. device: where the result goes (decoding runs on the CPU)."""
    device = ember.device(device) if isinstance(device, str) else device
    if isinstance(input, (list, tuple)):
        if len(input) == 0:
            raise ValueError("Input list must contain at least one element")
        if not all(isinstance(t, ember.Tensor) for t in input):
            raise ValueError("All elements of the input list must be tensors.")
        if not all(t.device.type == "cpu" for t in input):
            raise ValueError("Input list must contain tensors on CPU.")
        out = [_decode(_V.decode_jpeg, t, mode, apply_exif_orientation, "decode_jpeg") for t in input]
        return out if device.type == "cpu" else [t.to(device) for t in out]
    out = _decode(_V.decode_jpeg, input, mode, apply_exif_orientation, "decode_jpeg")
    return out if device.type == "cpu" else out.to(device)


def _pil_open(input, op):
    from . import _pil

    Image = _pil.require(op)
    import io as _pyio

    raw = _raw(_check_bytes(input, op))
    try:
        img = Image.open(_pyio.BytesIO(raw))
        img.load()
    except (MemoryError, KeyboardInterrupt):
        raise
    except Exception as e:
        raise RuntimeError("%s: cannot decode the data: %s: %s" % (op, type(e).__name__, e)) from e
    return img


def _pil_chw(img):
    import numpy as np

    arr = np.array(img, dtype=np.uint8)
    arr = arr[:, :, None] if arr.ndim == 2 else arr
    return ember.from_numpy(np.ascontiguousarray(arr)).permute(2, 0, 1)


def decode_gif(input):
    """Decodes GIF bytes into uint8 RGB: [3, H, W] for one frame, [N, 3, H, W] for an animation (every frame
    composited, as torchvision's giflib decoder gives them). Decoded by Pillow (needed: ember has no GIF codec)."""

    img = _pil_open(input, "decode_gif")
    frames = []
    for k in range(getattr(img, "n_frames", 1)):
        img.seek(k)
        frames.append(_pil_chw(img.convert("RGB")))
    return frames[0] if len(frames) == 1 else ember.stack(frames)


def decode_webp(input, mode=ImageReadMode.UNCHANGED):
    """Decodes WebP bytes into uint8 [3 or 4, H, W] (UNCHANGED: 4 when the file has alpha; RGB, RGB_ALPHA; the gray
    modes give UNCHANGED with a warning, as torchvision). Decoded by Pillow (libwebp; needed)."""
    mode = _mode(mode)
    img = _pil_open(input, "decode_webp")
    has_alpha = img.mode in ("RGBA", "LA") or "transparency" in img.info
    if mode in (ImageReadMode.GRAY, ImageReadMode.GRAY_ALPHA):
        import warnings

        warnings.warn("decode_webp: the GRAY and GRAY_ALPHA modes are not supported for WebP; decoding UNCHANGED")
        mode = ImageReadMode.UNCHANGED
    if mode == ImageReadMode.RGB or (mode == ImageReadMode.UNCHANGED and not has_alpha):
        return _pil_chw(img.convert("RGB"))
    return _pil_chw(img.convert("RGBA"))


def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decodes JPEG, PNG or binary PGM/PPM bytes (told by their first bytes) into a uint8 [C, H, W] tensor; GIF and
    WebP go to decode_gif/decode_webp (Pillow). input may also be a path (torchvision 0.29 reads the file then)."""
    if isinstance(input, (str, os.PathLike)):
        input = read_file(input)
    head = _raw(input[:12]) if isinstance(input, ember.Tensor) and input.dim() == 1 else bytes(input[:12])
    if head[:4] == b"GIF8":
        return decode_gif(input)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return decode_webp(input, mode)
    return _decode(_V.decode_image, input, mode, apply_exif_orientation, "decode_image")


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Reads a JPEG, PNG or binary PGM/PPM file into a uint8 [C, H, W] tensor."""
    if not apply_exif_orientation:
        return _chw(_V.read_image(_path(path), _mode(mode)))
    return decode_image(read_file(path), mode, apply_exif_orientation)


# ---------------------------------------------------------------------------- encoding


def encode_jpeg(input, quality=75):
    """Encodes a uint8 [C, H, W] tensor (C = 1 or 3) as JPEG (libjpeg, the given quality); returns the file's bytes
    as a uint8 1-d tensor. A list of images gives a list of byte tensors."""
    if isinstance(quality, bool) or not isinstance(quality, int):
        raise TypeError("quality must be an int, got %s" % type(quality).__name__)
    if quality < 1 or quality > 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, (list, tuple)):
        if not input:
            raise ValueError("encode_jpeg requires at least one input tensor when a list is passed")
        return [_V.encode_jpeg(_cpu_image(t, "encode_jpeg"), quality) for t in input]
    return _V.encode_jpeg(_cpu_image(input, "encode_jpeg"), quality)


def write_jpeg(input, filename, quality=75):
    """Writes a uint8 [C, H, W] tensor (C = 1 or 3) as a JPEG file."""
    write_file(filename, encode_jpeg(input, quality))


def _cpu_image(t, op):
    if not isinstance(t, ember.Tensor):
        raise TypeError("%s: expected a uint8 [C, H, W] tensor, got %s" % (op, type(t).__name__))
    return t.cpu()


def encode_png(input, compression_level=6):
    """Encodes a uint8 [C, H, W] tensor (C = 1, 2, 3 or 4) as PNG; returns the file's bytes as a uint8 1-d tensor."""
    _check_level(compression_level)
    return _V.encode_png(_cpu_image(input, "encode_png"), compression_level)


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
