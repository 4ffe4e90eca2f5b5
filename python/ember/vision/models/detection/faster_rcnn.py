"""Faster R-CNN (Ren et al., 2015) with torchvision 0.29's builders and state_dict keys
(torchvision.models.detection.faster_rcnn)."""

from .... import nn
from ....nn import functional as F
from ...ops import Conv2dNormActivation, FrozenBatchNorm2d, MultiScaleRoIAlign
from .._api import _WEIGHTS_OF, _load, register_model
from ..mobilenetv3 import mobilenet_v3_large
from ..resnet import resnet50
from ._utils import _resolve_weights, overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import _mobilenet_extractor, _resnet_fpn_extractor, _validate_trainable_layers
from .generalized_rcnn import GeneralizedRCNN
from .roi_heads import RoIHeads
from .rpn import RegionProposalNetwork, RPNHead
from .transform import GeneralizedRCNNTransform

__all__ = [
    "FasterRCNN",
    "TwoMLPHead",
    "FastRCNNConvFCHead",
    "FastRCNNPredictor",
    "fasterrcnn_resnet50_fpn",
    "fasterrcnn_resnet50_fpn_v2",
    "fasterrcnn_mobilenet_v3_large_fpn",
    "fasterrcnn_mobilenet_v3_large_320_fpn",
]


def _default_anchorgen():
    sizes = ((32,), (64,), (128,), (256,), (512,))
    return AnchorGenerator(sizes, ((0.5, 1.0, 2.0),) * len(sizes))


