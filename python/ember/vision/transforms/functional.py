"""ember.vision.transforms.functional: torchvision.transforms.functional's names on ember tensors.

An image is an ember tensor of shape [..., C, H, W] (or [H, W]), a PIL image (when Pillow is installed), or a
NumPy array of shape [H, W] or [H, W, C] (which stands in for a PIL image where Pillow is absent). What goes in
comes out: a PIL image is transformed by Pillow itself, as torchvision does (_functional_pil.py), so it gets
torchvision's pixels exactly; an array comes back as an array of the same layout; a tensor as a tensor. The
tensor work runs in C++: ember's ops (interpolate, grid_sample, affine_grid, flip, index_select, arithmetic) and
the kernels of ember/vision/color.cpp (grayscale, hue).
"""

import enum
import functools
import math
import numbers

import numpy as np

import ember

from ... import _C
from ...nn import functional as F
from .. import _pil
from . import _functional_pil as F_pil

_V = _C._vision

__all__ = [
    "InterpolationMode",
    "get_dimensions",
    "get_image_size",
    "get_image_num_channels",
    "to_tensor",
    "pil_to_tensor",
    "to_pil_image",
    "convert_image_dtype",
    "normalize",
    "resize",
    "crop",
    "center_crop",
    "resized_crop",
    "hflip",
    "vflip",
    "pad",
    "rotate",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
    "rgb_to_grayscale",
    "to_grayscale",
    "erase",
    "invert",
    "posterize",
    "solarize",
    "adjust_sharpness",
    "autocontrast",
    "equalize",
    "adjust_gamma",
    "gaussian_blur",
    "five_crop",
    "ten_crop",
    "affine",
    "perspective",
    "elastic_transform",
]


