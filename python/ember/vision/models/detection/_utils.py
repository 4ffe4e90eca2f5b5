"""The pieces the detectors share (torchvision.models.detection._utils): box encoding, matching boxes to ground
truth, sampling positives and negatives for the losses."""

import math
from collections import OrderedDict

import ember

from ....nn import functional as F
from ...ops import FrozenBatchNorm2d, complete_box_iou_loss, distance_box_iou_loss, generalized_box_iou_loss
from ...ops import boxes as box_ops

__all__ = ["BalancedPositiveNegativeSampler", "BoxCoder", "BoxLinearCoder", "Matcher", "SSDMatcher"]


class BalancedPositiveNegativeSampler:
    """Samples batch_size_per_image labels per image with at most positive_fraction positives (label >= 1) and
    negatives (label 0) for the rest; -1 is ignored. Returns (positive masks, negative masks), uint8, per image."""

    def __init__(self, batch_size_per_image, positive_fraction):
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction

    def __call__(self, matched_idxs):
        pos_idx, neg_idx = [], []
        for labels in matched_idxs:
            positive = ember.where(labels >= 1)[0]
            negative = ember.where(labels == 0)[0]
            num_pos = min(positive.numel(), int(self.batch_size_per_image * self.positive_fraction))
            num_neg = min(negative.numel(), self.batch_size_per_image - num_pos)
            chosen_pos = positive[ember.randperm(positive.numel(), device=positive.device)[:num_pos]]
            chosen_neg = negative[ember.randperm(negative.numel(), device=negative.device)[:num_neg]]
            pos_mask = ember.zeros_like(labels, dtype=ember.uint8)
            neg_mask = ember.zeros_like(labels, dtype=ember.uint8)
            pos_mask[chosen_pos] = 1
            neg_mask[chosen_neg] = 1
            pos_idx.append(pos_mask)
            neg_idx.append(neg_mask)
        return pos_idx, neg_idx


def encode_boxes(reference_boxes, proposals, weights):
    """The regression targets (dx, dy, dw, dh) that take proposals to reference_boxes, scaled by weights [4]."""
    wx, wy, ww, wh = weights[0], weights[1], weights[2], weights[3]
    px1, py1, px2, py2 = (proposals[:, i].unsqueeze(1) for i in range(4))
    gx1, gy1, gx2, gy2 = (reference_boxes[:, i].unsqueeze(1) for i in range(4))
    ex_w, ex_h = px2 - px1, py2 - py1
    ex_cx, ex_cy = px1 + 0.5 * ex_w, py1 + 0.5 * ex_h
    gt_w, gt_h = gx2 - gx1, gy2 - gy1
    gt_cx, gt_cy = gx1 + 0.5 * gt_w, gy1 + 0.5 * gt_h
    dx = wx * (gt_cx - ex_cx) / ex_w
    dy = wy * (gt_cy - ex_cy) / ex_h
    dw = ww * ember.log(gt_w / ex_w)
    dh = wh * ember.log(gt_h / ex_h)
    return ember.cat((dx, dy, dw, dh), dim=1)


class BoxCoder:
    """Encodes boxes as (dx, dy, dw, dh) relative to reference boxes and decodes them back (R-CNN's
    parametrisation); dw and dh are clamped to bbox_xform_clip before exp when decoding."""

    def __init__(self, weights, bbox_xform_clip=math.log(1000.0 / 16)):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, reference_boxes, proposals):
        boxes_per_image = [len(b) for b in reference_boxes]
        targets = self.encode_single(ember.cat(reference_boxes, dim=0), ember.cat(proposals, dim=0))
        return targets.split(boxes_per_image, 0)

    def encode_single(self, reference_boxes, proposals):
        weights = ember.as_tensor(self.weights, dtype=reference_boxes.dtype, device=reference_boxes.device)
        return encode_boxes(reference_boxes, proposals, weights)

    def decode(self, rel_codes, boxes):
        if not isinstance(boxes, (list, tuple)):
            raise AssertionError("This function expects boxes of type list or tuple.")
        if not isinstance(rel_codes, ember.Tensor):
            raise AssertionError("This function expects rel_codes of type torch.Tensor.")
        box_sum = sum(b.shape[0] for b in boxes)
        if box_sum > 0:
            rel_codes = rel_codes.reshape(box_sum, -1)
        pred_boxes = self.decode_single(rel_codes, ember.cat(list(boxes), dim=0))
        if box_sum > 0:
            pred_boxes = pred_boxes.reshape(box_sum, -1, 4)
        return pred_boxes

    def decode_single(self, rel_codes, boxes):
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = ember.clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = ember.clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        half_w = 0.5 * (ember.exp(dw) * widths[:, None])
        half_h = 0.5 * (ember.exp(dh) * heights[:, None])
        pred = ember.stack((pred_ctr_x - half_w, pred_ctr_y - half_h, pred_ctr_x + half_w, pred_ctr_y + half_h), dim=2)
        return pred.flatten(1)


