"""ember.vision.models: torchvision's classification models with its constructor names and state_dict keys (so
torchvision-format weights load with load_state_dict), plus LeNet-5. Every model has predict(images, top_k=1)."""

from ._api import ClassifierMixin
from .alexnet import AlexNet, alexnet
from .lenet import LeNet, lenet
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .mobilenetv3 import MobileNetV3, mobilenet_v3_large, mobilenet_v3_small
from .resnet import (
    BasicBlock,
    Bottleneck,
    ResNet,
    resnet18,
    resnet34,
    resnet50,
    resnet101,
    resnext50_32x4d,
    wide_resnet50_2,
)
from .vgg import VGG, vgg11, vgg11_bn, vgg13, vgg13_bn, vgg16, vgg16_bn, vgg19, vgg19_bn

__all__ = [
    "ClassifierMixin",
    "LeNet",
    "lenet",
    "AlexNet",
    "alexnet",
    "VGG",
    "vgg11",
    "vgg11_bn",
    "vgg13",
    "vgg13_bn",
    "vgg16",
    "vgg16_bn",
    "vgg19",
    "vgg19_bn",
    "ResNet",
    "BasicBlock",
    "Bottleneck",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnext50_32x4d",
    "wide_resnet50_2",
    "MobileNetV2",
    "mobilenet_v2",
    "MobileNetV3",
    "mobilenet_v3_small",
    "mobilenet_v3_large",
]
