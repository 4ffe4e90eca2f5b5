"""Sizes and bounding-box formats (torchvision.transforms.v2.functional's _meta)."""

import math

import ember

from .... import tv_tensors
from ....tv_tensors import BoundingBoxFormat, is_rotated_bounding_format
from ._utils import _dispatch, _is_pil, _register, is_pure_tensor

__all__ = [
    "get_dimensions",
    "get_num_channels",
    "get_size",
    "get_image_size",
    "get_image_num_channels",
    "get_num_frames",
    "convert_bounding_box_format",
    "clamp_bounding_boxes",
    "clamp_keypoints",
]


def _image_dims(image):
    if image.ndim < 2:
        raise TypeError(
            "Tensor is not an image: expected at least 2 dims ([..., H, W]), got shape %s" % (list(image.shape),)
        )
    c = 1 if image.ndim == 2 else image.shape[-3]
    return [c, image.shape[-2], image.shape[-1]]


def _pil_dims(img):
    return [len(img.getbands()), img.height, img.width]


@_dispatch
def get_dimensions(inpt):
    """[channels, height, width] of an image or video."""


@_dispatch
def get_num_channels(inpt):
    """The number of channels of an image or video."""


@_dispatch
def get_size(inpt):
    """[height, width] of an image, video, mask, or the canvas of boxes and keypoints."""


@_dispatch
def get_num_frames(inpt):
    """The number of frames (dim -4) of a video."""


for _t in (ember.Tensor, tv_tensors.Image, tv_tensors.Video):
    _register(get_dimensions, _t, wrapper=False)(lambda x: _image_dims(x))
    _register(get_num_channels, _t, wrapper=False)(lambda x: _image_dims(x)[0])
    _register(get_size, _t, wrapper=False)(lambda x: _image_dims(x)[1:])
_register(get_size, tv_tensors.Mask, wrapper=False)(lambda x: list(x.shape[-2:]))
_register(get_size, tv_tensors.BoundingBoxes, wrapper=False)(lambda x: list(x.canvas_size))
_register(get_size, tv_tensors.KeyPoints, wrapper=False)(lambda x: list(x.canvas_size))
for _t in (ember.Tensor, tv_tensors.Video):
    _register(get_num_frames, _t, wrapper=False)(lambda x: x.shape[-4])


def _pil_kernels():
    from ._utils import _pil_type

    pil = _pil_type()
    if pil is None:
        return
    _register(get_dimensions, pil, wrapper=False)(_pil_dims)
    _register(get_num_channels, pil, wrapper=False)(lambda x: _pil_dims(x)[0])
    _register(get_size, pil, wrapper=False)(lambda x: _pil_dims(x)[1:])


_pil_kernels()


def get_image_size(inpt):
    """[width, height] (torchvision's deprecated v1 name)."""
    h, w = get_size(inpt)
    return [w, h]


def get_image_num_channels(inpt):
    return get_num_channels(inpt)


# ---------------------------------------------------------------------------- box formats


def _fmt(f):
    if f is None or isinstance(f, BoundingBoxFormat):
        return f
    return tv_tensors._format(f)


def _xywh_to_xyxy(b):
    return ember.cat([b[..., :2], b[..., :2] + b[..., 2:4]], dim=-1)


def _xyxy_to_xywh(b):
    return ember.cat([b[..., :2], b[..., 2:4] - b[..., :2]], dim=-1)


def _cxcywh_to_xyxy(b):
    half = b[..., 2:4].div(-2, rounding_mode=None if b.is_floating_point() else "floor").abs()
    return ember.cat([b[..., :2] - half, b[..., :2] + half], dim=-1)


def _xyxy_to_cxcywh(b):
    wh = b[..., 2:4] - b[..., :2]
    c = (b[..., :2] + b[..., 2:4]).div(2, rounding_mode=None if b.is_floating_point() else "floor")
    return ember.cat([c, wh], dim=-1)


def _xywhr_to_xyxyxyxy(b):
    w, h = b[..., 2], b[..., 3]
    r = b[..., 4] * (math.pi / 180.0)
    cos, sin = r.cos(), r.sin()
    x1, y1 = b[..., 0], b[..., 1]
    x2, y2 = x1 + w * cos, y1 - w * sin
    x3, y3 = x1 + (w * cos + h * sin), y1 - (w * sin - h * cos)
    x4, y4 = x1 + h * sin, y1 + h * cos
    return ember.stack([x1, y1, x2, y2, x3, y3, x4, y4], dim=-1)


