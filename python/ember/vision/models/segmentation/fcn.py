"""FCN (Long et al., 2015) on a dilated ResNet-50/101 (torchvision.models.segmentation.fcn)."""

from .._api import _WEIGHTS_OF, _load, register_model
from .._utils import IntermediateLayerGetter
from ..resnet import resnet50, resnet101
from ._utils import FCNHead, _resolve_segmentation, _SimpleSegmentationModel

__all__ = ["FCN", "fcn_resnet50", "fcn_resnet101"]


class FCN(_SimpleSegmentationModel):
    """Fully-Convolutional Network: backbone, FCNHead classifier and optional auxiliary FCNHead."""


def _fcn_resnet(backbone, num_classes, aux):
    return_layers = {"layer4": "out"}
    if aux:
        return_layers["layer3"] = "aux"
    backbone = IntermediateLayerGetter(backbone, return_layers=return_layers)
    return FCN(backbone, FCNHead(2048, num_classes), FCNHead(1024, num_classes) if aux else None)


def _build(name, resnet, backbone_name, weights, progress, num_classes, aux_loss, weights_backbone, kwargs):
    weights, weights_backbone, num_classes, aux_loss = _resolve_segmentation(
        name, backbone_name, weights, weights_backbone, num_classes, aux_loss, kwargs
    )
    backbone = resnet(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
    return _load(_fcn_resnet(backbone, num_classes, aux_loss), weights, progress)


@register_model()
def fcn_resnet50(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    aux_loss=None,
    weights_backbone=_WEIGHTS_OF["resnet50"].IMAGENET1K_V1,
    **kwargs,
):
    """FCN with a ResNet-50 backbone (output stride 8). weights: FCN_ResNet50_Weights; weights_backbone:
    ResNet50_Weights (IMAGENET1K_V1 by default, read from the hub cache; None for random)."""
    return _build(
        "fcn_resnet50", resnet50, "resnet50", weights, progress, num_classes, aux_loss, weights_backbone, kwargs
    )


@register_model()
def fcn_resnet101(
    *,
    weights=None,
    progress=True,
    num_classes=None,
    aux_loss=None,
    weights_backbone=_WEIGHTS_OF["resnet101"].IMAGENET1K_V1,
    **kwargs,
):
    """FCN with a ResNet-101 backbone (output stride 8). weights: FCN_ResNet101_Weights; weights_backbone:
    ResNet101_Weights (IMAGENET1K_V1 by default, read from the hub cache; None for random)."""
    return _build(
        "fcn_resnet101", resnet101, "resnet101", weights, progress, num_classes, aux_loss, weights_backbone, kwargs
    )