class BoxLinearCoder:
    """Encodes boxes as distances (left, top, right, bottom) from the reference boxes' centres, optionally divided by
    their sizes (FCOS)."""

    def __init__(self, normalize_by_size=True):
        self.normalize_by_size = normalize_by_size

    def _sizes(self, boxes):
        w = boxes[..., 2] - boxes[..., 0]
        h = boxes[..., 3] - boxes[..., 1]
        return ember.stack((w, h, w, h), dim=-1)

    def encode(self, reference_boxes, proposals):
        cx = 0.5 * (reference_boxes[..., 0] + reference_boxes[..., 2])
        cy = 0.5 * (reference_boxes[..., 1] + reference_boxes[..., 3])
        targets = ember.stack(
            (cx - proposals[..., 0], cy - proposals[..., 1], proposals[..., 2] - cx, proposals[..., 3] - cy), dim=-1
        )
        return targets / self._sizes(reference_boxes) if self.normalize_by_size else targets

    def decode(self, rel_codes, boxes):
        boxes = boxes.to(dtype=rel_codes.dtype)
        cx = 0.5 * (boxes[..., 0] + boxes[..., 2])
        cy = 0.5 * (boxes[..., 1] + boxes[..., 3])
        if self.normalize_by_size:
            rel_codes = rel_codes * self._sizes(boxes)
        return ember.stack(
            (cx - rel_codes[..., 0], cy - rel_codes[..., 1], cx + rel_codes[..., 2], cy + rel_codes[..., 3]), dim=-1
        )


class Matcher:
    """Assigns to each prediction (column of an M x N quality matrix) the ground truth (row) it overlaps best:
    its index when the quality is >= high_threshold, BELOW_LOW_THRESHOLD (-1) below low_threshold and
    BETWEEN_THRESHOLDS (-2) in between. allow_low_quality_matches also keeps, for every ground truth, the predictions
    it overlaps best, whatever their quality."""

    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    def __init__(self, high_threshold, low_threshold, allow_low_quality_matches=False):
        if low_threshold > high_threshold:
            raise AssertionError("low_threshold should be <= high_threshold")
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix):
        if match_quality_matrix.numel() == 0:
            if match_quality_matrix.shape[0] == 0:
                raise ValueError("No ground-truth boxes available for one of the images during training")
            raise ValueError("No proposal boxes available for one of the images during training")
        matched_vals, matches = match_quality_matrix.max(dim=0)
        all_matches = matches.clone() if self.allow_low_quality_matches else None
        below = matched_vals < self.low_threshold
        between = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches[below] = self.BELOW_LOW_THRESHOLD
        matches[between] = self.BETWEEN_THRESHOLDS
        if self.allow_low_quality_matches:
            self.set_low_quality_matches_(matches, all_matches, match_quality_matrix)
        return matches

    def set_low_quality_matches_(self, matches, all_matches, match_quality_matrix):
        """Gives back their best ground truth to the predictions that some ground truth overlaps best (ties
        included)."""
        highest, _ = match_quality_matrix.max(dim=1)
        preds = ember.where(match_quality_matrix == highest[:, None])[1]
        matches[preds] = all_matches[preds]


class SSDMatcher(Matcher):
    """One threshold; every ground truth also takes the prediction it overlaps best (SSD)."""

    def __init__(self, threshold):
        super().__init__(threshold, threshold, allow_low_quality_matches=False)

    def __call__(self, match_quality_matrix):
        matches = super().__call__(match_quality_matrix)
        _, best_pred = match_quality_matrix.max(dim=1)
        matches[best_pred] = ember.arange(best_pred.shape[0], dtype=ember.int64, device=best_pred.device)
        return matches


def overwrite_eps(model, eps):
    """Sets the eps of every FrozenBatchNorm2d in model (the first detection checkpoints were trained with eps 0)."""
    for module in model.modules():
        if isinstance(module, FrozenBatchNorm2d):
            module.eps = eps


def retrieve_out_channels(model, size):
    """The channels of each feature map that model returns for a zero image of size (width, height)."""
    was_training = model.training
    model.eval()
    try:
        with ember.no_grad():
            device = next(model.parameters()).device
            features = model(ember.zeros((1, 3, size[1], size[0]), device=device))
            if isinstance(features, ember.Tensor):
                features = OrderedDict([("0", features)])
            return [x.shape[1] for x in features.values()]
    finally:
        model.train(was_training)


