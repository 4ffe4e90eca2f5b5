"""torchvision 0.29's video ResNets (Tran et al., "A Closer Look at Spatiotemporal Convolutions for Action
Recognition"): R3D (3-d convolutions), MC3 (3-d in the first stage, spatial-only after) and R(2+1)D (each 3-d
convolution factored into a spatial and a temporal one), with torchvision's module names and state_dict keys."""

from .... import nn
from .._api import _load, _resolve, register_model
from .._predict import VideoClassifierMixin

__all__ = [
    "VideoResNet",
    "BasicBlock",
    "Bottleneck",
    "BasicStem",
    "R2Plus1dStem",
    "Conv3DSimple",
    "Conv3DNoTemporal",
    "Conv2Plus1D",
    "r3d_18",
    "mc3_18",
    "r2plus1d_18",
]


class Conv3DSimple(nn.Conv3d):
    """A 3x3x3 convolution (midplanes unused)."""

    def __init__(self, in_planes, out_planes, midplanes=None, stride=1, padding=1):
        super().__init__(in_planes, out_planes, kernel_size=(3, 3, 3), stride=stride, padding=padding, bias=False)

    @staticmethod
    def get_downsample_stride(stride):
        return stride, stride, stride


class Conv2Plus1D(nn.Sequential):
    """A 1x3x3 spatial convolution to midplanes channels, batch norm, ReLU, then a 3x1x1 temporal convolution."""

    def __init__(self, in_planes, out_planes, midplanes, stride=1, padding=1):
        super().__init__(
            nn.Conv3d(
                in_planes,
                midplanes,
                kernel_size=(1, 3, 3),
                stride=(1, stride, stride),
                padding=(0, padding, padding),
                bias=False,
            ),
            nn.BatchNorm3d(midplanes),
            nn.ReLU(inplace=True),
            nn.Conv3d(
                midplanes, out_planes, kernel_size=(3, 1, 1), stride=(stride, 1, 1), padding=(padding, 0, 0), bias=False
            ),
        )

    @staticmethod
    def get_downsample_stride(stride):
        return stride, stride, stride


class Conv3DNoTemporal(nn.Conv3d):
    """A 1x3x3 convolution: spatial only, the time axis neither mixed nor strided."""

    def __init__(self, in_planes, out_planes, midplanes=None, stride=1, padding=1):
        super().__init__(
            in_planes,
            out_planes,
            kernel_size=(1, 3, 3),
            stride=(1, stride, stride),
            padding=(0, padding, padding),
            bias=False,
        )

    @staticmethod
    def get_downsample_stride(stride):
        return 1, stride, stride


def _midplanes(inplanes, planes):
    # R(2+1)D's width between its spatial and temporal convolutions: as many parameters as the 3x3x3 convolution
    return (inplanes * planes * 3 * 3 * 3) // (inplanes * 3 * 3 + 3 * planes)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, conv_builder, stride=1, downsample=None):
        super().__init__()
        midplanes = _midplanes(inplanes, planes)
        self.conv1 = nn.Sequential(
            conv_builder(inplanes, planes, midplanes, stride), nn.BatchNorm3d(planes), nn.ReLU(inplace=True)
        )
        self.conv2 = nn.Sequential(conv_builder(planes, planes, midplanes), nn.BatchNorm3d(planes))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv2(self.conv1(x)) + residual)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, conv_builder, stride=1, downsample=None):
        super().__init__()
        midplanes = _midplanes(inplanes, planes)
        self.conv1 = nn.Sequential(
            nn.Conv3d(inplanes, planes, kernel_size=1, bias=False), nn.BatchNorm3d(planes), nn.ReLU(inplace=True)
        )
        self.conv2 = nn.Sequential(
            conv_builder(planes, planes, midplanes, stride), nn.BatchNorm3d(planes), nn.ReLU(inplace=True)
        )
        self.conv3 = nn.Sequential(
            nn.Conv3d(planes, planes * self.expansion, kernel_size=1, bias=False),
            nn.BatchNorm3d(planes * self.expansion),
        )
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv3(self.conv2(self.conv1(x))) + residual)


