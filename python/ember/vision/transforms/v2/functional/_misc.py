"""normalize, gaussian_blur, gaussian_noise, to_dtype, sanitize_bounding_boxes (transforms.v2.functional)."""

import numbers

import ember
from ember.nn import functional as _nnF

from .... import tv_tensors
from ... import functional as _F1
from ._meta import _convert_format
from ._utils import _dispatch, _plain, _register, is_pure_tensor

__all__ = [
    "normalize",
    "gaussian_blur",
    "gaussian_noise",
    "to_dtype",
    "convert_image_dtype",
    "sanitize_bounding_boxes",
]

_FLOATS = (ember.float16, ember.bfloat16, ember.float32, ember.float64)
_BITS = {ember.uint8: 8, ember.int8: 7, ember.int16: 15, ember.int32: 31, ember.int64: 63}


def _register_images(functional, kernel):
    for t in (ember.Tensor, tv_tensors.Image, tv_tensors.Video):
        _register(functional, t)(kernel)


@_dispatch
def normalize(inpt, mean, std, inplace=False):
    """(image - mean) / std per channel (float images)."""


def normalize_image(image, mean, std, inplace=False):
    if not image.is_floating_point():
        raise TypeError("Input tensor should be a float tensor. Got %s." % image.dtype)
    if image.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got %s." % (tuple(image.shape),))
    if isinstance(std, (tuple, list)):
        divzero = not all(std)
    elif isinstance(std, numbers.Number):
        divzero = not std
    else:
        divzero = bool((ember.as_tensor(std) == 0).any())
    if divzero:
        raise ValueError("std evaluated to zero, leading to division by zero.")
    return _F1.normalize(image, mean, std, inplace=inplace)


_register_images(normalize, normalize_image)


def _gaussian_kernel1d(ksize, sigma, dtype, device=None):
    lim = (ksize - 1) / (2.0 * 2.0**0.5)
    x = ember.linspace(-lim, lim, ksize, dtype=dtype, device=device)
    return ember.softmax((x / sigma).pow(2).neg(), dim=0)


def _blur_args(kernel_size, sigma):
    if isinstance(kernel_size, numbers.Integral) and not isinstance(kernel_size, bool):
        kernel_size = [int(kernel_size)] * 2
    elif len(kernel_size) == 1:
        kernel_size = [int(kernel_size[0])] * 2
    elif len(kernel_size) != 2:
        raise ValueError("If kernel_size is a sequence its length should be 2. Got %d" % len(kernel_size))
    for k in kernel_size:
        if k % 2 == 0 or k < 0:
            raise ValueError("kernel_size should have odd and positive integers. Got %s" % (list(kernel_size),))
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    elif isinstance(sigma, (list, tuple)):
        if len(sigma) == 1:
            sigma = [float(sigma[0])] * 2
        elif len(sigma) != 2:
            raise ValueError("If sigma is a sequence, its length should be 2. Got %d" % len(sigma))
        sigma = [float(s) for s in sigma]
    elif isinstance(sigma, numbers.Real):
        sigma = [float(sigma)] * 2
    else:
        raise TypeError("sigma should be either float or sequence of floats. Got %s" % type(sigma).__name__)
    for s in sigma:
        if s <= 0.0:
            raise ValueError("sigma should have positive values. Got %s" % (sigma,))
    return list(kernel_size), sigma


@_dispatch
def gaussian_blur(inpt, kernel_size, sigma=None):
    """Gaussian blur (reflect padding, a [ky, kx] kernel); sigma defaults to 0.15 * k + 0.35 per side."""