class InterpolationMode(enum.Enum):
    """Interpolation modes (torchvision.transforms.InterpolationMode)."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"


def _interp(mode):
    if isinstance(mode, InterpolationMode):
        return mode
    if isinstance(mode, str):
        for m in InterpolationMode:
            if m.value == mode.lower() or m.name == mode.upper():
                return m
        raise ValueError(
            "unknown interpolation mode %r (expected one of %s)" % (mode, ", ".join(m.value for m in InterpolationMode))
        )
    raise TypeError("Argument interpolation should be a InterpolationMode or a string, got %s" % type(mode).__name__)


_FLOATS = (ember.float16, ember.bfloat16, ember.float32, ember.float64)
_MAX = {
    ember.uint8: 255,
    ember.int8: 127,
    ember.int16: 32767,
    ember.int32: 2**31 - 1,
    ember.int64: 2**63 - 1,
    ember.bool: 1,
}


def _is_float(dtype):
    return dtype in _FLOATS


# ---------------------------------------------------------------------------- images: tensors and arrays


def _check_tensor_image(img):
    if not isinstance(img, ember.Tensor):
        raise TypeError("img should be an ember tensor, a PIL Image or a NumPy array. Got %s" % type(img).__name__)
    if img.dim() < 2:
        raise TypeError(
            "Tensor is not an image: expected at least 2 dims ([..., H, W]), got shape %s" % (list(img.shape),)
        )


def _writable(arr):
    """A contiguous array ember can wrap without copying (a read-only one is copied: ember tensors are writable)."""
    arr = np.ascontiguousarray(arr)
    return arr if arr.flags.writeable else arr.copy()


def _array_to_tensor(arr):
    """A [H, W] or [H, W, C] array as a [C, H, W] tensor view (no copy when the array is contiguous)."""
    if arr.ndim not in (2, 3):
        raise ValueError(
            "an image array should be 2 ([H, W]) or 3 ([H, W, C]) dimensional. Got %d dimensions." % arr.ndim
        )
    t = ember.from_numpy(_writable(arr))
    return t.unsqueeze(0) if arr.ndim == 2 else t.permute(2, 0, 1)


def _tensor_to_array(t, like):
    """[C, H, W] tensor -> array in the layout of `like` ([H, W] when one channel and like was 2-d)."""
    if t.dim() != 3:
        raise RuntimeError("internal: expected a [C, H, W] result, got %s" % (list(t.shape),))
    out = t[0] if (t.shape[0] == 1 and like.ndim == 2) else t.permute(1, 2, 0)
    arr = out.contiguous().numpy()
    if np.shares_memory(arr, like):
        arr = arr.copy()
    return arr


_COMPOSITE = object()


def _image_op(pil=None):
    """Lets a tensor function take a NumPy [H, W(, C)] image (converted in and out) and a PIL image: pil(img, ...)
    does the PIL case (Pillow's own operation), or with pil=_COMPOSITE the function's body runs on the PIL image
    (it is built of operations that dispatch themselves)."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(img, *args, **kwargs):
            if isinstance(img, np.ndarray):
                return _tensor_to_array(fn(_array_to_tensor(img), *args, **kwargs), img)
            if _pil.is_pil_image(img):
                if pil is None:
                    raise TypeError("%s does not take a PIL Image (a tensor image only)" % fn.__name__)
                return fn(img, *args, **kwargs) if pil is _COMPOSITE else pil(img, *args, **kwargs)
            _check_tensor_image(img)
            return fn(img, *args, **kwargs)

        return wrapper

    return decorate


def get_dimensions(img):
    """[channels, height, width] of an image."""
    if _pil.is_pil_image(img):
        return F_pil.get_dimensions(img)
    if isinstance(img, np.ndarray):
        if img.ndim not in (2, 3):
            raise ValueError("an image array should be 2 or 3 dimensional. Got %d dimensions." % img.ndim)
        return [1 if img.ndim == 2 else img.shape[2], img.shape[0], img.shape[1]]
    _check_tensor_image(img)
    return [1 if img.dim() == 2 else img.shape[-3], img.shape[-2], img.shape[-1]]


def get_image_size(img):
    """[width, height] of an image."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img):
    return get_dimensions(img)[0]


def _as_batch(img):
    """img [..., C, H, W] -> ([N, C, H, W], restore); a 2-d [H, W] is one 1-channel image."""
    shape = img.shape
    if img.dim() == 2:
        return img.reshape(1, 1, shape[0], shape[1]), lambda x: x.reshape(x.shape[-2], x.shape[-1])
    if img.dim() == 3:
        return img.unsqueeze(0), lambda x: x.squeeze(0)
    lead = shape[:-3]
    x = img.reshape(-1, shape[-3], shape[-2], shape[-1])
    return x, lambda y: y.reshape(*lead, *y.shape[1:])


def _cast_back(x, dtype):
    """A float result back to an image's dtype: integers are rounded (and saturated) first."""
    if x.dtype == dtype:
        return x
    if not _is_float(dtype):
        x = x.round()
        if dtype in _MAX:
            lo = 0 if dtype in (ember.uint8, ember.bool) else -_MAX[dtype] - 1
            x = x.clamp(lo, _MAX[dtype])
    return x.to(dtype)


# ---------------------------------------------------------------------------- PIL cases (argument checks, then Pillow)


def _pil_resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    size = _size_list(size)
    mode = _interp(interpolation)
    _, h, w = F_pil.get_dimensions(img)
    oh, ow = _resized_output_size(h, w, size, max_size)
    if (oh, ow) == (h, w):
        return img
    return F_pil.resize(img, (oh, ow), mode)


def _pil_pad(img, padding, fill=0, padding_mode="constant"):
    ltrb = _padding_ltrb(padding)
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric, got %r" % (padding_mode,))
    if isinstance(fill, bool) or not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg: %r" % (fill,))
    return F_pil.pad(img, ltrb, fill, padding_mode)


def _pil_rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    if isinstance(angle, bool) or not isinstance(angle, numbers.Real):
        raise TypeError("Argument angle should be int or float, got %s" % type(angle).__name__)
    if center is not None and (not isinstance(center, (list, tuple)) or len(center) != 2):
        raise ValueError("Argument center should be a sequence of length 2, got %r" % (center,))
    if fill is not None and (isinstance(fill, bool) or not isinstance(fill, (numbers.Number, tuple, list))):
        raise TypeError("Argument fill should be a number or a sequence of numbers, got %r" % (fill,))
    return F_pil.rotate(img, float(angle), _interp(interpolation), bool(expand), center, fill)


def _pil_grayscale(img, num_output_channels=1):
    return F_pil.to_grayscale(img, num_output_channels)


def _pil_enhance(op, name):
    def run(img, factor):
        if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
            raise TypeError("%s should be a number, got %s" % (name, type(factor).__name__))
        if factor < 0:
            raise ValueError("%s (%s) is not non-negative." % (name, factor))
        return op(img, float(factor))

    return run


def _pil_hue(img, hue_factor):
    if isinstance(hue_factor, bool) or not isinstance(hue_factor, numbers.Real) or not -0.5 <= hue_factor <= 0.5:
        raise ValueError("hue_factor (%s) is not in [-0.5, 0.5]." % (hue_factor,))
    return F_pil.adjust_hue(img, float(hue_factor))


# ---------------------------------------------------------------------------- conversions


def _pil_array(pic):
    """A PIL image's pixels as an [H, W, C] array (torchvision's dtypes: I -> int32, I;16 -> int16, F -> float32,
    1 -> uint8 0/255, others uint8)."""
    dtypes = {"I": np.int32, "I;16": np.int16, "I;16B": np.int16, "F": np.float32}
    arr = np.array(pic, dtypes.get(pic.mode, np.uint8), copy=True)
    if pic.mode == "1":
        arr = arr * np.uint8(255)
    return arr.reshape(pic.height, pic.width, len(pic.getbands()))


def to_tensor(pic):
    """A PIL image or an HWC (or HW) image -> float [C, H, W]; uint8 is scaled to [0, 1], other dtypes keep their
    values (torchvision's to_tensor).

    Takes a PIL image, a NumPy array or an ember tensor; a 3-d array or tensor is read as [H, W, C] (like a PIL
    image's array), not as [C, H, W]. torchvision's to_tensor takes PIL images and arrays only.
    """
    if _pil.is_pil_image(pic):
        t = ember.from_numpy(_pil_array(pic))
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError("pic should be 2/3 dimensional. Got %d dimensions." % pic.ndim)
        t = ember.from_numpy(_writable(pic))
    elif isinstance(pic, ember.Tensor):
        if pic.dim() not in (2, 3):
            raise ValueError("pic should be 2/3 dimensional. Got %d dimensions." % pic.dim())
        t = pic
    else:
        raise TypeError("pic should be PIL Image, a NumPy array or an ember tensor. Got %s" % type(pic).__name__)
    if t.dim() == 2:
        t = t.unsqueeze(-1)
    t = t.permute(2, 0, 1).contiguous()
    if t.dtype == ember.uint8:
        return t.to(ember.get_default_dtype()).div(255)
    return t


def pil_to_tensor(pic):
    """A PIL image (or an HWC/HW NumPy image) -> [C, H, W] tensor of the same dtype, values unchanged
    (torchvision's pil_to_tensor)."""
    if _pil.is_pil_image(pic):
        arr = np.array(pic, copy=True)
        return ember.from_numpy(arr.reshape(pic.height, pic.width, len(pic.getbands()))).permute(2, 0, 1)
    if not isinstance(pic, np.ndarray):
        raise TypeError(
            "pic should be PIL Image or a NumPy array of shape [H, W] or [H, W, C]. Got %s" % type(pic).__name__
        )
    return _array_to_tensor(pic).contiguous()


_MODES_BY_CHANNELS = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}


