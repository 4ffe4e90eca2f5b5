"""RetinaNet (Lin et al., 2017, focal loss) with torchvision 0.29's builders and state_dict keys
(torchvision.models.detection.retinanet)."""

import functools
import math
from collections import OrderedDict

import ember

from .... import nn
from ...ops import Conv2dNormActivation, FrozenBatchNorm2d, sigmoid_focal_loss
from ...ops import boxes as box_ops
from ...ops.feature_pyramid_network import LastLevelP6P7
from .._api import _WEIGHTS_OF, _load, register_model
from .._predict import DetectionMixin
from ..resnet import resnet50
from . import _utils as det_utils
from ._utils import _box_loss, _resolve_weights, overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .generalized_rcnn import _check_degenerate, _check_targets
from .transform import GeneralizedRCNNTransform

__all__ = ["RetinaNet", "RetinaNetHead", "retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2"]


def _v1_to_v2_weights(state_dict, prefix):
    # The first checkpoints' heads are plain conv/ReLU Sequentials ("conv.0", "conv.2", ...).
    for i in range(4):
        for kind in ("weight", "bias"):
            old = f"{prefix}conv.{2 * i}.{kind}"
            if old in state_dict:
                state_dict[f"{prefix}conv.{i}.0.{kind}"] = state_dict.pop(old)


def _default_anchorgen():
    sizes = tuple((x, int(x * 2 ** (1.0 / 3)), int(x * 2 ** (2.0 / 3))) for x in [32, 64, 128, 256, 512])
    return AnchorGenerator(sizes, ((0.5, 1.0, 2.0),) * len(sizes))


def _flatten_levels(x, per_anchor):
    """[N, A*K, H, W] -> [N, H*W*A, K]."""
    N, _, H, W = x.shape
    return x.reshape(N, -1, per_anchor, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, per_anchor)


class RetinaNetHead(nn.Module):
    """The classification and regression subnets, shared by all levels."""

    def __init__(self, in_channels, num_anchors, num_classes, norm_layer=None):
        super().__init__()
        self.classification_head = RetinaNetClassificationHead(
            in_channels, num_anchors, num_classes, norm_layer=norm_layer
        )
        self.regression_head = RetinaNetRegressionHead(in_channels, num_anchors, norm_layer=norm_layer)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        return {
            "classification": self.classification_head.compute_loss(targets, head_outputs, matched_idxs),
            "bbox_regression": self.regression_head.compute_loss(targets, head_outputs, anchors, matched_idxs),
        }

    def forward(self, x):
        return {"cls_logits": self.classification_head(x), "bbox_regression": self.regression_head(x)}


class RetinaNetClassificationHead(nn.Module):
    """Four 3x3 conv (+ norm) + ReLU layers and a 3x3 conv to num_anchors * num_classes logits, the bias set so that
    the initial probability is prior_probability; the loss is the sigmoid focal loss over the anchors that are not
    between the IoU thresholds, per image divided by its number of foreground anchors."""

    _version = 2

    def __init__(self, in_channels, num_anchors, num_classes, prior_probability=0.01, norm_layer=None):
        super().__init__()
        self.conv = nn.Sequential(
            *[Conv2dNormActivation(in_channels, in_channels, norm_layer=norm_layer) for _ in range(4)]
        )
        for layer in self.conv.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.normal_(layer.weight, std=0.01)
                if layer.bias is not None:
                    nn.init.constant_(layer.bias, 0)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3, stride=1, padding=1)
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability))
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.BETWEEN_THRESHOLDS = det_utils.Matcher.BETWEEN_THRESHOLDS

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors):
        _v1_to_v2_weights(state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors)

    def compute_loss(self, targets, head_outputs, matched_idxs):
        losses = []
        for target, logits, matched in zip(targets, head_outputs["cls_logits"], matched_idxs):
            foreground = matched >= 0
            num_foreground = int(foreground.sum())
            gt_classes = ember.zeros_like(logits)
            gt_classes[ember.where(foreground)[0], target["labels"][matched[foreground]]] = 1.0
            valid = matched != self.BETWEEN_THRESHOLDS
            losses.append(
                sigmoid_focal_loss(logits[valid], gt_classes[valid], reduction="sum") / max(1, num_foreground)
            )
        return _sum(losses) / len(targets)

    def forward(self, x):
        return ember.cat([_flatten_levels(self.cls_logits(self.conv(f)), self.num_classes) for f in x], dim=1)


