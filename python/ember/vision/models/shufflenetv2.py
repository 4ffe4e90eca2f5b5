"""ShuffleNet V2 (Ma et al., 2018) with torchvision's arguments and state_dict keys."""

import ember

from ... import nn
from ._api import ClassifierMixin, _load, _resolve, register_model

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]


def channel_shuffle(x, groups):
    n, c, h, w = x.size()
    return ember.transpose(x.view(n, groups, c // groups, h, w), 1, 2).contiguous().view(n, c, h, w)


def _depthwise(i, o, kernel_size, stride=1, padding=0, bias=False):
    return nn.Conv2d(i, o, kernel_size, stride, padding, bias=bias, groups=i)


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride):
        super().__init__()
        if not 1 <= stride <= 3:
            raise ValueError("illegal stride value")
        self.stride = stride
        branch_features = oup // 2
        if self.stride == 1 and inp != branch_features << 1:
            raise ValueError(
                f"Invalid combination of stride {stride}, inp {inp} and oup {oup} values. If stride == 1 then inp "
                "should be equal to oup // 2 << 1."
            )
        if self.stride > 1:
            self.branch1 = nn.Sequential(
                _depthwise(inp, inp, kernel_size=3, stride=self.stride, padding=1),
                nn.BatchNorm2d(inp),
                nn.Conv2d(inp, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(branch_features),
                nn.ReLU(inplace=True),
            )
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if self.stride > 1 else branch_features, branch_features, 1, 1, 0, bias=False),
            nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True),
            _depthwise(branch_features, branch_features, kernel_size=3, stride=self.stride, padding=1),
            nn.BatchNorm2d(branch_features),
            nn.Conv2d(branch_features, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
            nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = ember.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = ember.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(ClassifierMixin, nn.Module):
    def __init__(self, stages_repeats, stages_out_channels, num_classes=1000, inverted_residual=InvertedResidual):
        super().__init__()
        if len(stages_repeats) != 3:
            raise ValueError("expected stages_repeats as list of 3 positive ints")
        if len(stages_out_channels) != 5:
            raise ValueError("expected stages_out_channels as list of 5 positive ints")
        self._stage_out_channels = stages_out_channels
        out = stages_out_channels[0]
        self.conv1 = nn.Sequential(nn.Conv2d(3, out, 3, 2, 1, bias=False), nn.BatchNorm2d(out), nn.ReLU(inplace=True))
        inp = out
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        for name, repeats, out in zip(("stage2", "stage3", "stage4"), stages_repeats, stages_out_channels[1:]):
            seq = [inverted_residual(inp, out, 2)] + [inverted_residual(out, out, 1) for _ in range(repeats - 1)]
            setattr(self, name, nn.Sequential(*seq))
            inp = out
        out = stages_out_channels[-1]
        self.conv5 = nn.Sequential(nn.Conv2d(inp, out, 1, 1, 0, bias=False), nn.BatchNorm2d(out), nn.ReLU(inplace=True))
        self.fc = nn.Linear(out, num_classes)

    def forward(self, x):
        x = self.stage4(self.stage3(self.stage2(self.maxpool(self.conv1(x)))))
        return self.fc(self.conv5(x).mean([2, 3]))


def _shufflenetv2(name, channels, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    return _load(ShuffleNetV2([4, 8, 4], channels, **kwargs), weights, progress)


@register_model()
def shufflenet_v2_x0_5(*, weights=None, progress=True, **kwargs):
    return _shufflenetv2("shufflenet_v2_x0_5", [24, 48, 96, 192, 1024], weights, progress, kwargs)


@register_model()
def shufflenet_v2_x1_0(*, weights=None, progress=True, **kwargs):
    return _shufflenetv2("shufflenet_v2_x1_0", [24, 116, 232, 464, 1024], weights, progress, kwargs)


@register_model()
def shufflenet_v2_x1_5(*, weights=None, progress=True, **kwargs):
    return _shufflenetv2("shufflenet_v2_x1_5", [24, 176, 352, 704, 1024], weights, progress, kwargs)


@register_model()
def shufflenet_v2_x2_0(*, weights=None, progress=True, **kwargs):
    return _shufflenetv2("shufflenet_v2_x2_0", [24, 244, 488, 976, 2048], weights, progress, kwargs)
