"""ember.vision.models.segmentation: torchvision 0.29's semantic segmentation models (FCN, DeepLabV3, LR-ASPP) with
its builders, state_dict keys and weights enums."""

from .. import _api
from .deeplabv3 import DeepLabV3, deeplabv3_mobilenet_v3_large, deeplabv3_resnet50, deeplabv3_resnet101
from .fcn import FCN, fcn_resnet50, fcn_resnet101
from .lraspp import LRASPP, lraspp_mobilenet_v3_large

_BUILDERS = [
    "fcn_resnet50",
    "fcn_resnet101",
    "deeplabv3_resnet50",
    "deeplabv3_resnet101",
    "deeplabv3_mobilenet_v3_large",
    "lraspp_mobilenet_v3_large",
]
_ENUMS = {_api._WEIGHTS_OF[name].__name__: _api._WEIGHTS_OF[name] for name in _BUILDERS}
globals().update(_ENUMS)

__all__ = ["FCN", "DeepLabV3", "LRASPP", *_BUILDERS, *sorted(_ENUMS)]