def to_pil_image(pic, mode=None):
    """A [C, H, W] tensor or an [H, W, C] array (C <= 4) -> PIL image (torchvision's to_pil_image). Float values
    are read in [0, 1] and scaled to uint8 (truncating) unless mode is "F"; the mode follows from the channels and
    the dtype when not given."""
    Image = _pil.require("to_pil_image")
    if isinstance(pic, ember.Tensor):
        if pic.dim() not in (2, 3):
            raise ValueError("pic should be 2/3 dimensional. Got %d dimensions." % pic.dim())
        if pic.dim() == 3:
            pic = pic.permute(1, 2, 0)
        pic = pic.detach().cpu().contiguous().numpy()
    elif not isinstance(pic, np.ndarray):
        raise TypeError("pic should be Tensor or ndarray. Got %s." % type(pic).__name__)
    if pic.ndim == 2:
        pic = pic[:, :, None]
    if pic.ndim != 3:
        raise ValueError("pic should be 2/3 dimensional. Got %d dimensions." % pic.ndim)
    if pic.shape[-1] > 4:
        raise ValueError("pic should not have > 4 channels. Got %d channels." % pic.shape[-1])
    arr = pic
    if np.issubdtype(arr.dtype, np.floating) and mode != "F":
        arr = (arr * 255).astype(np.uint8)
    c = arr.shape[2]
    if c == 1:
        arr = arr[:, :, 0]
        expected = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16", np.dtype(np.int32): "I"}.get(arr.dtype)
        if arr.dtype == np.float32:
            expected = "F"
        if mode is not None and mode != expected:
            raise ValueError(
                "Incorrect mode (%s) supplied for input type %s. Should be %s" % (mode, arr.dtype, expected)
            )
        mode = expected
    else:
        allowed = _MODES_BY_CHANNELS[c]
        if mode is not None and mode not in allowed:
            raise ValueError("Only modes %s are supported for %dD inputs" % (allowed, c))
        if mode is None and arr.dtype == np.uint8:
            mode = allowed[0]
    if mode is None:
        raise TypeError("Input type %s is not supported" % arr.dtype)
    arr = np.ascontiguousarray(arr)
    if mode in ("L", "I", "F", "LA", "RGB", "RGBA"):
        img = Image.fromarray(arr)
        return img if img.mode == mode else img.convert(mode)
    if mode == "I;16":
        return Image.frombuffer("I;16", (arr.shape[1], arr.shape[0]), arr.astype("<i2").tobytes(), "raw", "I;16", 0, 1)
    # YCbCr, HSV, CMYK, RGBX: the bytes read as that mode
    return Image.frombytes(mode, (arr.shape[1], arr.shape[0]), arr.tobytes())


def convert_image_dtype(image, dtype=ember.float32):
    """Converts an image tensor's dtype, rescaling values (torchvision's rules: integers span [0, max], floats
    [0, 1])."""
    if not isinstance(image, ember.Tensor):
        raise TypeError("Input img should be Tensor Image")
    if image.dtype == dtype:
        return image
    if _is_float(image.dtype):
        if _is_float(dtype):
            return image.to(dtype)
        if (image.dtype == ember.float32 and dtype in (ember.int32, ember.int64)) or (
            image.dtype == ember.float64 and dtype == ember.int64
        ):
            raise RuntimeError("The cast from %s to %s cannot be performed safely." % (image.dtype, dtype))
        # Each integer gets an equal share of [0, 1]; 1.0 maps to max, not max + 1.
        eps = 1e-3
        return image.mul(_MAX[dtype] + 1.0 - eps).to(dtype)
    in_max = _MAX[image.dtype]
    if _is_float(dtype):
        return image.to(dtype).div(in_max)
    out_max = _MAX[dtype]
    if in_max > out_max:
        factor = (in_max + 1) // (out_max + 1)
        return ember.div(image, factor, rounding_mode="floor").to(dtype)
    factor = (out_max + 1) // (in_max + 1)
    return image.to(dtype) * factor


def normalize(tensor, mean, std, inplace=False):
    """(tensor - mean) / std per channel of a float [..., C, H, W] tensor."""
    if not isinstance(tensor, ember.Tensor):
        raise TypeError("img should be Tensor Image. Got %s" % type(tensor).__name__)
    if not _is_float(tensor.dtype):
        raise TypeError("Input tensor should be a float tensor. Got %s." % tensor.dtype)
    if tensor.dim() < 3:
        raise ValueError(
            "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = %s"
            % (tuple(tensor.shape),)
        )
    if not inplace:
        tensor = tensor.clone()
    dtype = tensor.dtype
    mean = ember.as_tensor(mean, dtype=dtype)
    std = ember.as_tensor(std, dtype=dtype)
    if bool((std == 0).any()):
        raise ValueError("std evaluated to zero after conversion to %s, leading to division by zero." % dtype)
    if mean.dim() == 1:
        mean = mean.view(-1, 1, 1)
    if std.dim() == 1:
        std = std.view(-1, 1, 1)
    return tensor.sub_(mean).div_(std)


# ---------------------------------------------------------------------------- geometry


def _size_list(size, name="size"):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return [int(size)]
    if isinstance(size, (list, tuple)):
        if len(size) not in (1, 2):
            raise ValueError("If %s is a sequence, it should have 1 or 2 values" % name)
        if not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size):
            raise TypeError("%s should contain ints, got %r" % (name, size))
        return [int(s) for s in size]
    raise TypeError("%s should be int or sequence. Got %s" % (name.capitalize(), type(size).__name__))


def _resized_output_size(h, w, size, max_size):
    if len(size) == 1:
        short, long = (w, h) if w <= h else (h, w)
        new_short, new_long = size[0], int(size[0] * long / short)
        if max_size is not None:
            if max_size <= size[0]:
                raise ValueError(
                    "max_size = %s must be strictly greater than the requested size for the smaller "
                    "edge size = %s" % (max_size, size)
                )
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        return (new_long, new_short) if w <= h else (new_short, new_long)
    if max_size is not None:
        raise ValueError(
            "max_size should only be passed if size specifies the length of the smaller edge, i.e. "
            "size should be an int or a sequence of length 1 in torchscript mode."
        )
    return size[0], size[1]


