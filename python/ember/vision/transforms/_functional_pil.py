"""The PIL-image side of ember.vision.transforms.functional: the same operations done by Pillow itself, as
torchvision does for PIL inputs, so that a PIL image gives torchvision's pixels exactly. functional.py dispatches
here when its input is a PIL image (see _image_op there)."""

import numbers

import numpy as np

from .. import _pil

# InterpolationMode value -> Pillow's resampling filter (torchvision's pil_modes_mapping).
PIL_FILTERS = {"nearest": 0, "nearest-exact": 0, "bilinear": 2, "bicubic": 3, "box": 4, "hamming": 5, "lanczos": 1}


def _check(img):
    if not _pil.is_pil_image(img):
        raise TypeError("img should be PIL Image. Got %s" % type(img).__name__)


def get_dimensions(img):
    _check(img)
    return [len(img.getbands()), img.height, img.width]


def hflip(img):
    _check(img)
    return img.transpose(_pil.Image.Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    _check(img)
    return img.transpose(_pil.Image.Transpose.FLIP_TOP_BOTTOM)


def crop(img, top, left, height, width):
    """Pillow's crop: the part outside the image is zero."""
    _check(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size_hw, interpolation):
    _check(img)
    return img.resize((int(size_hw[1]), int(size_hw[0])), PIL_FILTERS[interpolation.value])


def _fill(fill, img, name="fillcolor"):
    """fill as Pillow wants it: an int (or float for mode F), or a tuple with one value per band."""
    c = len(img.getbands())
    if fill is None:
        fill = 0
    if isinstance(fill, numbers.Number) and c > 1:
        fill = (fill,) * c
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * c
        elif len(fill) != c:
            raise ValueError(
                "The number of elements in 'fill' does not match the number of channels of the image "
                "(%d != %d)" % (len(fill), c)
            )
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(v) for v in fill) if isinstance(fill, tuple) else int(fill)
    return {name: fill}


def pad(img, ltrb, fill, padding_mode):
    """ltrb: [left, top, right, bottom] (negative crops). constant pads with Pillow's ImageOps.expand; the other
    modes pad the pixel array with NumPy (edge, reflect, symmetric have NumPy's meaning)."""
    _check(img)
    left, top, right, bottom = ltrb
    if min(ltrb) < 0:
        cl, ct, cr, cb = (-min(v, 0) for v in ltrb)
        img = img.crop((cl, ct, img.width - cr, img.height - cb))
        left, top, right, bottom = (max(v, 0) for v in ltrb)
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        out = _pil.ImageOps.expand(img, border=(left, top, right, bottom), **_fill(fill, img, "fill"))
    else:
        arr = np.asarray(img)
        if (arr.shape[0] == 0 or arr.shape[1] == 0) and (left or top or right or bottom):
            raise ValueError("cannot %s-pad an empty image of size %dx%d" % (padding_mode, img.height, img.width))
        widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
        out = _pil.Image.fromarray(np.pad(arr, widths, mode=padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def rotate(img, angle, interpolation, expand, center, fill):
    _check(img)
    if center is not None:
        center = tuple(center)
    return img.rotate(angle, PIL_FILTERS[interpolation.value], expand, center, **_fill(fill, img))


def adjust_brightness(img, factor):
    _check(img)
    return _pil.ImageEnhance.Brightness(img).enhance(factor)


def adjust_contrast(img, factor):
    _check(img)
    return _pil.ImageEnhance.Contrast(img).enhance(factor)


def adjust_saturation(img, factor):
    _check(img)
    return _pil.ImageEnhance.Color(img).enhance(factor)


def adjust_hue(img, factor):
    """The hue byte of Pillow's HSV shifted by factor * 255 (wrapping), as torchvision does."""
    _check(img)
    mode = img.mode
    if mode in ("L", "1", "I", "F"):
        return img
    h, s, v = img.convert("HSV").split()
    np_h = np.array(h, dtype=np.uint8)
    np_h += np.array(int(factor * 255), dtype=np.int32).astype(np.uint8)
    h = _pil.Image.fromarray(np_h, "L")
    return _pil.Image.merge("HSV", (h, s, v)).convert(mode)


def to_grayscale(img, num_output_channels):
    _check(img)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    gray = img.convert("L")
    if num_output_channels == 1:
        return gray
    arr = np.asarray(gray)
    return _pil.Image.fromarray(np.ascontiguousarray(np.stack([arr, arr, arr], axis=-1)), "RGB")


def invert(img):
    _check(img)
    return _pil.ImageOps.invert(img)


def posterize(img, bits):
    _check(img)
    return _pil.ImageOps.posterize(img, bits)


def solarize(img, threshold):
    _check(img)
    return _pil.ImageOps.solarize(img, threshold)


def adjust_sharpness(img, factor):
    _check(img)
    return _pil.ImageEnhance.Sharpness(img).enhance(factor)


def autocontrast(img):
    _check(img)
    return _pil.ImageOps.autocontrast(img)


def equalize(img):
    _check(img)
    return _pil.ImageOps.equalize(img)


def adjust_gamma(img, gamma, gain):
    """Through a lookup table of int((256 - 1e-3) * gain * (v / 255) ** gamma) on the RGB bands (torchvision's)."""
    _check(img)
    mode = img.mode
    table = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, gamma)) for v in range(256)] * 3
    return img.convert("RGB").point(table).convert(mode)


def affine(img, matrix, interpolation, fill):
    """Pillow's AFFINE transform with the inverse matrix (output pixel -> input pixel), the output the input's size."""
    _check(img)
    return img.transform(
        img.size, _pil.Image.Transform.AFFINE, matrix, PIL_FILTERS[interpolation.value], **_fill(fill, img)
    )


def perspective(img, coeffs, interpolation, fill):
    _check(img)
    return img.transform(
        img.size, _pil.Image.Transform.PERSPECTIVE, coeffs, PIL_FILTERS[interpolation.value], **_fill(fill, img)
    )
