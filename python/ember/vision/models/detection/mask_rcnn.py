"""Mask R-CNN (He et al., 2017) with torchvision 0.29's builders and state_dict keys
(torchvision.models.detection.mask_rcnn)."""

from collections import OrderedDict

from .... import nn
from ...ops import Conv2dNormActivation, FrozenBatchNorm2d, MultiScaleRoIAlign
from .._api import _WEIGHTS_OF, _load, register_model
from ..resnet import resnet50
from ._utils import _resolve_weights, overwrite_eps
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import FasterRCNN, FastRCNNConvFCHead, _default_anchorgen
from .rpn import RPNHead

__all__ = ["MaskRCNN", "MaskRCNNHeads", "MaskRCNNPredictor", "maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2"]


class MaskRCNN(FasterRCNN):
    """Faster R-CNN with a mask branch: mask_roi_pool (14 x 14 RoI Align on the FPN), mask_head (four 3x3 convs)
    and mask_predictor (a 2x transposed conv and per-class mask logits). FasterRCNN's arguments come first, in its
    order. Eval adds "masks" [K, 1, H, W] (probabilities pasted into the image) to each detection dict; training
    adds "loss_mask" (targets need "masks" [N, H, W] uint8)."""

    def __init__(
        self, backbone, num_classes=None, *args, mask_roi_pool=None, mask_head=None, mask_predictor=None, **kw
    ):
        if not isinstance(mask_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError(
                f"mask_roi_pool should be of type MultiScaleRoIAlign or None instead of {type(mask_roi_pool)}"
            )
        if num_classes is not None and mask_predictor is not None:
            raise ValueError("num_classes should be None when mask_predictor is specified")
        out_channels = backbone.out_channels
        if mask_roi_pool is None:
            mask_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=14, sampling_ratio=2)
        if mask_head is None:
            mask_head = MaskRCNNHeads(out_channels, (256, 256, 256, 256), 1)
        if mask_predictor is None:
            mask_predictor = MaskRCNNPredictor(256, 256, num_classes)
        super().__init__(backbone, num_classes, *args, **kw)
        self.roi_heads.mask_roi_pool = mask_roi_pool
        self.roi_heads.mask_head = mask_head
        self.roi_heads.mask_predictor = mask_predictor


class MaskRCNNHeads(nn.Sequential):
    """3x3 conv (+ norm) + ReLU layers of the given widths and dilation."""

    _version = 2

    def __init__(self, in_channels, layers, dilation, norm_layer=None):
        blocks, previous = [], in_channels
        for width in layers:
            blocks.append(
                Conv2dNormActivation(
                    previous, width, kernel_size=3, stride=1, padding=dilation, dilation=dilation, norm_layer=norm_layer
                )
            )
            previous = width
        super().__init__(*blocks)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors):
        # The first checkpoints name the convs "mask_fcn1" ... (torchvision tells them by version metadata).
        for i in range(len(self)):
            for kind in ("weight", "bias"):
                old = f"{prefix}mask_fcn{i + 1}.{kind}"
                if old in state_dict:
                    state_dict[f"{prefix}{i}.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors)


class MaskRCNNPredictor(nn.Sequential):
    """A 2x2 stride-2 transposed conv, ReLU and a 1x1 conv to one mask logit map per class."""

    def __init__(self, in_channels, dim_reduced, num_classes):
        super().__init__(
            OrderedDict(
                [
                    ("conv5_mask", nn.ConvTranspose2d(in_channels, dim_reduced, 2, 2, 0)),
                    ("relu", nn.ReLU(inplace=True)),
                    ("mask_fcn_logits", nn.Conv2d(dim_reduced, num_classes, 1, 1, 0)),
                ]
            )
        )
        for name, param in self.named_parameters():
            if "weight" in name:
                nn.init.kaiming_normal_(param, mode="fan_out", nonlinearity="relu")


@register_model()
def maskrcnn_resnet50_fpn(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=_WEIGHTS_OF["resnet50"].IMAGENET1K_V1,
    trainable_backbone_layers=None,
    **kwargs,
):
    """Mask R-CNN with a ResNet-50-FPN backbone. weights: MaskRCNN_ResNet50_FPN_Weights; weights_backbone:
    ResNet50_Weights (IMAGENET1K_V1 by default, read from the hub cache; None for random)."""
    weights, weights_backbone, num_classes = _resolve_weights(
        "maskrcnn_resnet50_fpn", "resnet50", weights, weights_backbone, num_classes, kwargs
    )
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    model = _load(MaskRCNN(backbone, num_classes=num_classes, **kwargs), weights, progress)
    if weights is not None and weights.name == "COCO_V1":
        overwrite_eps(model, 0.0)
    return model


@register_model()
def maskrcnn_resnet50_fpn_v2(
    *, weights=None, progress=True, num_classes=None, weights_backbone=None, trainable_backbone_layers=None, **kwargs
):
    """Mask R-CNN v2: Faster R-CNN v2's backbone and heads and a mask head with batch norm. weights:
    MaskRCNN_ResNet50_FPN_V2_Weights; weights_backbone: ResNet50_Weights."""
    weights, weights_backbone, num_classes = _resolve_weights(
        "maskrcnn_resnet50_fpn_v2", "resnet50", weights, weights_backbone, num_classes, kwargs
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
    mask_head = MaskRCNNHeads(backbone.out_channels, [256, 256, 256, 256], 1, norm_layer=nn.BatchNorm2d)
    model = MaskRCNN(
        backbone,
        num_classes=num_classes,
        rpn_anchor_generator=anchor_generator,
        rpn_head=rpn_head,
        box_head=box_head,
        mask_head=mask_head,
        **kwargs,
    )
    return _load(model, weights, progress)