def _xyxyxyxy_to_xywhr(b):
    dtype = b.dtype
    if dtype not in (ember.float32, ember.float64):
        b = b.to(ember.float32)
    r = ember.atan2(b[..., 1] - b[..., 3], b[..., 2] - b[..., 0])
    d12 = b[..., 2:4] - b[..., 0:2]
    d23 = b[..., 4:6] - b[..., 2:4]
    w = (d12[..., 0].pow(2) + d12[..., 1].pow(2)).sqrt()
    h = (d23[..., 0].pow(2) + d23[..., 1].pow(2)).sqrt()
    out = ember.stack([b[..., 0], b[..., 1], w, h, r * (180.0 / math.pi)], dim=-1)
    return out.to(dtype)


def _cxcywhr_to_xywhr(b):
    half = b[..., 2:4].div(-2, rounding_mode=None if b.is_floating_point() else "floor").abs()
    r = b[..., 4] * (math.pi / 180.0)
    cos, sin = r.cos(), r.sin()
    x = b[..., 0] - half[..., 0] * cos - half[..., 1] * sin
    y = b[..., 1] + half[..., 0] * sin - half[..., 1] * cos
    return ember.stack([x, y, b[..., 2], b[..., 3], b[..., 4]], dim=-1).to(b.dtype)


def _xywhr_to_cxcywhr(b):
    half = b[..., 2:4].div(-2, rounding_mode=None if b.is_floating_point() else "floor").abs()
    r = b[..., 4] * (math.pi / 180.0)
    cos, sin = r.cos(), r.sin()
    x = b[..., 0] + half[..., 0] * cos + half[..., 1] * sin
    y = b[..., 1] - half[..., 0] * sin + half[..., 1] * cos
    return ember.stack([x, y, b[..., 2], b[..., 3], b[..., 4]], dim=-1).to(b.dtype)


def _convert_format(boxes, old_format, new_format):
    """boxes (a plain tensor, [..., K]) from old_format to new_format; a new tensor."""
    old_format, new_format = _fmt(old_format), _fmt(new_format)
    if old_format == new_format:
        return boxes.clone()
    if is_rotated_bounding_format(old_format) != is_rotated_bounding_format(new_format):
        raise ValueError("Cannot convert between rotated and unrotated bounding boxes.")
    B = BoundingBoxFormat
    if old_format == B.XYWH:
        boxes = _xywh_to_xyxy(boxes)
    elif old_format == B.CXCYWH:
        boxes = _cxcywh_to_xyxy(boxes)
    elif old_format == B.CXCYWHR:
        boxes = _cxcywhr_to_xywhr(boxes)
    elif old_format == B.XYXYXYXY:
        boxes = _xyxyxyxy_to_xywhr(boxes)
    if new_format == B.XYWH:
        boxes = _xyxy_to_xywh(boxes)
    elif new_format == B.CXCYWH:
        boxes = _xyxy_to_cxcywh(boxes)
    elif new_format == B.CXCYWHR:
        boxes = _xywhr_to_cxcywhr(boxes)
    elif new_format == B.XYXYXYXY:
        boxes = _xywhr_to_xyxyxyxy(boxes)
    return boxes.to(boxes.dtype)


def convert_bounding_box_format(inpt, old_format=None, new_format=None, inplace=False):
    """Boxes from one BoundingBoxFormat to another (a BoundingBoxes carries its old format; a plain tensor needs
    old_format). Rotated and unrotated formats do not convert into each other."""
    if new_format is None:
        raise TypeError("convert_bounding_box_format() missing 1 required argument: 'new_format'")
    new_format = _fmt(new_format)
    old_format = _fmt(old_format)
    if is_pure_tensor(inpt):
        if old_format is None:
            raise ValueError("For pure tensor inputs, `old_format` has to be passed.")
        out = _convert_format(inpt, old_format, new_format)
        if inplace and out.shape == inpt.shape:
            return inpt.copy_(out)
        return out
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        if old_format is not None:
            raise ValueError("For bounding box tv_tensor inputs, `old_format` must not be passed.")
        out = _convert_format(inpt.as_subclass(ember.Tensor), inpt.format, new_format)
        return tv_tensors.wrap(out, like=inpt, format=new_format)
    raise TypeError(
        "Input can either be a plain tensor or a bounding box tv_tensor, but got %s instead." % type(inpt).__name__
    )


