"""SSD (Liu et al., 2016) with torchvision 0.29's builder and state_dict keys (torchvision.models.detection.ssd)."""

import warnings
from collections import OrderedDict

import ember

from .... import nn
from ....nn import functional as F
from ...ops import boxes as box_ops
from .._api import _WEIGHTS_OF, _load, register_model
from .._predict import DetectionMixin
from ..vgg import vgg16
from . import _utils as det_utils
from ._utils import _resolve_weights
from .anchor_utils import DefaultBoxGenerator
from .backbone_utils import _validate_trainable_layers
from .generalized_rcnn import _check_degenerate, _check_targets
from .retinanet import _flatten_levels
from .transform import GeneralizedRCNNTransform

__all__ = ["SSD", "SSDHead", "SSDScoringHead", "ssd300_vgg16"]


def _xavier_init(conv):
    for layer in conv.modules():
        if isinstance(layer, nn.Conv2d):
            nn.init.xavier_uniform_(layer.weight)
            if layer.bias is not None:
                nn.init.constant_(layer.bias, 0.0)


class SSDHead(nn.Module):
    """A classification and a regression 3x3 conv per feature map."""

    def __init__(self, in_channels, num_anchors, num_classes):
        super().__init__()
        self.classification_head = SSDClassificationHead(in_channels, num_anchors, num_classes)
        self.regression_head = SSDRegressionHead(in_channels, num_anchors)

    def forward(self, x):
        return {"bbox_regression": self.regression_head(x), "cls_logits": self.classification_head(x)}


class SSDScoringHead(nn.Module):
    """Applies module_list[i] to feature map i and concatenates the outputs as [N, anchors, num_columns]."""

    def __init__(self, module_list, num_columns):
        super().__init__()
        self.module_list = module_list
        self.num_columns = num_columns

    def _get_result_from_module_list(self, x, idx):
        return self.module_list[idx](x)

    def forward(self, x):
        return ember.cat(
            [_flatten_levels(self._get_result_from_module_list(f, i), self.num_columns) for i, f in enumerate(x)],
            dim=1,
        )


class SSDClassificationHead(SSDScoringHead):
    def __init__(self, in_channels, num_anchors, num_classes):
        cls_logits = nn.ModuleList(
            [nn.Conv2d(c, num_classes * a, kernel_size=3, padding=1) for c, a in zip(in_channels, num_anchors)]
        )
        _xavier_init(cls_logits)
        super().__init__(cls_logits, num_classes)


class SSDRegressionHead(SSDScoringHead):
    def __init__(self, in_channels, num_anchors):
        bbox_reg = nn.ModuleList(
            [nn.Conv2d(c, 4 * a, kernel_size=3, padding=1) for c, a in zip(in_channels, num_anchors)]
        )
        _xavier_init(bbox_reg)
        super().__init__(bbox_reg, 4)