def gaussian_blur_image(image, kernel_size, sigma=None):
    kernel_size, sigma = _blur_args(kernel_size, sigma)
    if image.numel() == 0:
        return image
    shape = image.shape
    c, h, w = shape[-3:]
    fp = image.is_floating_point()
    kdtype = image.dtype if fp else ember.float32
    kx = _gaussian_kernel1d(kernel_size[0], sigma[0], kdtype, image.device)
    ky = _gaussian_kernel1d(kernel_size[1], sigma[1], kdtype, image.device)
    kernel = (ky.view(-1, 1) * kx.view(1, -1)).expand(c, 1, kernel_size[1], kernel_size[0]).contiguous()
    x = image.reshape(-1, c, h, w)
    x = x if fp else x.to(ember.float32)
    px, py = kernel_size[0] // 2, kernel_size[1] // 2
    x = _nnF.pad(x, [px, px, py, py], mode="reflect")
    out = _nnF.conv2d(x, kernel, groups=c).reshape(shape)
    if not fp:
        out = out.round().to(image.dtype)
    return out


_register_images(gaussian_blur, gaussian_blur_image)


@_dispatch
def gaussian_noise(inpt, mean=0.0, sigma=0.1, clip=True):
    """image + N(mean, sigma) noise (uint8: on the 0..255 scale), clipped to the value range unless clip=False."""


def gaussian_noise_image(image, mean=0.0, sigma=0.1, clip=True):
    if sigma < 0:
        raise ValueError("sigma shouldn't be negative. Got %s" % (sigma,))
    if image.is_floating_point():
        out = image + (mean + ember.randn_like(image) * sigma)
        return out.clamp(0, 1) if clip else out
    if image.dtype == ember.uint8:
        noise = (mean * 255 + ember.randn(*image.shape, dtype=ember.float32, device=image.device) * (sigma * 255)).to(
            ember.int16
        )
        out = image.to(ember.int16) + noise
        if clip:
            out = out.clamp(0, 255)
        return out.to(ember.uint8)
    raise ValueError("Input tensor is expected to be in uint8 or float dtype, got dtype=%s" % image.dtype)


_register_images(gaussian_noise, gaussian_noise_image)


def to_dtype_image(image, dtype=ember.float32, scale=False):
    """image as dtype; scale=True maps value ranges ([0, 1] floats, [0, max] integers) as torchvision's."""
    if image.dtype == dtype:
        return image
    if not scale:
        return image.to(dtype)
    fin, fout = image.dtype in _FLOATS, dtype in _FLOATS
    if fin:
        if fout:
            return image.to(dtype)
        if (image.dtype == ember.float32 and dtype in (ember.int32, ember.int64)) or (
            image.dtype == ember.float64 and dtype == ember.int64
        ):
            raise RuntimeError("The conversion from %s to %s cannot be performed safely." % (image.dtype, dtype))
        return (image * (float((1 << _BITS[dtype]) - 1) + 1.0 - 1e-3)).to(dtype)
    if dtype == ember.bool or image.dtype == ember.bool:
        return image.to(dtype)
    if fout:
        return image.to(dtype) * (1.0 / ((1 << _BITS[image.dtype]) - 1))
    bin_, bout = _BITS[image.dtype], _BITS[dtype]
    if bin_ > bout:
        return image.bitwise_right_shift(bin_ - bout).to(dtype)
    return image.to(dtype).bitwise_left_shift(bout - bin_)


@_dispatch
def to_dtype(inpt, dtype=ember.float32, scale=False):
    """Images and videos to dtype (scale=True rescales value ranges); other types are cast only."""


def to_dtype_video(video, dtype=ember.float32, scale=False):
    return to_dtype_image(video, dtype, scale)


def _cast_only(inpt, dtype=ember.float32, scale=False):
    return inpt.to(dtype)


_register_images(to_dtype, to_dtype_image)
for _t in (tv_tensors.Mask, tv_tensors.BoundingBoxes, tv_tensors.KeyPoints):
    _register(to_dtype, _t, wrapper=False)(_cast_only)


def convert_image_dtype(image, dtype=ember.float32):
    """to_dtype(image, dtype, scale=True) (torchvision's deprecated name)."""
    return to_dtype(image, dtype, scale=True)


