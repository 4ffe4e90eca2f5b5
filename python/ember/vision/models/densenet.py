"""DenseNet-121/161/169/201 (Huang et al., 2017) with torchvision's arguments and state_dict keys."""

import re
from collections import OrderedDict

import ember

from ... import nn
from ...nn import functional as F
from ...utils import checkpoint as cp
from ._api import ClassifierMixin, _load, _resolve, register_model

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201"]


class _DenseLayer(nn.Module):
    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate, memory_efficient=False):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient

    def bn_function(self, inputs):
        return self.conv1(self.relu1(self.norm1(ember.cat(list(inputs), 1))))

    def forward(self, input):
        prev = [input] if isinstance(input, ember.Tensor) else input
        if self.memory_efficient and any(t.requires_grad for t in prev):
            # The concatenation and bottleneck are recomputed in backward instead of kept (activation checkpointing).
            bottleneck = cp.checkpoint(lambda *xs: self.bn_function(xs), *prev, use_reentrant=False)
        else:
            bottleneck = self.bn_function(prev)
        new_features = self.conv2(self.relu2(self.norm2(bottleneck)))
        if self.drop_rate > 0:
            new_features = F.dropout(new_features, p=self.drop_rate, training=self.training)
        return new_features


class _DenseBlock(nn.ModuleDict):
    _version = 2

    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate, memory_efficient=False):
        super().__init__()
        for i in range(num_layers):
            layer = _DenseLayer(num_input_features + i * growth_rate, growth_rate, bn_size, drop_rate, memory_efficient)
            self.add_module("denselayer%d" % (i + 1), layer)

    def forward(self, init_features):
        features = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return ember.cat(features, 1)


class _Transition(nn.Sequential):
    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(ClassifierMixin, nn.Module):
    """Densely connected network: each layer of a dense block sees the concatenation of all earlier ones."""

    def __init__(
        self,
        growth_rate=32,
        block_config=(6, 12, 24, 16),
        num_init_features=64,
        bn_size=4,
        drop_rate=0,
        num_classes=1000,
        memory_efficient=False,
    ):
        super().__init__()
        self.features = nn.Sequential(
            OrderedDict(
                [
                    ("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False)),
                    ("norm0", nn.BatchNorm2d(num_init_features)),
                    ("relu0", nn.ReLU(inplace=True)),
                    ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
                ]
            )
        )
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = _DenseBlock(num_layers, num_features, bn_size, growth_rate, drop_rate, memory_efficient)
            self.features.add_module("denseblock%d" % (i + 1), block)
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                self.features.add_module("transition%d" % (i + 1), _Transition(num_features, num_features // 2))
                num_features = num_features // 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        out = F.adaptive_avg_pool2d(F.relu(self.features(x), inplace=True), (1, 1))
        return self.classifier(ember.flatten(out, 1))


_OLD_KEY = re.compile(r"^(.*denselayer\d+\.(?:norm|relu|conv))\.((?:[12])\.(?:weight|bias|running_mean|running_var))$")


def _new_keys(state_dict):
    """torchvision's DenseNet checkpoints predate its layer names: "norm.1.weight" is now "norm1.weight"."""
    out = OrderedDict()
    for k, v in state_dict.items():
        m = _OLD_KEY.match(k)
        out[m.group(1) + m.group(2) if m else k] = v
    return out


def _densenet(name, growth_rate, block_config, num_init_features, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    model = DenseNet(growth_rate, block_config, num_init_features, **kwargs)
    return _load(model, weights, progress, fix=_new_keys)


@register_model()
def densenet121(*, weights=None, progress=True, **kwargs):
    return _densenet("densenet121", 32, (6, 12, 24, 16), 64, weights, progress, kwargs)


@register_model()
def densenet161(*, weights=None, progress=True, **kwargs):
    return _densenet("densenet161", 48, (6, 12, 36, 24), 96, weights, progress, kwargs)


@register_model()
def densenet169(*, weights=None, progress=True, **kwargs):
    return _densenet("densenet169", 32, (6, 12, 32, 32), 64, weights, progress, kwargs)


@register_model()
def densenet201(*, weights=None, progress=True, **kwargs):
    return _densenet("densenet201", 32, (6, 12, 48, 32), 64, weights, progress, kwargs)
