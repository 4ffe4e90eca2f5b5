"""Colour functionals of transforms.v2 (images and videos; masks, boxes and keypoints pass through the
transforms untouched). torchvision 0.29's formulas: blends saturate, integer results truncate where torchvision's
do and round where it rounds."""

import numbers

import ember
from ember.nn import functional as _nnF

from .... import tv_tensors
from ... import functional as _F1
from ._misc import to_dtype_image
from ._utils import _dispatch, _register

__all__ = [
    "rgb_to_grayscale",
    "to_grayscale",
    "grayscale_to_rgb",
    "adjust_brightness",
    "adjust_saturation",
    "adjust_contrast",
    "adjust_sharpness",
    "adjust_hue",
    "adjust_gamma",
    "posterize",
    "solarize",
    "autocontrast",
    "equalize",
    "invert",
    "permute_channels",
]

_FLOATS = (ember.float16, ember.bfloat16, ember.float32, ember.float64)
_BITS = {ember.uint8: 8, ember.int8: 7, ember.int16: 15, ember.int32: 31, ember.int64: 63}


def _max_value(dtype):
    if dtype in _FLOATS:
        return 1.0
    if dtype == ember.bool:
        return 1
    return (1 << _BITS[dtype]) - 1


def _channels(image, allowed=(1, 3)):
    if image.ndim < 3:
        raise TypeError("Input image tensor should have at least 3 dimensions, but found %d" % image.ndim)
    c = image.shape[-3]
    if allowed is not None and c not in allowed:
        raise TypeError("Input image tensor permitted channel values are %s, but found %d" % (list(allowed), c))
    return c


def _register_images(functional, kernel):
    for t in (ember.Tensor, tv_tensors.Image, tv_tensors.Video):
        _register(functional, t)(kernel)


@_dispatch
def rgb_to_grayscale(inpt, num_output_channels=1):
    """0.2989 R + 0.587 G + 0.114 B (integers truncated), 1 or 3 output channels."""


def rgb_to_grayscale_image(image, num_output_channels=1):
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels must be 1 or 3, got %s." % (num_output_channels,))
    return _F1.rgb_to_grayscale(image, num_output_channels)


to_grayscale = rgb_to_grayscale
_register_images(rgb_to_grayscale, rgb_to_grayscale_image)


@_dispatch
def grayscale_to_rgb(inpt):
    """A 1-channel image as 3 equal channels (a 3-channel one is returned as is)."""


def grayscale_to_rgb_image(image):
    if image.shape[-3] >= 3:
        return image
    return image.repeat(*([1] * (image.ndim - 3)), 3, 1, 1)


_register_images(grayscale_to_rgb, grayscale_to_rgb_image)


def _blend(img1, img2, ratio):
    ratio = float(ratio)
    fp = img1.is_floating_point()
    out = ember.add(img1 * ratio, img2, alpha=1.0 - ratio).clamp(0, _max_value(img1.dtype))
    return out if fp else out.to(img1.dtype)


@_dispatch
def adjust_brightness(inpt, brightness_factor):
    """image * brightness_factor, saturated."""


def adjust_brightness_image(image, brightness_factor):
    if brightness_factor < 0:
        raise ValueError("brightness_factor (%s) is not non-negative." % (brightness_factor,))
    _channels(image, None)
    fp = image.is_floating_point()
    out = (image * float(brightness_factor)).clamp(0, _max_value(image.dtype))
    return out if fp else out.to(image.dtype)


_register_images(adjust_brightness, adjust_brightness_image)


@_dispatch
def adjust_saturation(inpt, saturation_factor):
    """Blend with the grayscale image (0: gray, 1: unchanged)."""


def adjust_saturation_image(image, saturation_factor):
    if saturation_factor < 0:
        raise ValueError("saturation_factor (%s) is not non-negative." % (saturation_factor,))
    if _channels(image) == 1:
        return image
    gray = _F1._V.rgb_to_grayscale(
        image if image.dtype in (ember.float32, ember.float64) else image.to(ember.float32), 1
    )
    if not image.is_floating_point():
        gray = gray.floor()
    return _blend(image, gray, saturation_factor)


_register_images(adjust_saturation, adjust_saturation_image)


@_dispatch
def adjust_contrast(inpt, contrast_factor):
    """Blend with the mean of the grayscale image."""


def adjust_contrast_image(image, contrast_factor):
    if contrast_factor < 0:
        raise ValueError("contrast_factor (%s) is not non-negative." % (contrast_factor,))
    c = _channels(image)
    fp = image.is_floating_point()
    if c == 3:
        src = image if image.dtype in (ember.float32, ember.float64) else image.to(ember.float32)
        gray = _F1._V.rgb_to_grayscale(src, 1)
        if not fp:
            gray = gray.floor()
    else:
        gray = image if fp else image.to(ember.float32)
    mean = gray.mean(dim=(-3, -2, -1), keepdim=True)
    return _blend(image, mean, contrast_factor)