def _topk_min(input, orig_kval, axis):
    return min(orig_kval, input.shape[axis])


def _top_candidates(scores, num_classes, score_thresh, topk_candidates):
    """One level's (anchor, class) candidates, as RetinaNet's and FCOS's postprocessing pick them: of the flattened
    [anchors * classes] scores, the topk_candidates best above score_thresh. Returns (scores, anchor indices,
    labels)."""
    keep = scores > score_thresh
    scores = scores[keep]
    topk_idxs = ember.where(keep)[0]
    scores, idxs = scores.topk(_topk_min(topk_idxs, topk_candidates, 0))
    topk_idxs = topk_idxs[idxs]
    return scores, ember.div(topk_idxs, num_classes, rounding_mode="floor"), topk_idxs % num_classes


def _merge_levels(boxes, scores, labels, nms_thresh, detections_per_img):
    """One image's detections from its levels' candidates: NMS per class, then the detections_per_img best."""
    boxes, scores, labels = ember.cat(boxes, dim=0), ember.cat(scores, dim=0), ember.cat(labels, dim=0)
    keep = box_ops.batched_nms(boxes, scores, labels, nms_thresh)[:detections_per_img]
    return {"boxes": boxes[keep], "scores": scores[keep], "labels": labels[keep]}


def _box_loss(type, box_coder, anchors_per_image, matched_gt_boxes_per_image, bbox_regression_per_image, cnf=None):
    """The summed box regression loss of one image: l1 or smooth_l1 on the encoded targets, or an IoU loss (ciou,
    diou, giou) on the decoded boxes."""
    if type not in ("l1", "smooth_l1", "ciou", "diou", "giou"):
        raise AssertionError(f"Unsupported loss: {type}")
    if type in ("l1", "smooth_l1"):
        target = box_coder.encode_single(matched_gt_boxes_per_image, anchors_per_image)
        if type == "l1":
            return F.l1_loss(bbox_regression_per_image, target, reduction="sum")
        beta = cnf["beta"] if cnf is not None and "beta" in cnf else 1.0
        return F.smooth_l1_loss(bbox_regression_per_image, target, reduction="sum", beta=beta)
    boxes = box_coder.decode_single(bbox_regression_per_image, anchors_per_image)
    eps = cnf["eps"] if cnf is not None and "eps" in cnf else 1e-7
    loss = {"ciou": complete_box_iou_loss, "diou": distance_box_iou_loss, "giou": generalized_box_iou_loss}[type]
    return loss(boxes, matched_gt_boxes_per_image, reduction="sum", eps=eps)


def _resolve_weights(name, backbone_name, weights, weights_backbone, num_classes, kwargs, default_classes=91):
    """(weights, weights_backbone, num_classes) as torchvision's detection builders settle them: the legacy
    pretrained / pretrained_backbone flags become the default weights; weights given fix num_classes to their
    categories and drop weights_backbone; num_classes defaults to default_classes."""
    from .._api import _WEIGHTS_OF
    from .._utils import _ovewrite_value_param

    weights, weights_backbone = _legacy_flags(name, backbone_name, weights, weights_backbone, kwargs)
    weights = _WEIGHTS_OF[name].verify(weights)
    weights_backbone = _WEIGHTS_OF[backbone_name].verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
    elif num_classes is None:
        num_classes = default_classes
    return weights, weights_backbone, num_classes


def _legacy_flags(name, backbone_name, weights, weights_backbone, kwargs):
    """torchvision's deprecated pretrained / pretrained_backbone flags: True means the default weights, False none;
    either warns as torchvision does."""
    import warnings

    from .._api import _WEIGHTS_OF

    for flag, param, default in (
        ("pretrained", "weights", _WEIGHTS_OF[name].DEFAULT),
        ("pretrained_backbone", "weights_backbone", _WEIGHTS_OF[backbone_name].IMAGENET1K_V1),
    ):
        if flag not in kwargs:
            continue
        value = default if kwargs.pop(flag) else None
        warnings.warn(
            f"The parameter '{flag}' is deprecated since 0.13 and may be removed in the future, please use "
            f"'{param}' instead.",
            UserWarning,
            stacklevel=4,
        )
        warnings.warn(
            f"Arguments other than a weight enum or `None` for '{param}' are deprecated since 0.13 and may be "
            f"removed in the future. The current behavior is equivalent to passing `{param}={value!r}`.",
            UserWarning,
            stacklevel=4,
        )
        if param == "weights":
            weights = weights or value
        else:
            weights_backbone = value
    return weights, weights_backbone
