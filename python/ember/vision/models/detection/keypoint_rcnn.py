"""Keypoint R-CNN (Mask R-CNN's keypoint variant) with torchvision 0.29's builder and state_dict keys
(torchvision.models.detection.keypoint_rcnn)."""

from .... import nn
from ....nn import functional as F
from ...ops import FrozenBatchNorm2d, MultiScaleRoIAlign
from .._api import _WEIGHTS_OF, _load, register_model
from .._utils import _ovewrite_value_param
from ..resnet import resnet50
from ._utils import _resolve_weights, overwrite_eps
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .faster_rcnn import FasterRCNN

__all__ = ["KeypointRCNN", "KeypointRCNNHeads", "KeypointRCNNPredictor", "keypointrcnn_resnet50_fpn"]


class KeypointRCNN(FasterRCNN):
    """Faster R-CNN with a keypoint branch: keypoint_roi_pool (14 x 14), keypoint_head (eight 3x3 convs of 512) and
    keypoint_predictor (a transposed conv and 2x bilinear upsampling to num_keypoints heatmaps, 17 by default).
    min_size defaults to (640, 672, 704, 736, 768, 800) (a random one per image in training). Eval adds "keypoints"
    [K, num_keypoints, 3] and "keypoints_scores"; training adds "loss_keypoint" (targets need "keypoints")."""

    def __init__(
        self,
        backbone,
        num_classes=None,
        min_size=None,
        *args,
        keypoint_roi_pool=None,
        keypoint_head=None,
        keypoint_predictor=None,
        num_keypoints=None,
        **kwargs,
    ):
        if not isinstance(keypoint_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError(
                f"keypoint_roi_pool should be of type MultiScaleRoIAlign or None instead of {type(keypoint_roi_pool)}"
            )
        if min_size is None:
            min_size = (640, 672, 704, 736, 768, 800)
        if num_keypoints is not None:
            if keypoint_predictor is not None:
                raise ValueError("num_keypoints should be None when keypoint_predictor is specified")
        else:
            num_keypoints = 17
        out_channels = backbone.out_channels
        if keypoint_roi_pool is None:
            keypoint_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=14, sampling_ratio=2)
        if keypoint_head is None:
            keypoint_head = KeypointRCNNHeads(out_channels, tuple(512 for _ in range(8)))
        if keypoint_predictor is None:
            keypoint_predictor = KeypointRCNNPredictor(512, num_keypoints)
        super().__init__(backbone, num_classes, min_size, *args, **kwargs)
        self.roi_heads.keypoint_roi_pool = keypoint_roi_pool
        self.roi_heads.keypoint_head = keypoint_head
        self.roi_heads.keypoint_predictor = keypoint_predictor


class KeypointRCNNHeads(nn.Sequential):
    """3x3 conv + ReLU layers of the given widths."""

    def __init__(self, in_channels, layers):
        blocks, previous = [], in_channels
        for width in layers:
            blocks.append(nn.Conv2d(previous, width, 3, stride=1, padding=1))
            blocks.append(nn.ReLU(inplace=True))
            previous = width
        super().__init__(*blocks)
        for m in self.children():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)


class KeypointRCNNPredictor(nn.Module):
    """A 4x4 stride-2 transposed conv to num_keypoints maps, then 2x bilinear upsampling."""

    def __init__(self, in_channels, num_keypoints):
        super().__init__()
        self.kps_score_lowres = nn.ConvTranspose2d(in_channels, num_keypoints, 4, stride=2, padding=1)
        nn.init.kaiming_normal_(self.kps_score_lowres.weight, mode="fan_out", nonlinearity="relu")
        nn.init.constant_(self.kps_score_lowres.bias, 0)
        self.up_scale = 2
        self.out_channels = num_keypoints

    def forward(self, x):
        return F.interpolate(
            self.kps_score_lowres(x),
            scale_factor=float(self.up_scale),
            mode="bilinear",
            align_corners=False,
            recompute_scale_factor=False,
        )


@register_model()
def keypointrcnn_resnet50_fpn(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    num_keypoints=None,
    weights_backbone=_WEIGHTS_OF["resnet50"].IMAGENET1K_V1,
    trainable_backbone_layers=None,
    **kwargs,
):
    """Keypoint R-CNN with a ResNet-50-FPN backbone (2 classes and 17 keypoints by default). weights:
    KeypointRCNN_ResNet50_FPN_Weights (pretrained="legacy" selects COCO_LEGACY); weights_backbone: ResNet50_Weights
    (IMAGENET1K_V1 by default, read from the hub cache; None for random)."""
    if kwargs.get("pretrained") == "legacy":
        kwargs.pop("pretrained")
        weights = weights or _WEIGHTS_OF["keypointrcnn_resnet50_fpn"].COCO_LEGACY
    weights, weights_backbone, num_classes = _resolve_weights(
        "keypointrcnn_resnet50_fpn", "resnet50", weights, weights_backbone, num_classes, kwargs, default_classes=2
    )
    if weights is not None:
        num_keypoints = _ovewrite_value_param("num_keypoints", num_keypoints, len(weights.meta["keypoint_names"]))
    elif num_keypoints is None:
        num_keypoints = 17
    is_trained = weights is not None or weights_backbone is not None
    trainable_backbone_layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    backbone = _resnet_fpn_extractor(backbone, trainable_backbone_layers)
    model = _load(KeypointRCNN(backbone, num_classes, num_keypoints=num_keypoints, **kwargs), weights, progress)
    if weights is not None and weights.name == "COCO_V1":
        overwrite_eps(model, 0.0)
    return model
