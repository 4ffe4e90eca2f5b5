"""Box operations of torchvision.ops: NMS (a C++ kernel, ember/vision/ops.h) and the box arithmetic, composed of
ember ops (each runs in C++). Boxes are [..., 4] tensors in (x1, y1, x2, y2) unless a format says otherwise."""

import math

import ember

from ... import _C

__all__ = [
    "nms",
    "batched_nms",
    "remove_small_boxes",
    "clip_boxes_to_image",
    "box_convert",
    "box_area",
    "box_iou",
    "generalized_box_iou",
    "complete_box_iou",
    "distance_box_iou",
    "masks_to_boxes",
]

_AXIS_ALIGNED = ("xyxy", "xywh", "cxcywh")
_ALL_FORMATS = ("xyxy", "xywh", "cxcywh", "xywhr", "cxcywhr", "xyxyxyxy")


def _upcast(t):
    """Float boxes below float32 to float32, integer ones below int32 to int32 (products must not overflow)."""
    if t.is_floating_point():
        return t if t.dtype in (ember.float32, ember.float64) else t.float()
    return t if t.dtype in (ember.int32, ember.int64) else t.int()


def nms(boxes, scores, iou_threshold):
    """Performs non-maximum suppression (NMS) on the boxes according to their intersection-over-union (IoU).

    Boxes are visited by decreasing score (equal scores in index order); a box is dropped when its IoU with a box
    already kept is above ``iou_threshold``.

    Args:
        boxes (Tensor[N, 4]): boxes in ``(x1, y1, x2, y2)`` format with ``0 <= x1 < x2`` and ``0 <= y1 < y2``.
        scores (Tensor[N]): the score of each box.
        iou_threshold (float): discards overlapping boxes with IoU > iou_threshold.

    Returns:
        Tensor: int64 indices of the kept boxes, by decreasing score.
    """
    return _C._vision.nms(boxes, scores, float(iou_threshold))


def batched_nms(boxes, scores, idxs, iou_threshold):
    """Performs non-maximum suppression in a batched fashion: boxes of different categories (``idxs``) never
    suppress each other.

    Args:
        boxes (Tensor[N, 4]): boxes in ``(x1, y1, x2, y2)`` format.
        scores (Tensor[N]): the score of each box.
        idxs (Tensor[N]): the category of each box.
        iou_threshold (float): discards overlapping boxes with IoU > iou_threshold.

    Returns:
        Tensor: int64 indices of the kept boxes, by decreasing score.
    """
    if boxes.numel() == 0:
        return ember.empty((0,), dtype=ember.int64, device=boxes.device)
    if boxes.numel() > 4000:  # torchvision's switch: one NMS per category beats one on offset boxes when many
        keep_mask = ember.zeros_like(scores, dtype=ember.bool)
        for class_id in ember.unique(idxs):
            curr = ember.where(idxs == class_id)[0]
            keep_mask[curr[nms(boxes[curr], scores[curr], iou_threshold)]] = True
        keep = ember.where(keep_mask)[0]
        return keep[scores[keep].sort(descending=True)[1]]
    # Offsetting each category's boxes past all others' makes one NMS call do the work of one per category.
    offsets = idxs.to(boxes) * (boxes.max() + 1)
    return nms(boxes + offsets[:, None], scores, iou_threshold)


def remove_small_boxes(boxes, min_size):
    """Returns the indices of the boxes whose width and height are both at least ``min_size``.

    Args:
        boxes (Tensor[..., 4]): boxes in ``(x1, y1, x2, y2)`` format.
        min_size (float): the minimum size.

    Returns:
        Tensor[K]: int64 indices of the boxes kept.
    """
    ws, hs = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    return ember.where((ws >= min_size) & (hs >= min_size))[0]


def clip_boxes_to_image(boxes, size):
    """Returns the boxes clipped to an image of ``size`` (height, width).

    Args:
        boxes (Tensor[..., 4]): boxes in ``(x1, y1, x2, y2)`` format.
        size (Tuple[height, width]): the size of the image.

    Returns:
        Tensor[..., 4]: the clipped boxes.
    """
    height, width = size
    x = boxes[..., 0::2].clamp(min=0, max=width)
    y = boxes[..., 1::2].clamp(min=0, max=height)
    return ember.stack((x, y), dim=boxes.dim()).reshape(boxes.shape)


def _rotation(r):
    rad = r * math.pi / 180.0
    return ember.cos(rad), ember.sin(rad)


def _rounded(out, dtype):
    """Integer boxes come back rounded to their dtype, as torchvision's rotated conversions do."""
    return out if dtype.is_floating_point else out.round().to(dtype)


