"""ember.vision.models: torchvision 0.29's classification models with its builder names, arguments, state_dict keys
and weights enums (so torchvision checkpoints load, from the hub cache with weights=...), plus LeNet-5. Every
classifier has predict(images, top_k=1). The segmentation and detection models are in the subpackages of those
names."""

from . import _api, detection, segmentation
from ._api import (
    ClassifierMixin,
    Weights,
    WeightsEnum,
    get_model,
    get_model_builder,
    get_model_weights,
    get_weight,
    list_models,
    register_model,
)
from .alexnet import AlexNet, alexnet
from .convnext import ConvNeXt, convnext_base, convnext_large, convnext_small, convnext_tiny
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201
from .efficientnet import (
    EfficientNet,
    efficientnet_b0,
    efficientnet_b1,
    efficientnet_b2,
    efficientnet_b3,
    efficientnet_b4,
    efficientnet_b5,
    efficientnet_b6,
    efficientnet_b7,
    efficientnet_v2_l,
    efficientnet_v2_m,
    efficientnet_v2_s,
)
from .googlenet import GoogLeNet, GoogLeNetOutputs, googlenet
from .inception import Inception3, InceptionOutputs, inception_v3
from .lenet import LeNet, lenet
from .maxvit import MaxVit, maxvit_t
from .mnasnet import MNASNet, mnasnet0_5, mnasnet0_75, mnasnet1_0, mnasnet1_3
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .mobilenetv3 import MobileNetV3, mobilenet_v3_large, mobilenet_v3_small
from .regnet import *  # noqa: F403 (regnet_y_400mf, ... regnet_x_32gf)
from .regnet import RegNet
from .resnet import (
    BasicBlock,
    Bottleneck,
    ResNet,
    resnet18,
    resnet34,
    resnet50,
    resnet101,
    resnet152,
    resnext50_32x4d,
    resnext101_32x8d,
    resnext101_64x4d,
    wide_resnet50_2,
    wide_resnet101_2,
)
from .shufflenetv2 import ShuffleNetV2, shufflenet_v2_x0_5, shufflenet_v2_x1_0, shufflenet_v2_x1_5, shufflenet_v2_x2_0
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1
from .swin_transformer import SwinTransformer, swin_b, swin_s, swin_t, swin_v2_b, swin_v2_s, swin_v2_t
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn
from .vision_transformer import VisionTransformer, vit_b_16, vit_b_32, vit_h_14, vit_l_16, vit_l_32

# The *_Weights enums (ResNet50_Weights, ...) of the classification models, made from weights.json (segmentation's
# and detection's are in those subpackages, as in torchvision).
_ENUMS = {
    e.__name__: e
    for name, e in _api._WEIGHTS_OF.items()
    if name in _api.BUILTIN_MODELS and _api.BUILTIN_MODELS[name].__module__.rsplit(".", 1)[0] == __name__
}
globals().update(_ENUMS)

__all__ = [
    "ClassifierMixin",
    "Weights",
    "WeightsEnum",
    "get_model",
    "get_model_builder",
    "get_model_weights",
    "get_weight",
    "list_models",
    "register_model",
    "LeNet",
    "AlexNet",
    "VGG",
    "ResNet",
    "BasicBlock",
    "Bottleneck",
    "MobileNetV2",
    "MobileNetV3",
    "DenseNet",
    "SqueezeNet",
    "GoogLeNet",
    "GoogLeNetOutputs",
    "Inception3",
    "InceptionOutputs",
    "ShuffleNetV2",
    "MNASNet",
    "EfficientNet",
    "RegNet",
    "ConvNeXt",
    "VisionTransformer",
    "SwinTransformer",
    "MaxVit",
    *sorted(k for k, v in _api.BUILTIN_MODELS.items() if v.__module__.rsplit(".", 1)[0] == __name__),
    *sorted(_ENUMS),
]

# The video classification and optical-flow models, in subpackages as in torchvision (their enums live there).
from . import optical_flow, video  # noqa: E402