def _clamp_boxes(boxes, format, canvas_size, clamping_mode="soft"):
    """Boxes clamped to the canvas; a new tensor of the input's dtype. Unrotated boxes clamp their corners (through
    XYXY); rotated ones are cut to the canvas along their own edges (_clamp_rotated)."""
    if clamping_mode is None:
        return boxes.clone()
    if is_rotated_bounding_format(format):
        return _clamp_rotated(boxes, _fmt(format), canvas_size, clamping_mode)
    dtype = boxes.dtype
    b = boxes if boxes.is_floating_point() else boxes.to(ember.float32)
    xyxy = _convert_format(b, format, BoundingBoxFormat.XYXY)
    h, w = canvas_size
    xs = xyxy[..., 0::2].clamp(0, w)
    ys = xyxy[..., 1::2].clamp(0, h)
    xyxy = ember.stack([xs[..., 0], ys[..., 0], xs[..., 1], ys[..., 1]], dim=-1)
    return _convert_format(xyxy, BoundingBoxFormat.XYXY, format).to(dtype)


# ---- rotated boxes: torchvision 0.29's clamping. The box (four corners) is cut against the canvas one side at a time:
# the corners are put in a canonical order (starting from the leftmost), the edge lines (slope a, intercept b) are
# clamped against the left border, and the whole picture is turned by 90 degrees, four times.


def _order_points(b8, rotation=None):
    """(the per-row index rotation, b8 with its points rotated by it); rotation None starts at the leftmost point (the
    lowest y among ties)."""
    if rotation is None:
        x, y = b8[:, 0::2], b8[:, 1::2]
        y_max = y.abs().amax(dim=1, keepdim=True)
        x_max = x.abs().amax(dim=1, keepdim=True)
        first = (y / y_max + (x / x_max) * 100).argmin(dim=1)
        steps = ember.ones_like(b8)
        steps[:, 0] = first.to(b8.dtype) * 2
        rotation = ember.remainder(steps.cumsum(1), 8)
    return rotation, b8.gather(1, rotation.to(ember.int64))


def _edge_lines(b8):
    """Slopes and intercepts of the edges 1-2, 2-3, 3-4, 4-1."""
    x, y = b8[..., 0::2], b8[..., 1::2]
    dx = ember.cat([x[..., 1:], x[..., :1]], dim=-1) - x
    dy = ember.cat([y[..., 1:], y[..., :1]], dim=-1) - y
    a = dy / dx
    return a, y - a * x


def _clamp_between(v, lo, hi):
    return ember.minimum(ember.maximum(v, lo), hi)


def _clamp_intercepts(b8, original, canvas_size, clamping_mode):
    a, b = _edge_lines(b8)
    a1, a2, a3, a4 = a.unbind(-1)
    b1, b2, b3, b4 = b.unbind(-1)
    _, bm = _edge_lines(original)
    b1m, b2m, b3m, b4m = bm.unbind(-1)
    h, w = canvas_size
    b1 = _clamp_between(b2, b1, b3).clamp(0, h)
    b4 = _clamp_between(b3, b2, b4).clamp(0, h)
    if clamping_mode == "hard":
        # the largest box that fits: equal outer intercepts, the inner ones pushed as far as the canvas allows
        mid = (b1 + b4) / 2
        b2 = ember.minimum(
            ember.stack([mid * a2 / a1, b3 * a2 / a3, (a1 - a2) * w + mid, (a3 - a2) * w + b3], dim=1).amax(dim=1), b2
        )
        b3 = ember.maximum(
            ember.stack(
                [
                    h * (1 - a3 / a4) + mid * a3 / a4,
                    h * (1 - a3 / a2) + b2 * a3 / a2,
                    (a2 - a3) * w + b2,
                    (a4 - a3) * w + mid,
                ],
                dim=1,
            ).amin(dim=1),
            b3,
        )
        # b1 and b4 are one value here, clamped by both ranges in turn
        mid = _clamp_between(_clamp_between(mid, b1m, b3m), b2m, b4m)
        b1 = b4 = mid
        b3 = _clamp_between(b3, b1m, b3m)
        b2 = _clamp_between(b2, b2m, b4m)
    else:
        b1 = _clamp_between(b1, b1m, b3m)
        b3 = _clamp_between(b3, b1m, b3m)
        b2 = _clamp_between(b2, b2m, b4m)
        b4 = _clamp_between(b4, b2m, b4m)
    return ember.stack([b1, b2, b3, b4], dim=-1)


def _line_crossings(a, b):
    """The corners where consecutive edges (4-1 and 1-2, 1-2 and 2-3, ...) meet, as [N, 8]."""
    a_prev = ember.cat([a[..., 3:4], a[..., :3]], dim=-1)
    b_prev = ember.cat([b[..., 3:4], b[..., :3]], dim=-1)
    x = -(b - b_prev) / (a - a_prev)
    y = a * x + b
    return ember.stack([x, y], dim=-1).reshape(a.shape[0], 8)