class RetinaNetRegressionHead(nn.Module):
    """Four 3x3 conv (+ norm) + ReLU layers and a 3x3 conv to num_anchors * 4 box deltas; the loss (l1 by default,
    giou for v2) over the foreground anchors, per image divided by their number."""

    _version = 2

    def __init__(self, in_channels, num_anchors, norm_layer=None):
        super().__init__()
        self.conv = nn.Sequential(
            *[Conv2dNormActivation(in_channels, in_channels, norm_layer=norm_layer) for _ in range(4)]
        )
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1, padding=1)
        nn.init.normal_(self.bbox_reg.weight, std=0.01)
        nn.init.zeros_(self.bbox_reg.bias)
        for layer in self.conv.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.normal_(layer.weight, std=0.01)
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self._loss_type = "l1"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors):
        _v1_to_v2_weights(state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        losses = []
        for target, regression, anchors_i, matched in zip(
            targets, head_outputs["bbox_regression"], anchors, matched_idxs
        ):
            fg = ember.where(matched >= 0)[0]
            matched_boxes = target["boxes"][matched[fg]]
            loss = _box_loss(self._loss_type, self.box_coder, anchors_i[fg, :], matched_boxes, regression[fg, :])
            losses.append(loss / max(1, fg.numel()))
        return _sum(losses) / max(1, len(targets))

    def forward(self, x):
        return ember.cat([_flatten_levels(self.bbox_reg(self.conv(f)), 4) for f in x], dim=1)


def _sum(x):
    res = x[0]
    for i in x[1:]:
        res = res + i
    return res


class RetinaNet(DetectionMixin, nn.Module):
    """RetinaNet on a backbone with ``out_channels``, with torchvision's arguments and defaults (min_size=800,
    max_size=1333, image_mean/std, anchor_generator, head, proposal_matcher, score_thresh=0.05, nms_thresh=0.5,
    detections_per_img=300, fg_iou_thresh=0.5, bg_iou_thresh=0.4, topk_candidates=1000; other keyword arguments go
    to GeneralizedRCNNTransform). Eval: a dict per image ("boxes", "scores", "labels"); training: {"classification",
    "bbox_regression"}."""

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
        proposal_matcher=None,
        score_thresh=0.05,
        nms_thresh=0.5,
        detections_per_img=300,
        fg_iou_thresh=0.5,
        bg_iou_thresh=0.4,
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
                f"anchor_generator should be of type AnchorGenerator or None instead of {type(anchor_generator)}"
            )
        if anchor_generator is None:
            anchor_generator = _default_anchorgen()
        self.anchor_generator = anchor_generator
        if head is None:
            head = RetinaNetHead(backbone.out_channels, anchor_generator.num_anchors_per_location()[0], num_classes)
        self.head = head
        if proposal_matcher is None:
            proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True)
        self.proposal_matcher = proposal_matcher
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        image_mean = [0.485, 0.456, 0.406] if image_mean is None else image_mean
        image_std = [0.229, 0.224, 0.225] if image_std is None else image_std
        self.transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self._has_warned = False

    def eager_outputs(self, losses, detections):
        return losses if self.training else detections

    def compute_loss(self, targets, head_outputs, anchors):
        matched_idxs = []
        for anchors_i, target in zip(anchors, targets):
            if target["boxes"].numel() == 0:
                matched_idxs.append(ember.full((anchors_i.shape[0],), -1, dtype=ember.int64, device=anchors_i.device))
            else:
                matched_idxs.append(self.proposal_matcher(box_ops.box_iou(target["boxes"], anchors_i)))
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(self, head_outputs, anchors, image_shapes):
        """Per image and level: the topk_candidates best (anchor, class) scores above score_thresh, their boxes
        decoded and clipped; then NMS per class over the levels and the detections_per_img best."""
        class_logits = head_outputs["cls_logits"]
        box_regression = head_outputs["bbox_regression"]
        detections = []
        for index, image_shape in enumerate(image_shapes):
            image_boxes, image_scores, image_labels = [], [], []
            for regression, logits, anchors_l in zip(
                [br[index] for br in box_regression], [cl[index] for cl in class_logits], anchors[index]
            ):
                scores, anchor_idxs, labels = det_utils._top_candidates(
                    ember.sigmoid(logits).flatten(), logits.shape[-1], self.score_thresh, self.topk_candidates
                )
                boxes = self.box_coder.decode_single(regression[anchor_idxs], anchors_l[anchor_idxs])
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
        if self.training:
            return self.eager_outputs(self.compute_loss(targets, head_outputs, anchors), [])
        hw = [x.shape[2] * x.shape[3] for x in features]
        A = head_outputs["cls_logits"].shape[1] // sum(hw)
        per_level = [n * A for n in hw]
        split_outputs = {k: list(v.split(per_level, dim=1)) for k, v in head_outputs.items()}
        split_anchors = [list(a.split(per_level)) for a in anchors]
        detections = self.postprocess_detections(split_outputs, split_anchors, images.image_sizes)
        detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        return self.eager_outputs({}, detections)


