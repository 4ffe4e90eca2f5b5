"""ember.vision.models.detection: torchvision 0.29's object detection models with its builders, arguments,
state_dict keys and weights enums."""

from .. import _api
from .faster_rcnn import (
    FasterRCNN,
    fasterrcnn_mobilenet_v3_large_320_fpn,
    fasterrcnn_mobilenet_v3_large_fpn,
    fasterrcnn_resnet50_fpn,
    fasterrcnn_resnet50_fpn_v2,
)
from .fcos import FCOS, fcos_resnet50_fpn
from .keypoint_rcnn import KeypointRCNN, keypointrcnn_resnet50_fpn
from .mask_rcnn import MaskRCNN, maskrcnn_resnet50_fpn, maskrcnn_resnet50_fpn_v2
from .retinanet import RetinaNet, retinanet_resnet50_fpn, retinanet_resnet50_fpn_v2
from .ssd import SSD, ssd300_vgg16
from .ssdlite import ssdlite320_mobilenet_v3_large

_BUILDERS = sorted(k for k, v in _api.BUILTIN_MODELS.items() if v.__module__.startswith(__name__ + "."))
_ENUMS = {_api._WEIGHTS_OF[name].__name__: _api._WEIGHTS_OF[name] for name in _BUILDERS}
globals().update(_ENUMS)

__all__ = ["FasterRCNN", "MaskRCNN", "KeypointRCNN", "RetinaNet", "FCOS", "SSD", *_BUILDERS, *sorted(_ENUMS)]