class SSD(DetectionMixin, nn.Module):
    """SSD on a backbone returning its feature maps, with default boxes from anchor_generator, images resized to
    size (w, h), and torchvision's arguments and defaults (image_mean/std, head, score_thresh=0.01,
    nms_thresh=0.45, detections_per_img=200, iou_thresh=0.5, topk_candidates=400, positive_fraction=0.25). Eval: a
    dict per image ("boxes", "scores", "labels"); training: {"bbox_regression", "classification"} with hard
    negative mining (three negatives per positive)."""

    def __init__(
        self,
        backbone,
        anchor_generator,
        size,
        num_classes,
        image_mean=None,
        image_std=None,
        head=None,
        score_thresh=0.01,
        nms_thresh=0.45,
        detections_per_img=200,
        iou_thresh=0.5,
        topk_candidates=400,
        positive_fraction=0.25,
        **kwargs,
    ):
        super().__init__()
        self.backbone = backbone
        self.anchor_generator = anchor_generator
        self.box_coder = det_utils.BoxCoder(weights=(10.0, 10.0, 5.0, 5.0))
        if head is None:
            if hasattr(backbone, "out_channels"):
                out_channels = backbone.out_channels
            else:
                out_channels = det_utils.retrieve_out_channels(backbone, size)
            if len(out_channels) != len(anchor_generator.aspect_ratios):
                raise ValueError(
                    f"The length of the output channels from the backbone ({len(out_channels)}) do not match the "
                    f"length of the anchor generator aspect ratios ({len(anchor_generator.aspect_ratios)})"
                )
            head = SSDHead(out_channels, self.anchor_generator.num_anchors_per_location(), num_classes)
        self.head = head
        self.proposal_matcher = det_utils.SSDMatcher(iou_thresh)
        image_mean = [0.485, 0.456, 0.406] if image_mean is None else image_mean
        image_std = [0.229, 0.224, 0.225] if image_std is None else image_std
        self.transform = GeneralizedRCNNTransform(
            min(size), max(size), image_mean, image_std, size_divisible=1, fixed_size=size, **kwargs
        )
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self.neg_to_pos_ratio = (1.0 - positive_fraction) / positive_fraction
        self._has_warned = False

    def eager_outputs(self, losses, detections):
        return losses if self.training else detections

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        """Smooth L1 on the positives' encoded boxes, and cross entropy on the positives and the hardest
        negatives (neg_to_pos_ratio per positive, by loss), both divided by the number of positives."""
        bbox_regression = head_outputs["bbox_regression"]
        cls_logits = head_outputs["cls_logits"]
        num_foreground = 0
        bbox_loss, cls_targets = [], []
        for target, regression, logits, anchors_i, matched in zip(
            targets, bbox_regression, cls_logits, anchors, matched_idxs
        ):
            fg = ember.where(matched >= 0)[0]
            fg_matched = matched[fg]
            num_foreground += fg_matched.numel()
            target_regression = self.box_coder.encode_single(target["boxes"][fg_matched], anchors_i[fg, :])
            bbox_loss.append(F.smooth_l1_loss(regression[fg, :], target_regression, reduction="sum"))
            labels = target["labels"]
            gt_classes = ember.zeros((logits.shape[0],), dtype=labels.dtype, device=labels.device)
            gt_classes[fg] = labels[fg_matched]
            cls_targets.append(gt_classes)
        bbox_loss = ember.stack(bbox_loss)
        cls_targets = ember.stack(cls_targets)
        num_classes = cls_logits.shape[-1]
        cls_loss = F.cross_entropy(
            cls_logits.reshape(-1, num_classes), cls_targets.reshape(-1), reduction="none"
        ).reshape(cls_targets.shape)
        foreground = cls_targets > 0
        num_negative = self.neg_to_pos_ratio * foreground.sum(1, keepdim=True)
        negative_loss = cls_loss.clone()
        negative_loss[foreground] = -float("inf")  # positives are never negatives
        _, idx = negative_loss.sort(1, descending=True)
        background = idx.sort(1)[1] < num_negative  # the rank of each anchor's loss
        N = max(1, num_foreground)
        return {
            "bbox_regression": bbox_loss.sum() / N,
            "classification": (cls_loss[foreground].sum() + cls_loss[background].sum()) / N,
        }

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
            matched_idxs = []
            for anchors_i, target in zip(anchors, targets):
                if target["boxes"].numel() == 0:
                    matched_idxs.append(
                        ember.full((anchors_i.shape[0],), -1, dtype=ember.int64, device=anchors_i.device)
                    )
                else:
                    matched_idxs.append(self.proposal_matcher(box_ops.box_iou(target["boxes"], anchors_i)))
            return self.eager_outputs(self.compute_loss(targets, head_outputs, anchors, matched_idxs), [])
        detections = self.postprocess_detections(head_outputs, anchors, images.image_sizes)
        detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        return self.eager_outputs({}, detections)

    def postprocess_detections(self, head_outputs, image_anchors, image_shapes):
        """Per image: softmax scores; per class (background excluded) the topk_candidates best above score_thresh;
        then NMS per class and the detections_per_img best."""
        pred_scores = F.softmax(head_outputs["cls_logits"], dim=-1)
        num_classes = pred_scores.shape[-1]
        detections = []
        for boxes, scores, anchors, image_shape in zip(
            head_outputs["bbox_regression"], pred_scores, image_anchors, image_shapes
        ):
            boxes = box_ops.clip_boxes_to_image(self.box_coder.decode_single(boxes, anchors), image_shape)
            image_boxes, image_scores, image_labels = [], [], []
            for label in range(1, num_classes):
                score = scores[:, label]
                keep = score > self.score_thresh
                score, box = score[keep], boxes[keep]
                score, idxs = score.topk(det_utils._topk_min(score, self.topk_candidates, 0))
                image_boxes.append(box[idxs])
                image_scores.append(score)
                image_labels.append(ember.full_like(score, fill_value=label, dtype=ember.int64))
            image_boxes = ember.cat(image_boxes, dim=0)
            image_scores = ember.cat(image_scores, dim=0)
            image_labels = ember.cat(image_labels, dim=0)
            keep = box_ops.batched_nms(image_boxes, image_scores, image_labels, self.nms_thresh)
            keep = keep[: self.detections_per_img]
            detections.append({"boxes": image_boxes[keep], "scores": image_scores[keep], "labels": image_labels[keep]})
        return detections