class BasicStem(nn.Sequential):
    """The R3D/MC3 stem: a 3x7x7 convolution (spatial stride 2), batch norm, ReLU."""

    def __init__(self):
        super().__init__(
            nn.Conv3d(3, 64, kernel_size=(3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False),
            nn.BatchNorm3d(64),
            nn.ReLU(inplace=True),
        )


class R2Plus1dStem(nn.Sequential):
    """The R(2+1)D stem: the 3x7x7 convolution factored into 1x7x7 (to 45 channels) and 3x1x1."""

    def __init__(self):
        super().__init__(
            nn.Conv3d(3, 45, kernel_size=(1, 7, 7), stride=(1, 2, 2), padding=(0, 3, 3), bias=False),
            nn.BatchNorm3d(45),
            nn.ReLU(inplace=True),
            nn.Conv3d(45, 64, kernel_size=(3, 1, 1), stride=(1, 1, 1), padding=(1, 0, 0), bias=False),
            nn.BatchNorm3d(64),
            nn.ReLU(inplace=True),
        )


class VideoResNet(VideoClassifierMixin, nn.Module):
    """A ResNet on clips [N, 3, T, H, W] -> logits [N, num_classes]; conv_makers gives each stage's convolution."""

    def __init__(self, block, conv_makers, layers, stem, num_classes=400, zero_init_residual=False):
        super().__init__()
        self.inplanes = 64
        self.stem = stem()
        self.layer1 = self._make_layer(block, conv_makers[0], 64, layers[0], stride=1)
        self.layer2 = self._make_layer(block, conv_makers[1], 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, conv_makers[2], 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, conv_makers[3], 512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm3d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)
        if zero_init_residual:
            # torchvision names m.bn3, which its Bottleneck lacks (an AttributeError there); the last norm is meant
            for m in self.modules():
                if isinstance(m, Bottleneck):
                    nn.init.zeros_(m.conv3[1].weight)

    def _make_layer(self, block, conv_builder, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv3d(
                    self.inplanes,
                    planes * block.expansion,
                    kernel_size=1,
                    stride=conv_builder.get_downsample_stride(stride),
                    bias=False,
                ),
                nn.BatchNorm3d(planes * block.expansion),
            )
        layers = [block(self.inplanes, planes, conv_builder, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes, conv_builder) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.layer4(self.layer3(self.layer2(self.layer1(self.stem(x)))))
        return self.fc(self.avgpool(x).flatten(1))


def _video_resnet(name, conv_makers, stem, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    return _load(VideoResNet(BasicBlock, conv_makers, [2, 2, 2, 2], stem, **kwargs), weights, progress)


@register_model()
def r3d_18(*, weights=None, progress=True, **kwargs):
    """R3D-18: 3-d convolutions throughout (Kinetics-400 weights: R3D_18_Weights)."""
    return _video_resnet("r3d_18", [Conv3DSimple] * 4, BasicStem, weights, progress, kwargs)


@register_model()
def mc3_18(*, weights=None, progress=True, **kwargs):
    """MC3-18: 3-d convolutions in the first stage, spatial-only ones after (MC3_18_Weights)."""
    return _video_resnet("mc3_18", [Conv3DSimple] + [Conv3DNoTemporal] * 3, BasicStem, weights, progress, kwargs)


@register_model()
def r2plus1d_18(*, weights=None, progress=True, **kwargs):
    """R(2+1)D-18: every 3-d convolution factored into spatial and temporal ones (R2Plus1D_18_Weights)."""
    return _video_resnet("r2plus1d_18", [Conv2Plus1D] * 4, R2Plus1dStem, weights, progress, kwargs)
