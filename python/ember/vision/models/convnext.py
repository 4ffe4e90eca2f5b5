"""ConvNeXt tiny/small/base/large (Liu et al., 2022) with torchvision's arguments and state_dict keys."""

import functools

import ember

from ... import nn
from ...nn import functional as F
from ..ops.misc import Conv2dNormActivation, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import ClassifierMixin, _load, _resolve, register_model

__all__ = ["ConvNeXt", "CNBlockConfig", "convnext_tiny", "convnext_small", "convnext_base", "convnext_large"]


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of a [N, C, H, W] tensor."""

    def forward(self, x):
        x = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    def __init__(self, dim, layer_scale, stochastic_depth_prob, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or functools.partial(nn.LayerNorm, eps=1e-6)
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True),
            Permute([0, 2, 3, 1]),
            norm_layer(dim),
            nn.Linear(in_features=dim, out_features=4 * dim, bias=True),
            nn.GELU(),
            nn.Linear(in_features=4 * dim, out_features=dim, bias=True),
            Permute([0, 3, 1, 2]),
        )
        self.layer_scale = nn.Parameter(ember.ones(dim, 1, 1) * layer_scale)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")

    def forward(self, input):
        return self.stochastic_depth(self.layer_scale * self.block(input)) + input


class CNBlockConfig:
    """A stage: its input channels, the channels its downsampling layer produces (None for the last) and depth."""

    def __init__(self, input_channels, out_channels, num_layers):
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(input_channels={self.input_channels}, out_channels={self.out_channels}, "
            f"num_layers={self.num_layers})"
        )


class ConvNeXt(ClassifierMixin, nn.Module):
    def __init__(
        self,
        block_setting,
        stochastic_depth_prob=0.0,
        layer_scale=1e-6,
        num_classes=1000,
        block=None,
        norm_layer=None,
        **kwargs,
    ):
        super().__init__()
        if not block_setting:
            raise ValueError("The block_setting should not be empty")
        if not all(isinstance(s, CNBlockConfig) for s in block_setting):
            raise TypeError("The block_setting should be List[CNBlockConfig]")
        block = block or CNBlock
        norm_layer = norm_layer or functools.partial(LayerNorm2d, eps=1e-6)
        first = block_setting[0].input_channels
        layers = [
            Conv2dNormActivation(
                3, first, kernel_size=4, stride=4, padding=0, norm_layer=norm_layer, activation_layer=None, bias=True
            )
        ]
        total = sum(cnf.num_layers for cnf in block_setting)
        block_id = 0
        for cnf in block_setting:
            stage = []
            for _ in range(cnf.num_layers):
                stage.append(block(cnf.input_channels, layer_scale, stochastic_depth_prob * block_id / (total - 1.0)))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if cnf.out_channels is not None:
                layers.append(
                    nn.Sequential(
                        norm_layer(cnf.input_channels),
                        nn.Conv2d(cnf.input_channels, cnf.out_channels, kernel_size=2, stride=2),
                    )
                )
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = block_setting[-1]
        last_out = last.out_channels if last.out_channels is not None else last.input_channels
        self.classifier = nn.Sequential(norm_layer(last_out), nn.Flatten(1), nn.Linear(last_out, num_classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)))


def _convnext(name, stages, stochastic_depth_prob, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    setting = [CNBlockConfig(*s) for s in stages]
    sd = kwargs.pop("stochastic_depth_prob", stochastic_depth_prob)
    return _load(ConvNeXt(setting, stochastic_depth_prob=sd, **kwargs), weights, progress)


def _stages(widths, depth3):
    return [(widths[0], widths[1], 3), (widths[1], widths[2], 3), (widths[2], widths[3], depth3), (widths[3], None, 3)]


@register_model()
def convnext_tiny(*, weights=None, progress=True, **kwargs):
    return _convnext("convnext_tiny", _stages((96, 192, 384, 768), 9), 0.1, weights, progress, kwargs)


@register_model()
def convnext_small(*, weights=None, progress=True, **kwargs):
    return _convnext("convnext_small", _stages((96, 192, 384, 768), 27), 0.4, weights, progress, kwargs)


@register_model()
def convnext_base(*, weights=None, progress=True, **kwargs):
    return _convnext("convnext_base", _stages((128, 256, 512, 1024), 27), 0.5, weights, progress, kwargs)


@register_model()
def convnext_large(*, weights=None, progress=True, **kwargs):
    return _convnext("convnext_large", _stages((192, 384, 768, 1536), 27), 0.5, weights, progress, kwargs)
