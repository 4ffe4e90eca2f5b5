"""EfficientNet B0-B7 (Tan and Le, 2019) and EfficientNetV2 S/M/L (2021) with torchvision's arguments and state_dict
keys."""

import copy
import functools
import math

import ember

from ... import nn
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._api import ClassifierMixin, _load, _resolve, register_model
from ._utils import make_divisible

__all__ = ["EfficientNet", "MBConvConfig", "FusedMBConvConfig"] + [
    f"efficientnet_{v}" for v in ("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "v2_s", "v2_m", "v2_l")
]


class _MBConvConfig:
    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, block):
        self.expand_ratio = expand_ratio
        self.kernel = kernel
        self.stride = stride
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers
        self.block = block

    @staticmethod
    def adjust_channels(channels, width_mult, min_value=None):
        return make_divisible(channels * width_mult, 8, min_value)


class MBConvConfig(_MBConvConfig):
    """A stage of MBConv blocks, its channels and depth scaled by width_mult and depth_mult."""

    def __init__(
        self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, width_mult=1.0, depth_mult=1.0,
        block=None,
    ):  # fmt: skip
        super().__init__(
            expand_ratio,
            kernel,
            stride,
            self.adjust_channels(input_channels, width_mult),
            self.adjust_channels(out_channels, width_mult),
            int(math.ceil(num_layers * depth_mult)),
            block or MBConv,
        )


