"""Geometry functionals of transforms.v2: each moves images, videos, masks, bounding boxes and keypoints alike.

Images and videos go through the v1 kernels (ember.vision.transforms.functional) or grid_sample; boxes are moved as
their corner points (XYXY; rotated boxes as their four corners, squared back into a rectangle) and clamped to the new
canvas; keypoints are moved as points (not clamped), as torchvision 0.29 does.
"""

import math
import numbers

import ember
from ember.nn import functional as _nnF

from .... import tv_tensors
from ....tv_tensors import BoundingBoxFormat, is_rotated_bounding_format
from ... import functional as _F1
from ...functional import InterpolationMode, _interp
from ._meta import _clamp_boxes, _convert_format
from ._utils import _dispatch, _plain, _register

__all__ = [
    "horizontal_flip",
    "hflip",
    "vertical_flip",
    "vflip",
    "resize",
    "affine",
    "rotate",
    "pad",
    "crop",
    "center_crop",
    "resized_crop",
    "perspective",
    "elastic",
    "elastic_transform",
    "five_crop",
    "ten_crop",
]

_IMAGE_TYPES = (ember.Tensor, tv_tensors.Image, tv_tensors.Video)
_XYXY = BoundingBoxFormat.XYXY


def _register_images(functional, kernel):
    for t in _IMAGE_TYPES:
        _register(functional, t)(kernel)


def _register_boxes(functional, kernel):
    """kernel(plain_boxes, format, canvas_size, *args) -> (boxes, canvas_size)."""

    def run(inpt, *args, **kwargs):
        out, canvas = kernel(
            _plain(inpt), inpt.format, inpt.canvas_size, *args, clamping_mode=inpt.clamping_mode, **kwargs
        )
        return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)

    _register(functional, tv_tensors.BoundingBoxes, wrapper=False)(run)


def _register_points(functional, kernel):
    """kernel(plain_points, canvas_size, *args) -> (points, canvas_size)."""

    def run(inpt, *args, **kwargs):
        out, canvas = kernel(_plain(inpt), inpt.canvas_size, *args, **kwargs)
        return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)

    _register(functional, tv_tensors.KeyPoints, wrapper=False)(run)


_X8 = BoundingBoxFormat.XYXYXYXY


def _rect_from_parallelogram(p):
    """[N, 8] parallelograms (the images of rectangles under a map) as the rectangles torchvision keeps: the same
    center, the longer side kept along its direction, the other side its projection (its extent across it)."""
    dtype = p.dtype
    if dtype not in (ember.float32, ember.float64):
        p = p.to(ember.float32)
    x1, y1, x2, y2, x3, y3, x4, y4 = p.unbind(-1)
    cx, cy = (x1 + x3) / 2, (y1 + y3) / 2
    wp = ((x2 - x1).pow(2) + (y2 - y1).pow(2)).sqrt()
    hp = ((x4 - x1).pow(2) + (y4 - y1).pow(2)).sqrt()
    r12 = ember.atan2(y1 - y2, x2 - x1)
    r14 = ember.atan2(y1 - y4, x4 - x1)
    between = r12 - r14
    sign = ember.where(between > math.pi / 2, -1.0, 1.0)
    cos, sin = between.cos(), between.sin()
    w = ember.where(wp < hp, wp * sin, wp + hp * cos * sign)
    h = ember.where(wp > hp, hp * sin, hp + wp * cos * sign)
    r = ember.where(hp > wp, r14 + math.pi / 2, r12)
    cos, sin = r.cos(), r.sin()
    hw, hh = w / 2, h / 2
    out = ember.stack(
        [
            cx - hw * cos - hh * sin,
            cy - hh * cos + hw * sin,
            cx + hw * cos - hh * sin,
            cy - hh * cos - hw * sin,
            cx + hw * cos + hh * sin,
            cy + hh * cos - hw * sin,
            cx - hw * cos + hh * sin,
            cy + hh * cos + hw * sin,
        ],
        dim=-1,
    )
    return out.to(dtype)


def _rotated_through(boxes, fmt, canvas_out, points_fn, clamping_mode, shift=None):
    """Rotated boxes moved as their corners by points_fn ([M, 2] -> [M, 2]), squared back into rectangles, shifted
    by -shift (expand), clamped to canvas_out and returned in their format and dtype."""
    shape, dtype = boxes.shape, boxes.dtype
    b = boxes if boxes.is_floating_point() else boxes.to(ember.float32)
    corners = _convert_format(b, fmt, _X8).reshape(-1, 8)
    rect = _rect_from_parallelogram(points_fn(corners.reshape(-1, 2)).reshape(-1, 8))
    if shift is not None:
        rect = rect - shift.repeat(1, 4)
    rect = _clamp_boxes(rect, _X8, canvas_out, clamping_mode)
    return _convert_format(rect, _X8, fmt).reshape(shape).to(dtype)


def _native_shift(fmt, dx, dy):
    """The offset that moves boxes of format fmt by (dx, dy)."""
    if fmt == _X8:
        return [dx, dy] * 4
    if fmt in (BoundingBoxFormat.XYWHR, BoundingBoxFormat.CXCYWHR):
        return [dx, dy, 0, 0, 0]
    if fmt == _XYXY:
        return [dx, dy, dx, dy]
    return [dx, dy, 0, 0]


def _as_xyxy(boxes, format):
    """Float XYXY copy of boxes ([N, 4] view of [..., 4])."""
    b = boxes if boxes.is_floating_point() else boxes.to(ember.float32)
    return _convert_format(b.reshape(-1, 4), format, _XYXY)


def _from_xyxy(xyxy, format, canvas_size, clamping_mode, like):
    out = _clamp_boxes(xyxy, _XYXY, canvas_size, clamping_mode)
    return _convert_format(out, _XYXY, format).to(like.dtype).reshape(like.shape)


def _mask_kernel(image_kernel, fill_default=None):
    """A mask [..., H, W] through an image kernel (a channel dim is added for a 2-d mask)."""

    def run(mask, *args, **kwargs):
        squeeze = mask.ndim < 3
        m = mask.unsqueeze(0) if squeeze else mask
        out = image_kernel(m, *args, **kwargs)
        return out.squeeze(0) if squeeze else out

    return run