class FasterRCNN(GeneralizedRCNN):
    """Faster R-CNN on a backbone with an ``out_channels`` attribute (the same for all its feature maps), with
    torchvision's arguments and defaults: min_size=800, max_size=1333, image_mean/std (ImageNet's), the RPN's
    (rpn_anchor_generator, rpn_head, rpn_pre_nms_top_n_train=2000, rpn_pre_nms_top_n_test=1000,
    rpn_post_nms_top_n_train=2000, rpn_post_nms_top_n_test=1000, rpn_nms_thresh=0.7, rpn_fg_iou_thresh=0.7,
    rpn_bg_iou_thresh=0.3, rpn_batch_size_per_image=256, rpn_positive_fraction=0.5, rpn_score_thresh=0.0) and the
    box heads' (box_roi_pool, box_head, box_predictor, box_score_thresh=0.05, box_nms_thresh=0.5,
    box_detections_per_img=100, box_fg_iou_thresh=0.5, box_bg_iou_thresh=0.5, box_batch_size_per_image=512,
    box_positive_fraction=0.25, bbox_reg_weights=None); other keyword arguments go to GeneralizedRCNNTransform.

    Eval: model(images) -> a dict per image with "boxes" (x1, y1, x2, y2 in the input's pixels), "labels", "scores".
    Training: model(images, targets) -> {"loss_classifier", "loss_box_reg", "loss_objectness", "loss_rpn_box_reg"}.
    """

    def __init__(
        self,
        backbone,
        num_classes=None,
        min_size=800,
        max_size=1333,
        image_mean=None,
        image_std=None,
        rpn_anchor_generator=None,
        rpn_head=None,
        rpn_pre_nms_top_n_train=2000,
        rpn_pre_nms_top_n_test=1000,
        rpn_post_nms_top_n_train=2000,
        rpn_post_nms_top_n_test=1000,
        rpn_nms_thresh=0.7,
        rpn_fg_iou_thresh=0.7,
        rpn_bg_iou_thresh=0.3,
        rpn_batch_size_per_image=256,
        rpn_positive_fraction=0.5,
        rpn_score_thresh=0.0,
        box_roi_pool=None,
        box_head=None,
        box_predictor=None,
        box_score_thresh=0.05,
        box_nms_thresh=0.5,
        box_detections_per_img=100,
        box_fg_iou_thresh=0.5,
        box_bg_iou_thresh=0.5,
        box_batch_size_per_image=512,
        box_positive_fraction=0.25,
        bbox_reg_weights=None,
        **kwargs,
    ):
        if not hasattr(backbone, "out_channels"):
            raise ValueError(
                "backbone should contain an attribute out_channels specifying the number of output channels "
                "(assumed to be the same for all the levels)"
            )
        if not isinstance(rpn_anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(
                "rpn_anchor_generator should be of type AnchorGenerator or None instead of "
                f"{type(rpn_anchor_generator)}"
            )
        if not isinstance(box_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError(
                f"box_roi_pool should be of type MultiScaleRoIAlign or None instead of {type(box_roi_pool)}"
            )
        if num_classes is not None:
            if box_predictor is not None:
                raise ValueError("num_classes should be None when box_predictor is specified")
        elif box_predictor is None:
            raise ValueError("num_classes should not be None when box_predictor is not specified")
        out_channels = backbone.out_channels
        if rpn_anchor_generator is None:
            rpn_anchor_generator = _default_anchorgen()
        if rpn_head is None:
            rpn_head = RPNHead(out_channels, rpn_anchor_generator.num_anchors_per_location()[0])
        rpn = RegionProposalNetwork(
            rpn_anchor_generator,
            rpn_head,
            rpn_fg_iou_thresh,
            rpn_bg_iou_thresh,
            rpn_batch_size_per_image,
            rpn_positive_fraction,
            dict(training=rpn_pre_nms_top_n_train, testing=rpn_pre_nms_top_n_test),
            dict(training=rpn_post_nms_top_n_train, testing=rpn_post_nms_top_n_test),
            rpn_nms_thresh,
            score_thresh=rpn_score_thresh,
        )
        if box_roi_pool is None:
            box_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=7, sampling_ratio=2)
        if box_head is None:
            resolution = box_roi_pool.output_size[0]
            box_head = TwoMLPHead(out_channels * resolution**2, 1024)
        if box_predictor is None:
            box_predictor = FastRCNNPredictor(1024, num_classes)
        roi_heads = RoIHeads(
            box_roi_pool,
            box_head,
            box_predictor,
            box_fg_iou_thresh,
            box_bg_iou_thresh,
            box_batch_size_per_image,
            box_positive_fraction,
            bbox_reg_weights,
            box_score_thresh,
            box_nms_thresh,
            box_detections_per_img,
        )
        image_mean = [0.485, 0.456, 0.406] if image_mean is None else image_mean
        image_std = [0.229, 0.224, 0.225] if image_std is None else image_std
        transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        super().__init__(backbone, rpn, roi_heads, transform)


class TwoMLPHead(nn.Module):
    """Two fully connected layers with ReLU on the flattened pooled features (the FPN box head)."""

    def __init__(self, in_channels, representation_size):
        super().__init__()
        self.fc6 = nn.Linear(in_channels, representation_size)
        self.fc7 = nn.Linear(representation_size, representation_size)

    def forward(self, x):
        return F.relu(self.fc7(F.relu(self.fc6(x.flatten(start_dim=1)))))


class FastRCNNConvFCHead(nn.Sequential):
    """Conv-norm-ReLU layers (conv_layers channels), flatten, then Linear + ReLU layers (fc_layers) on pooled
    features of input_size (C, H, W): Faster R-CNN v2's box head."""

    def __init__(self, input_size, conv_layers, fc_layers, norm_layer=None):
        in_channels, in_height, in_width = input_size
        blocks, previous = [], in_channels
        for current in conv_layers:
            blocks.append(Conv2dNormActivation(previous, current, norm_layer=norm_layer))
            previous = current
        blocks.append(nn.Flatten())
        previous = previous * in_height * in_width
        for current in fc_layers:
            blocks.append(nn.Linear(previous, current))
            blocks.append(nn.ReLU(inplace=True))
            previous = current
        super().__init__(*blocks)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)


class FastRCNNPredictor(nn.Module):
    """Class scores and class-specific box deltas from the box head's features."""

    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.cls_score = nn.Linear(in_channels, num_classes)
        self.bbox_pred = nn.Linear(in_channels, num_classes * 4)

    def forward(self, x):
        if x.dim() == 4 and list(x.shape[2:]) != [1, 1]:
            raise AssertionError(
                f"x has the wrong shape, expecting the last two dimensions to be [1,1] instead of {list(x.shape[2:])}"
            )
        x = x.flatten(start_dim=1)
        return self.cls_score(x), self.bbox_pred(x)


@register_model()
def fasterrcnn_resnet50_fpn(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=_WEIGHTS_OF["resnet50"].IMAGENET1K_V1,
    trainable_backbone_layers=None,
    **kwargs,
):
    """Faster R-CNN with a ResNet-50-FPN backbone. weights: FasterRCNN_ResNet50_FPN_Weights; weights_backbone:
    ResNet50_Weights (IMAGENET1K_V1 by default, read from the hub cache; None for random, then the backbone has
    trainable BatchNorm2d instead of FrozenBatchNorm2d); trainable_backbone_layers: 0-5 (3 with weights)."""
    weights, weights_backbone, num_classes = _resolve_weights(
        "fasterrcnn_resnet50_fpn", "resnet50", weights, weights_backbone, num_classes, kwargs
    )
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    model = _load(FasterRCNN(backbone, num_classes=num_classes, **kwargs), weights, progress)
    if weights is not None and weights.name == "COCO_V1":
        overwrite_eps(model, 0.0)  # the first checkpoints were trained with eps 0
    return model