@_image_op(_pil_resize)
def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resizes to size (h, w), or the smaller edge to size when it is an int (keeping the aspect ratio).

    antialias defaults to True (PIL's behaviour, and torchvision's from 0.17); it applies to bilinear and bicubic
    and is ignored for nearest.
    """
    size = _size_list(size)
    mode = _interp(interpolation)
    _, h, w = get_dimensions(img)
    if h == 0 or w == 0:
        raise ValueError("resize: cannot resize an empty image of size %dx%d" % (h, w))
    oh, ow = _resized_output_size(h, w, size, max_size)
    if oh <= 0 or ow <= 0:
        raise ValueError("resize: the output size %s must be positive (input %dx%d, size %s)" % ([oh, ow], h, w, size))
    x, restore = _as_batch(img)
    dtype = x.dtype
    if not _is_float(dtype) or dtype in (ember.float16, ember.bfloat16):
        x = x.to(ember.float32)
    aa = bool(antialias) and mode in (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC)
    align = False if mode in (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC) else None
    y = F.interpolate(x, size=[oh, ow], mode=mode.value, align_corners=align, antialias=aa)
    if mode == InterpolationMode.BICUBIC and dtype == ember.uint8:
        y = y.clamp(0, 255)
    return restore(_cast_back(y, dtype))


@_image_op(F_pil.crop)
def crop(img, top, left, height, width):
    """img[..., top:top + height, left:left + width]; the part outside the image is filled with zeros."""
    _, h, w = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        pad_ltrb = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0), max(right - w, 0), max(bottom - h, 0)]
        return pad(img[..., max(top, 0) : bottom, max(left, 0) : right], pad_ltrb, fill=0)
    return img[..., top:bottom, left:right]


def _crop_size(output_size):
    if isinstance(output_size, numbers.Integral) and not isinstance(output_size, bool):
        return int(output_size), int(output_size)
    if isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        return int(output_size[0]), int(output_size[0])
    if isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        return int(output_size[0]), int(output_size[1])
    raise ValueError("Please provide only two dimensions (h, w) for size. Got %r" % (output_size,))


@_image_op(_COMPOSITE)
def center_crop(img, output_size):
    """The central [h, w] part; an image smaller than that is padded with zeros first."""
    ch, cw = _crop_size(output_size)
    _, h, w = get_dimensions(img)
    if cw > w or ch > h:
        pad_ltrb = [
            (cw - w) // 2 if cw > w else 0,
            (ch - h) // 2 if ch > h else 0,
            (cw - w + 1) // 2 if cw > w else 0,
            (ch - h + 1) // 2 if ch > h else 0,
        ]
        img = pad(img, pad_ltrb, fill=0)
        _, h, w = get_dimensions(img)
        if cw == w and ch == h:
            return img
    top = int(round((h - ch) / 2.0))
    left = int(round((w - cw) / 2.0))
    return crop(img, top, left, ch, cw)


@_image_op(_COMPOSITE)
def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


@_image_op(F_pil.hflip)
def hflip(img):
    return img.flip(-1)


@_image_op(F_pil.vflip)
def vflip(img):
    return img.flip(-2)


def _padding_ltrb(padding):
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return [int(padding)] * 4
    if not isinstance(padding, (tuple, list)):
        raise TypeError("Got inappropriate padding arg: %r" % (padding,))
    if len(padding) not in (1, 2, 4):
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a %d element tuple" % len(padding))
    if not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in padding):
        raise TypeError("Got inappropriate padding arg: %r" % (padding,))
    p = [int(v) for v in padding]
    if len(p) == 1:
        return p * 4
    if len(p) == 2:
        return [p[0], p[1], p[0], p[1]]
    return p


def _pad_index(n, before, after, mode):
    """Source indices along a dim of n for a padded range (computed by ember ops)."""
    idx = ember.arange(-before, n + after)
    if mode == "edge":
        return idx.clamp(0, n - 1)
    if mode == "reflect":
        if n == 1:
            return ember.zeros_like(idx)
        period = 2 * (n - 1)
        m = ember.remainder(idx, period)
        return ember.where(m >= n, period - m, m)
    # symmetric: the edge pixel is repeated
    period = 2 * n
    m = ember.remainder(idx, period)
    return ember.where(m >= n, period - 1 - m, m)


@_image_op(_pil_pad)
def pad(img, padding, fill=0, padding_mode="constant"):
    """Pads the last two dims by padding (int, [lr, tb] or [l, t, r, b]; negative values crop). padding_mode:
    constant (fill: a number, or one per channel), edge, reflect (mirror without the edge pixel) or symmetric
    (mirror with it)."""
    left, top, right, bottom = _padding_ltrb(padding)
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric, got %r" % (padding_mode,))
    if isinstance(fill, bool) or not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg: %r" % (fill,))
    # Negative padding crops first.
    if min(left, top, right, bottom) < 0:
        h, w = img.shape[-2], img.shape[-1]
        ct, cb, cl, cr = -min(top, 0), -min(bottom, 0), -min(left, 0), -min(right, 0)
        img = img[..., ct : h - cb, cl : w - cr]
        left, top, right, bottom = max(left, 0), max(top, 0), max(right, 0), max(bottom, 0)
    h, w = img.shape[-2], img.shape[-1]
    if padding_mode != "constant":
        if (h == 0 or w == 0) and (left or top or right or bottom):
            raise ValueError("cannot %s-pad an empty image of size %dx%d" % (padding_mode, h, w))
        if padding_mode == "reflect" and (max(left, right) >= w or max(top, bottom) >= h):
            raise ValueError(
                "Padding size should be less than the corresponding input dimension for reflect "
                "padding, but got padding %s for an image of size %dx%d" % ([left, top, right, bottom], h, w)
            )
        out = img.index_select(-1, _pad_index(w, left, right, padding_mode))
        return out.index_select(-2, _pad_index(h, top, bottom, padding_mode))
    shape = list(img.shape)
    shape[-2], shape[-1] = h + top + bottom, w + left + right
    if isinstance(fill, (tuple, list)):
        c = 1 if img.dim() == 2 else img.shape[-3]
        if len(fill) not in (1, c):
            raise ValueError("fill must have 1 or %d (the number of channels) values, got %d" % (c, len(fill)))
        if len(fill) == 1 or img.dim() == 2:
            out = ember.full(shape, float(fill[0]), dtype=img.dtype)
        else:
            vals = ember.tensor([float(v) for v in fill], dtype=ember.float64).to(img.dtype)
            out = vals.view(-1, 1, 1).expand(*shape).contiguous()
    else:
        out = ember.full(shape, fill, dtype=img.dtype)
    out[..., top : top + h, left : left + w] = img
    return out


def _rotation_matrix(angle, center):
    """The inverse map (output pixel -> input pixel) of a rotation by `angle` degrees counter-clockwise about
    center (x, y, relative to the image center), as a 2x3 matrix in pixel units."""
    a = math.radians(angle)
    cos, sin = math.cos(a), math.sin(a)
    cx, cy = center
    # Row-major [m0 m1 m2; m3 m4 m5]: R(-angle) conjugated by the translation to the center (y points down).
    m = [cos, -sin, 0.0, sin, cos, 0.0]
    m[2] = m[0] * -cx + m[1] * -cy + cx
    m[5] = m[3] * -cx + m[4] * -cy + cy
    return m


def _expanded_size(m, w, h):
    """The output (w, h) that holds the whole rotated image (float32 corner arithmetic, like torchvision)."""
    corners = ember.tensor(
        [[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0], [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]],
        dtype=ember.float32,
    )
    theta = ember.tensor(m, dtype=ember.float32).view(2, 3)
    pts = corners.matmul(theta.t())
    half = ember.tensor([w * 0.5, h * 0.5], dtype=ember.float32)
    lo = pts.min(dim=0)[0] + half
    hi = pts.max(dim=0)[0] + half
    tol = 1e-4  # drop float noise so that 4.00001 does not become 5
    cmax = ember.ceil((hi / tol).trunc() * tol)
    cmin = ember.floor((lo / tol).trunc() * tol)
    size = cmax - cmin
    return int(size[0].item()), int(size[1].item())


def _fill_list(fill, c):
    if fill is None:
        return None
    if isinstance(fill, bool) or not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Argument fill should be a number or a sequence of numbers, got %r" % (fill,))
    if isinstance(fill, numbers.Number):
        return [float(fill)]
    if len(fill) not in (1, c):
        raise ValueError(
            "The number of elements in 'fill' does not match the number of channels of the image "
            "(%d != %d)" % (len(fill), c)
        )
    return [float(v) for v in fill]


@_image_op(_pil_rotate)
def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    """Rotates by `angle` degrees counter-clockwise about center ([x, y] in pixels; default: the image center).

    expand enlarges the output to hold the whole rotated image. fill (a number or one per channel) paints the area
    outside the source; with fill=None it is zero and bilinear edges fade to zero (torchvision's behaviour).
    Sampling is grid_sample (align_corners=False); integer images are rounded back.
    """
    if isinstance(angle, bool) or not isinstance(angle, numbers.Real):
        raise TypeError("Argument angle should be int or float, got %s" % type(angle).__name__)
    mode = _interp(interpolation)
    if mode not in (InterpolationMode.NEAREST, InterpolationMode.BILINEAR):
        raise ValueError("rotate supports the nearest and bilinear interpolation modes, got %s" % mode.value)
    c, h, w = get_dimensions(img)
    if center is None:
        center_f = (0.0, 0.0)
    else:
        if not isinstance(center, (list, tuple)) or len(center) != 2:
            raise ValueError("Argument center should be a sequence of length 2, got %r" % (center,))
        center_f = (float(center[0]) - w * 0.5, float(center[1]) - h * 0.5)
    fill = _fill_list(fill, c)
    m = _rotation_matrix(float(angle), center_f)
    ow, oh = _expanded_size(m, w, h) if expand else (w, h)
    return _grid_transform(img, m, ow, oh, mode, fill)


def _grid_transform(img, m, ow, oh, mode, fill):
    """Samples img at m(output pixel) (m: 2x3, output pixel centers about the output's center -> input pixels about
    the input's center) with grid_sample (zeros outside, or fill blended by coverage); integers rounded back."""
    c, h, w = get_dimensions(img)

    def make_grid(work):
        return _affine_grid(m, w, h, ow, oh, work)

    return _sample_grid(img, make_grid, ow, oh, mode, fill)


def _affine_grid(m, w, h, ow, oh, work):
    """[1, oh, ow, 2] grid_sample coordinates of the output pixels mapped by m."""
    # Output pixel centers in pixel units about the output's center, mapped by m and normalized
    # by the input's half-size (grid_sample's align_corners=False coordinates). Built here rather than by affine_grid
    # so that coordinates round as torchvision's do: a 90-degree turn samples exactly at pixel edges, where a last-bit
    # difference flips nearest sampling.
    xs = ember.linspace(-ow * 0.5 + 0.5, ow * 0.5 - 0.5, ow, dtype=work)
    ys = ember.linspace(-oh * 0.5 + 0.5, oh * 0.5 - 0.5, oh, dtype=work)
    base = ember.stack(
        [xs.view(1, ow).expand(oh, ow), ys.view(oh, 1).expand(oh, ow), ember.ones(oh, ow, dtype=work)], dim=-1
    ).view(oh * ow, 3)
    theta = ember.tensor(m, dtype=work).view(2, 3).t() / ember.tensor([0.5 * w, 0.5 * h], dtype=work)
    return base.matmul(theta).view(1, oh, ow, 2)


def _sample_grid(img, make_grid, ow, oh, mode, fill):
    """grid_sample of img (as a float batch) at make_grid(work dtype), zeros outside, or fill blended in by the
    sampled coverage of a ones channel (nearest: where coverage < 0.5); integer images rounded back."""
    c, h, w = get_dimensions(img)
    x, restore = _as_batch(img)
    dtype = x.dtype
    work = dtype if dtype in (ember.float32, ember.float64) else ember.float32
    x = x.to(work)
    n = x.shape[0]
    grid = make_grid(work).expand(n, oh, ow, 2)
    if fill is not None:
        x = ember.cat([x, ember.ones(n, 1, h, w, dtype=work)], dim=1)
    y = F.grid_sample(x, grid, mode=mode.value, padding_mode="zeros", align_corners=False)
    if fill is not None:
        y, mask = y[:, :-1], y[:, -1:].expand(n, c, oh, ow)
        fill_img = ember.tensor(fill, dtype=work).view(1, len(fill), 1, 1).expand(n, c, oh, ow)
        if mode == InterpolationMode.NEAREST:
            y = ember.where(mask < 0.5, fill_img, y)
        else:
            y = y * mask + (1.0 - mask) * fill_img
    return restore(_cast_back(y, dtype))


# ---------------------------------------------------------------------------- color


def _channels(img):
    return 1 if img.dim() == 2 else img.shape[-3]


def _check_channels(img, allowed):
    c = _channels(img)
    if c not in allowed:
        raise TypeError("Input image tensor permitted channel values are %s, but found %d" % (list(allowed), c))


def _blend(img1, img2, ratio):
    ratio = float(ratio)
    bound = 1.0 if _is_float(img1.dtype) else 255.0
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


def _gray_kernel(img, num_output_channels):
    """The C++ grayscale kernel on [..., 3, H, W]; other dtypes go through float32."""
    if img.dtype in (ember.uint8, ember.float32, ember.float64):
        return _V.rgb_to_grayscale(img, num_output_channels)
    if _is_float(img.dtype):
        return _V.rgb_to_grayscale(img.to(ember.float32), num_output_channels).to(img.dtype)
    return _V.rgb_to_grayscale(img.to(ember.float32), num_output_channels).to(img.dtype)


@_image_op(_pil_grayscale)
def rgb_to_grayscale(img, num_output_channels=1):
    """0.2989 R + 0.587 G + 0.114 B (torchvision's weights; uint8 results are truncated like torchvision's)."""
    if img.dim() < 3:
        raise TypeError("Input image tensor should have at least 3 dimensions, but found %d" % img.dim())
    _check_channels(img, (1, 3))
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        return _gray_kernel(img, num_output_channels)
    if num_output_channels == 3:
        return img.expand(*img.shape[:-3], 3, *img.shape[-2:]).contiguous()
    return img.clone()


to_grayscale = rgb_to_grayscale


@_image_op(_pil_enhance(F_pil.adjust_brightness, "brightness_factor"))
def adjust_brightness(img, brightness_factor):
    if brightness_factor < 0:
        raise ValueError("brightness_factor (%s) is not non-negative." % brightness_factor)
    _check_channels(img, (1, 3))
    return _blend(img, ember.zeros_like(img), brightness_factor)


@_image_op(_pil_enhance(F_pil.adjust_contrast, "contrast_factor"))
def adjust_contrast(img, contrast_factor):
    if contrast_factor < 0:
        raise ValueError("contrast_factor (%s) is not non-negative." % contrast_factor)
    _check_channels(img, (3, 1))
    x = img if img.dim() >= 3 else img.unsqueeze(0)
    dtype = x.dtype if _is_float(x.dtype) else ember.float32
    gray = _gray_kernel(x, 1) if x.shape[-3] == 3 else x
    mean = gray.to(dtype).mean(dim=(-3, -2, -1), keepdim=True)
    out = _blend(x, mean, contrast_factor)
    return out if img.dim() >= 3 else out.squeeze(0)


@_image_op(_pil_enhance(F_pil.adjust_saturation, "saturation_factor"))
def adjust_saturation(img, saturation_factor):
    if saturation_factor < 0:
        raise ValueError("saturation_factor (%s) is not non-negative." % saturation_factor)
    _check_channels(img, (1, 3))
    if _channels(img) == 1:  # a gray image has no saturation (PIL's behaviour)
        return img
    return _blend(img, _gray_kernel(img, 1), saturation_factor)


@_image_op(_pil_hue)
def adjust_hue(img, hue_factor):
    """Shifts the hue by hue_factor (a fraction of the color wheel, in [-0.5, 0.5]) in HSV space (C++ kernel)."""
    if isinstance(hue_factor, bool) or not isinstance(hue_factor, numbers.Real) or not -0.5 <= hue_factor <= 0.5:
        raise ValueError("hue_factor (%s) is not in [-0.5, 0.5]." % (hue_factor,))
    _check_channels(img, (1, 3))
    if _channels(img) == 1:
        return img
    if img.dtype in (ember.uint8, ember.float32, ember.float64):
        return _V.adjust_hue(img, float(hue_factor))
    dtype = img.dtype
    return convert_image_dtype(_V.adjust_hue(convert_image_dtype(img, ember.float32), float(hue_factor)), dtype)


def erase(img, i, j, h, w, v, inplace=False):
    """img[..., i:i + h, j:j + w] = v (a tensor image only)."""
    if not isinstance(img, ember.Tensor):
        raise TypeError("img should be Tensor Image. Got %s" % type(img).__name__)
    if not inplace:
        img = img.clone()
    img[..., i : i + h, j : j + w] = v
    return img


# ---------------------------------------------------------------------------- more color and filters


def _max_value(dtype):
    return 1.0 if _is_float(dtype) else _MAX[dtype]


def _check_3d(img, name):
    if img.dim() < 3:
        raise TypeError("%s: input image tensor should have at least 3 dimensions, but found %d" % (name, img.dim()))
    _check_channels(img, (1, 3))


@_image_op(F_pil.invert)
def invert(img):
    """max - img (max 1 for floats, 255 for uint8)."""
    _check_3d(img, "invert")
    if img.dtype == ember.bool:
        return ember.logical_not(img)
    return _max_value(img.dtype) - img


def _pil_posterize(img, bits):
    _check_bits(bits)
    return F_pil.posterize(img, bits)


def _check_bits(bits):
    if isinstance(bits, bool) or not isinstance(bits, numbers.Integral) or not 0 <= bits <= 8:
        raise ValueError("The number if bits should be between 0 and 8. Got %s" % (bits,))


@_image_op(_pil_posterize)
def posterize(img, bits):
    """Keeps the top `bits` bits of each uint8 value."""
    _check_bits(bits)
    _check_3d(img, "posterize")
    if img.dtype != ember.uint8:
        raise TypeError("Only torch.uint8 image tensors are supported, but found %s" % img.dtype)
    return img & ((256 - 2 ** (8 - int(bits))) & 255)


@_image_op(F_pil.solarize)
def solarize(img, threshold):
    """Inverts the values at or above threshold."""
    _check_3d(img, "solarize")
    if threshold > _max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return ember.where(img >= threshold, invert(img), img)


def _blurred_degenerate(img):
    """The 3x3 smoothing ([[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13) of the interior; the border kept (PIL's)."""
    dtype = img.dtype if _is_float(img.dtype) else ember.float32
    kernel = ember.ones((3, 3), dtype=dtype)
    kernel[1, 1] = 5.0
    kernel = (kernel / kernel.sum()).expand(img.shape[-3], 1, 3, 3)
    x, restore = _as_batch(img)
    y = F.conv2d(x.to(dtype), kernel, groups=x.shape[-3])
    out = img.clone()
    out[..., 1:-1, 1:-1] = restore(_cast_back(y, img.dtype))
    return out


def _pil_sharpness(img, sharpness_factor):
    if sharpness_factor < 0:
        raise ValueError("sharpness_factor (%s) is not non-negative." % sharpness_factor)
    return F_pil.adjust_sharpness(img, float(sharpness_factor))


@_image_op(_pil_sharpness)
def adjust_sharpness(img, sharpness_factor):
    """Blends with a smoothed copy: 0 smooths, 1 keeps, 2 doubles the detail."""
    if sharpness_factor < 0:
        raise ValueError("sharpness_factor (%s) is not non-negative." % sharpness_factor)
    _check_channels(img, (1, 3))
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    return _blend(img, _blurred_degenerate(img), sharpness_factor)


@_image_op(F_pil.autocontrast)
def autocontrast(img):
    """Stretches each channel's [min, max] to the full range (a constant channel is kept)."""
    _check_3d(img, "autocontrast")
    bound = _max_value(img.dtype)
    dtype = img.dtype if _is_float(img.dtype) else ember.float32
    lo = img.amin(dim=(-2, -1), keepdim=True).to(dtype)
    hi = img.amax(dim=(-2, -1), keepdim=True).to(dtype)
    span = hi - lo
    flat = span == 0
    # reciprocal(span) * bound: how PyTorch evaluates `bound / span` (Tensor.__rtruediv__), so the same roundings.
    safe = ember.where(flat, ember.ones_like(span), span)
    scale = ember.where(flat, ember.ones_like(span), ember.reciprocal(safe) * bound)
    lo = ember.where(flat, ember.zeros_like(lo), lo)
    return ((img - lo) * scale).clamp(0, bound).to(img.dtype)


def _equalize_channel(chan):
    hist = ember.bincount(chan.reshape(-1), minlength=256)
    nonzero = hist[hist != 0]
    step = int(nonzero[:-1].sum().item()) // 255
    if step == 0:
        return chan
    lut = ember.div(ember.cumsum(hist, 0) + step // 2, step, rounding_mode="floor")
    lut = ember.cat([ember.zeros(1, dtype=lut.dtype), lut[:-1]]).clamp(0, 255)
    return lut[chan.to(ember.int64)].to(ember.uint8)


@_image_op(F_pil.equalize)
def equalize(img):
    """Histogram equalization of each channel of a uint8 image (PIL's lookup table)."""
    if not 3 <= img.dim() <= 4:
        raise TypeError("Input image tensor should have 3 or 4 dimensions, but found %d" % img.dim())
    if img.dtype != ember.uint8:
        raise TypeError("Only torch.uint8 image tensors are supported, but found %s" % img.dtype)
    _check_channels(img, (1, 3))
    if img.dim() == 3:
        return ember.stack([_equalize_channel(img[c]) for c in range(img.shape[0])])
    return ember.stack([ember.stack([_equalize_channel(x[c]) for c in range(x.shape[0])]) for x in img])


def _pil_gamma(img, gamma, gain=1):
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    return F_pil.adjust_gamma(img, float(gamma), float(gain))


@_image_op(_pil_gamma)
def adjust_gamma(img, gamma, gain=1):
    """gain * img ** gamma in [0, 1] (integer images through convert_image_dtype)."""
    _check_channels(img, (1, 3))
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    dtype = img.dtype
    x = img if _is_float(dtype) else convert_image_dtype(img, ember.float32)
    x = (gain * x.pow(gamma)).clamp(0, 1)
    return convert_image_dtype(x, dtype)


def _gaussian_kernel1d(size, sigma, dtype):
    half = (size - 1) * 0.5
    x = ember.linspace(-half, half, size, dtype=dtype)
    pdf = ember.exp(-0.5 * (x / sigma).pow(2))
    return pdf / pdf.sum()


def _blur_args(kernel_size, sigma):
    if isinstance(kernel_size, bool) or not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError("kernel_size should be int or a sequence of integers. Got %s" % type(kernel_size).__name__)
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError("If kernel_size is a sequence its length should be 2. Got %d" % len(kernel_size))
    for k in kernel_size:
        if k % 2 == 0 or k < 0:
            raise ValueError("kernel_size should have odd and positive integers. Got %s" % (list(kernel_size),))
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError("sigma should be either float or sequence of floats. Got %s" % type(sigma).__name__)
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError("If sigma is a sequence, its length should be 2. Got %d" % len(sigma))
    for s in sigma:
        if s <= 0.0:
            raise ValueError("sigma should have positive values. Got %s" % (list(sigma),))
    return [int(k) for k in kernel_size], [float(s) for s in sigma]


def _pil_blur(img, kernel_size, sigma=None):
    # torchvision blurs a PIL image as a tensor and converts back to the image's mode.
    return to_pil_image(gaussian_blur(pil_to_tensor(img), kernel_size, sigma), mode=img.mode)


@_image_op(_pil_blur)
def gaussian_blur(img, kernel_size, sigma=None):
    """A Gaussian blur of kernel_size [kx, ky] (odd) and sigma [sx, sy] (default 0.3 * ((k - 1) * 0.5 - 1) + 0.8),
    with reflect padding; integer images are rounded back."""
    kernel_size, sigma = _blur_args(kernel_size, sigma)
    dtype = img.dtype if _is_float(img.dtype) else ember.float32
    kx = _gaussian_kernel1d(kernel_size[0], sigma[0], dtype)
    ky = _gaussian_kernel1d(kernel_size[1], sigma[1], dtype)
    kernel = ky[:, None].mm(kx[None, :])
    x, restore = _as_batch(img)
    c = x.shape[1]
    kernel = kernel.expand(c, 1, kernel.shape[0], kernel.shape[1])
    pad_x, pad_y = kernel_size[0] // 2, kernel_size[1] // 2
    y = F.pad(x.to(dtype), [pad_x, pad_x, pad_y, pad_y], mode="reflect")
    y = F.conv2d(y, kernel, groups=c)
    return restore(_cast_back(y, img.dtype))


def five_crop(img, size):
    """The four corner crops and the central crop of size (h, w): (tl, tr, bl, br, center)."""
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    _, h, w = get_dimensions(img)
    ch, cw = size
    if cw > w or ch > h:
        raise ValueError("Requested crop size %s is bigger than input size %s" % (tuple(size), (h, w)))
    return (
        crop(img, 0, 0, ch, cw),
        crop(img, 0, w - cw, ch, cw),
        crop(img, h - ch, 0, ch, cw),
        crop(img, h - ch, w - cw, ch, cw),
        center_crop(img, [ch, cw]),
    )


def ten_crop(img, size, vertical_flip=False):
    """five_crop of the image and of its flip (horizontal, or vertical with vertical_flip)."""
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    first = five_crop(img, size)
    flipped = vflip(img) if vertical_flip else hflip(img)
    return first + five_crop(flipped, size)


# ---------------------------------------------------------------------------- affine


def _inverse_affine_matrix(center, angle, translate, scale, shear):
    """The 2x3 map from output pixels to input pixels (row-major) of: rotate by `angle` degrees and shear by
    (shear_x, shear_y) degrees about `center`, scale, then translate. The forward map is
    T(translate) C R(angle) Sh(shear) S(scale) C^-1 with R Sh = [[a, b], [c, d]] below; this is its inverse."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    # inverse of [[a, b], [c, d]] is [[d, -b], [-c, a]] / det, with det = 1 for a rotation-shear pair
    m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _affine_args(angle, translate, scale, shear, center):
    if isinstance(angle, bool) or not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError("Shear should be a sequence containing two values. Got %s" % (shear,))
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    return float(angle), [float(t) for t in translate], float(scale), [float(v) for v in shear]


def _pil_affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    angle, translate, scale, shear = _affine_args(angle, translate, scale, shear, center)
    _, h, w = F_pil.get_dimensions(img)
    center = [w * 0.5, h * 0.5] if center is None else center
    m = _inverse_affine_matrix(center, angle, translate, scale, shear)
    return F_pil.affine(img, m, _interp(interpolation), fill)


@_image_op(_pil_affine)
def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    """Rotates by angle degrees clockwise, shears by shear degrees (a number: x only; [sx, sy]), scales and translates
    (pixels) about center (default the image center), keeping the size; nearest or bilinear sampling; fill as for
    rotate."""
    angle, translate, scale, shear = _affine_args(angle, translate, scale, shear, center)
    mode = _interp(interpolation)
    if mode not in (InterpolationMode.NEAREST, InterpolationMode.BILINEAR):
        raise ValueError("affine supports the nearest and bilinear interpolation modes, got %s" % mode.value)
    c, h, w = get_dimensions(img)
    center_f = [0.0, 0.0] if center is None else [float(center[0]) - w * 0.5, float(center[1]) - h * 0.5]
    m = _inverse_affine_matrix(center_f, angle, translate, scale, shear)
    return _grid_transform(img, m, w, h, mode, _fill_list(fill, c))


# ---------------------------------------------------------------------------- perspective


def _perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients (a, b, c, d, e, f, g, h) of the map from output (end) points to input (start) points,
    x = (a X + b Y + c) / (g X + h Y + 1), y = (d X + e Y + f) / (g X + h Y + 1), solved in float64 (least squares
    on the 8x8 system) and rounded to float32, as torchvision."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(
            "Please provide exactly four corners, got %d startpoints and %d endpoints."
            % (len(startpoints), len(endpoints))
        )
    rows = []
    for (ex, ey), (sx, sy) in zip(endpoints, startpoints):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
    a = ember.tensor(rows, dtype=ember.float64)
    b = ember.tensor([v for p in startpoints for v in p], dtype=ember.float64)
    return ember.linalg.lstsq(a, b, driver="gels").solution.to(ember.float32).tolist()


def _pil_perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None):
    coeffs = _perspective_coeffs(startpoints, endpoints)
    return F_pil.perspective(img, coeffs, _interp(interpolation), fill)


@_image_op(_pil_perspective)
def perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Warps the quadrilateral startpoints (four [x, y] corners: top-left, top-right, bottom-right, bottom-left) onto
    endpoints, keeping the size; nearest or bilinear; fill as for rotate."""
    coeffs = _perspective_coeffs(startpoints, endpoints)
    mode = _interp(interpolation)
    if mode not in (InterpolationMode.NEAREST, InterpolationMode.BILINEAR):
        raise ValueError("perspective supports the nearest and bilinear interpolation modes, got %s" % mode.value)
    c, h, w = get_dimensions(img)

    def make_grid(work):
        theta1 = ember.tensor([coeffs[0:3], coeffs[3:6]], dtype=work)
        theta2 = ember.tensor([[coeffs[6], coeffs[7], 1.0], [coeffs[6], coeffs[7], 1.0]], dtype=work)
        xs = ember.linspace(0.5, w + 0.5 - 1.0, w, dtype=work)
        ys = ember.linspace(0.5, h + 0.5 - 1.0, h, dtype=work)
        base = ember.stack(
            [xs.view(1, w).expand(h, w), ys.view(h, 1).expand(h, w), ember.ones(h, w, dtype=work)], dim=-1
        ).view(h * w, 3)
        g1 = base.matmul(theta1.t() / ember.tensor([0.5 * w, 0.5 * h], dtype=work))
        g2 = base.matmul(theta2.t())
        return (g1 / g2 - 1.0).view(1, h, w, 2)

    return _sample_grid(img, make_grid, w, h, mode, _fill_list(fill, c))


# ---------------------------------------------------------------------------- elastic


def _pil_elastic(img, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    # torchvision warps a PIL image as a tensor and converts back to the image's mode.
    return to_pil_image(elastic_transform(pil_to_tensor(img), displacement, interpolation, fill), mode=img.mode)


@_image_op(_pil_elastic)
def elastic_transform(img, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Samples each pixel at its position plus displacement ([1, H, W, 2], in grid_sample's [-1, 1] units)."""
    if not isinstance(displacement, ember.Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    mode = _interp(interpolation)
    c, h, w = get_dimensions(img)
    if tuple(displacement.shape) != (1, h, w, 2):
        raise ValueError(
            "Argument displacement shape should be %s, but given %s" % ((1, h, w, 2), tuple(displacement.shape))
        )

    def make_grid(work):
        ys = ember.linspace((-h + 1) / h, (h - 1) / h, h)
        xs = ember.linspace((-w + 1) / w, (w - 1) / w, w)
        ident = ember.stack([xs.view(1, w).expand(h, w), ys.view(h, 1).expand(h, w)], dim=-1).unsqueeze(0)
        return (ident + displacement.to(ident.dtype)).to(work)

    fill = None if fill is None else ([float(fill)] if isinstance(fill, numbers.Number) else [float(v) for v in fill])
    return _sample_grid(img, make_grid, w, h, mode, fill)