_register_images(adjust_contrast, adjust_contrast_image)


@_dispatch
def adjust_sharpness(inpt, sharpness_factor):
    """Blend with a 3x3 smoothed image ([1 1 1; 1 5 1; 1 1 1] / 13) inside a one-pixel border."""


def adjust_sharpness_image(image, sharpness_factor):
    c = _channels(image)
    h, w = image.shape[-2:]
    if sharpness_factor < 0:
        raise ValueError("sharpness_factor (%s) is not non-negative." % (sharpness_factor,))
    if image.numel() == 0 or h <= 2 or w <= 2:
        return image
    fp = image.is_floating_point()
    shape = image.shape
    kdtype = image.dtype if fp else ember.float32
    a, b = 1.0 / 13.0, 5.0 / 13.0
    kernel = (
        ember.tensor([[a, a, a], [a, b, a], [a, a, a]], dtype=kdtype, device=image.device)
        .expand(c, 1, 3, 3)
        .contiguous()
    )
    x = image.reshape(-1, c, h, w).to(kdtype).clone()
    blurred = _nnF.conv2d(x, kernel, groups=c)
    if not fp:
        blurred = blurred.round()
    inner = x[..., 1:-1, 1:-1]
    x[..., 1:-1, 1:-1] = inner + (blurred - inner) * (1.0 - float(sharpness_factor))
    out = x.clamp(0, _max_value(image.dtype))
    if not fp:
        out = out.to(image.dtype)
    return out.reshape(shape)


_register_images(adjust_sharpness, adjust_sharpness_image)


@_dispatch
def adjust_hue(inpt, hue_factor):
    """Rotates the hue by hue_factor (a fraction of the colour wheel in [-0.5, 0.5])."""


def _rgb_to_hsv(image):
    """[..., 3, H, W] floats in [0, 1] to (h, s, v) (PIL's formulas, in torchvision 0.29's order of operations)."""
    r, g = image[..., 0, :, :], image[..., 1, :, :]
    maxc, minc = image.amax(dim=-3), image.amin(dim=-3)
    eqc = maxc == minc
    crange = maxc - minc
    ones = ember.ones_like(maxc)
    s = crange / ember.where(eqc, ones, maxc)
    div = ember.where(eqc, ones, crange).unsqueeze(-3)
    rgbc = (maxc.unsqueeze(-3) - image) / div
    rc, gc, bc = rgbc[..., 0, :, :], rgbc[..., 1, :, :], rgbc[..., 2, :, :]
    not_r = maxc != r
    is_g = maxc == g
    hg = (rc + 2.0 - bc) * (is_g & not_r)
    hr = (bc - gc) * ~not_r
    hb = (gc + 4.0 - rc) * (not_r & ~is_g)
    h = ember.fmod((hr + hg + hb) * (1.0 / 6.0) + 1.0, 1.0)
    return h, s, maxc


def _hsv_to_rgb(h, s, v):
    h6 = h * 6
    i = ember.floor(h6)
    f = h6 - i
    i = ember.remainder(i.to(ember.int32), 6).to(ember.int64)
    sxf = s * f
    one_minus_s = 1.0 - s
    q = ((1.0 - sxf) * v).clamp(0.0, 1.0)
    t = ((sxf + one_minus_s) * v).clamp(0.0, 1.0)
    p = (one_minus_s * v).clamp(0.0, 1.0)
    vpqt = ember.stack([v, p, q, t], dim=-3)
    # which of (v, p, q, t) each of r, g, b takes, for each sector i of the hue circle
    table = ember.tensor(
        [[0, 2, 1, 1, 3, 0], [3, 0, 0, 2, 1, 1], [1, 1, 3, 0, 0, 2]], dtype=ember.int64, device=h.device
    )
    select = ember.stack([table[c][i] for c in range(3)], dim=-3)
    return vpqt.gather(-3, select)