def _sanitize_mask(boxes, format, canvas_size, min_size, min_area):
    b = boxes if boxes.is_floating_point() else boxes.to(ember.float32)
    if tv_tensors.is_rotated_bounding_format(format):
        b8 = _convert_format(b, format, tv_tensors.BoundingBoxFormat.XYXYXYXY)
        ws = ((b8[..., 0] - b8[..., 2]).pow(2) + (b8[..., 1] - b8[..., 3]).pow(2)).sqrt()
        hs = ((b8[..., 2] - b8[..., 4]).pow(2) + (b8[..., 3] - b8[..., 5]).pow(2)).sqrt()
        xy = b8
    else:
        xy = _convert_format(b, format, tv_tensors.BoundingBoxFormat.XYXY)
        ws, hs = xy[:, 2] - xy[:, 0], xy[:, 3] - xy[:, 1]
    h, w = canvas_size
    valid = (ws >= min_size) & (hs >= min_size) & (xy >= 0).all(dim=-1) & (ws * hs >= min_area)
    valid = valid & (xy[..., 0::2] <= w).all(dim=-1) & (xy[..., 1::2] <= h).all(dim=-1)
    return valid


def sanitize_bounding_boxes(bounding_boxes, format=None, canvas_size=None, min_size=1.0, min_area=1.0):
    """(the valid boxes, the boolean mask of them): boxes smaller than min_size on a side or min_area, or with a
    coordinate outside the canvas, are dropped."""
    if is_pure_tensor(bounding_boxes):
        if format is None or canvas_size is None:
            raise ValueError(
                "format and canvas_size cannot be None if bounding_boxes is a pure tensor. Got format=%s and "
                "canvas_size=%s.Set those to appropriate values or consider using SanitizeBoundingBoxes instead."
                % (format, canvas_size)
            )
        valid = _sanitize_mask(bounding_boxes, tv_tensors._format(format), canvas_size, min_size, min_area)
        return bounding_boxes[valid], valid
    if isinstance(bounding_boxes, tv_tensors.BoundingBoxes):
        if format is not None or canvas_size is not None:
            raise ValueError(
                "format and canvas_size must be None when bounding_boxes is a tv_tensors.BoundingBoxes instance. "
                "Got format=%s and canvas_size=%s." % (format, canvas_size)
            )
        plain = _plain(bounding_boxes)
        valid = _sanitize_mask(plain, bounding_boxes.format, bounding_boxes.canvas_size, min_size, min_area)
        return tv_tensors.wrap(plain[valid], like=bounding_boxes), valid
    raise TypeError(
        "bounding_boxes must be a tv_tensors.BoundingBoxes instance or a pure tensor, got %s"
        % type(bounding_boxes).__name__
    )


def _sanitize_keypoints_mask(points, canvas_size):
    h, w = canvas_size
    x, y = points[..., 0], points[..., 1]
    valid = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    return valid.flatten(1).all(dim=1) if valid.ndim > 1 else valid


def sanitize_keypoints(key_points, canvas_size=None):
    """(the keypoints inside the canvas, the boolean mask of them); a group ([N, K, 2]) is kept when all its points
    are inside."""
    if is_pure_tensor(key_points):
        if canvas_size is None:
            raise ValueError(
                "canvas_size cannot be None if key_points is a pure tensor. Set it to an appropriate value or pass "
                "key_points as a tv_tensors.KeyPoints object."
            )
        valid = _sanitize_keypoints_mask(key_points, canvas_size)
        return key_points[valid], valid
    if not isinstance(key_points, tv_tensors.KeyPoints):
        raise ValueError("key_points must be a tv_tensors.KeyPoints instance or a pure tensor.")
    if canvas_size is not None:
        raise ValueError(
            "canvas_size must be None when key_points is a tv_tensors.KeyPoints instance. Got canvas_size=%s. Leave "
            "it to None or pass key_points as a pure tensor." % (canvas_size,)
        )
    plain = _plain(key_points)
    valid = _sanitize_keypoints_mask(plain, key_points.canvas_size)
    return tv_tensors.wrap(plain[valid], like=key_points), valid


__all__.append("sanitize_keypoints")
