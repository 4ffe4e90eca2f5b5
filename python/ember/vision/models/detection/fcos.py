"""FCOS (Tian et al., 2019, fully convolutional one-stage detection) with torchvision 0.29's builder and
state_dict keys (torchvision.models.detection.fcos)."""

import functools
import math
from collections import OrderedDict

import ember

from .... import nn
from ...ops import FrozenBatchNorm2d, generalized_box_iou_loss, sigmoid_focal_loss
from ...ops import boxes as box_ops
from ...ops.feature_pyramid_network import LastLevelP6P7
from .._api import _WEIGHTS_OF, _load, register_model
from .._predict import DetectionMixin
from ..resnet import resnet50
from . import _utils as det_utils
from ._utils import _resolve_weights
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .generalized_rcnn import _check_degenerate, _check_targets
from .retinanet import _flatten_levels
from .transform import GeneralizedRCNNTransform

__all__ = ["FCOS", "FCOSHead", "fcos_resnet50_fpn"]


def _conv_tower(in_channels, num_convs, norm_layer):
    layers = []
    for _ in range(num_convs):
        layers += [nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1), norm_layer(in_channels)]
        layers.append(nn.ReLU())
    tower = nn.Sequential(*layers)
    for layer in tower.children():
        if isinstance(layer, nn.Conv2d):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.constant_(layer.bias, 0)
    return tower


class FCOSHead(nn.Module):
    """The classification head and the regression head (box distances and centerness); the losses: sigmoid focal
    loss, GIoU on the foreground boxes and centerness binary cross entropy, each divided by the foreground count."""

    def __init__(self, in_channels, num_anchors, num_classes, num_convs=4):
        super().__init__()
        self.box_coder = det_utils.BoxLinearCoder(normalize_by_size=True)
        self.classification_head = FCOSClassificationHead(in_channels, num_anchors, num_classes, num_convs)
        self.regression_head = FCOSRegressionHead(in_channels, num_anchors, num_convs)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        cls_logits = head_outputs["cls_logits"]
        bbox_regression = head_outputs["bbox_regression"]
        bbox_ctrness = head_outputs["bbox_ctrness"]
        gt_classes_all, gt_boxes_all = [], []
        for target, matched in zip(targets, matched_idxs):
            if len(target["labels"]) == 0:
                gt_classes = target["labels"].new_zeros((len(matched),))
                gt_boxes = target["boxes"].new_zeros((len(matched), 4))
            else:
                gt_classes = target["labels"][matched.clip(min=0)]
                gt_boxes = target["boxes"][matched.clip(min=0)]
            gt_classes[matched < 0] = -1
            gt_classes_all.append(gt_classes)
            gt_boxes_all.append(gt_boxes)
        gt_boxes_all, gt_classes_all = ember.stack(gt_boxes_all), ember.stack(gt_classes_all)
        anchors = ember.stack(anchors)
        foreground = gt_classes_all >= 0
        num_foreground = int(foreground.sum().item())
        gt_classes_targets = ember.zeros_like(cls_logits)
        img_idx, anchor_idx = ember.where(foreground)
        gt_classes_targets[img_idx, anchor_idx, gt_classes_all[img_idx, anchor_idx]] = 1.0
        loss_cls = sigmoid_focal_loss(cls_logits, gt_classes_targets, reduction="sum")
        pred_boxes = self.box_coder.decode(bbox_regression, anchors)
        loss_bbox_reg = generalized_box_iou_loss(
            pred_boxes[img_idx, anchor_idx], gt_boxes_all[img_idx, anchor_idx], reduction="sum"
        )
        reg_targets = self.box_coder.encode(anchors, gt_boxes_all)
        if len(reg_targets) == 0:
            gt_ctrness = reg_targets.new_zeros(reg_targets.shape[:-1])
        else:
            left_right = reg_targets[:, :, [0, 2]]
            top_bottom = reg_targets[:, :, [1, 3]]
            gt_ctrness = ember.sqrt(
                left_right.min(dim=-1)[0]
                / left_right.max(dim=-1)[0]
                * (top_bottom.min(dim=-1)[0] / top_bottom.max(dim=-1)[0])
            )
        pred_ctrness = bbox_ctrness.squeeze(dim=2)
        loss_ctrness = nn.functional.binary_cross_entropy_with_logits(
            pred_ctrness[img_idx, anchor_idx], gt_ctrness[img_idx, anchor_idx], reduction="sum"
        )
        n = max(1, num_foreground)
        return {"classification": loss_cls / n, "bbox_regression": loss_bbox_reg / n, "bbox_ctrness": loss_ctrness / n}

    def forward(self, x):
        bbox_regression, bbox_ctrness = self.regression_head(x)
        return {
            "cls_logits": self.classification_head(x),
            "bbox_regression": bbox_regression,
            "bbox_ctrness": bbox_ctrness,
        }