def _clamp_left(b8, original, canvas_size, clamping_mode):
    a, _ = _edge_lines(b8)
    x1, y1, x2, y2, x3, y3, x4, y4 = b8.unbind(-1)
    b = _clamp_intercepts(b8, original, canvas_size, clamping_mode)
    crossings = _line_crossings(a, b)
    edge = b8.clone()
    edge[..., 0] = edge[..., 0].clamp(min=0)
    edge[..., 6] = edge[..., 6].clamp(min=0)
    gone = ember.zeros_like(edge)
    cond_a = (x1 < 0) & ~crossings.isnan().any(-1)
    cond_b = ember.isclose(y1, y2) | ember.isclose(y3, y4)
    cond_c = (x1 <= 0) & (x2 <= 0) & (x3 <= 0) & (x4 <= 0)
    cond_c = cond_c | ember.isclose(y1, y4) | ember.isclose(y2, y3) | (cond_b & ember.isclose(x1, x2))
    for cond, case in ((cond_a, crossings), (cond_b, edge), (cond_c, gone)):
        b8 = ember.where(cond.unsqueeze(1).expand(-1, 8), case, b8)
    return b8


def _clamp_rotated(boxes, format, canvas_size, clamping_mode):
    shape = boxes.shape
    out = _convert_format(boxes, format, BoundingBoxFormat.XYXYXYXY).reshape(-1, 8)
    original = out.clone()
    h, w = canvas_size
    for _ in range(4):
        rotation, out = _order_points(out)
        _, original = _order_points(original, rotation)
        out = _clamp_left(out, original, (h, w), clamping_mode)
        _, out = _order_points(out, rotation)
        _, original = _order_points(original, rotation)
        # turn the picture by 90 degrees counter-clockwise: (x, y) -> (y, W - x)
        out = ember.stack([out[:, 1::2], w - out[:, 0::2]], dim=-1).reshape(-1, 8)
        original = ember.stack([original[:, 1::2], w - original[:, 0::2]], dim=-1).reshape(-1, 8)
        h, w = w, h
    return _convert_format(out, BoundingBoxFormat.XYXYXYXY, format).reshape(shape)


def clamp_bounding_boxes(inpt, format=None, canvas_size=None, clamping_mode="auto"):
    """Clamps boxes to their canvas (ClampBoundingBoxes). A BoundingBoxes carries format and canvas_size; "auto" uses
    its clamping_mode."""
    if clamping_mode is not None and clamping_mode not in ("soft", "hard", "auto"):
        raise ValueError("clamping_mode must be soft, hard, auto or None, got %s" % (clamping_mode,))
    if is_pure_tensor(inpt):
        if format is None or canvas_size is None or clamping_mode == "auto":
            raise ValueError("For pure tensor inputs, `format`, `canvas_size` and `clamping_mode` have to be passed.")
        return _clamp_boxes(inpt, _fmt(format), canvas_size, clamping_mode)
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        if format is not None or canvas_size is not None:
            raise ValueError("For bounding box tv_tensor inputs, `format` and `canvas_size` must not be passed.")
        if clamping_mode == "auto":
            clamping_mode = inpt.clamping_mode
        out = _clamp_boxes(inpt.as_subclass(ember.Tensor), inpt.format, inpt.canvas_size, clamping_mode)
        return tv_tensors.wrap(out, like=inpt)
    raise TypeError(
        "Input can either be a plain tensor or a bounding box tv_tensor, but got %s instead." % type(inpt).__name__
    )


def _clamp_points(points, canvas_size):
    dtype = points.dtype
    p = points if points.is_floating_point() else points.to(ember.float32)
    h, w = canvas_size
    out = ember.stack([p[..., 0].clamp(0, w - 1), p[..., 1].clamp(0, h - 1)], dim=-1)
    return out.to(dtype)


def clamp_keypoints(inpt, canvas_size=None):
    """Clamps points to [0, W - 1] x [0, H - 1]."""
    if is_pure_tensor(inpt):
        if canvas_size is None:
            raise ValueError("For pure tensor inputs, `canvas_size` has to be passed.")
        return _clamp_points(inpt, canvas_size)
    if isinstance(inpt, tv_tensors.KeyPoints):
        if canvas_size is not None:
            raise ValueError("For keypoints tv_tensor inputs, `canvas_size` must not be passed.")
        return tv_tensors.wrap(_clamp_points(inpt.as_subclass(ember.Tensor), inpt.canvas_size), like=inpt)
    raise TypeError(
        "Input can either be a plain tensor or a keypoints tv_tensor, but got %s instead." % type(inpt).__name__
    )


del _is_pil
