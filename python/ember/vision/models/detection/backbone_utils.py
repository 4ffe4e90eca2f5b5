"""Feature extractors for the detectors (torchvision.models.detection.backbone_utils): a ResNet or MobileNet with
an FPN on top, frozen up to a number of trainable layers."""

import warnings

from .... import nn
from ...ops import FrozenBatchNorm2d
from ...ops.feature_pyramid_network import FeaturePyramidNetwork, LastLevelMaxPool
from .. import mobilenetv2, mobilenetv3, resnet
from .._api import _WEIGHTS_OF
from .._utils import IntermediateLayerGetter

__all__ = ["BackboneWithFPN", "resnet_fpn_backbone", "mobilenet_backbone"]


class BackboneWithFPN(nn.Module):
    """body (an IntermediateLayerGetter of backbone's return_layers) followed by an FeaturePyramidNetwork
    (LastLevelMaxPool on top by default); out_channels is the FPN's.

    Args:
        backbone (nn.Module), return_layers (dict[str, str]): the model and {child name: output name}.
        in_channels_list (list[int]): channels of the returned maps.
        out_channels (int): channels of the FPN's outputs.
        extra_blocks (ExtraFPNBlock, optional), norm_layer (callable, optional): passed to the FPN.
    """

    def __init__(self, backbone, return_layers, in_channels_list, out_channels, extra_blocks=None, norm_layer=None):
        super().__init__()
        if extra_blocks is None:
            extra_blocks = LastLevelMaxPool()
        self.body = IntermediateLayerGetter(backbone, return_layers=return_layers)
        self.fpn = FeaturePyramidNetwork(
            in_channels_list=in_channels_list,
            out_channels=out_channels,
            extra_blocks=extra_blocks,
            norm_layer=norm_layer,
        )
        self.out_channels = out_channels

    def forward(self, x):
        return self.fpn(self.body(x))


def _verify_backbone_weights(backbone_name, weights, pretrained):
    enum = _WEIGHTS_OF.get(backbone_name)
    if pretrained and weights is None:
        weights = enum["IMAGENET1K_V1"]
    return enum.verify(weights) if enum is not None else weights


def resnet_fpn_backbone(
    *,
    backbone_name,
    weights,
    norm_layer=FrozenBatchNorm2d,
    trainable_layers=3,
    returned_layers=None,
    extra_blocks=None,
    pretrained=False,
):
    """A ResNet (``resnet.<backbone_name>``, with norm_layer) with an FPN on its layers returned_layers (default
    1-4), the layers before the last trainable_layers frozen."""
    weights = _verify_backbone_weights(backbone_name, weights, pretrained)
    backbone = resnet.__dict__[backbone_name](weights=weights, norm_layer=norm_layer)
    return _resnet_fpn_extractor(backbone, trainable_layers, returned_layers, extra_blocks)


def _resnet_fpn_extractor(backbone, trainable_layers, returned_layers=None, extra_blocks=None, norm_layer=None):
    if trainable_layers < 0 or trainable_layers > 5:
        raise ValueError(f"Trainable layers should be in the range [0,5], got {trainable_layers}")
    layers_to_train = ["layer4", "layer3", "layer2", "layer1", "conv1"][:trainable_layers]
    if trainable_layers == 5:
        layers_to_train.append("bn1")
    for name, parameter in backbone.named_parameters():
        if not any(name.startswith(layer) for layer in layers_to_train):
            parameter.requires_grad_(False)
    if extra_blocks is None:
        extra_blocks = LastLevelMaxPool()
    if returned_layers is None:
        returned_layers = [1, 2, 3, 4]
    if min(returned_layers) <= 0 or max(returned_layers) >= 5:
        raise ValueError(f"Each returned layer should be in the range [1,4]. Got {returned_layers}")
    return_layers = {f"layer{k}": str(v) for v, k in enumerate(returned_layers)}
    in_channels_stage2 = backbone.inplanes // 8
    in_channels_list = [in_channels_stage2 * 2 ** (i - 1) for i in returned_layers]
    return BackboneWithFPN(
        backbone, return_layers, in_channels_list, 256, extra_blocks=extra_blocks, norm_layer=norm_layer
    )


def _validate_trainable_layers(is_trained, trainable_backbone_layers, max_value, default_value):
    if not is_trained:
        if trainable_backbone_layers is not None:
            warnings.warn(
                "Changing trainable_backbone_layers has no effect if neither pretrained nor pretrained_backbone have "
                f"been set to True, falling back to trainable_backbone_layers={max_value} so that all layers are "
                "trainable"
            )
        trainable_backbone_layers = max_value
    if trainable_backbone_layers is None:
        trainable_backbone_layers = default_value
    if trainable_backbone_layers < 0 or trainable_backbone_layers > max_value:
        raise ValueError(
            f"Trainable backbone layers should be in the range [0,{max_value}], got {trainable_backbone_layers} "
        )
    return trainable_backbone_layers


def mobilenet_backbone(
    *,
    backbone_name,
    weights,
    fpn,
    norm_layer=FrozenBatchNorm2d,
    trainable_layers=2,
    returned_layers=None,
    extra_blocks=None,
    pretrained=False,
):
    """A MobileNetV2/V3 (``backbone_name``) as a feature extractor: with an FPN on its last two stages (or
    returned_layers) when fpn, else its features and a 1x1 conv to 256 channels."""
    weights = _verify_backbone_weights(backbone_name, weights, pretrained)
    module = mobilenetv2 if backbone_name == "mobilenet_v2" else mobilenetv3
    backbone = module.__dict__[backbone_name](weights=weights, norm_layer=norm_layer)
    return _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers, extra_blocks)


def _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers=None, extra_blocks=None, norm_layer=None):
    backbone = backbone.features
    # The strided blocks start the stages C1..Cn-1; the first block is C0 and the last Cn.
    stage_indices = [0] + [i for i, b in enumerate(backbone) if getattr(b, "_is_cn", False)] + [len(backbone) - 1]
    num_stages = len(stage_indices)
    if trainable_layers < 0 or trainable_layers > num_stages:
        raise ValueError(f"Trainable layers should be in the range [0,{num_stages}], got {trainable_layers} ")
    freeze_before = len(backbone) if trainable_layers == 0 else stage_indices[num_stages - trainable_layers]
    for b in backbone[:freeze_before]:
        for parameter in b.parameters():
            parameter.requires_grad_(False)
    out_channels = 256
    if fpn:
        if extra_blocks is None:
            extra_blocks = LastLevelMaxPool()
        if returned_layers is None:
            returned_layers = [num_stages - 2, num_stages - 1]
        if min(returned_layers) < 0 or max(returned_layers) >= num_stages:
            raise ValueError(f"Each returned layer should be in the range [0,{num_stages - 1}], got {returned_layers} ")
        return_layers = {f"{stage_indices[k]}": str(v) for v, k in enumerate(returned_layers)}
        in_channels_list = [backbone[stage_indices[i]].out_channels for i in returned_layers]
        return BackboneWithFPN(
            backbone, return_layers, in_channels_list, out_channels, extra_blocks=extra_blocks, norm_layer=norm_layer
        )
    m = nn.Sequential(backbone, nn.Conv2d(backbone[-1].out_channels, out_channels, 1))
    m.out_channels = out_channels
    return m