# ---------------------------------------------------------------------------- flips


@_dispatch
def horizontal_flip(inpt):
    """Flips left-right."""


@_dispatch
def vertical_flip(inpt):
    """Flips top-bottom."""


hflip = horizontal_flip
vflip = vertical_flip


def horizontal_flip_image(image):
    return image.flip(-1)


def vertical_flip_image(image):
    return image.flip(-2)


horizontal_flip_mask = horizontal_flip_video = horizontal_flip_image
vertical_flip_mask = vertical_flip_video = vertical_flip_image


def _flip_boxes(boxes, format, canvas_size, axis):
    """axis 0: x (horizontal flip), 1: y."""
    size = canvas_size[1] if axis == 0 else canvas_size[0]
    B = BoundingBoxFormat
    b = boxes.clone()
    a = axis
    if format == B.XYXY:
        lo, hi = b[..., a].clone(), b[..., a + 2].clone()
        b[..., a] = size - hi
        b[..., a + 2] = size - lo
    elif format == B.XYWH:
        b[..., a] = size - b[..., a] - b[..., a + 2]
    elif format == B.CXCYWH:
        b[..., a] = size - b[..., a]
    elif format == B.XYXYXYXY:
        b = b.reshape(-1, 8)
        b[:, a::2] = size - b[:, a::2]
        b = b[:, [2, 3, 0, 1, 6, 7, 4, 5]].reshape(boxes.shape)
    else:
        r = b[..., 4] * (math.pi / 180.0)
        if format == B.XYWHR:
            # (x, y) is the first corner: after the flip the first corner is the image of the second one.
            if axis == 0:
                x = size - (b[..., 0] + b[..., 2] * r.cos())
                y = b[..., 1] - b[..., 2] * r.sin()
            else:
                x = b[..., 0] + b[..., 2] * r.cos()
                y = size - (b[..., 1] - b[..., 2] * r.sin())
            b[..., 0], b[..., 1] = x, y
        else:
            b[..., a] = size - b[..., a]
        b[..., 4] = -b[..., 4] if axis == 0 else 180.0 - b[..., 4]
    return b


def horizontal_flip_bounding_boxes(bounding_boxes, format, canvas_size):
    return _flip_boxes(bounding_boxes, tv_tensors._format(format), canvas_size, 0)


def vertical_flip_bounding_boxes(bounding_boxes, format, canvas_size):
    return _flip_boxes(bounding_boxes, tv_tensors._format(format), canvas_size, 1)


def horizontal_flip_keypoints(keypoints, canvas_size):
    k = keypoints.clone()
    k[..., 0] = (canvas_size[1] - 1) - k[..., 0]
    return k


def vertical_flip_keypoints(keypoints, canvas_size):
    k = keypoints.clone()
    k[..., 1] = (canvas_size[0] - 1) - k[..., 1]
    return k


_register_images(horizontal_flip, horizontal_flip_image)
_register_images(vertical_flip, vertical_flip_image)
_register(horizontal_flip, tv_tensors.Mask)(horizontal_flip_mask)
_register(vertical_flip, tv_tensors.Mask)(vertical_flip_mask)
_register_boxes(horizontal_flip, lambda b, f, c, clamping_mode: (_flip_boxes(b, f, c, 0), c))
_register_boxes(vertical_flip, lambda b, f, c, clamping_mode: (_flip_boxes(b, f, c, 1), c))
_register_points(horizontal_flip, lambda k, c: (horizontal_flip_keypoints(k, c), c))
_register_points(vertical_flip, lambda k, c: (vertical_flip_keypoints(k, c), c))


# ---------------------------------------------------------------------------- resize


def _output_size(canvas_size, size, max_size):
    h, w = canvas_size
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = [int(size)]
    if size is None:
        if max_size is None:
            raise ValueError("size can only be None if max_size is also set.")
        long = max(h, w)
        if long == h:
            return [max_size, max(1, int(max_size * w / h))]
        return [max(1, int(max_size * h / w)), max_size]
    if not isinstance(size, (list, tuple)):
        raise TypeError("Size should be int or sequence. Got %s" % type(size).__name__)
    if max_size is not None and len(size) != 1:
        raise ValueError(
            "max_size should only be passed if size is None or specifies the length of the smaller edge, "
            "i.e. size should be an int or a sequence of length 1 in torchscript mode."
        )
    if len(size) not in (1, 2):
        raise ValueError("If size is a sequence, it should have 1 or 2 values")
    oh, ow = _F1._resized_output_size(h, w, [int(s) for s in size], max_size)
    return [oh, ow]