class FCOSClassificationHead(nn.Module):
    """num_convs conv + norm (GroupNorm(32) by default) + ReLU layers and a 3x3 conv to class logits (bias from
    prior_probability)."""

    def __init__(self, in_channels, num_anchors, num_classes, num_convs=4, prior_probability=0.01, norm_layer=None):
        super().__init__()
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.conv = _conv_tower(in_channels, num_convs, norm_layer or functools.partial(nn.GroupNorm, 32))
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3, stride=1, padding=1)
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability))

    def forward(self, x):
        return ember.cat([_flatten_levels(self.cls_logits(self.conv(f)), self.num_classes) for f in x], dim=1)


class FCOSRegressionHead(nn.Module):
    """num_convs conv + norm + ReLU layers, then ReLU'd box distances (4 per anchor) and a centerness logit."""

    def __init__(self, in_channels, num_anchors, num_convs=4, norm_layer=None):
        super().__init__()
        self.conv = _conv_tower(in_channels, num_convs, norm_layer or functools.partial(nn.GroupNorm, 32))
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1, padding=1)
        self.bbox_ctrness = nn.Conv2d(in_channels, num_anchors * 1, kernel_size=3, stride=1, padding=1)
        for layer in [self.bbox_reg, self.bbox_ctrness]:
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.zeros_(layer.bias)

    def forward(self, x):
        regression, ctrness = [], []
        for features in x:
            f = self.conv(features)
            regression.append(_flatten_levels(nn.functional.relu(self.bbox_reg(f)), 4))
            ctrness.append(_flatten_levels(self.bbox_ctrness(f), 1))
        return ember.cat(regression, dim=1), ember.cat(ctrness, dim=1)


