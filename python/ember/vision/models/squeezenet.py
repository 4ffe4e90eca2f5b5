"""SqueezeNet 1.0 and 1.1 (Iandola et al., 2016) with torchvision's arguments and state_dict keys."""

import ember

from ... import nn
from ._api import ClassifierMixin, _load, _resolve, register_model

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


class Fire(nn.Module):
    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return ember.cat(
            [self.expand1x1_activation(self.expand1x1(x)), self.expand3x3_activation(self.expand3x3(x))], 1
        )


class SqueezeNet(ClassifierMixin, nn.Module):
    def __init__(self, version="1_0", num_classes=1000, dropout=0.5):
        super().__init__()
        self.num_classes = num_classes

        def pool():
            return nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)

        if version == "1_0":
            layers = [nn.Conv2d(3, 96, kernel_size=7, stride=2), nn.ReLU(inplace=True), pool()]
            layers += [Fire(96, 16, 64, 64), Fire(128, 16, 64, 64), Fire(128, 32, 128, 128), pool()]
            layers += [Fire(256, 32, 128, 128), Fire(256, 48, 192, 192), Fire(384, 48, 192, 192)]
            layers += [Fire(384, 64, 256, 256), pool(), Fire(512, 64, 256, 256)]
        elif version == "1_1":
            layers = [nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(inplace=True), pool()]
            layers += [Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), pool()]
            layers += [Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), pool()]
            layers += [Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256)]
            layers += [Fire(512, 64, 256, 256)]
        else:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        self.features = nn.Sequential(*layers)
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((1, 1))
        )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        return ember.flatten(self.classifier(self.features(x)), 1)


def _squeezenet(name, version, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    return _load(SqueezeNet(version, **kwargs), weights, progress)


@register_model()
def squeezenet1_0(*, weights=None, progress=True, **kwargs):
    return _squeezenet("squeezenet1_0", "1_0", weights, progress, kwargs)


@register_model()
def squeezenet1_1(*, weights=None, progress=True, **kwargs):
    return _squeezenet("squeezenet1_1", "1_1", weights, progress, kwargs)
