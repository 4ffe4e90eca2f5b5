"""Lite R-ASPP (Howard et al., 2019, "Searching for MobileNetV3") on a dilated MobileNetV3-Large
(torchvision.models.segmentation.lraspp)."""

from collections import OrderedDict

from .... import nn
from ....nn import functional as F
from .._api import _WEIGHTS_OF, _load, register_model
from .._predict import SegmentationMixin
from .._utils import IntermediateLayerGetter
from ..mobilenetv3 import mobilenet_v3_large
from ._utils import _resolve_segmentation
from .deeplabv3 import _mobilenet_stages

__all__ = ["LRASPP", "lraspp_mobilenet_v3_large"]


class LRASPP(SegmentationMixin, nn.Module):
    """Lite R-ASPP: backbone returning {"low", "high"} features and an LRASPPHead; forward returns {"out": ...} at
    the input's size.

    Args:
        backbone (nn.Module): returns an OrderedDict with "high" (low resolution) and "low" (high resolution) maps.
        low_channels (int), high_channels (int): their channels.
        num_classes (int): output classes, background included.
        inter_channels (int): channels of the intermediate computations. Default: 128
    """

    def __init__(self, backbone, low_channels, high_channels, num_classes, inter_channels=128):
        super().__init__()
        self.backbone = backbone
        self.classifier = LRASPPHead(low_channels, high_channels, num_classes, inter_channels)

    def forward(self, input):
        out = self.classifier(self.backbone(input))
        result = OrderedDict()
        result["out"] = F.interpolate(out, size=input.shape[-2:], mode="bilinear", align_corners=False)
        return result


class LRASPPHead(nn.Module):
    def __init__(self, low_channels, high_channels, num_classes, inter_channels):
        super().__init__()
        self.cbr = nn.Sequential(
            nn.Conv2d(high_channels, inter_channels, 1, bias=False),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(inplace=True),
        )
        self.scale = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Conv2d(high_channels, inter_channels, 1, bias=False), nn.Sigmoid()
        )
        self.low_classifier = nn.Conv2d(low_channels, num_classes, 1)
        self.high_classifier = nn.Conv2d(inter_channels, num_classes, 1)

    def forward(self, input):
        low, high = input["low"], input["high"]
        x = self.cbr(high) * self.scale(high)
        x = F.interpolate(x, size=low.shape[-2:], mode="bilinear", align_corners=False)
        return self.low_classifier(low) + self.high_classifier(x)


@register_model()
def lraspp_mobilenet_v3_large(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    weights_backbone=_WEIGHTS_OF["mobilenet_v3_large"].IMAGENET1K_V1,
    **kwargs,
):
    """Lite R-ASPP with a dilated MobileNetV3-Large backbone. weights: LRASPP_MobileNet_V3_Large_Weights;
    weights_backbone: MobileNet_V3_Large_Weights (IMAGENET1K_V1 by default; None for random)."""
    if kwargs.pop("aux_loss", False):
        raise NotImplementedError("This model does not use auxiliary loss")
    weights, weights_backbone, num_classes, _ = _resolve_segmentation(
        "lraspp_mobilenet_v3_large", "mobilenet_v3_large", weights, weights_backbone, num_classes, None, kwargs
    )
    features = mobilenet_v3_large(weights=weights_backbone, dilated=True).features
    stages = _mobilenet_stages(features)
    low_pos, high_pos = stages[-4], stages[-1]  # C2 (output stride 8) and C5 (output stride 16)
    low_channels, high_channels = features[low_pos].out_channels, features[high_pos].out_channels
    backbone = IntermediateLayerGetter(features, return_layers={str(low_pos): "low", str(high_pos): "high"})
    return _load(LRASPP(backbone, low_channels, high_channels, num_classes), weights, progress)
