"""The second stage of the R-CNN detectors (torchvision.models.detection.roi_heads): box classification and
regression on pooled proposals, and the mask and keypoint branches, with their losses and inference."""

import ember

from .... import nn
from ....nn import functional as F
from ...ops import boxes as box_ops
from ...ops import roi_align
from . import _utils as det_utils

__all__ = ["RoIHeads", "fastrcnn_loss", "maskrcnn_loss", "keypointrcnn_loss", "paste_masks_in_image"]


def fastrcnn_loss(class_logits, box_regression, labels, regression_targets):
    """(classification loss, box loss): cross entropy over all sampled proposals and smooth L1 (beta 1/9) of the
    positives' deltas for their class, divided by the number of proposals."""
    labels = ember.cat(labels, dim=0)
    regression_targets = ember.cat(regression_targets, dim=0)
    classification_loss = F.cross_entropy(class_logits, labels)
    pos = ember.where(labels > 0)[0]
    N = class_logits.shape[0]
    box_regression = box_regression.reshape(N, box_regression.shape[-1] // 4, 4)
    box_loss = F.smooth_l1_loss(box_regression[pos, labels[pos]], regression_targets[pos], beta=1 / 9, reduction="sum")
    return classification_loss, box_loss / labels.numel()


def maskrcnn_inference(x, labels):
    """The sigmoid of each detection's mask logits for its label: a [K, 1, M, M] tensor per image."""
    mask_prob = x.sigmoid()
    boxes_per_image = [label.shape[0] for label in labels]
    labels = ember.cat(labels)
    index = ember.arange(x.shape[0], device=labels.device)
    return mask_prob[index, labels][:, None].split(boxes_per_image, dim=0)


def project_masks_on_boxes(gt_masks, boxes, matched_idxs, M):
    """The ground-truth masks cropped to the proposals and resized to M x M (RoI Align)."""
    matched_idxs = matched_idxs.to(boxes)
    rois = ember.cat([matched_idxs[:, None], boxes], dim=1)
    return roi_align(gt_masks[:, None].to(rois), rois, (M, M), 1.0)[:, 0]


def maskrcnn_loss(mask_logits, proposals, gt_masks, gt_labels, mask_matched_idxs):
    """Binary cross entropy of the positives' mask logits (for their class) against their ground-truth masks."""
    size = mask_logits.shape[-1]
    labels = ember.cat([gl[idxs] for gl, idxs in zip(gt_labels, mask_matched_idxs)], dim=0)
    targets = ember.cat(
        [project_masks_on_boxes(m, p, i, size) for m, p, i in zip(gt_masks, proposals, mask_matched_idxs)], dim=0
    )
    if targets.numel() == 0:
        return mask_logits.sum() * 0
    logits = mask_logits[ember.arange(labels.shape[0], device=labels.device), labels]
    return F.binary_cross_entropy_with_logits(logits, targets)


def keypoints_to_heatmap(keypoints, rois, heatmap_size):
    """Each keypoint's cell index in its RoI's heatmap_size x heatmap_size grid, and whether it is valid (visible and
    inside)."""
    offset_x, offset_y = rois[:, 0][:, None], rois[:, 1][:, None]
    scale_x = (heatmap_size / (rois[:, 2] - rois[:, 0]))[:, None]
    scale_y = (heatmap_size / (rois[:, 3] - rois[:, 1]))[:, None]
    x, y = keypoints[..., 0], keypoints[..., 1]
    x_boundary = x == rois[:, 2][:, None]
    y_boundary = y == rois[:, 3][:, None]
    x = ((x - offset_x) * scale_x).floor().long()
    y = ((y - offset_y) * scale_y).floor().long()
    x[x_boundary] = heatmap_size - 1
    y[y_boundary] = heatmap_size - 1
    valid_loc = (x >= 0) & (y >= 0) & (x < heatmap_size) & (y < heatmap_size)
    valid = (valid_loc & (keypoints[..., 2] > 0)).long()
    return (y * heatmap_size + x) * valid, valid


def heatmaps_to_keypoints(maps, rois):
    """Keypoints [R, K, 3] (x, y, 1) and scores [R, K] from heatmaps [R, K, M, M]: each map resized (bicubic) to its
    RoI's size in pixels and its maximum taken."""
    offset_x, offset_y = rois[:, 0], rois[:, 1]
    widths = (rois[:, 2] - rois[:, 0]).clamp(min=1)
    heights = (rois[:, 3] - rois[:, 1]).clamp(min=1)
    widths_ceil, heights_ceil = widths.ceil(), heights.ceil()
    K = maps.shape[1]
    xy_preds = ember.zeros((len(rois), 3, K), dtype=ember.float32, device=maps.device)
    end_scores = ember.zeros((len(rois), K), dtype=ember.float32, device=maps.device)
    for i in range(len(rois)):
        map_w, map_h = int(widths_ceil[i].item()), int(heights_ceil[i].item())
        roi_map = F.interpolate(maps[i][:, None], size=(map_h, map_w), mode="bicubic", align_corners=False)[:, 0]
        w = roi_map.shape[2]
        pos = roi_map.reshape(K, -1).argmax(dim=1)
        x_int = pos % w
        y_int = ember.div(pos - x_int, w, rounding_mode="floor")
        xy_preds[i, 0, :] = (x_int.float() + 0.5) * (widths[i] / map_w) + offset_x[i]
        xy_preds[i, 1, :] = (y_int.float() + 0.5) * (heights[i] / map_h) + offset_y[i]
        xy_preds[i, 2, :] = 1
        end_scores[i, :] = roi_map[ember.arange(K, device=roi_map.device), y_int, x_int]
    return xy_preds.permute(0, 2, 1), end_scores


def keypointrcnn_loss(keypoint_logits, proposals, gt_keypoints, keypoint_matched_idxs):
    """Cross entropy of each valid keypoint's heatmap (a softmax over the H*W cells) against its cell."""
    N, K, H, W = keypoint_logits.shape
    if H != W:
        raise ValueError(
            "keypoint_logits height and width (last two elements of shape) should be equal. Instead got "
            f"H = {H} and W = {W}"
        )
    heatmaps, valid = [], []
    for props, gt_kp, midx in zip(proposals, gt_keypoints, keypoint_matched_idxs):
        h, v = keypoints_to_heatmap(gt_kp[midx], props, H)
        heatmaps.append(h.reshape(-1))
        valid.append(v.reshape(-1))
    targets = ember.cat(heatmaps, dim=0)
    valid = ember.where(ember.cat(valid, dim=0).to(dtype=ember.uint8))[0]
    if targets.numel() == 0 or len(valid) == 0:
        return keypoint_logits.sum() * 0
    return F.cross_entropy(keypoint_logits.reshape(N * K, H * W)[valid], targets[valid])


def keypointrcnn_inference(x, boxes):
    probs, scores = [], []
    for xx, bb in zip(x.split([b.shape[0] for b in boxes], dim=0), boxes):
        p, s = heatmaps_to_keypoints(xx, bb)
        probs.append(p)
        scores.append(s)
    return probs, scores


def expand_boxes(boxes, scale):
    w_half = (boxes[:, 2] - boxes[:, 0]) * 0.5 * scale
    h_half = (boxes[:, 3] - boxes[:, 1]) * 0.5 * scale
    x_c = (boxes[:, 2] + boxes[:, 0]) * 0.5
    y_c = (boxes[:, 3] + boxes[:, 1]) * 0.5
    return ember.stack((x_c - w_half, y_c - h_half, x_c + w_half, y_c + h_half), dim=1)


def expand_masks(mask, padding):
    M = mask.shape[-1]
    return F.pad(mask, (padding,) * 4), float(M + 2 * padding) / M


def paste_mask_in_image(mask, box, im_h, im_w):
    """mask [M, M] resized (bilinear) to the integer box (x1, y1, x2, y2, inclusive) and placed in an im_h x im_w
    image of zeros."""
    x1, y1, x2, y2 = box
    w, h = max(x2 - x1 + 1, 1), max(y2 - y1 + 1, 1)
    mask = F.interpolate(mask.expand((1, 1, -1, -1)), size=(h, w), mode="bilinear", align_corners=False)[0][0]
    im_mask = ember.zeros((im_h, im_w), dtype=mask.dtype, device=mask.device)
    x_0, x_1 = max(x1, 0), min(x2 + 1, im_w)
    y_0, y_1 = max(y1, 0), min(y2 + 1, im_h)
    if x_1 > x_0 and y_1 > y_0:
        im_mask[y_0:y_1, x_0:x_1] = mask[y_0 - y1 : y_1 - y1, x_0 - x1 : x_1 - x1]
    return im_mask


def paste_masks_in_image(masks, boxes, img_shape, padding=1):
    """Masks [K, 1, M, M] pasted at their boxes into [K, 1, H, W] images (padded by one cell first, the boxes
    enlarged to match)."""
    masks, scale = expand_masks(masks, padding=padding)
    boxes = expand_boxes(boxes, scale).to(dtype=ember.int64).tolist()
    im_h, im_w = int(img_shape[0]), int(img_shape[1])
    res = [paste_mask_in_image(m[0], b, im_h, im_w) for m, b in zip(masks, boxes)]
    return ember.stack(res, dim=0)[:, None] if res else masks.new_empty((0, 1, im_h, im_w))


class RoIHeads(nn.Module):
    """Pools features for each proposal (box_roi_pool), runs box_head and box_predictor, and returns the detections
    (softmax scores, class-specific boxes, NMS per class) or, in training, the Fast R-CNN losses on a balanced sample
    of proposals matched to the targets; optional mask and keypoint branches do the same for their outputs."""

    def __init__(
        self,
        box_roi_pool,
        box_head,
        box_predictor,
        fg_iou_thresh,
        bg_iou_thresh,
        batch_size_per_image,
        positive_fraction,
        bbox_reg_weights,
        score_thresh,
        nms_thresh,
        detections_per_img,
        mask_roi_pool=None,
        mask_head=None,
        mask_predictor=None,
        keypoint_roi_pool=None,
        keypoint_head=None,
        keypoint_predictor=None,
    ):
        super().__init__()
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=False)
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(batch_size_per_image, positive_fraction)
        self.box_coder = det_utils.BoxCoder(
            bbox_reg_weights if bbox_reg_weights is not None else (10.0, 10.0, 5.0, 5.0)
        )
        self.box_roi_pool = box_roi_pool
        self.box_head = box_head
        self.box_predictor = box_predictor
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.mask_roi_pool = mask_roi_pool
        self.mask_head = mask_head
        self.mask_predictor = mask_predictor
        self.keypoint_roi_pool = keypoint_roi_pool
        self.keypoint_head = keypoint_head
        self.keypoint_predictor = keypoint_predictor

    def has_mask(self):
        return self.mask_roi_pool is not None and self.mask_head is not None and self.mask_predictor is not None

    def has_keypoint(self):
        return (
            self.keypoint_roi_pool is not None
            and self.keypoint_head is not None
            and self.keypoint_predictor is not None
        )

    def assign_targets_to_proposals(self, proposals, gt_boxes, gt_labels):
        matched_idxs, labels = [], []
        for props, boxes, gl in zip(proposals, gt_boxes, gt_labels):
            if boxes.numel() == 0:
                clamped = ember.zeros((props.shape[0],), dtype=ember.int64, device=props.device)
                labels_in_image = ember.zeros((props.shape[0],), dtype=ember.int64, device=props.device)
            else:
                idxs = self.proposal_matcher(box_ops.box_iou(boxes, props))
                clamped = idxs.clamp(min=0)
                labels_in_image = gl[clamped].to(dtype=ember.int64)
                labels_in_image[idxs == self.proposal_matcher.BELOW_LOW_THRESHOLD] = 0
                labels_in_image[idxs == self.proposal_matcher.BETWEEN_THRESHOLDS] = -1
            matched_idxs.append(clamped)
            labels.append(labels_in_image)
        return matched_idxs, labels

    def subsample(self, labels):
        pos, neg = self.fg_bg_sampler(labels)
        return [ember.where(p | n)[0] for p, n in zip(pos, neg)]

    def add_gt_proposals(self, proposals, gt_boxes):
        return [ember.cat((p, g)) for p, g in zip(proposals, gt_boxes)]

    def check_targets(self, targets):
        if targets is None:
            raise ValueError("targets should not be None")
        if not all("boxes" in t for t in targets):
            raise ValueError("Every element of targets should have a boxes key")
        if not all("labels" in t for t in targets):
            raise ValueError("Every element of targets should have a labels key")
        if self.has_mask() and not all("masks" in t for t in targets):
            raise ValueError("Every element of targets should have a masks key")

    def select_training_samples(self, proposals, targets):
        self.check_targets(targets)
        dtype, device = proposals[0].dtype, proposals[0].device
        gt_boxes = [t["boxes"].to(dtype) for t in targets]
        gt_labels = [t["labels"] for t in targets]
        proposals = self.add_gt_proposals(proposals, gt_boxes)
        matched_idxs, labels = self.assign_targets_to_proposals(proposals, gt_boxes, gt_labels)
        sampled = self.subsample(labels)
        matched_gt_boxes = []
        for i, inds in enumerate(sampled):
            proposals[i] = proposals[i][inds]
            labels[i] = labels[i][inds]
            matched_idxs[i] = matched_idxs[i][inds]
            boxes = gt_boxes[i]
            if boxes.numel() == 0:
                boxes = ember.zeros((1, 4), dtype=dtype, device=device)
            matched_gt_boxes.append(boxes[matched_idxs[i]])
        regression_targets = self.box_coder.encode(matched_gt_boxes, proposals)
        return proposals, matched_idxs, labels, regression_targets

    def postprocess_detections(self, class_logits, box_regression, proposals, image_shapes):
        device = class_logits.device
        num_classes = class_logits.shape[-1]
        boxes_per_image = [p.shape[0] for p in proposals]
        pred_boxes = self.box_coder.decode(box_regression, proposals)
        pred_scores = F.softmax(class_logits, -1)
        all_boxes, all_scores, all_labels = [], [], []
        for boxes, scores, image_shape in zip(
            pred_boxes.split(boxes_per_image, 0), pred_scores.split(boxes_per_image, 0), image_shapes
        ):
            boxes = box_ops.clip_boxes_to_image(boxes, image_shape)
            labels = ember.arange(num_classes, device=device).reshape(1, -1).expand_as(scores)
            # The background class (0) is no detection.
            boxes = boxes[:, 1:].reshape(-1, 4)
            scores = scores[:, 1:].reshape(-1)
            labels = labels[:, 1:].reshape(-1)
            inds = ember.where(scores > self.score_thresh)[0]
            boxes, scores, labels = boxes[inds], scores[inds], labels[inds]
            keep = box_ops.remove_small_boxes(boxes, min_size=1e-2)
            boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
            keep = box_ops.batched_nms(boxes, scores, labels, self.nms_thresh)[: self.detections_per_img]
            all_boxes.append(boxes[keep])
            all_scores.append(scores[keep])
            all_labels.append(labels[keep])
        return all_boxes, all_scores, all_labels

    def forward(self, features, proposals, image_shapes, targets=None):
        """Returns (detections, losses): a dict per image ("boxes", "labels", "scores", and "masks" or "keypoints",
        "keypoints_scores") in eval mode, and the losses in training."""
        if targets is not None:
            for t in targets:
                if t["boxes"].dtype not in (ember.float, ember.double, ember.half):
                    raise TypeError(f"target boxes must of float type, instead got {t['boxes'].dtype}")
                if t["labels"].dtype != ember.int64:
                    raise TypeError(f"target labels must of int64 type, instead got {t['labels'].dtype}")
                if self.has_keypoint() and t["keypoints"].dtype != ember.float32:
                    raise TypeError(f"target keypoints must of float type, instead got {t['keypoints'].dtype}")
        if self.training:
            proposals, matched_idxs, labels, regression_targets = self.select_training_samples(proposals, targets)
        else:
            labels = regression_targets = matched_idxs = None
        box_features = self.box_head(self.box_roi_pool(features, proposals, image_shapes))
        class_logits, box_regression = self.box_predictor(box_features)
        result, losses = [], {}
        if self.training:
            loss_classifier, loss_box_reg = fastrcnn_loss(class_logits, box_regression, labels, regression_targets)
            losses = {"loss_classifier": loss_classifier, "loss_box_reg": loss_box_reg}
        else:
            boxes, scores, labels = self.postprocess_detections(class_logits, box_regression, proposals, image_shapes)
            result = [{"boxes": b, "labels": lab, "scores": s} for b, lab, s in zip(boxes, labels, scores)]

        if self.has_mask():
            if self.training:
                mask_proposals, pos_matched_idxs = self._positives(proposals, labels, matched_idxs)
            else:
                mask_proposals, pos_matched_idxs = [p["boxes"] for p in result], None
            mask_logits = self.mask_predictor(
                self.mask_head(self.mask_roi_pool(features, mask_proposals, image_shapes))
            )
            if self.training:
                gt_masks = [t["masks"] for t in targets]
                gt_labels = [t["labels"] for t in targets]
                losses["loss_mask"] = maskrcnn_loss(mask_logits, mask_proposals, gt_masks, gt_labels, pos_matched_idxs)
            else:
                for prob, r in zip(maskrcnn_inference(mask_logits, [r["labels"] for r in result]), result):
                    r["masks"] = prob

        if self.has_keypoint():
            if self.training:
                kp_proposals, pos_matched_idxs = self._positives(proposals, labels, matched_idxs)
            else:
                kp_proposals, pos_matched_idxs = [p["boxes"] for p in result], None
            kp_logits = self.keypoint_predictor(
                self.keypoint_head(self.keypoint_roi_pool(features, kp_proposals, image_shapes))
            )
            if self.training:
                gt_keypoints = [t["keypoints"] for t in targets]
                losses["loss_keypoint"] = keypointrcnn_loss(kp_logits, kp_proposals, gt_keypoints, pos_matched_idxs)
            else:
                probs, kp_scores = keypointrcnn_inference(kp_logits, kp_proposals)
                for prob, sc, r in zip(probs, kp_scores, result):
                    r["keypoints"] = prob
                    r["keypoints_scores"] = sc
        return result, losses

    @staticmethod
    def _positives(proposals, labels, matched_idxs):
        """The positive proposals of each image and the indices of their ground truth (training)."""
        props, idxs = [], []
        for p, lab, m in zip(proposals, labels, matched_idxs):
            pos = ember.where(lab > 0)[0]
            props.append(p[pos])
            idxs.append(m[pos])
        return props, idxs