def adjust_hue_image(image, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError("hue_factor (%s) is not in [-0.5, 0.5]." % (hue_factor,))
    if _channels(image) == 1 or image.numel() == 0:
        return image
    dtype = image.dtype
    x = to_dtype_image(image, ember.float32, scale=True)
    h, s, v = _rgb_to_hsv(x)
    h = ember.remainder(h + float(hue_factor), 1.0)
    return to_dtype_image(_hsv_to_rgb(h, s, v), dtype, scale=True)


_register_images(adjust_hue, adjust_hue_image)


@_dispatch
def adjust_gamma(inpt, gamma, gain=1):
    """gain * image ** gamma on [0, 1] values."""


def adjust_gamma_image(image, gamma, gain=1.0):
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    x = image.pow(gamma) if image.is_floating_point() else to_dtype_image(image, ember.float32, scale=True).pow(gamma)
    if gain != 1.0:
        x = (x * gain).clamp(0.0, 1.0)
    return to_dtype_image(x, image.dtype, scale=True)


_register_images(adjust_gamma, adjust_gamma_image)


@_dispatch
def posterize(inpt, bits):
    """Keeps the `bits` most significant bits of each value (floats: 2**bits levels)."""


def posterize_image(image, bits):
    if isinstance(bits, bool) or not isinstance(bits, int) or not 0 <= bits <= 8:
        raise TypeError("bits must be a positive integer in the range [0, 8], got %s instead." % (bits,))
    if image.is_floating_point():
        levels = 1 << bits
        return (image * levels).floor().clamp(0, levels - 1) * (1.0 / levels)
    nbits = _BITS[image.dtype]
    if bits >= nbits:
        return image
    mask = ((1 << bits) - 1) << (nbits - bits)
    return image & mask


_register_images(posterize, posterize_image)


@_dispatch
def invert(inpt):
    """max - image."""


def invert_image(image):
    if image.is_floating_point():
        return 1.0 - image
    if image.dtype == ember.uint8:
        return image.bitwise_not()
    return image.bitwise_xor((1 << _BITS[image.dtype]) - 1)


_register_images(invert, invert_image)


@_dispatch
def solarize(inpt, threshold):
    """Inverts the values at or above threshold."""


def solarize_image(image, threshold):
    if threshold > _max_value(image.dtype):
        raise TypeError("Threshold should be less or equal the maximum value of the dtype, but got %s" % (threshold,))
    return ember.where(image >= threshold, invert_image(image), image)


_register_images(solarize, solarize_image)


@_dispatch
def autocontrast(inpt):
    """Stretches each channel's values to the dtype's full range."""


def autocontrast_image(image):
    _channels(image)
    if image.numel() == 0:
        return image
    bound = _max_value(image.dtype)
    fp = image.is_floating_point()
    x = image if fp else image.to(ember.float32)
    lo = x.amin(dim=(-2, -1), keepdim=True)
    hi = x.amax(dim=(-2, -1), keepdim=True)
    same = hi == lo
    inv_scale = ember.where(same, ember.ones_like(hi), (hi - lo) * (1.0 / bound))
    lo = ember.where(same, ember.zeros_like(lo), lo)
    return ((x - lo) / inv_scale).clamp(0, bound).to(image.dtype)


_register_images(autocontrast, autocontrast_image)


@_dispatch
def equalize(inpt):
    """Histogram equalization per channel (PIL's algorithm, on uint8 values)."""


def equalize_image(image):
    if image.numel() == 0:
        return image
    out_dtype = image.dtype
    img = to_dtype_image(image, ember.uint8, scale=True)
    batch = tuple(img.shape[:-2])
    flat = img.flatten(-2).to(ember.int64)
    hist = ember.zeros(*batch, 256, dtype=ember.int64, device=img.device).scatter_add(-1, flat, ember.ones_like(flat))
    cum = hist.cumsum(-1)
    # The last non-empty bin's count does not take part (PIL): the number of other pixels sets the step.
    last = cum.argmax(dim=-1, keepdim=True)
    step = ember.div(flat.shape[-1] - hist.gather(-1, last), 255, rounding_mode="floor")
    valid = step.ne(0)
    lut = ember.div(
        cum[..., :-1] + ember.div(step, 2, rounding_mode="floor"), step.clamp(min=1), rounding_mode="floor"
    ).clamp(0, 255)
    lut = ember.cat([ember.zeros(*batch, 1, dtype=lut.dtype, device=lut.device), lut], dim=-1).to(ember.uint8)
    eq = lut.gather(-1, flat).view(img.shape)
    out = ember.where(valid.unsqueeze(-1), eq, img)
    return to_dtype_image(out, out_dtype, scale=True)


_register_images(equalize, equalize_image)


@_dispatch
def permute_channels(inpt, permutation):
    """The channels in the order of permutation."""


def permute_channels_image(image, permutation):
    c = image.shape[-3]
    if len(permutation) != c:
        raise ValueError("Length of permutation does not match number of channels: %d != %d" % (len(permutation), c))
    if image.numel() == 0:
        return image
    idx = ember.tensor([int(p) for p in permutation], dtype=ember.int64, device=image.device)
    return image.index_select(-3, idx)


_register_images(permute_channels, permute_channels_image)

del numbers