@register_model()
def fasterrcnn_resnet50_fpn_v2(
    *, weights=None, progress=True, num_classes=None, weights_backbone=None, trainable_backbone_layers=None, **kwargs
):
    """Faster R-CNN v2 (Li et al., 2021): ResNet-50-FPN with batch norm in the FPN, a two-conv RPN head and a
    four-conv one-fc box head. weights: FasterRCNN_ResNet50_FPN_V2_Weights; weights_backbone: ResNet50_Weights."""
    weights, weights_backbone, num_classes = _resolve_weights(
        "fasterrcnn_resnet50_fpn_v2", "resnet50", weights, weights_backbone, num_classes, kwargs
    )
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    backbone = resnet50(weights=weights_backbone, progress=progress)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers, norm_layer=nn.BatchNorm2d)
    anchor_generator = _default_anchorgen()
    rpn_head = RPNHead(backbone.out_channels, anchor_generator.num_anchors_per_location()[0], conv_depth=2)
    box_head = FastRCNNConvFCHead(
        (backbone.out_channels, 7, 7), [256, 256, 256, 256], [1024], norm_layer=nn.BatchNorm2d
    )
    model = FasterRCNN(
        backbone,
        num_classes=num_classes,
        rpn_anchor_generator=anchor_generator,
        rpn_head=rpn_head,
        box_head=box_head,
        **kwargs,
    )
    return _load(model, weights, progress)


def _fasterrcnn_mobilenet_v3_large_fpn(name, weights, progress, num_classes, weights_backbone, trainable, kwargs):
    weights, weights_backbone, num_classes = _resolve_weights(
        name, "mobilenet_v3_large", weights, weights_backbone, num_classes, kwargs
    )
    is_trained = weights is not None or weights_backbone is not None
    trainable = _validate_trainable_layers(is_trained, trainable, 6, 3)
    norm_layer = FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = mobilenet_v3_large(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _mobilenet_extractor(backbone, True, trainable)
    sizes = ((32, 64, 128, 256, 512),) * 3
    anchor_generator = AnchorGenerator(sizes, ((0.5, 1.0, 2.0),) * len(sizes))
    model = FasterRCNN(backbone, num_classes, rpn_anchor_generator=anchor_generator, **kwargs)
    return _load(model, weights, progress)


@register_model()
def fasterrcnn_mobilenet_v3_large_320_fpn(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=_WEIGHTS_OF["mobilenet_v3_large"].IMAGENET1K_V1,
    trainable_backbone_layers=None,
    **kwargs,
):
    """Faster R-CNN with a MobileNetV3-Large-FPN backbone tuned for 320-pixel images (min_size=320, max_size=640,
    150 proposals, rpn_score_thresh=0.05). weights: FasterRCNN_MobileNet_V3_Large_320_FPN_Weights."""
    kwargs = {
        "min_size": 320,
        "max_size": 640,
        "rpn_pre_nms_top_n_test": 150,
        "rpn_post_nms_top_n_test": 150,
        "rpn_score_thresh": 0.05,
        **kwargs,
    }
    return _fasterrcnn_mobilenet_v3_large_fpn(
        "fasterrcnn_mobilenet_v3_large_320_fpn",
        weights,
        progress,
        num_classes,
        weights_backbone,
        trainable_backbone_layers,
        kwargs,
    )


@register_model()
def fasterrcnn_mobilenet_v3_large_fpn(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=_WEIGHTS_OF["mobilenet_v3_large"].IMAGENET1K_V1,
    trainable_backbone_layers=None,
    **kwargs,
):
    """Faster R-CNN with a MobileNetV3-Large-FPN backbone (rpn_score_thresh=0.05). weights:
    FasterRCNN_MobileNet_V3_Large_FPN_Weights; weights_backbone: MobileNet_V3_Large_Weights."""
    kwargs = {"rpn_score_thresh": 0.05, **kwargs}
    return _fasterrcnn_mobilenet_v3_large_fpn(
        "fasterrcnn_mobilenet_v3_large_fpn",
        weights,
        progress,
        num_classes,
        weights_backbone,
        trainable_backbone_layers,
        kwargs,
    )