@_dispatch
def resize(inpt, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resizes to size [h, w], the shorter edge to size (an int or [s]; at most max_size for the longer), or the
    longer edge to max_size when size is None. Masks use nearest; boxes and keypoints are scaled."""


_FIXED_POINT = (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC)


def resize_image(image, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    mode = _interp(interpolation)
    h, w = image.shape[-2:]
    oh, ow = _output_size((h, w), size, max_size)
    if (oh, ow) == (h, w):
        return image
    if image.numel() == 0:
        return ember.empty(*image.shape[:-2], oh, ow, dtype=image.dtype, device=image.device)
    if image.dtype == ember.uint8 and mode in _FIXED_POINT and image.device.type == "cpu":
        # uint8 stays uint8, as in torchvision's v2 on the CPU: interpolate resamples it in fixed point, with
        # PyTorch's integers (Note [Fixed-point uint8 resampling]); v1's resize goes through float32 and rounds
        x, restore = _F1._as_batch(image)
        return restore(
            _nnF.interpolate(x, size=[oh, ow], mode=mode.value, align_corners=False, antialias=bool(antialias))
        )
    return _F1.resize(image, [oh, ow], mode, antialias=antialias)


def resize_mask(mask, size, interpolation=InterpolationMode.NEAREST, max_size=None):
    mode = _interp(interpolation)
    if mode not in (InterpolationMode.NEAREST, InterpolationMode.NEAREST_EXACT):
        mode = InterpolationMode.NEAREST
    return _mask_kernel(resize_image)(mask, size, mode, max_size)


def resize_bounding_boxes(bounding_boxes, canvas_size, size, max_size=None, format=_XYXY, clamping_mode="soft"):
    fmt = tv_tensors._format(format)
    oh, ow = _output_size(canvas_size, size, max_size)
    if (oh, ow) == tuple(canvas_size):
        return bounding_boxes, tuple(canvas_size)
    rw, rh = ow / canvas_size[1], oh / canvas_size[0]
    if is_rotated_bounding_format(fmt):
        ratios = ember.tensor([rw, rh], device=bounding_boxes.device)
        return _rotated_through(bounding_boxes, fmt, (oh, ow), lambda p: p * ratios, clamping_mode), (oh, ow)
    ratios = ember.tensor([rw, rh, rw, rh], device=bounding_boxes.device)
    return bounding_boxes.mul(ratios).to(bounding_boxes.dtype), (oh, ow)


def resize_keypoints(keypoints, size, canvas_size, max_size=None):
    oh, ow = _output_size(canvas_size, size, max_size)
    if (oh, ow) == tuple(canvas_size):
        return keypoints, tuple(canvas_size)
    ratios = ember.tensor([ow / canvas_size[1], oh / canvas_size[0]], device=keypoints.device)
    return keypoints.mul(ratios).to(keypoints.dtype), (oh, ow)


resize_video = resize_image
_register_images(resize, resize_image)
_register(resize, tv_tensors.Mask)(
    lambda m, size, interpolation=None, max_size=None, antialias=True: resize_mask(m, size, max_size=max_size)
)
_register_boxes(
    resize,
    lambda b, f, c, size, interpolation=None, max_size=None, antialias=True, clamping_mode="soft": (
        resize_bounding_boxes(b, c, size, max_size, f, clamping_mode)
    ),
)
_register_points(
    resize, lambda k, c, size, interpolation=None, max_size=None, antialias=True: resize_keypoints(k, size, c, max_size)
)


# ---------------------------------------------------------------------------- crop


@_dispatch
def crop(inpt, top, left, height, width):
    """The [height, width] window at (top, left); image parts outside are zero, boxes are shifted and clamped."""


def crop_image(image, top, left, height, width):
    return _F1.crop(image, top, left, height, width)


def crop_bounding_boxes(bounding_boxes, format, top, left, height, width, clamping_mode="soft"):
    fmt = tv_tensors._format(format)
    if is_rotated_bounding_format(fmt):
        shift = ember.tensor(_native_shift(fmt, left, top), dtype=bounding_boxes.dtype, device=bounding_boxes.device)
        b = bounding_boxes - shift
        if fmt == _X8:
            b = _rect_from_parallelogram(b)
        return _clamp_boxes(b, fmt, (height, width), clamping_mode), (height, width)
    xyxy = _as_xyxy(bounding_boxes, fmt)
    xyxy = xyxy - ember.tensor([left, top, left, top], dtype=xyxy.dtype, device=xyxy.device)
    return _from_xyxy(xyxy, fmt, (height, width), clamping_mode, bounding_boxes), (height, width)


def crop_keypoints(keypoints, top, left, height, width):
    shift = ember.tensor([left, top], device=keypoints.device).to(keypoints.dtype)
    return keypoints - shift, (height, width)


crop_mask = _mask_kernel(crop_image)
crop_video = crop_image
_register_images(crop, crop_image)
_register(crop, tv_tensors.Mask)(crop_mask)
_register_boxes(
    crop,
    lambda b, f, c, top, left, height, width, clamping_mode="soft": crop_bounding_boxes(
        b, f, top, left, height, width, clamping_mode
    ),
)
_register_points(crop, lambda k, c, top, left, height, width: crop_keypoints(k, top, left, height, width))


@_dispatch
def center_crop(inpt, output_size):
    """The central output_size window (zero-padded when the input is smaller)."""


def _center_anchor(output_size, canvas_size):
    ch, cw = _F1._crop_size(output_size)
    h, w = canvas_size
    return int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0)), ch, cw


def center_crop_image(image, output_size):
    return _F1.center_crop(image, output_size)


def center_crop_bounding_boxes(bounding_boxes, format, canvas_size, output_size, clamping_mode="soft"):
    top, left, ch, cw = _center_anchor(output_size, canvas_size)
    return crop_bounding_boxes(bounding_boxes, format, top, left, ch, cw, clamping_mode)


def center_crop_keypoints(keypoints, canvas_size, output_size):
    top, left, ch, cw = _center_anchor(output_size, canvas_size)
    return crop_keypoints(keypoints, top, left, ch, cw)


center_crop_mask = _mask_kernel(center_crop_image)
center_crop_video = center_crop_image
_register_images(center_crop, center_crop_image)
_register(center_crop, tv_tensors.Mask)(center_crop_mask)
_register_boxes(
    center_crop,
    lambda b, f, c, output_size, clamping_mode="soft": center_crop_bounding_boxes(b, f, c, output_size, clamping_mode),
)
_register_points(center_crop, lambda k, c, output_size: center_crop_keypoints(k, c, output_size))


@_dispatch
def resized_crop(inpt, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    """crop then resize to size."""


def resized_crop_image(image, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    return resize_image(crop_image(image, top, left, height, width), size, interpolation, antialias=antialias)


def resized_crop_mask(mask, top, left, height, width, size):
    return resize_mask(crop_mask(mask, top, left, height, width), size)


def resized_crop_bounding_boxes(bounding_boxes, format, top, left, height, width, size, clamping_mode="soft"):
    b, c = crop_bounding_boxes(bounding_boxes, format, top, left, height, width, clamping_mode)
    return resize_bounding_boxes(b, c, size, format=format, clamping_mode=clamping_mode)


def resized_crop_keypoints(keypoints, top, left, height, width, size):
    k, c = crop_keypoints(keypoints, top, left, height, width)
    return resize_keypoints(k, size, c)


resized_crop_video = resized_crop_image
_register_images(resized_crop, resized_crop_image)
_register(resized_crop, tv_tensors.Mask)(
    lambda m, top, left, height, width, size, interpolation=None, antialias=True: resized_crop_mask(
        m, top, left, height, width, size
    )
)
_register_boxes(
    resized_crop,
    lambda b, f, c, top, left, height, width, size, interpolation=None, antialias=True, clamping_mode="soft": (
        resized_crop_bounding_boxes(b, f, top, left, height, width, size, clamping_mode)
    ),
)
_register_points(
    resized_crop,
    lambda k, c, top, left, height, width, size, interpolation=None, antialias=True: resized_crop_keypoints(
        k, top, left, height, width, size
    ),
)


# ---------------------------------------------------------------------------- pad


def _parse_padding(padding):
    """[left, top, right, bottom]."""
    return _F1._padding_ltrb(padding)


@_dispatch
def pad(inpt, padding, fill=None, padding_mode="constant"):
    """Pads by padding (int, [lr, tb] or [l, t, r, b]) with fill (constant) or the edge/reflect/symmetric modes;
    boxes and keypoints are shifted (boxes support the constant mode only)."""


def pad_image(image, padding, fill=None, padding_mode="constant"):
    return _F1.pad(image, padding, fill=0 if fill is None else fill, padding_mode=padding_mode)


def pad_mask(mask, padding, fill=None, padding_mode="constant"):
    if fill is None:
        fill = 0
    if isinstance(fill, (tuple, list)):
        raise ValueError("Non-scalar fill value is not supported")
    return _mask_kernel(pad_image)(mask, padding, fill, padding_mode)


def pad_bounding_boxes(bounding_boxes, format, canvas_size, padding, padding_mode="constant", clamping_mode="soft"):
    if padding_mode not in ("constant",):
        raise ValueError("Padding mode '%s' is not supported with bounding boxes" % padding_mode)
    fmt = tv_tensors._format(format)
    left, top, right, bottom = _parse_padding(padding)
    h, w = canvas_size
    canvas = (h + top + bottom, w + left + right)
    if is_rotated_bounding_format(fmt):
        shift = ember.tensor(_native_shift(fmt, left, top), dtype=bounding_boxes.dtype, device=bounding_boxes.device)
        return _clamp_boxes(bounding_boxes + shift, fmt, canvas, clamping_mode), canvas
    xyxy = _as_xyxy(bounding_boxes, fmt)
    xyxy = xyxy + ember.tensor([left, top, left, top], device=xyxy.device).to(xyxy.dtype)
    return _from_xyxy(xyxy, fmt, canvas, clamping_mode, bounding_boxes), canvas


def pad_keypoints(keypoints, canvas_size, padding, padding_mode="constant"):
    if padding_mode not in ("constant",):
        raise ValueError("Padding mode '%s' is not supported with KeyPoints" % padding_mode)
    left, top, right, bottom = _parse_padding(padding)
    h, w = canvas_size
    return keypoints + ember.tensor([left, top], device=keypoints.device).to(keypoints.dtype), (
        h + top + bottom,
        w + left + right,
    )


pad_video = pad_image
_register_images(pad, pad_image)
_register(pad, tv_tensors.Mask)(pad_mask)
_register_boxes(
    pad,
    lambda b, f, c, padding, fill=None, padding_mode="constant", clamping_mode="soft": pad_bounding_boxes(
        b, f, c, padding, padding_mode, clamping_mode
    ),
)
_register_points(
    pad, lambda k, c, padding, fill=None, padding_mode="constant": pad_keypoints(k, c, padding, padding_mode)
)


# ---------------------------------------------------------------------------- affine, rotate


def _affine_matrix(center, angle, translate, scale, shear, inverted=True):
    """The 2x3 affine map (row-major list) of rotation by angle (degrees, counter-clockwise), shear (degrees, x and
    y), scale and translation about center; inverted=True gives the output -> input map that sampling needs."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    # R * Shear as the 2x2 [[a, b], [c, d]].
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    if inverted:
        m = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
        m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
        m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    else:
        m = [a * scale, b * scale, 0.0, c * scale, d * scale, 0.0]
        m[2] += m[0] * -cx + m[1] * -cy + cx + tx
        m[5] += m[3] * -cx + m[4] * -cy + cy + ty
    return m


def _affine_args(angle, translate, scale, shear, center):
    if isinstance(angle, bool) or not isinstance(angle, numbers.Real):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if isinstance(shear, numbers.Real):
        shear = [float(shear), 0.0]
    elif isinstance(shear, (list, tuple)):
        if len(shear) == 1:
            shear = [float(shear[0]), float(shear[0])]
        elif len(shear) == 2:
            shear = [float(s) for s in shear]
        else:
            raise ValueError("Shear should be a sequence containing two values. Got %r" % (shear,))
    else:
        raise TypeError("Shear should be either a single value or a sequence of two values. Got %r" % (shear,))
    if center is not None:
        if not isinstance(center, (list, tuple)) or len(center) != 2:
            raise ValueError("Argument center should be a sequence of length 2")
        center = [float(c) for c in center]
    return float(angle), [float(t) for t in translate], float(scale), shear, center


def _grid_apply(image, grid, mode, fill):
    """grid_sample of [..., C, H, W] with a [1, oh, ow, 2] grid; fill (number or per channel) paints the outside
    through a ones channel sampled alongside (nearest: below 0.5; bilinear: blended), integers are rounded back."""
    shape = image.shape
    c, h, w = shape[-3:]
    oh, ow = grid.shape[1], grid.shape[2]
    out_shape = list(shape[:-3]) + [c, oh, ow]
    if image.numel() == 0:
        return ember.empty(*out_shape, dtype=image.dtype, device=image.device)
    x = image.reshape(-1, c, h, w)
    n = x.shape[0]
    fp = image.dtype == grid.dtype
    x = x if fp else x.to(grid.dtype)
    if n > 1:
        grid = grid.expand(n, oh, ow, 2)
    if fill is not None:
        x = ember.cat([x, ember.ones(n, 1, h, w, dtype=x.dtype, device=x.device)], dim=1)
    y = _nnF.grid_sample(x, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        y, mask = y[:, :-1], y[:, -1:].expand(n, c, oh, ow)
        fills = list(fill) if isinstance(fill, (list, tuple)) else [float(fill)]
        if len(fills) not in (1, c):
            raise ValueError(
                "The number of elements in 'fill' does not match the number of channels of the image "
                "(%d != %d)" % (len(fills), c)
            )
        fill_img = (
            ember.tensor([float(f) for f in fills], dtype=y.dtype, device=y.device)
            .view(1, -1, 1, 1)
            .expand(n, c, oh, ow)
        )
        if mode == "nearest":
            y = ember.where(mask < 0.5, fill_img, y)
        else:
            y = (y - fill_img) * mask + fill_img
    if not fp:
        y = y.round().to(image.dtype)
    return y.reshape(out_shape)


def _work_dtype(image):
    return image.dtype if image.dtype in (ember.float32, ember.float64) else ember.float32


def _affine_grid(m, w, h, ow, oh, dtype, device=None):
    xs = ember.linspace(-ow * 0.5 + 0.5, ow * 0.5 - 0.5, ow, dtype=dtype, device=device)
    ys = ember.linspace(-oh * 0.5 + 0.5, oh * 0.5 - 0.5, oh, dtype=dtype, device=device)
    base = ember.stack(
        [xs.view(1, ow).expand(oh, ow), ys.view(oh, 1).expand(oh, ow), ember.ones(oh, ow, dtype=dtype, device=device)],
        dim=-1,
    ).view(oh * ow, 3)
    theta = ember.tensor(m, dtype=dtype, device=device).view(2, 3).t() / ember.tensor(
        [0.5 * w, 0.5 * h], dtype=dtype, device=device
    )
    return base.matmul(theta).view(1, oh, ow, 2)


def _check_grid_mode(interpolation):
    mode = _interp(interpolation)
    if mode not in (InterpolationMode.NEAREST, InterpolationMode.BILINEAR):
        raise ValueError("Interpolation mode '%s' is unsupported with Tensor input" % mode.value)
    return mode.value


def _affine_image_impl(image, angle, translate, scale, shear, interpolation, fill, center, expand):
    angle, translate, scale, shear, center = _affine_args(angle, translate, scale, shear, center)
    mode = _check_grid_mode(interpolation)
    h, w = image.shape[-2:]
    center_f = [0.0, 0.0] if center is None else [center[0] - w * 0.5, center[1] - h * 0.5]
    m = _affine_matrix(center_f, angle, translate, scale, shear)
    ow, oh = _F1._expanded_size(m, w, h) if expand else (w, h)
    squeeze = image.ndim == 2
    x = image.unsqueeze(0) if squeeze else image
    dtype = _work_dtype(image)
    xin = x if image.dtype in (ember.float32, ember.float64) or not image.is_floating_point() else x.to(dtype)
    out = _grid_apply(xin, _affine_grid(m, w, h, ow, oh, dtype, image.device), mode, fill)
    out = out.to(image.dtype)
    return out.squeeze(0) if squeeze else out


@_dispatch
def affine(inpt, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    """Rotation (angle, degrees counter-clockwise), translation (pixels), scale and shear (degrees) about center
    (default: the image center), in one map."""


def affine_image(
    image, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None
):
    return _affine_image_impl(image, angle, translate, scale, shear, interpolation, fill, center, False)


def affine_mask(mask, angle, translate, scale, shear, fill=0, center=None):
    return _mask_kernel(affine_image)(mask, angle, translate, scale, shear, InterpolationMode.NEAREST, fill, center)


def _affine_points(points, canvas_size, angle, translate, scale, shear, center, expand):
    """Float [M, 2] points through the forward affine map; the canvas after it (expand enlarges it)."""
    out, canvas, shift = _affine_points_unshifted(points, canvas_size, angle, translate, scale, shear, center, expand)
    return (out if shift is None else out - shift), canvas


def _affine_points_unshifted(points, canvas_size, angle, translate, scale, shear, center, expand):
    """(points through the forward map, the canvas, the [1, 2] shift that expand subtracts, or None)."""
    angle, translate, scale, shear, center = _affine_args(angle, translate, scale, shear, center)
    h, w = canvas_size
    if center is None:
        center = [w * 0.5, h * 0.5]
    m = ember.tensor(
        _affine_matrix(center, angle, translate, scale, shear, inverted=False), dtype=points.dtype, device=points.device
    )
    mt = m.view(2, 3).t()
    out = ember.cat([points, ember.ones(points.shape[0], 1, dtype=points.dtype, device=points.device)], dim=-1)
    out = out.matmul(mt)
    if expand:
        corners = ember.tensor(
            [[0.0, 0.0, 1.0], [0.0, float(h), 1.0], [float(w), float(h), 1.0], [float(w), 0.0, 1.0]],
            dtype=points.dtype,
            device=points.device,
        )
        tr = corners.matmul(mt).amin(dim=0, keepdim=True)
        # torchvision sizes the boxes' canvas with the map about the absolute center (the image's uses the map
        # about the image center): the two can differ by a pixel of rounding, and torchvision's do.
        inv = _affine_matrix(center, angle, translate, scale, shear)
        ow, oh = _F1._expanded_size(inv, w, h)
        return out, (oh, ow), tr
    return out, tuple(canvas_size), None


def _affine_boxes_impl(boxes, format, canvas_size, angle, translate, scale, shear, center, expand, clamping_mode):
    fmt = tv_tensors._format(format)
    if boxes.numel() == 0:
        return boxes, tuple(canvas_size)
    if is_rotated_bounding_format(fmt):
        # the canvas and the expand shift do not depend on the points
        none = ember.zeros(0, 2, dtype=ember.float32, device=boxes.device)
        _, canvas, shift = _affine_points_unshifted(none, canvas_size, angle, translate, scale, shear, center, expand)

        def through(p):
            return _affine_points_unshifted(p, canvas_size, angle, translate, scale, shear, center, False)[0]

        return _rotated_through(boxes, fmt, canvas, through, clamping_mode, shift), canvas
    xyxy = _as_xyxy(boxes, fmt)
    corners = xyxy[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 2)
    pts, canvas, shift = _affine_points_unshifted(corners, canvas_size, angle, translate, scale, shear, center, expand)
    pts = pts.reshape(-1, 4, 2)
    out = ember.cat([pts.amin(dim=1), pts.amax(dim=1)], dim=1)
    if shift is not None:
        out = out - shift.repeat(1, 2)
    return _from_xyxy(out, fmt, canvas, clamping_mode, boxes), canvas


def affine_bounding_boxes(
    bounding_boxes, format, canvas_size, angle, translate, scale, shear, center=None, clamping_mode="soft"
):
    return _affine_boxes_impl(
        bounding_boxes, format, canvas_size, angle, translate, scale, shear, center, False, clamping_mode
    )[0]


def _keypoints_affine(keypoints, canvas_size, angle, translate, scale, shear, center, expand):
    if keypoints.numel() == 0:
        return keypoints, tuple(canvas_size)
    p = keypoints if keypoints.is_floating_point() else keypoints.to(ember.float32)
    out, canvas = _affine_points(p.reshape(-1, 2), canvas_size, angle, translate, scale, shear, center, expand)
    return out.reshape(keypoints.shape).to(keypoints.dtype), canvas


def affine_keypoints(keypoints, canvas_size, angle, translate, scale, shear, center=None):
    return _keypoints_affine(keypoints, canvas_size, angle, translate, scale, shear, center, False)


affine_video = affine_image
_register_images(affine, affine_image)
_register(affine, tv_tensors.Mask)(
    lambda m, angle, translate, scale, shear, interpolation=None, fill=None, center=None: affine_mask(
        m, angle, translate, scale, shear, 0 if fill is None else fill, center
    )
)
_register_boxes(
    affine,
    lambda b, f, c, angle, translate, scale, shear, interpolation=None, fill=None, center=None, clamping_mode="soft": (
        _affine_boxes_impl(b, f, c, angle, translate, scale, shear, center, False, clamping_mode)
    ),
)
_register_points(
    affine,
    lambda k, c, angle, translate, scale, shear, interpolation=None, fill=None, center=None: _keypoints_affine(
        k, c, angle, translate, scale, shear, center, False
    ),
)


@_dispatch
def rotate(inpt, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    """Rotates by angle degrees counter-clockwise about center; expand enlarges the canvas to hold everything."""


def rotate_image(image, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    return _affine_image_impl(image, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], interpolation, fill, center, expand)


def rotate_mask(mask, angle, expand=False, center=None, fill=0):
    return _mask_kernel(rotate_image)(mask, angle, InterpolationMode.NEAREST, expand, center, fill)


def rotate_bounding_boxes(bounding_boxes, format, canvas_size, angle, expand=False, center=None, clamping_mode="soft"):
    return _affine_boxes_impl(
        bounding_boxes, format, canvas_size, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], center, expand, clamping_mode
    )


def rotate_keypoints(keypoints, canvas_size, angle, expand=False, center=None):
    return _keypoints_affine(keypoints, canvas_size, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], center, expand)


rotate_video = rotate_image
_register_images(rotate, rotate_image)
_register(rotate, tv_tensors.Mask)(
    lambda m, angle, interpolation=None, expand=False, center=None, fill=None: rotate_mask(
        m, angle, expand, center, 0 if fill is None else fill
    )
)
_register_boxes(
    rotate,
    lambda b, f, c, angle, interpolation=None, expand=False, center=None, fill=None, clamping_mode="soft": (
        rotate_bounding_boxes(b, f, c, angle, expand, center, clamping_mode)
    ),
)
_register_points(
    rotate,
    lambda k, c, angle, interpolation=None, expand=False, center=None, fill=None: rotate_keypoints(
        k, c, angle, expand, center
    ),
)


# ---------------------------------------------------------------------------- perspective


def _perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients of the homography that maps endpoints to startpoints (output -> input), by least
    squares in float64 (ember.linalg.lstsq), as float32 values."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(
            "Please provide exactly four corners, got %d startpoints and %d endpoints."
            % (len(startpoints), len(endpoints))
        )
    rows, rhs = [], []
    for (sx, sy), (ex, ey) in zip(startpoints, endpoints):
        rows.append([ex, ey, 1.0, 0.0, 0.0, 0.0, -sx * ex, -sx * ey])
        rows.append([0.0, 0.0, 0.0, ex, ey, 1.0, -sy * ex, -sy * ey])
        rhs.extend([sx, sy])
    a = ember.tensor(rows, dtype=ember.float64)
    b = ember.tensor(rhs, dtype=ember.float64).view(8, 1)
    sol = ember.linalg.lstsq(a, b).solution.view(8)
    return sol.to(ember.float32).tolist()


def _coefficients(startpoints, endpoints, coefficients):
    if coefficients is not None:
        if startpoints is not None and endpoints is not None:
            raise ValueError("The startpoints/endpoints and the coefficients shouldn't be defined concurrently.")
        if len(coefficients) != 8:
            raise ValueError("Argument coefficients should have 8 float values")
        return [float(c) for c in coefficients]
    if startpoints is not None and endpoints is not None:
        return _perspective_coeffs(startpoints, endpoints)
    raise ValueError("Either the startpoints/endpoints or the coefficients must have non `None` values.")


def _perspective_grid(coeffs, ow, oh, dtype, device=None):
    theta1 = ember.tensor(
        [[coeffs[0], coeffs[1], coeffs[2]], [coeffs[3], coeffs[4], coeffs[5]]], dtype=dtype, device=device
    )
    theta2 = ember.tensor([[coeffs[6], coeffs[7], 1.0], [coeffs[6], coeffs[7], 1.0]], dtype=dtype, device=device)
    xs = ember.linspace(0.5, ow - 0.5, ow, dtype=dtype, device=device)
    ys = ember.linspace(0.5, oh - 0.5, oh, dtype=dtype, device=device)
    base = ember.stack(
        [xs.view(1, ow).expand(oh, ow), ys.view(oh, 1).expand(oh, ow), ember.ones(oh, ow, dtype=dtype, device=device)],
        dim=-1,
    ).view(oh * ow, 3)
    g1 = base.matmul(theta1.t() / ember.tensor([0.5 * ow, 0.5 * oh], dtype=dtype, device=device))
    g2 = base.matmul(theta2.t())
    return (g1 / g2 - 1.0).view(1, oh, ow, 2)


@_dispatch
def perspective(inpt, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None, coefficients=None):
    """The projective map that takes startpoints (the four corners [x, y] in the input) to endpoints."""


def perspective_image(
    image, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None, coefficients=None
):
    coeffs = _coefficients(startpoints, endpoints, coefficients)
    mode = _check_grid_mode(interpolation)
    h, w = image.shape[-2:]
    squeeze = image.ndim == 2
    x = image.unsqueeze(0) if squeeze else image
    dtype = _work_dtype(image)
    xin = x if image.dtype in (ember.float32, ember.float64) or not image.is_floating_point() else x.to(dtype)
    out = _grid_apply(xin, _perspective_grid(coeffs, w, h, dtype, image.device), mode, fill).to(image.dtype)
    return out.squeeze(0) if squeeze else out


def perspective_mask(mask, startpoints, endpoints, fill=0, coefficients=None):
    return _mask_kernel(perspective_image)(mask, startpoints, endpoints, InterpolationMode.NEAREST, fill, coefficients)


def _perspective_points(points, coeffs):
    """Float [M, 2] points through the forward map (the inverse of coeffs' output -> input homography)."""
    c = coeffs
    denom = c[0] * c[4] - c[1] * c[3]
    if denom == 0:
        raise RuntimeError(
            "Provided perspective_coeffs %s can not be inverted to transform points. Denominator is zero, denom=%s"
            % (coeffs, denom)
        )
    inv = [
        (c[4] - c[5] * c[7]) / denom,
        (-c[1] + c[2] * c[7]) / denom,
        (c[1] * c[5] - c[2] * c[4]) / denom,
        (-c[3] + c[5] * c[6]) / denom,
        (c[0] - c[2] * c[6]) / denom,
        (-c[0] * c[5] + c[2] * c[3]) / denom,
        (-c[4] * c[6] + c[3] * c[7]) / denom,
        (-c[0] * c[7] + c[1] * c[6]) / denom,
    ]
    t1 = ember.tensor([[inv[0], inv[1], inv[2]], [inv[3], inv[4], inv[5]]], dtype=points.dtype, device=points.device)
    t2 = ember.tensor([[inv[6], inv[7], 1.0], [inv[6], inv[7], 1.0]], dtype=points.dtype, device=points.device)
    p = ember.cat([points, ember.ones(points.shape[0], 1, dtype=points.dtype, device=points.device)], dim=-1)
    return p.matmul(t1.t()) / p.matmul(t2.t())


def perspective_bounding_boxes(
    bounding_boxes, format, canvas_size, startpoints, endpoints, coefficients=None, clamping_mode="soft"
):
    fmt = tv_tensors._format(format)
    if bounding_boxes.numel() == 0:
        return bounding_boxes
    coeffs = _coefficients(startpoints, endpoints, coefficients)
    if is_rotated_bounding_format(fmt):
        return _rotated_through(
            bounding_boxes, fmt, canvas_size, lambda p: _perspective_points(p, coeffs), clamping_mode
        )
    xyxy = _as_xyxy(bounding_boxes, fmt)
    pts = _perspective_points(xyxy[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 2), coeffs).reshape(-1, 4, 2)
    out = ember.cat([pts.amin(dim=1), pts.amax(dim=1)], dim=1)
    return _from_xyxy(out, fmt, canvas_size, clamping_mode, bounding_boxes)


def perspective_keypoints(keypoints, canvas_size, startpoints, endpoints, coefficients=None):
    if keypoints.numel() == 0:
        return keypoints
    coeffs = _coefficients(startpoints, endpoints, coefficients)
    p = keypoints if keypoints.is_floating_point() else keypoints.to(ember.float32)
    return _perspective_points(p.reshape(-1, 2), coeffs).reshape(keypoints.shape).to(keypoints.dtype)


perspective_video = perspective_image
_register_images(perspective, perspective_image)
_register(perspective, tv_tensors.Mask)(
    lambda m, startpoints, endpoints, interpolation=None, fill=None, coefficients=None: perspective_mask(
        m, startpoints, endpoints, 0 if fill is None else fill, coefficients
    )
)
_register_boxes(
    perspective,
    lambda b, f, c, startpoints, endpoints, interpolation=None, fill=None, coefficients=None, clamping_mode="soft": (
        perspective_bounding_boxes(b, f, c, startpoints, endpoints, coefficients, clamping_mode),
        c,
    ),
)
_register_points(
    perspective,
    lambda k, c, startpoints, endpoints, interpolation=None, fill=None, coefficients=None: (
        perspective_keypoints(k, c, startpoints, endpoints, coefficients),
        c,
    ),
)


# ---------------------------------------------------------------------------- elastic


def _identity_grid(h, w, dtype, device=None):
    xs = ember.linspace((-w + 1) / w, (w - 1) / w, w, dtype=dtype, device=device)
    ys = ember.linspace((-h + 1) / h, (h - 1) / h, h, dtype=dtype, device=device)
    return ember.stack([xs.view(1, w).expand(h, w), ys.view(h, 1).expand(h, w)], dim=-1).view(1, h, w, 2)


def _check_displacement(displacement, h, w):
    if not isinstance(displacement, ember.Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    if tuple(displacement.shape) != (1, h, w, 2):
        raise ValueError(
            "Argument displacement shape should be %s, but given %s" % ((1, h, w, 2), tuple(displacement.shape))
        )


@_dispatch
def elastic(inpt, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Moves each output pixel's sample point by displacement ([1, H, W, 2], in grid_sample's [-1, 1] units)."""


elastic_transform = elastic


def elastic_image(image, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    mode = _check_grid_mode(interpolation)
    h, w = image.shape[-2:]
    _check_displacement(displacement, h, w)
    dtype = _work_dtype(image)
    grid = _identity_grid(h, w, dtype, image.device) + _plain(displacement).to(dtype=dtype, device=image.device)
    squeeze = image.ndim == 2
    x = image.unsqueeze(0) if squeeze else image
    xin = x if image.dtype in (ember.float32, ember.float64) or not image.is_floating_point() else x.to(dtype)
    out = _grid_apply(xin, grid, mode, fill).to(image.dtype)
    return out.squeeze(0) if squeeze else out


def elastic_mask(mask, displacement, fill=0):
    return _mask_kernel(elastic_image)(mask, displacement, InterpolationMode.NEAREST, fill)


def _elastic_points(points, canvas_size, displacement):
    """Float [M, 2] points moved by the displacement found at their (truncated, clamped) pixel, inverted (an
    approximation of the inverse map, torchvision's)."""
    h, w = canvas_size
    disp = _plain(displacement).to(dtype=points.dtype, device=points.device)
    inv = _identity_grid(h, w, points.dtype, points.device) - disp
    idx = points.to(ember.int64)
    ix = idx[:, 0].clamp(0, w - 1)
    iy = idx[:, 1].clamp(0, h - 1)
    g = inv[0, iy, ix, :]
    return (g + 1) * (0.5 * ember.tensor([float(w), float(h)], dtype=points.dtype, device=points.device)) - 0.5


def elastic_keypoints(keypoints, canvas_size, displacement):
    _check_displacement(displacement, canvas_size[0], canvas_size[1])
    if keypoints.numel() == 0:
        return keypoints
    p = keypoints if keypoints.is_floating_point() else keypoints.to(ember.float32)
    return _elastic_points(p.reshape(-1, 2), canvas_size, displacement).reshape(keypoints.shape).to(keypoints.dtype)


def elastic_bounding_boxes(bounding_boxes, format, canvas_size, displacement, clamping_mode="soft"):
    _check_displacement(displacement, canvas_size[0], canvas_size[1])
    fmt = tv_tensors._format(format)
    if bounding_boxes.numel() == 0:
        return bounding_boxes
    if is_rotated_bounding_format(fmt):
        # the centers move, sizes and angles stay (torchvision's)
        b = bounding_boxes if bounding_boxes.is_floating_point() else bounding_boxes.to(ember.float32)
        c = _convert_format(b, fmt, BoundingBoxFormat.CXCYWHR).reshape(-1, 5)
        centers = _elastic_points(c[:, :2].ceil(), canvas_size, displacement)
        out = ember.cat([centers, c[:, 2:]], dim=1).to(c.dtype)
        out = _clamp_boxes(out, BoundingBoxFormat.CXCYWHR, canvas_size, clamping_mode)
        return _convert_format(out, BoundingBoxFormat.CXCYWHR, fmt).reshape(bounding_boxes.shape)
    xyxy = _as_xyxy(bounding_boxes, fmt)
    # box corners look up the displacement at the pixel above-left of the rounded-up corner (torchvision's)
    pts = _elastic_points(xyxy[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 2).ceil(), canvas_size, displacement)
    pts = pts.reshape(-1, 4, 2)
    out = ember.cat([pts.amin(dim=1), pts.amax(dim=1)], dim=1)
    return _from_xyxy(out, fmt, canvas_size, clamping_mode, bounding_boxes)


elastic_video = elastic_image
_register_images(elastic, elastic_image)
_register(elastic, tv_tensors.Mask)(
    lambda m, displacement, interpolation=None, fill=None: elastic_mask(m, displacement, 0 if fill is None else fill)
)
_register_boxes(
    elastic,
    lambda b, f, c, displacement, interpolation=None, fill=None, clamping_mode="soft": (
        elastic_bounding_boxes(b, f, c, displacement, clamping_mode),
        c,
    ),
)
_register_points(
    elastic, lambda k, c, displacement, interpolation=None, fill=None: (elastic_keypoints(k, c, displacement), c)
)


# ---------------------------------------------------------------------------- five / ten crop


@_dispatch
def five_crop(inpt, size):
    """(top-left, top-right, bottom-left, bottom-right, center) crops of size."""


@_dispatch
def ten_crop(inpt, size, vertical_flip=False):
    """five_crop of the image and of its flip (horizontal, or vertical)."""


def five_crop_image(image, size):
    ch, cw = _F1._crop_size(size)
    h, w = image.shape[-2:]
    if cw > w or ch > h:
        raise ValueError("Requested crop size %s is bigger than input size %s" % ((ch, cw), (h, w)))
    return (
        crop_image(image, 0, 0, ch, cw),
        crop_image(image, 0, w - cw, ch, cw),
        crop_image(image, h - ch, 0, ch, cw),
        crop_image(image, h - ch, w - cw, ch, cw),
        center_crop_image(image, [ch, cw]),
    )


def ten_crop_image(image, size, vertical_flip=False):
    first = five_crop_image(image, size)
    flipped = vertical_flip_image(image) if vertical_flip else horizontal_flip_image(image)
    return first + five_crop_image(flipped, size)


five_crop_video = five_crop_image
ten_crop_video = ten_crop_image
for _t in _IMAGE_TYPES:
    _register(five_crop, _t, wrapper=False)(
        (lambda x, size: five_crop_image(x, size))
        if _t is ember.Tensor
        else (lambda x, size: tuple(tv_tensors.wrap(o, like=x) for o in five_crop_image(_plain(x), size)))
    )
    _register(ten_crop, _t, wrapper=False)(
        (lambda x, size, vertical_flip=False: ten_crop_image(x, size, vertical_flip))
        if _t is ember.Tensor
        else (
            lambda x, size, vertical_flip=False: tuple(
                tv_tensors.wrap(o, like=x) for o in ten_crop_image(_plain(x), size, vertical_flip)
            )
        )
    )
