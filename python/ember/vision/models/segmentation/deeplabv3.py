"""DeepLabV3 (Chen et al., 2017) on a dilated ResNet-50/101 or MobileNetV3-Large
(torchvision.models.segmentation.deeplabv3)."""

import ember

from .... import nn
from ....nn import functional as F
from .._api import _WEIGHTS_OF, _load, register_model
from .._utils import IntermediateLayerGetter
from ..mobilenetv3 import mobilenet_v3_large
from ..resnet import resnet50, resnet101
from ._utils import FCNHead, _resolve_segmentation, _SimpleSegmentationModel

__all__ = ["DeepLabV3", "DeepLabHead", "deeplabv3_resnet50", "deeplabv3_resnet101", "deeplabv3_mobilenet_v3_large"]


class DeepLabV3(_SimpleSegmentationModel):
    """DeepLabV3: backbone, DeepLabHead classifier and optional auxiliary FCNHead."""


class ASPPConv(nn.Sequential):
    def __init__(self, in_channels, out_channels, dilation):
        super().__init__(
            nn.Conv2d(in_channels, out_channels, 3, padding=dilation, dilation=dilation, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )


class ASPPPooling(nn.Sequential):
    """Image-level features: global average, 1x1 conv, batch norm, ReLU, upsampled back to the input's size."""

    def __init__(self, in_channels, out_channels):
        super().__init__(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )

    def forward(self, x):
        size = x.shape[-2:]
        for module in self:
            x = module(x)
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


class ASPP(nn.Module):
    """Atrous spatial pyramid pooling: a 1x1 conv, one 3x3 conv per atrous rate and image pooling, concatenated and
    projected to out_channels."""

    def __init__(self, in_channels, atrous_rates, out_channels=256):
        super().__init__()
        modules = [
            nn.Sequential(nn.Conv2d(in_channels, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels), nn.ReLU())
        ]
        modules += [ASPPConv(in_channels, out_channels, rate) for rate in tuple(atrous_rates)]
        modules.append(ASPPPooling(in_channels, out_channels))
        self.convs = nn.ModuleList(modules)
        self.project = nn.Sequential(
            nn.Conv2d(len(self.convs) * out_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.Dropout(0.5),
        )

    def forward(self, x):
        return self.project(ember.cat([conv(x) for conv in self.convs], dim=1))


class DeepLabHead(nn.Sequential):
    def __init__(self, in_channels, num_classes, atrous_rates=(12, 24, 36)):
        super().__init__(
            ASPP(in_channels, atrous_rates),
            nn.Conv2d(256, 256, 3, padding=1, bias=False),
            nn.BatchNorm2d(256),
            nn.ReLU(),
            nn.Conv2d(256, num_classes, 1),
        )


def _deeplabv3_resnet(backbone, num_classes, aux):
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    backbone = IntermediateLayerGetter(backbone, return_layers=return_layers)
    return DeepLabV3(backbone, DeepLabHead(2048, num_classes), FCNHead(1024, num_classes) if aux else None)


def _mobilenet_stages(features):
    """Indices of MobileNetV3's strided blocks (C1..Cn-1), with the first and the last block (C0 and Cn)."""
    return [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]


def _deeplabv3_mobilenetv3(backbone, num_classes, aux):
    features = backbone.features
    stages = _mobilenet_stages(features)
    out_pos, aux_pos = stages[-1], stages[-4]  # C5 (output stride 16) and C2 (output stride 8)
    return_layers = {str(out_pos): "out"}
    if aux:
        return_layers[str(aux_pos)] = "aux"
    out_inplanes, aux_inplanes = features[out_pos].out_channels, features[aux_pos].out_channels
    backbone = IntermediateLayerGetter(features, return_layers=return_layers)
    aux_classifier = FCNHead(aux_inplanes, num_classes) if aux else None
    return DeepLabV3(backbone, DeepLabHead(out_inplanes, num_classes), aux_classifier)


def _build(name, backbone_name, weights, progress, num_classes, aux_loss, weights_backbone, kwargs):
    weights, weights_backbone, num_classes, aux_loss = _resolve_segmentation(
        name, backbone_name, weights, weights_backbone, num_classes, aux_loss, kwargs
    )
    if backbone_name == "mobilenet_v3_large":
        model = _deeplabv3_mobilenetv3(
            mobilenet_v3_large(weights=weights_backbone, dilated=True), num_classes, aux_loss
        )
    else:
        resnet = resnet50 if backbone_name == "resnet50" else resnet101
        backbone = resnet(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
        model = _deeplabv3_resnet(backbone, num_classes, aux_loss)
    return _load(model, weights, progress)


@register_model()
def deeplabv3_resnet50(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    aux_loss=None,
    weights_backbone=_WEIGHTS_OF["resnet50"].IMAGENET1K_V1,
    **kwargs,
):
    """DeepLabV3 with a ResNet-50 backbone. weights: DeepLabV3_ResNet50_Weights; weights_backbone: ResNet50_Weights
    (IMAGENET1K_V1 by default, read from the hub cache; None for random)."""
    return _build("deeplabv3_resnet50", "resnet50", weights, progress, num_classes, aux_loss, weights_backbone, kwargs)


@register_model()
def deeplabv3_resnet101(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    aux_loss=None,
    weights_backbone=_WEIGHTS_OF["resnet101"].IMAGENET1K_V1,
    **kwargs,
):
    """DeepLabV3 with a ResNet-101 backbone. weights: DeepLabV3_ResNet101_Weights; weights_backbone:
    ResNet101_Weights (IMAGENET1K_V1 by default; None for random)."""
    return _build(
        "deeplabv3_resnet101", "resnet101", weights, progress, num_classes, aux_loss, weights_backbone, kwargs
    )


@register_model()
def deeplabv3_mobilenet_v3_large(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    aux_loss=None,
    weights_backbone=_WEIGHTS_OF["mobilenet_v3_large"].IMAGENET1K_V1,
    **kwargs,
):
    """DeepLabV3 with a dilated MobileNetV3-Large backbone. weights: DeepLabV3_MobileNet_V3_Large_Weights;
    weights_backbone: MobileNet_V3_Large_Weights (IMAGENET1K_V1 by default; None for random)."""
    return _build(
        "deeplabv3_mobilenet_v3_large",
        "mobilenet_v3_large",
        weights,
        progress,
        num_classes,
        aux_loss,
        weights_backbone,
        kwargs,
    )