class FCOS(DetectionMixin, nn.Module):
    """FCOS on a backbone with ``out_channels``, with torchvision's arguments and defaults (min_size=800,
    max_size=1333, image_mean/std, anchor_generator (one anchor per location, sizes 8-128), head,
    center_sampling_radius=1.5, score_thresh=0.2, nms_thresh=0.6, detections_per_img=100, topk_candidates=1000).
    Eval: a dict per image ("boxes", "scores", "labels"); training: {"classification", "bbox_regression",
    "bbox_ctrness"}."""

    def __init__(
        self,
        backbone,
        num_classes,
        min_size=800,
        max_size=1333,
        image_mean=None,
        image_std=None,
        anchor_generator=None,
        head=None,
        center_sampling_radius=1.5,
        score_thresh=0.2,
        nms_thresh=0.6,
        detections_per_img=100,
        topk_candidates=1000,
        **kwargs,
    ):
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError(
                "backbone should contain an attribute out_channels specifying the number of output channels "
                "(assumed to be the same for all the levels)"
            )
        self.backbone = backbone
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(
                f"anchor_generator should be of type AnchorGenerator or None, instead  got {type(anchor_generator)}"
            )
        if anchor_generator is None:
            sizes = ((8,), (16,), (32,), (64,), (128,))
            anchor_generator = AnchorGenerator(sizes, ((1.0,),) * len(sizes))
        self.anchor_generator = anchor_generator
        if self.anchor_generator.num_anchors_per_location()[0] != 1:
            raise ValueError(
                "anchor_generator.num_anchors_per_location()[0] should be 1 instead of "
                f"{anchor_generator.num_anchors_per_location()[0]}"
            )
        if head is None:
            head = FCOSHead(backbone.out_channels, anchor_generator.num_anchors_per_location()[0], num_classes)
        self.head = head
        self.box_coder = det_utils.BoxLinearCoder(normalize_by_size=True)
        image_mean = [0.485, 0.456, 0.406] if image_mean is None else image_mean
        image_std = [0.229, 0.224, 0.225] if image_std is None else image_std
        self.transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        self.center_sampling_radius = center_sampling_radius
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self._has_warned = False

    def eager_outputs(self, losses, detections):
        return losses if self.training else detections

    def compute_loss(self, targets, head_outputs, anchors, num_anchors_per_level):
        """Matches each anchor (location) to the smallest ground truth whose centre region (center_sampling_radius
        strides) and box contain it and whose size range fits the level; -1 when none."""
        matched_idxs = []
        for anchors_i, target in zip(anchors, targets):
            if target["boxes"].numel() == 0:
                matched_idxs.append(ember.full((anchors_i.shape[0],), -1, dtype=ember.int64, device=anchors_i.device))
                continue
            gt_boxes = target["boxes"]
            gt_centers = (gt_boxes[:, :2] + gt_boxes[:, 2:]) / 2
            anchor_centers = (anchors_i[:, :2] + anchors_i[:, 2:]) / 2
            anchor_sizes = anchors_i[:, 2] - anchors_i[:, 0]
            match = (anchor_centers[:, None, :] - gt_centers[None, :, :]).abs().max(dim=2).values < (
                self.center_sampling_radius * anchor_sizes[:, None]
            )
            x, y = anchor_centers.unsqueeze(dim=2).unbind(dim=1)
            x0, y0, x1, y1 = gt_boxes.unsqueeze(dim=0).unbind(dim=2)
            dist = ember.stack([x - x0, y - y0, x1 - x, y1 - y], dim=2)
            match = match & (dist.min(dim=2).values > 0)
            lower = anchor_sizes * 4
            lower[: num_anchors_per_level[0]] = 0
            upper = anchor_sizes * 8
            upper[-num_anchors_per_level[-1] :] = float("inf")
            dist = dist.max(dim=2).values
            match = match & (dist > lower[:, None]) & (dist < upper[:, None])
            # The smallest box wins: its score 1e8 - area is the highest.
            gt_areas = (gt_boxes[:, 2] - gt_boxes[:, 0]) * (gt_boxes[:, 3] - gt_boxes[:, 1])
            scores = match.to(ember.float32) * (1e8 - gt_areas[None, :])
            best, matched = scores.max(dim=1)
            matched[best < 1e-5] = -1
            matched_idxs.append(matched)
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(self, head_outputs, anchors, image_shapes):
        """Per image and level: scores sqrt(sigmoid(class) * sigmoid(centerness)) above score_thresh, the
        topk_candidates best decoded and clipped; then NMS per class and the detections_per_img best."""
        detections = []
        for index, image_shape in enumerate(image_shapes):
            image_boxes, image_scores, image_labels = [], [], []
            for regression, logits, ctrness, anchors_l in zip(
                [br[index] for br in head_outputs["bbox_regression"]],
                [cl[index] for cl in head_outputs["cls_logits"]],
                [bc[index] for bc in head_outputs["bbox_ctrness"]],
                anchors[index],
            ):
                scores, anchor_idxs, labels = det_utils._top_candidates(
                    ember.sqrt(ember.sigmoid(logits) * ember.sigmoid(ctrness)).flatten(),
                    logits.shape[-1],
                    self.score_thresh,
                    self.topk_candidates,
                )
                boxes = self.box_coder.decode(regression[anchor_idxs], anchors_l[anchor_idxs])
                image_boxes.append(box_ops.clip_boxes_to_image(boxes, image_shape))
                image_scores.append(scores)
                image_labels.append(labels)
            detections.append(
                det_utils._merge_levels(
                    image_boxes, image_scores, image_labels, self.nms_thresh, self.detections_per_img
                )
            )
        return detections

    def forward(self, images, targets=None):
        if self.training:
            _check_targets(targets)
        original_image_sizes = [(int(img.shape[-2]), int(img.shape[-1])) for img in images]
        images, targets = self.transform(images, targets)
        if targets is not None:
            _check_degenerate(targets)
        features = self.backbone(images.tensors)
        if isinstance(features, ember.Tensor):
            features = OrderedDict([("0", features)])
        features = list(features.values())
        head_outputs = self.head(features)
        anchors = self.anchor_generator(images, features)
        num_anchors_per_level = [x.shape[2] * x.shape[3] for x in features]
        if self.training:
            return self.eager_outputs(self.compute_loss(targets, head_outputs, anchors, num_anchors_per_level), [])
        split_outputs = {k: list(v.split(num_anchors_per_level, dim=1)) for k, v in head_outputs.items()}
        split_anchors = [list(a.split(num_anchors_per_level)) for a in anchors]
        detections = self.postprocess_detections(split_outputs, split_anchors, images.image_sizes)
        detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        return self.eager_outputs({}, detections)


@register_model()
def fcos_resnet50_fpn(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=_WEIGHTS_OF["resnet50"].IMAGENET1K_V1,
    trainable_backbone_layers=None,
    **kwargs,
):
    """FCOS with a ResNet-50-FPN backbone (P3-P7). weights: FCOS_ResNet50_FPN_Weights; weights_backbone:
    ResNet50_Weights (IMAGENET1K_V1 by default, read from the hub cache; None for random)."""
    weights, weights_backbone, num_classes = _resolve_weights(
        "fcos_resnet50_fpn", "resnet50", weights, weights_backbone, num_classes, kwargs
    )
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(
        backbone, trainable_backbone_layers, returned_layers=[2, 3, 4], extra_blocks=LastLevelP6P7(256, 256)
    )
    return _load(FCOS(backbone, num_classes, **kwargs), weights, progress)
