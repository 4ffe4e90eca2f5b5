"""ResNet-18/34/50/101 (He et al., 2015) with torchvision's constructor arguments and state_dict keys, plus the
ResNeXt and wide variants that the same class builds (groups, width_per_group)."""

import ember

from ... import nn
from ._api import ClassifierMixin, _kaiming_conv, _load, _resolve, register_model

__all__ = [
    "ResNet",
    "BasicBlock",
    "Bottleneck",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnext50_32x4d",
    "wide_resnet50_2",
]


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(
        in_planes,
        out_planes,
        kernel_size=3,
        stride=stride,
        padding=dilation,
        groups=groups,
        bias=False,
        dilation=dilation,
    )


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions and the identity (or a 1x1 projection) shortcut."""

    expansion = 1

    def __init__(
        self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1, norm_layer=None
    ):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        # torchvision's order (the shortcut after the main branch), so that fx graphs list the same nodes
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (strided, grouped, dilated), 1x1 expand by 4; the stride sits on the 3x3 (ResNet v1.5)."""

    expansion = 4

    def __init__(
        self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1, norm_layer=None
    ):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)  # after the main branch, as torchvision
        return self.relu(out + identity)


class ResNet(ClassifierMixin, nn.Module):
    def __init__(
        self,
        block,
        layers,
        num_classes=1000,
        zero_init_residual=False,
        groups=1,
        width_per_group=64,
        replace_stride_with_dilation=None,
        norm_layer=None,
    ):
        super().__init__()
        self._norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError(
                "replace_stride_with_dilation should be None or a 3-element tuple, got %s"
                % (replace_stride_with_dilation,)
            )
        if len(layers) != 4:
            raise ValueError("layers should list the number of blocks of the 4 stages, got %s" % (layers,))
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        _kaiming_conv(self)
        if zero_init_residual:
            # Each residual branch starts as zero, so every block starts as the identity (Goyal et al., 2017).
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.zeros_(m.bn3.weight)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.zeros_(m.bn2.weight)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride), norm_layer(planes * block.expansion)
            )
        layers = [
            block(
                self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation, norm_layer
            )
        ]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(
                block(
                    self.inplanes,
                    planes,
                    groups=self.groups,
                    base_width=self.base_width,
                    dilation=self.dilation,
                    norm_layer=norm_layer,
                )
            )
        return nn.Sequential(*layers)

    def forward(self, x: ember.Tensor) -> ember.Tensor:  # annotated as torchvision's (fx shows it)
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x)
        return self.fc(ember.flatten(x, 1))


def _resnet(name, block, layers, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    return _load(ResNet(block, layers, **kwargs), weights, progress)


@register_model()
def resnet18(*, weights=None, progress=True, **kwargs):
    return _resnet("resnet18", BasicBlock, [2, 2, 2, 2], weights, progress, kwargs)


@register_model()
def resnet34(*, weights=None, progress=True, **kwargs):
    return _resnet("resnet34", BasicBlock, [3, 4, 6, 3], weights, progress, kwargs)


@register_model()
def resnet50(*, weights=None, progress=True, **kwargs):
    return _resnet("resnet50", Bottleneck, [3, 4, 6, 3], weights, progress, kwargs)


@register_model()
def resnet101(*, weights=None, progress=True, **kwargs):
    return _resnet("resnet101", Bottleneck, [3, 4, 23, 3], weights, progress, kwargs)


@register_model()
def resnext50_32x4d(*, weights=None, progress=True, **kwargs):
    kwargs.setdefault("groups", 32)
    kwargs.setdefault("width_per_group", 4)
    return _resnet("resnext50_32x4d", Bottleneck, [3, 4, 6, 3], weights, progress, kwargs)


@register_model()
def wide_resnet50_2(*, weights=None, progress=True, **kwargs):
    kwargs.setdefault("width_per_group", 64 * 2)
    return _resnet("wide_resnet50_2", Bottleneck, [3, 4, 6, 3], weights, progress, kwargs)


@register_model()
def resnet152(*, weights=None, progress=True, **kwargs):
    return _resnet("resnet152", Bottleneck, [3, 8, 36, 3], weights, progress, kwargs)


@register_model()
def resnext101_32x8d(*, weights=None, progress=True, **kwargs):
    kwargs.setdefault("groups", 32)
    kwargs.setdefault("width_per_group", 8)
    return _resnet("resnext101_32x8d", Bottleneck, [3, 4, 23, 3], weights, progress, kwargs)


@register_model()
def resnext101_64x4d(*, weights=None, progress=True, **kwargs):
    kwargs.setdefault("groups", 64)
    kwargs.setdefault("width_per_group", 4)
    return _resnet("resnext101_64x4d", Bottleneck, [3, 4, 23, 3], weights, progress, kwargs)


@register_model()
def wide_resnet101_2(*, weights=None, progress=True, **kwargs):
    kwargs.setdefault("width_per_group", 64 * 2)
    return _resnet("wide_resnet101_2", Bottleneck, [3, 4, 23, 3], weights, progress, kwargs)
