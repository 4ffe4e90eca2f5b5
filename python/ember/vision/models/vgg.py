"""VGG-11/13/16/19 (Simonyan and Zisserman, 2014), with and without batch norm, in torchvision's layout."""

import ember

from ... import nn
from ._api import ClassifierMixin, _kaiming_conv, _load, _resolve, register_model

__all__ = ["VGG", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]

# Output channels of the 3x3 convolutions, "M" a 2x2 max pool: configurations A, B, D, E of the paper.
_CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


class VGG(ClassifierMixin, nn.Module):
    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            _kaiming_conv(self)
            for m in self.modules():
                if isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(ember.flatten(x, 1))


def make_layers(cfg, batch_norm=False):
    layers, in_channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers.append(nn.Conv2d(in_channels, v, kernel_size=3, padding=1))
            if batch_norm:
                layers.append(nn.BatchNorm2d(v))
            layers.append(nn.ReLU(inplace=True))
            in_channels = v
    return nn.Sequential(*layers)


def _vgg(name, cfg, batch_norm, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    return _load(VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs), weights, progress)


@register_model()
def vgg11(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg11", "A", False, weights, progress, kwargs)


@register_model()
def vgg11_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg11_bn", "A", True, weights, progress, kwargs)


@register_model()
def vgg13(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg13", "B", False, weights, progress, kwargs)


@register_model()
def vgg13_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg13_bn", "B", True, weights, progress, kwargs)


@register_model()
def vgg16(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg16", "D", False, weights, progress, kwargs)


@register_model()
def vgg16_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg16_bn", "D", True, weights, progress, kwargs)


@register_model()
def vgg19(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg19", "E", False, weights, progress, kwargs)


@register_model()
def vgg19_bn(*, weights=None, progress=True, **kwargs):
    return _vgg("vgg19_bn", "E", True, weights, progress, kwargs)
