"""What the segmentation models share: the backbone + classifier (+ auxiliary classifier) model, FCN's head, and the
builders' handling of weights (torchvision.models.segmentation._utils)."""

from collections import OrderedDict

from .... import nn
from ....nn import functional as F
from .._api import _WEIGHTS_OF
from .._predict import SegmentationMixin
from .._utils import _ovewrite_value_param

__all__ = ["_SimpleSegmentationModel", "FCNHead"]


class _SimpleSegmentationModel(SegmentationMixin, nn.Module):
    """backbone (an IntermediateLayerGetter returning "out" and optionally "aux") followed by classifier on "out" and
    aux_classifier on "aux", each upsampled (bilinear) to the input's size; forward returns {"out": ..., "aux": ...}."""

    def __init__(self, backbone, classifier, aux_classifier=None):
        super().__init__()
        self.backbone = backbone
        self.classifier = classifier
        self.aux_classifier = aux_classifier

    def forward(self, x):
        input_shape = x.shape[-2:]
        features = self.backbone(x)
        result = OrderedDict()
        out = self.classifier(features["out"])
        result["out"] = F.interpolate(out, size=input_shape, mode="bilinear", align_corners=False)
        if self.aux_classifier is not None:
            aux = self.aux_classifier(features["aux"])
            result["aux"] = F.interpolate(aux, size=input_shape, mode="bilinear", align_corners=False)
        return result


class FCNHead(nn.Sequential):
    """3x3 conv to in_channels // 4, batch norm, ReLU, dropout 0.1 and a 1x1 conv to channels."""

    def __init__(self, in_channels, channels):
        inter_channels = in_channels // 4
        super().__init__(
            nn.Conv2d(in_channels, inter_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Conv2d(inter_channels, channels, 1),
        )


def _resolve_segmentation(name, backbone_name, weights, weights_backbone, num_classes, aux_loss, kwargs):
    """(weights, weights_backbone, num_classes, aux_loss) as torchvision's builders settle them: weights given fix
    num_classes to their categories and aux_loss to True and drop weights_backbone; num_classes defaults to 21."""
    from ..detection._utils import _legacy_flags

    weights, weights_backbone = _legacy_flags(name, backbone_name, weights, weights_backbone, kwargs)
    weights = _WEIGHTS_OF[name].verify(weights)
    weights_backbone = _WEIGHTS_OF[backbone_name].verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
        if not name.startswith("lraspp"):  # LR-ASPP has no auxiliary classifier
            aux_loss = _ovewrite_value_param("aux_loss", aux_loss, True)
    elif num_classes is None:
        num_classes = 21
    return weights, weights_backbone, num_classes, aux_loss