class FusedMBConvConfig(_MBConvConfig):
    """A stage of fused MBConv blocks (EfficientNetV2)."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers, block=None):
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers, block or FusedMBConv)


class _Residual(nn.Module):
    """A block whose result, when shapes allow, is stochastic_depth(block(x)) + x."""

    def _finish(self, cnf, layers, stochastic_depth_prob):
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + input
        return result


class MBConv(_Residual):
    def __init__(self, cnf, stochastic_depth_prob, norm_layer, se_layer=SqueezeExcitation):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        layers = []
        if expanded != cnf.input_channels:
            layers.append(
                Conv2dNormActivation(
                    cnf.input_channels, expanded, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.SiLU
                )
            )
        layers.append(
            Conv2dNormActivation(
                expanded, expanded, kernel_size=cnf.kernel, stride=cnf.stride, groups=expanded,
                norm_layer=norm_layer, activation_layer=nn.SiLU,
            )
        )  # fmt: skip
        layers.append(
            se_layer(expanded, max(1, cnf.input_channels // 4), activation=functools.partial(nn.SiLU, inplace=True))
        )
        layers.append(
            Conv2dNormActivation(
                expanded, cnf.out_channels, kernel_size=1, norm_layer=norm_layer, activation_layer=None
            )
        )
        self._finish(cnf, layers, stochastic_depth_prob)


class FusedMBConv(_Residual):
    def __init__(self, cnf, stochastic_depth_prob, norm_layer):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        if expanded != cnf.input_channels:
            layers = [
                Conv2dNormActivation(
                    cnf.input_channels, expanded, kernel_size=cnf.kernel, stride=cnf.stride, norm_layer=norm_layer,
                    activation_layer=nn.SiLU,
                ),
                Conv2dNormActivation(
                    expanded, cnf.out_channels, kernel_size=1, norm_layer=norm_layer, activation_layer=None
                ),
            ]  # fmt: skip
        else:
            layers = [
                Conv2dNormActivation(
                    cnf.input_channels, cnf.out_channels, kernel_size=cnf.kernel, stride=cnf.stride,
                    norm_layer=norm_layer, activation_layer=nn.SiLU,
                )
            ]  # fmt: skip
        self._finish(cnf, layers, stochastic_depth_prob)


class EfficientNet(ClassifierMixin, nn.Module):
    def __init__(
        self,
        inverted_residual_setting,
        dropout,
        stochastic_depth_prob=0.2,
        num_classes=1000,
        norm_layer=None,
        last_channel=None,
    ):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(s, _MBConvConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be List[MBConvConfig]")
        norm_layer = norm_layer or nn.BatchNorm2d
        first = inverted_residual_setting[0].input_channels
        layers = [
            Conv2dNormActivation(3, first, kernel_size=3, stride=2, norm_layer=norm_layer, activation_layer=nn.SiLU)
        ]
        total = sum(cnf.num_layers for cnf in inverted_residual_setting)
        block_id = 0
        for cnf in inverted_residual_setting:
            stage = []
            for _ in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if stage:
                    block_cnf.input_channels = block_cnf.out_channels
                    block_cnf.stride = 1
                # The drop probability grows linearly with depth.
                stage.append(block_cnf.block(block_cnf, stochastic_depth_prob * float(block_id) / total, norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
        last_in = inverted_residual_setting[-1].out_channels
        last_out = last_channel if last_channel is not None else 4 * last_in
        layers.append(
            Conv2dNormActivation(last_in, last_out, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.SiLU)
        )
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(last_out, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                init_range = 1.0 / math.sqrt(m.out_features)
                nn.init.uniform_(m.weight, -init_range, init_range)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(ember.flatten(self.avgpool(self.features(x)), 1))


def _b_setting(width_mult, depth_mult):
    conf = functools.partial(MBConvConfig, width_mult=width_mult, depth_mult=depth_mult)
    rows = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3)]
    rows += [(6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
    return [conf(*r) for r in rows]


# EfficientNetV2's stages: (fused?, expand_ratio, kernel, stride, in, out, layers).
_V2 = {
    "s": [(1, 1, 3, 1, 24, 24, 2), (1, 4, 3, 2, 24, 48, 4), (1, 4, 3, 2, 48, 64, 4), (0, 4, 3, 2, 64, 128, 6),
          (0, 6, 3, 1, 128, 160, 9), (0, 6, 3, 2, 160, 256, 15)],
    "m": [(1, 1, 3, 1, 24, 24, 3), (1, 4, 3, 2, 24, 48, 5), (1, 4, 3, 2, 48, 80, 5), (0, 4, 3, 2, 80, 160, 7),
          (0, 6, 3, 1, 160, 176, 14), (0, 6, 3, 2, 176, 304, 18), (0, 6, 3, 1, 304, 512, 5)],
    "l": [(1, 1, 3, 1, 32, 32, 4), (1, 4, 3, 2, 32, 64, 7), (1, 4, 3, 2, 64, 96, 7), (0, 4, 3, 2, 96, 192, 10),
          (0, 6, 3, 1, 192, 224, 19), (0, 6, 3, 2, 224, 384, 25), (0, 6, 3, 1, 384, 640, 7)],
}  # fmt: skip


def _efficientnet(name, setting, last_channel, dropout, norm_layer, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    if norm_layer is not None:
        kwargs["norm_layer"] = norm_layer
    model = EfficientNet(setting, kwargs.pop("dropout", dropout), last_channel=last_channel, **kwargs)
    return _load(model, weights, progress)


def _b(name, width, depth, dropout, weights, progress, kwargs):
    # B5-B7's checkpoints come from TensorFlow: its batch norm's eps and momentum.
    norm = functools.partial(nn.BatchNorm2d, eps=0.001, momentum=0.01) if name[-1] in "567" else None
    return _efficientnet(name, _b_setting(width, depth), None, dropout, norm, weights, progress, kwargs)


def _v2(size, dropout, weights, progress, kwargs):
    setting = [(FusedMBConvConfig if fused else MBConvConfig)(*r) for fused, *r in _V2[size]]
    norm = functools.partial(nn.BatchNorm2d, eps=0.001)
    return _efficientnet(f"efficientnet_v2_{size}", setting, 1280, dropout, norm, weights, progress, kwargs)


@register_model()
def efficientnet_b0(*, weights=None, progress=True, **kwargs):
    return _b("efficientnet_b0", 1.0, 1.0, 0.2, weights, progress, kwargs)


@register_model()
def efficientnet_b1(*, weights=None, progress=True, **kwargs):
    return _b("efficientnet_b1", 1.0, 1.1, 0.2, weights, progress, kwargs)


@register_model()
def efficientnet_b2(*, weights=None, progress=True, **kwargs):
    return _b("efficientnet_b2", 1.1, 1.2, 0.3, weights, progress, kwargs)


@register_model()
def efficientnet_b3(*, weights=None, progress=True, **kwargs):
    return _b("efficientnet_b3", 1.2, 1.4, 0.3, weights, progress, kwargs)


@register_model()
def efficientnet_b4(*, weights=None, progress=True, **kwargs):
    return _b("efficientnet_b4", 1.4, 1.8, 0.4, weights, progress, kwargs)


@register_model()
def efficientnet_b5(*, weights=None, progress=True, **kwargs):
    return _b("efficientnet_b5", 1.6, 2.2, 0.4, weights, progress, kwargs)


@register_model()
def efficientnet_b6(*, weights=None, progress=True, **kwargs):
    return _b("efficientnet_b6", 1.8, 2.6, 0.5, weights, progress, kwargs)


@register_model()
def efficientnet_b7(*, weights=None, progress=True, **kwargs):
    return _b("efficientnet_b7", 2.0, 3.1, 0.5, weights, progress, kwargs)


@register_model()
def efficientnet_v2_s(*, weights=None, progress=True, **kwargs):
    return _v2("s", 0.2, weights, progress, kwargs)


@register_model()
def efficientnet_v2_m(*, weights=None, progress=True, **kwargs):
    return _v2("m", 0.3, weights, progress, kwargs)


@register_model()
def efficientnet_v2_l(*, weights=None, progress=True, **kwargs):
    return _v2("l", 0.4, weights, progress, kwargs)