class SSDFeatureExtractorVGG(nn.Module):
    """VGG's features up to conv4_3 (L2-normalized and scaled by a learned weight, 20 initially), then fc6/fc7 as
    convolutions and the extra blocks: six (seven when highres) feature maps."""

    def __init__(self, backbone, highres):
        super().__init__()
        _, _, maxpool3_pos, maxpool4_pos, _ = (i for i, layer in enumerate(backbone) if isinstance(layer, nn.MaxPool2d))
        backbone[maxpool3_pos].ceil_mode = True
        self.scale_weight = nn.Parameter(ember.ones(512) * 20)
        self.features = nn.Sequential(*backbone[:maxpool4_pos])

        def block(cin, mid, cout, **conv):
            return nn.Sequential(
                nn.Conv2d(cin, mid, kernel_size=1),
                nn.ReLU(inplace=True),
                nn.Conv2d(mid, cout, **conv),
                nn.ReLU(inplace=True),
            )

        extra = nn.ModuleList(
            [
                block(1024, 256, 512, kernel_size=3, padding=1, stride=2),
                block(512, 128, 256, kernel_size=3, padding=1, stride=2),
                block(256, 128, 256, kernel_size=3),
                block(256, 128, 256, kernel_size=3),
            ]
        )
        if highres:
            extra.append(block(256, 128, 256, kernel_size=4))
        _xavier_init(extra)
        fc = nn.Sequential(
            nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=False),
            nn.Conv2d(in_channels=512, out_channels=1024, kernel_size=3, padding=6, dilation=6),
            nn.ReLU(inplace=True),
            nn.Conv2d(in_channels=1024, out_channels=1024, kernel_size=1),
            nn.ReLU(inplace=True),
        )
        _xavier_init(fc)
        extra.insert(0, nn.Sequential(*backbone[maxpool4_pos:-1], fc))
        self.extra = extra

    def forward(self, x):
        x = self.features(x)
        output = [self.scale_weight.reshape(1, -1, 1, 1) * F.normalize(x)]
        for block in self.extra:
            x = block(x)
            output.append(x)
        return OrderedDict([(str(i), v) for i, v in enumerate(output)])


def _vgg_extractor(backbone, highres, trainable_layers):
    backbone = backbone.features
    stage_indices = [0] + [i for i, b in enumerate(backbone) if isinstance(b, nn.MaxPool2d)][:-1]
    num_stages = len(stage_indices)
    if not 0 <= trainable_layers <= num_stages:
        raise ValueError(f"trainable_layers should be in the range [0, {num_stages}]. Instead got {trainable_layers}")
    freeze_before = len(backbone) if trainable_layers == 0 else stage_indices[num_stages - trainable_layers]
    for b in backbone[:freeze_before]:
        for parameter in b.parameters():
            parameter.requires_grad_(False)
    return SSDFeatureExtractorVGG(backbone, highres)


@register_model()
def ssd300_vgg16(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=_WEIGHTS_OF["vgg16"].IMAGENET1K_FEATURES,
    trainable_backbone_layers=None,
    **kwargs,
):
    """SSD300 with a VGG-16 backbone (input resized to 300 x 300). weights: SSD300_VGG16_Weights; weights_backbone:
    VGG16_Weights (IMAGENET1K_FEATURES by default, read from the hub cache; None for random)."""
    if "size" in kwargs:
        warnings.warn("The size of the model is already fixed; ignoring the parameter.")
    weights, weights_backbone, num_classes = _resolve_weights(
        "ssd300_vgg16", "vgg16", weights, weights_backbone, num_classes, kwargs
    )
    trainable_backbone_layers = _validate_trainable_layers(
        weights is not None or weights_backbone is not None, trainable_backbone_layers, 5, 4
    )
    backbone = _vgg_extractor(vgg16(weights=weights_backbone, progress=progress), False, trainable_backbone_layers)
    anchor_generator = DefaultBoxGenerator(
        [[2], [2, 3], [2, 3], [2, 3], [2], [2]],
        scales=[0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05],
        steps=[8, 16, 32, 64, 100, 300],
    )
    kwargs = {"image_mean": [0.48235, 0.45882, 0.40784], "image_std": [1.0 / 255.0] * 3, **kwargs}
    return _load(SSD(backbone, anchor_generator, (300, 300), num_classes, **kwargs), weights, progress)
