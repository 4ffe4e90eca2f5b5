"""Losses of torchvision.ops, composed of ember ops: sigmoid focal loss and the IoU-based box regression losses over
paired boxes [..., 4] in (x1, y1, x2, y2)."""

import math

import ember

from ...nn import functional as F

__all__ = ["sigmoid_focal_loss", "generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss"]


def _reduce(loss, reduction, empty_mean_zero=True):
    if reduction == "none":
        return loss
    if reduction == "mean":
        # An empty batch's mean is 0 (connected to the graph) for the box losses, NaN for the focal loss.
        return 0.0 * loss.sum() if empty_mean_zero and loss.numel() == 0 else loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(
        f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', 'mean', 'sum'"
    )


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2, reduction="none"):
    """Loss used in RetinaNet for dense detection: https://arxiv.org/abs/1708.02002.

    Args:
        inputs (Tensor): the logits of each example.
        targets (Tensor): the binary classification label of each element of inputs (0 or 1), same shape.
        alpha (float): weight of the positives in [0, 1], or -1 for none. Default: 0.25
        gamma (float): exponent of the modulating factor (1 - p_t) balancing easy and hard examples. Default: 2
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'none'``

    Returns:
        Tensor: the loss, reduced as asked.
    """
    if not 0 <= alpha <= 1 and alpha != -1:
        raise ValueError(f"Invalid alpha value: {alpha}. alpha must be in the range [0,1] or -1 for ignore.")
    p = ember.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    return _reduce(loss, reduction, empty_mean_zero=False)


def _upcast_non_float(t):
    return t if t.dtype in (ember.float32, ember.float64) else t.float()


def _pair_terms(boxes1, boxes2, eps):
    """IoU, the enclosing box's corners and the boxes' coordinates of paired boxes."""
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    xk1, yk1, xk2, yk2 = ember.maximum(x1, x1g), ember.maximum(y1, y1g), ember.minimum(x2, x2g), ember.minimum(y2, y2g)
    # Disjoint boxes intersect in nothing (a mask, not a clamp, as torchvision: its gradient is 0 there).
    inter = ember.where((yk2 > yk1) & (xk2 > xk1), (xk2 - xk1) * (yk2 - yk1), ember.zeros_like(x1))
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - inter
    iou = inter / (union + eps)
    enclosing = (ember.minimum(x1, x1g), ember.minimum(y1, y1g), ember.maximum(x2, x2g), ember.maximum(y2, y2g))
    return iou, union, enclosing, (x1, y1, x2, y2, x1g, y1g, x2g, y2g)


def generalized_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """Gradient-friendly IoU loss with an additional penalty that is non-zero when the boxes do not overlap and
    scales with the size of their smallest enclosing box: ``1 - GIoU``.

    Args:
        boxes1 (Tensor[N, 4] or Tensor[4]): first set of boxes.
        boxes2 (Tensor[N, 4] or Tensor[4]): second set of boxes, paired with boxes1.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'none'``
        eps (float): small number to prevent division by zero. Default: 1e-7

    Returns:
        Tensor: the loss, reduced as asked.
    """
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    iou, union, (xc1, yc1, xc2, yc2), _ = _pair_terms(boxes1, boxes2, eps)
    area_c = (xc2 - xc1) * (yc2 - yc1)
    return _reduce(1 - (iou - (area_c - union) / (area_c + eps)), reduction)


def _diou_loss(boxes1, boxes2, eps):
    iou, _, (xc1, yc1, xc2, yc2), (x1, y1, x2, y2, x1g, y1g, x2g, y2g) = _pair_terms(boxes1, boxes2, eps)
    diagonal_squared = (xc2 - xc1) ** 2 + (yc2 - yc1) ** 2 + eps
    centers_squared = ((x2 + x1) / 2 - (x1g + x2g) / 2) ** 2 + ((y2 + y1) / 2 - (y1g + y2g) / 2) ** 2
    return 1 - iou + centers_squared / diagonal_squared, iou


def distance_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """Gradient-friendly IoU loss with an additional penalty that is non-zero when the boxes' centres are apart:
    ``1 - DIoU``.

    Args:
        boxes1 (Tensor[N, 4] or Tensor[4]): first set of boxes.
        boxes2 (Tensor[N, 4] or Tensor[4]): second set of boxes, paired with boxes1.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'none'``
        eps (float): small number to prevent division by zero. Default: 1e-7

    Returns:
        Tensor: the loss, reduced as asked.
    """
    loss, _ = _diou_loss(_upcast_non_float(boxes1), _upcast_non_float(boxes2), eps)
    return _reduce(loss, reduction)


def complete_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """Gradient-friendly IoU loss with penalties for distant centres and different aspect ratios: ``1 - CIoU``.

    Args:
        boxes1 (Tensor[N, 4] or Tensor[4]): first set of boxes.
        boxes2 (Tensor[N, 4] or Tensor[4]): second set of boxes, paired with boxes1.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'none'``
        eps (float): small number to prevent division by zero. Default: 1e-7

    Returns:
        Tensor: the loss, reduced as asked.
    """
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    diou_loss, iou = _diou_loss(boxes1, boxes2, 1e-7)  # torchvision's: the DIoU part always takes the default eps
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    v = 4 / math.pi**2 * (ember.atan((x2g - x1g) / (y2g - y1g)) - ember.atan((x2 - x1) / (y2 - y1))) ** 2
    with ember.no_grad():
        alpha = v / (1 - iou + v + eps)
    return _reduce(diou_loss + alpha * v, reduction)
