"""torchvision 0.29's S3D (Xie et al., "Rethinking Spatiotemporal Feature Learning"): Inception blocks whose 3x3x3
convolutions are separated into spatial 1x3x3 and temporal 3x1x1 ones, with torchvision's state_dict keys."""

import functools

import ember

from .... import nn
from ...ops.misc import Conv3dNormActivation
from .._api import _load, _resolve, register_model
from .._predict import VideoClassifierMixin

__all__ = ["S3D", "s3d"]


class TemporalSeparableConv(nn.Sequential):
    """A k x k spatial convolution (norm, ReLU) then a k x 1 x 1 temporal one (norm, ReLU), both strided."""

    def __init__(self, in_planes, out_planes, kernel_size, stride, padding, norm_layer):
        super().__init__(
            Conv3dNormActivation(
                in_planes,
                out_planes,
                kernel_size=(1, kernel_size, kernel_size),
                stride=(1, stride, stride),
                padding=(0, padding, padding),
                bias=False,
                norm_layer=norm_layer,
            ),
            Conv3dNormActivation(
                out_planes,
                out_planes,
                kernel_size=(kernel_size, 1, 1),
                stride=(stride, 1, 1),
                padding=(padding, 0, 0),
                bias=False,
                norm_layer=norm_layer,
            ),
        )


class SepInceptionBlock3D(nn.Module):
    """Four branches concatenated on the channels: 1x1x1; 1x1x1 then separable 3x3x3 (twice, other widths); and
    3x3x3 max pooling then 1x1x1."""

    def __init__(self, in_planes, b0_out, b1_mid, b1_out, b2_mid, b2_out, b3_out, norm_layer):
        super().__init__()
        self.branch0 = Conv3dNormActivation(in_planes, b0_out, kernel_size=1, stride=1, norm_layer=norm_layer)
        self.branch1 = nn.Sequential(
            Conv3dNormActivation(in_planes, b1_mid, kernel_size=1, stride=1, norm_layer=norm_layer),
            TemporalSeparableConv(b1_mid, b1_out, kernel_size=3, stride=1, padding=1, norm_layer=norm_layer),
        )
        self.branch2 = nn.Sequential(
            Conv3dNormActivation(in_planes, b2_mid, kernel_size=1, stride=1, norm_layer=norm_layer),
            TemporalSeparableConv(b2_mid, b2_out, kernel_size=3, stride=1, padding=1, norm_layer=norm_layer),
        )
        self.branch3 = nn.Sequential(
            nn.MaxPool3d(kernel_size=(3, 3, 3), stride=1, padding=1),
            Conv3dNormActivation(in_planes, b3_out, kernel_size=1, stride=1, norm_layer=norm_layer),
        )

    def forward(self, x):
        return ember.cat((self.branch0(x), self.branch1(x), self.branch2(x), self.branch3(x)), 1)


class S3D(VideoClassifierMixin, nn.Module):
    """S3D on clips [N, 3, T, H, W] -> logits [N, num_classes]. Its 2x7x7 average pooling wants clips of at least
    16 frames of 224x224 (T/8 x H/32 x W/32 features)."""

    def __init__(self, num_classes=400, dropout=0.2, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = functools.partial(nn.BatchNorm3d, eps=0.001, momentum=0.001)
        pool = nn.MaxPool3d
        self.features = nn.Sequential(
            TemporalSeparableConv(3, 64, 7, 2, 3, norm_layer),
            pool(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
            Conv3dNormActivation(64, 64, kernel_size=1, stride=1, norm_layer=norm_layer),
            TemporalSeparableConv(64, 192, 3, 1, 1, norm_layer),
            pool(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
            SepInceptionBlock3D(192, 64, 96, 128, 16, 32, 32, norm_layer),
            SepInceptionBlock3D(256, 128, 128, 192, 32, 96, 64, norm_layer),
            pool(kernel_size=(3, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1)),
            SepInceptionBlock3D(480, 192, 96, 208, 16, 48, 64, norm_layer),
            SepInceptionBlock3D(512, 160, 112, 224, 24, 64, 64, norm_layer),
            SepInceptionBlock3D(512, 128, 128, 256, 24, 64, 64, norm_layer),
            SepInceptionBlock3D(512, 112, 144, 288, 32, 64, 64, norm_layer),
            SepInceptionBlock3D(528, 256, 160, 320, 32, 128, 128, norm_layer),
            pool(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0)),
            SepInceptionBlock3D(832, 256, 160, 320, 32, 128, 128, norm_layer),
            SepInceptionBlock3D(832, 384, 192, 384, 48, 128, 128, norm_layer),
        )
        self.avgpool = nn.AvgPool3d(kernel_size=(2, 7, 7), stride=1)
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Conv3d(1024, num_classes, kernel_size=1, stride=1, bias=True)
        )

    def forward(self, x):
        x = self.classifier(self.avgpool(self.features(x)))
        return x.mean(dim=(2, 3, 4))


@register_model()
def s3d(*, weights=None, progress=True, **kwargs):
    """S3D (Kinetics-400 weights: S3D_Weights)."""
    weights, kwargs = _resolve("s3d", weights, kwargs)
    return _load(S3D(**kwargs), weights, progress)