@register_model()
def retinanet_resnet50_fpn(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=_WEIGHTS_OF["resnet50"].IMAGENET1K_V1,
    trainable_backbone_layers=None,
    **kwargs,
):
    """RetinaNet with a ResNet-50-FPN backbone (P3-P7). weights: RetinaNet_ResNet50_FPN_Weights; weights_backbone:
    ResNet50_Weights (IMAGENET1K_V1 by default, read from the hub cache; None for random)."""
    weights, weights_backbone, num_classes = _resolve_weights(
        "retinanet_resnet50_fpn", "resnet50", weights, weights_backbone, num_classes, kwargs
    )
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(
        backbone, trainable_backbone_layers, returned_layers=[2, 3, 4], extra_blocks=LastLevelP6P7(256, 256)
    )
    model = _load(RetinaNet(backbone, num_classes, **kwargs), weights, progress)
    if weights is not None and weights.name == "COCO_V1":
        overwrite_eps(model, 0.0)
    return model


@register_model()
def retinanet_resnet50_fpn_v2(
    *, weights=None, progress=True, num_classes=None, weights_backbone=None, trainable_backbone_layers=None, **kwargs
):
    """RetinaNet v2: P6 from C5, group norm in the heads and the GIoU box loss. weights:
    RetinaNet_ResNet50_FPN_V2_Weights; weights_backbone: ResNet50_Weights."""
    weights, weights_backbone, num_classes = _resolve_weights(
        "retinanet_resnet50_fpn_v2", "resnet50", weights, weights_backbone, num_classes, kwargs
    )
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    backbone = resnet50(weights=weights_backbone, progress=progress)
    backbone = _resnet_fpn_extractor(
        backbone, trainable_backbone_layers, returned_layers=[2, 3, 4], extra_blocks=LastLevelP6P7(2048, 256)
    )
    anchor_generator = _default_anchorgen()
    head = RetinaNetHead(
        backbone.out_channels,
        anchor_generator.num_anchors_per_location()[0],
        num_classes,
        norm_layer=functools.partial(nn.GroupNorm, 32),
    )
    head.regression_head._loss_type = "giou"
    model = RetinaNet(backbone, num_classes, anchor_generator=anchor_generator, head=head, **kwargs)
    return _load(model, weights, progress)
