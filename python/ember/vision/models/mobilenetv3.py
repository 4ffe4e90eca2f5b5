"""MobileNetV3 small and large (Howard et al., 2019) with torchvision's arguments and state_dict keys."""

import functools

import ember

from ... import nn
from ._api import ClassifierMixin, _kaiming_conv, _load, _resolve, register_model
from ._utils import Conv2dNormActivation, SqueezeExcitation, make_divisible

__all__ = ["MobileNetV3", "InvertedResidualConfig", "mobilenet_v3_small", "mobilenet_v3_large"]


class InvertedResidualConfig:
    """One block: kernel, expanded and output channels (scaled by width_mult), squeeze-excitation, hard-swish
    ("HS") or ReLU ("RE"), stride and dilation."""

    def __init__(
        self, input_channels, kernel, expanded_channels, out_channels, use_se, activation, stride, dilation, width_mult
    ):
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride = stride
        self.dilation = dilation

    @staticmethod
    def adjust_channels(channels, width_mult):
        return make_divisible(channels * width_mult, 8)


class InvertedResidual(nn.Module):
    def __init__(self, cnf, norm_layer, se_layer=functools.partial(SqueezeExcitation, scale_activation=nn.Hardsigmoid)):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value %s" % (cnf.stride,))
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        activation = nn.Hardswish if cnf.use_hs else nn.ReLU
        layers = []
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(
                Conv2dNormActivation(
                    cnf.input_channels,
                    cnf.expanded_channels,
                    kernel_size=1,
                    norm_layer=norm_layer,
                    activation_layer=activation,
                )
            )
        stride = 1 if cnf.dilation > 1 else cnf.stride
        layers.append(
            Conv2dNormActivation(
                cnf.expanded_channels,
                cnf.expanded_channels,
                kernel_size=cnf.kernel,
                stride=stride,
                dilation=cnf.dilation,
                groups=cnf.expanded_channels,
                norm_layer=norm_layer,
                activation_layer=activation,
            )
        )
        if cnf.use_se:
            layers.append(se_layer(cnf.expanded_channels, make_divisible(cnf.expanded_channels // 4, 8)))
        layers.append(
            Conv2dNormActivation(
                cnf.expanded_channels, cnf.out_channels, kernel_size=1, norm_layer=norm_layer, activation_layer=None
            )
        )
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, x):
        out = self.block(x)
        return out + x if self.use_res_connect else out


class MobileNetV3(ClassifierMixin, nn.Module):
    def __init__(
        self, inverted_residual_setting, last_channel, num_classes=1000, block=None, norm_layer=None, dropout=0.2
    ):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(s, InvertedResidualConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be a list of InvertedResidualConfig")
        block = block or InvertedResidual
        norm_layer = norm_layer or functools.partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        first = inverted_residual_setting[0].input_channels
        layers = [
            Conv2dNormActivation(
                3, first, kernel_size=3, stride=2, norm_layer=norm_layer, activation_layer=nn.Hardswish
            )
        ]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        last_in = inverted_residual_setting[-1].out_channels
        last_out = 6 * last_in
        layers.append(
            Conv2dNormActivation(last_in, last_out, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.Hardswish)
        )
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(last_out, last_channel),
            nn.Hardswish(inplace=True),
            nn.Dropout(p=dropout, inplace=True),
            nn.Linear(last_channel, num_classes),
        )
        _kaiming_conv(self)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(ember.flatten(x, 1))


def _config(arch, width_mult=1.0, reduced_tail=False, dilated=False):
    rd = 2 if reduced_tail else 1
    dil = 2 if dilated else 1

    def conf(*args):
        return InvertedResidualConfig(*args, width_mult=width_mult)

    if arch == "mobilenet_v3_large":
        setting = [
            conf(16, 3, 16, 16, False, "RE", 1, 1),
            conf(16, 3, 64, 24, False, "RE", 2, 1),
            conf(24, 3, 72, 24, False, "RE", 1, 1),
            conf(24, 5, 72, 40, True, "RE", 2, 1),
            conf(40, 5, 120, 40, True, "RE", 1, 1),
            conf(40, 5, 120, 40, True, "RE", 1, 1),
            conf(40, 3, 240, 80, False, "HS", 2, 1),
            conf(80, 3, 200, 80, False, "HS", 1, 1),
            conf(80, 3, 184, 80, False, "HS", 1, 1),
            conf(80, 3, 184, 80, False, "HS", 1, 1),
            conf(80, 3, 480, 112, True, "HS", 1, 1),
            conf(112, 3, 672, 112, True, "HS", 1, 1),
            conf(112, 5, 672, 160 // rd, True, "HS", 2, dil),
            conf(160 // rd, 5, 960 // rd, 160 // rd, True, "HS", 1, dil),
            conf(160 // rd, 5, 960 // rd, 160 // rd, True, "HS", 1, dil),
        ]
        last = InvertedResidualConfig.adjust_channels(1280 // rd, width_mult)
    else:
        setting = [
            conf(16, 3, 16, 16, True, "RE", 2, 1),
            conf(16, 3, 72, 24, False, "RE", 2, 1),
            conf(24, 3, 88, 24, False, "RE", 1, 1),
            conf(24, 5, 96, 40, True, "HS", 2, 1),
            conf(40, 5, 240, 40, True, "HS", 1, 1),
            conf(40, 5, 240, 40, True, "HS", 1, 1),
            conf(40, 5, 120, 48, True, "HS", 1, 1),
            conf(48, 5, 144, 48, True, "HS", 1, 1),
            conf(48, 5, 288, 96 // rd, True, "HS", 2, dil),
            conf(96 // rd, 5, 576 // rd, 96 // rd, True, "HS", 1, dil),
            conf(96 // rd, 5, 576 // rd, 96 // rd, True, "HS", 1, dil),
        ]
        last = InvertedResidualConfig.adjust_channels(1024 // rd, width_mult)
    return setting, last


def _mobilenet_v3(arch, weights, progress, kwargs):
    weights, kwargs = _resolve(arch, weights, kwargs)
    conf_args = {k: kwargs.pop(k) for k in ("width_mult", "reduced_tail", "dilated") if k in kwargs}
    setting, last = _config(arch, **conf_args)
    return _load(MobileNetV3(setting, last, **kwargs), weights, progress)


@register_model()
def mobilenet_v3_small(*, weights=None, progress=True, **kwargs):
    return _mobilenet_v3("mobilenet_v3_small", weights, progress, kwargs)


@register_model()
def mobilenet_v3_large(*, weights=None, progress=True, **kwargs):
    return _mobilenet_v3("mobilenet_v3_large", weights, progress, kwargs)