def _convert(boxes, in_fmt, out_fmt):
    if in_fmt == "xywh":
        x, y, w, h = boxes.unbind(-1)
        boxes, in_fmt = ember.stack((x, y, x + w, y + h), dim=-1), "xyxy"
    elif in_fmt == "cxcywh":
        cx, cy, w, h = boxes.unbind(-1)
        boxes, in_fmt = ember.stack((cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h), dim=-1), "xyxy"
    if in_fmt == out_fmt:
        return boxes
    x1, y1, x2, y2 = boxes.unbind(-1)
    if out_fmt == "xywh":
        return ember.stack((x1, y1, x2 - x1, y2 - y1), dim=-1)
    return ember.stack(((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), dim=-1)


def _convert_rotated(boxes, in_fmt, out_fmt):
    dtype = boxes.dtype
    if in_fmt == "cxcywhr":  # to xywhr: the first corner
        cx, cy, w, h, r = boxes.unbind(-1)
        cos, sin = _rotation(r)
        boxes = _rounded(
            ember.stack((cx - w / 2 * cos - h / 2 * sin, cy - h / 2 * cos + w / 2 * sin, w, h, r), -1), dtype
        )
    elif in_fmt == "xyxyxyxy":
        x1, y1, x2, y2, x3, y3, _, _ = boxes.unbind(-1)
        r = ember.atan2(y1 - y2, x2 - x1) * 180 / math.pi
        w = ((x2 - x1) ** 2 + (y1 - y2) ** 2).sqrt()
        h = ((x3 - x2) ** 2 + (y3 - y2) ** 2).sqrt()
        boxes = _rounded(ember.stack((x1, y1, w, h, r), dim=-1), dtype)
    if out_fmt == "xywhr":
        return boxes
    x1, y1, w, h, r = boxes.unbind(-1)
    cos, sin = _rotation(r)
    if out_fmt == "cxcywhr":
        out = ember.stack((x1 + w / 2 * cos + h / 2 * sin, y1 - w / 2 * sin + h / 2 * cos, w, h, r), dim=-1)
    else:
        x2, y2 = x1 + w * cos, y1 - w * sin
        out = ember.stack((x1, y1, x2, y2, x2 + h * sin, y2 + h * cos, x1 + h * sin, y1 + h * cos), dim=-1)
    return _rounded(out, dtype)


def box_convert(boxes, in_fmt, out_fmt):
    """Converts boxes from ``in_fmt`` to ``out_fmt``.

    Axis-aligned formats: ``'xyxy'`` (corners), ``'xywh'`` (corner, width, height), ``'cxcywh'`` (centre, width,
    height); rotated ones (angle ``r`` in degrees, counter-clockwise): ``'xywhr'``, ``'cxcywhr'`` and ``'xyxyxyxy'``
    (the four corners). Conversions stay within one kind.

    Args:
        boxes (Tensor[..., K]): boxes in ``in_fmt``.
        in_fmt (str): the input format.
        out_fmt (str): the output format.

    Returns:
        Tensor[..., K']: boxes in ``out_fmt``.
    """
    if in_fmt not in _ALL_FORMATS or out_fmt not in _ALL_FORMATS:
        raise ValueError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt {out_fmt}")
    if in_fmt == out_fmt:
        return boxes.clone()
    if (in_fmt in _AXIS_ALIGNED) != (out_fmt in _AXIS_ALIGNED):
        raise NotImplementedError(
            f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt {out_fmt}"
        )
    if in_fmt in _AXIS_ALIGNED:
        return _convert(boxes, in_fmt, out_fmt)
    return _convert_rotated(boxes, in_fmt, out_fmt)


def box_area(boxes, fmt="xyxy"):
    """Computes the area of a set of bounding boxes.

    Args:
        boxes (Tensor[..., 4]): boxes in ``fmt``.
        fmt (str): ``'xyxy'``, ``'xywh'`` or ``'cxcywh'``. Default: ``'xyxy'``.

    Returns:
        Tensor[...]: the area of each box.
    """
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(f"Unsupported Bounding Box area for given format {fmt}")
    boxes = _upcast(boxes)
    if fmt == "xyxy":
        return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
    return boxes[..., 2] * boxes[..., 3]


def _corners(boxes, fmt):
    """The (x1, y1) and (x2, y2) halves of boxes [..., 4] in fmt, with a pair dim inserted for broadcasting."""
    if fmt == "xyxy":
        return boxes[..., :2], boxes[..., 2:]
    if fmt == "xywh":
        return boxes[..., :2], boxes[..., :2] + boxes[..., 2:]
    return boxes[..., :2] - boxes[..., 2:] / 2, boxes[..., :2] + boxes[..., 2:] / 2


def _inter_union(boxes1, boxes2, fmt="xyxy"):
    area1, area2 = box_area(boxes1, fmt=fmt), box_area(boxes2, fmt=fmt)
    lt1, rb1 = _corners(boxes1[..., None, :], fmt)
    lt2, rb2 = _corners(boxes2[..., None, :, :], fmt)
    wh = _upcast(ember.minimum(rb1, rb2) - ember.maximum(lt1, lt2)).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter, area1[..., None] + area2[..., None, :] - inter


def box_iou(boxes1, boxes2, fmt="xyxy"):
    """Returns the intersection-over-union (Jaccard index) of every pair of boxes.

    Args:
        boxes1 (Tensor[..., N, 4]): first set of boxes.
        boxes2 (Tensor[..., M, 4]): second set of boxes.
        fmt (str): ``'xyxy'``, ``'xywh'`` or ``'cxcywh'``. Default: ``'xyxy'``.

    Returns:
        Tensor[..., N, M]: the IoU of each pair.
    """
    if fmt in ("cxcywhr", "xywhr", "xyxyxyxy"):
        raise NotImplementedError(f"box_iou: rotated boxes ('{fmt}') are not supported by ember.vision.ops")
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(
            f"Unsupported format '{fmt}'. Supported axis-aligned formats: {_AXIS_ALIGNED}. Supported rotated formats: "
            "('cxcywhr', 'xywhr', 'xyxyxyxy')."
        )
    inter, union = _inter_union(boxes1, boxes2, fmt)
    return inter / union


def _enclosing_wh(boxes1, boxes2):
    lt = ember.minimum(boxes1[..., None, :2], boxes2[..., None, :, :2])
    rb = ember.maximum(boxes1[..., None, 2:], boxes2[..., None, :, 2:])
    return _upcast(rb - lt).clamp(min=0)


def generalized_box_iou(boxes1, boxes2):
    """Returns the generalized IoU (Rezatofighi et al., 2019) of every pair of ``(x1, y1, x2, y2)`` boxes.

    Args:
        boxes1 (Tensor[..., N, 4]): first set of boxes.
        boxes2 (Tensor[..., M, 4]): second set of boxes.

    Returns:
        Tensor[..., N, M]: IoU minus the part of the enclosing box that neither box covers.
    """
    inter, union = _inter_union(boxes1, boxes2)
    whi = _enclosing_wh(boxes1, boxes2)
    areai = whi[..., 0] * whi[..., 1]
    return inter / union - (areai - union) / areai


def _diou_iou(boxes1, boxes2, eps):
    iou = box_iou(boxes1, boxes2)
    whi = _enclosing_wh(boxes1, boxes2)
    diagonal_squared = whi[..., 0] ** 2 + whi[..., 1] ** 2 + eps
    cx1, cy1 = (boxes1[..., 0] + boxes1[..., 2]) / 2, (boxes1[..., 1] + boxes1[..., 3]) / 2
    cx2, cy2 = (boxes2[..., 0] + boxes2[..., 2]) / 2, (boxes2[..., 1] + boxes2[..., 3]) / 2
    centers_squared = (
        _upcast(cx1[..., None] - cx2[..., None, :]) ** 2 + _upcast(cy1[..., None] - cy2[..., None, :]) ** 2
    )
    return iou - centers_squared / diagonal_squared, iou


def distance_box_iou(boxes1, boxes2, eps=1e-7):
    """Returns the distance IoU (Zheng et al., 2019) of every pair of ``(x1, y1, x2, y2)`` boxes.

    Args:
        boxes1 (Tensor[..., N, 4]): first set of boxes.
        boxes2 (Tensor[..., M, 4]): second set of boxes.
        eps (float, optional): added to the enclosing box's squared diagonal. Default: 1e-7.

    Returns:
        Tensor[..., N, M]: IoU minus the squared distance of the centres over the enclosing box's squared diagonal.
    """
    return _diou_iou(_upcast(boxes1), _upcast(boxes2), eps)[0]


def complete_box_iou(boxes1, boxes2, eps=1e-7):
    """Returns the complete IoU (Zheng et al., 2020) of every pair of ``(x1, y1, x2, y2)`` boxes.

    Args:
        boxes1 (Tensor[..., N, 4]): first set of boxes.
        boxes2 (Tensor[..., M, 4]): second set of boxes.
        eps (float, optional): a small number to prevent division by zero. Default: 1e-7.

    Returns:
        Tensor[..., N, M]: the distance IoU minus an aspect-ratio consistency term.
    """
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    diou, iou = _diou_iou(boxes1, boxes2, eps)
    w1, h1 = boxes1[..., None, 2] - boxes1[..., None, 0], boxes1[..., None, 3] - boxes1[..., None, 1]
    w2, h2 = boxes2[..., None, :, 2] - boxes2[..., None, :, 0], boxes2[..., None, :, 3] - boxes2[..., None, :, 1]
    v = 4 / math.pi**2 * (ember.atan(w1 / h1) - ember.atan(w2 / h2)) ** 2
    with ember.no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


def masks_to_boxes(masks):
    """Returns the ``(x1, y1, x2, y2)`` bounding box of the nonzero pixels of each mask (zeros for an empty mask).

    Args:
        masks (Tensor[N, H, W]): the masks.

    Returns:
        Tensor[N, 4]: float32 boxes (inclusive pixel coordinates).
    """
    if masks.numel() == 0:
        return ember.zeros((0, 4), device=masks.device, dtype=ember.float)
    n, h, w = masks.shape
    m = masks.bool()
    rows, cols = ember.any(m, dim=2).float(), ember.any(m, dim=1).float()
    empty = ~ember.any(rows > 0, dim=1)
    y1, x1 = rows.argmax(dim=1), cols.argmax(dim=1)
    y2 = h - 1 - rows.flip(dims=[1]).argmax(dim=1)
    x2 = w - 1 - cols.flip(dims=[1]).argmax(dim=1)
    boxes = ember.stack([x1, y1, x2, y2], dim=1).float()
    boxes[empty] = 0
    return boxes
