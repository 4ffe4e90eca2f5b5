"""torchvision 0.29's RAFT (Teed and Deng, "Recurrent All-Pairs Field Transforms for Optical Flow"), large and
small, with torchvision's module names and state_dict keys: feature and context encoders at 1/8 resolution, an
all-pairs correlation pyramid looked up around the current estimate (grid_sample), and a convolutional GRU that
refines the flow num_flow_updates times."""

import math

import ember

from .... import nn
from ....nn import functional as F
from ...ops.misc import Conv2dNormActivation
from .._api import _load, _resolve, register_model
from .._predict import OpticalFlowMixin
from ._utils import grid_sample, make_coords_grid, upsample_flow

__all__ = ["RAFT", "raft_large", "raft_small"]


class ResidualBlock(nn.Module):
    """Two 3x3 conv-norm-ReLU (with biases) and a projected shortcut where strided; ReLU after the sum."""

    def __init__(self, in_channels, out_channels, *, norm_layer, stride=1, always_project=False):
        super().__init__()
        self.convnormrelu1 = Conv2dNormActivation(
            in_channels, out_channels, norm_layer=norm_layer, kernel_size=3, stride=stride, bias=True
        )
        self.convnormrelu2 = Conv2dNormActivation(
            out_channels, out_channels, norm_layer=norm_layer, kernel_size=3, bias=True
        )
        if stride == 1 and not always_project:
            self.downsample = nn.Identity()
        else:
            self.downsample = Conv2dNormActivation(
                in_channels, out_channels, norm_layer=norm_layer, kernel_size=1, stride=stride, bias=True,
                activation_layer=None,
            )  # fmt: skip
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(self.downsample(x) + self.convnormrelu2(self.convnormrelu1(x)))


class BottleneckBlock(nn.Module):
    """1x1, 3x3 (strided), 1x1 conv-norm-ReLU at a quarter of the width, with biases; ReLU after the sum."""

    def __init__(self, in_channels, out_channels, *, norm_layer, stride=1):
        super().__init__()
        mid = out_channels // 4
        self.convnormrelu1 = Conv2dNormActivation(in_channels, mid, norm_layer=norm_layer, kernel_size=1, bias=True)
        self.convnormrelu2 = Conv2dNormActivation(
            mid, mid, norm_layer=norm_layer, kernel_size=3, stride=stride, bias=True
        )
        self.convnormrelu3 = Conv2dNormActivation(mid, out_channels, norm_layer=norm_layer, kernel_size=1, bias=True)
        self.relu = nn.ReLU(inplace=True)
        if stride == 1:
            self.downsample = nn.Identity()
        else:
            self.downsample = Conv2dNormActivation(
                in_channels, out_channels, norm_layer=norm_layer, kernel_size=1, stride=stride, bias=True,
                activation_layer=None,
            )  # fmt: skip

    def forward(self, x):
        y = self.convnormrelu3(self.convnormrelu2(self.convnormrelu1(x)))
        return self.relu(self.downsample(x) + y)


class FeatureEncoder(nn.Module):
    """The feature (and context) encoder: a 7x7 stem and three stages of two blocks, downsampling by 8."""

    def __init__(
        self, *, block=ResidualBlock, layers=(64, 64, 96, 128, 256), strides=(2, 1, 2, 2), norm_layer=nn.BatchNorm2d
    ):
        super().__init__()
        if len(layers) != 5:
            raise ValueError(f"The expected number of layers is 5, instead got {len(layers)}")
        self.convnormrelu = Conv2dNormActivation(
            3, layers[0], norm_layer=norm_layer, kernel_size=7, stride=strides[0], bias=True
        )
        self.layer1 = self._make_2_blocks(block, layers[0], layers[1], norm_layer, strides[1])
        self.layer2 = self._make_2_blocks(block, layers[1], layers[2], norm_layer, strides[2])
        self.layer3 = self._make_2_blocks(block, layers[2], layers[3], norm_layer, strides[3])
        self.conv = nn.Conv2d(layers[3], layers[4], kernel_size=1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.InstanceNorm2d)):
                if m.weight is not None:
                    nn.init.ones_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
        self.output_dim = layers[-1]
        self.downsample_factor = 2 ** sum(1 for s in strides if s == 2)

    def _make_2_blocks(self, block, in_channels, out_channels, norm_layer, first_stride):
        return nn.Sequential(
            block(in_channels, out_channels, norm_layer=norm_layer, stride=first_stride),
            block(out_channels, out_channels, norm_layer=norm_layer, stride=1),
        )

    def forward(self, x):
        return self.conv(self.layer3(self.layer2(self.layer1(self.convnormrelu(x)))))


class MotionEncoder(nn.Module):
    """Encodes the current flow and the correlation features; the flow itself is appended to its output."""

    def __init__(self, *, in_channels_corr, corr_layers=(256, 192), flow_layers=(128, 64), out_channels=128):
        super().__init__()
        if len(flow_layers) != 2:
            raise ValueError(f"The expected number of flow_layers is 2, instead got {len(flow_layers)}")
        if len(corr_layers) not in (1, 2):
            raise ValueError(f"The number of corr_layers should be 1 or 2, instead got {len(corr_layers)}")
        self.convcorr1 = Conv2dNormActivation(in_channels_corr, corr_layers[0], norm_layer=None, kernel_size=1)
        if len(corr_layers) == 2:
            self.convcorr2 = Conv2dNormActivation(corr_layers[0], corr_layers[1], norm_layer=None, kernel_size=3)
        else:
            self.convcorr2 = nn.Identity()
        self.convflow1 = Conv2dNormActivation(2, flow_layers[0], norm_layer=None, kernel_size=7)
        self.convflow2 = Conv2dNormActivation(flow_layers[0], flow_layers[1], norm_layer=None, kernel_size=3)
        self.conv = Conv2dNormActivation(
            corr_layers[-1] + flow_layers[-1], out_channels - 2, norm_layer=None, kernel_size=3
        )
        self.out_channels = out_channels

    def forward(self, flow, corr_features):
        corr = self.convcorr2(self.convcorr1(corr_features))
        f = self.convflow2(self.convflow1(flow))
        return ember.cat([self.conv(ember.cat([corr, f], dim=1)), flow], dim=1)


class ConvGRU(nn.Module):
    """A GRU cell whose gates are convolutions over [h, x]."""

    def __init__(self, *, input_size, hidden_size, kernel_size, padding):
        super().__init__()
        self.convz = nn.Conv2d(hidden_size + input_size, hidden_size, kernel_size=kernel_size, padding=padding)
        self.convr = nn.Conv2d(hidden_size + input_size, hidden_size, kernel_size=kernel_size, padding=padding)
        self.convq = nn.Conv2d(hidden_size + input_size, hidden_size, kernel_size=kernel_size, padding=padding)

    def forward(self, h, x):
        hx = ember.cat([h, x], dim=1)
        z = ember.sigmoid(self.convz(hx))
        r = ember.sigmoid(self.convr(hx))
        q = ember.tanh(self.convq(ember.cat([r * h, x], dim=1)))
        return (1 - z) * h + z * q


def _pass_through_h(h, _):
    return h


class RecurrentBlock(nn.Module):
    """One or two ConvGRUs in sequence (raft_large: a 1x5 then a 5x1 one)."""

    def __init__(self, *, input_size, hidden_size, kernel_size=((1, 5), (5, 1)), padding=((0, 2), (2, 0))):
        super().__init__()
        if len(kernel_size) != len(padding):
            raise ValueError(
                f"kernel_size should have the same length as padding, instead got len(kernel_size) = "
                f"{len(kernel_size)} and len(padding) = {len(padding)}"
            )
        if len(kernel_size) not in (1, 2):
            raise ValueError(f"kernel_size should either 1 or 2, instead got {len(kernel_size)}")
        self.convgru1 = ConvGRU(
            input_size=input_size, hidden_size=hidden_size, kernel_size=kernel_size[0], padding=padding[0]
        )
        if len(kernel_size) == 2:
            self.convgru2 = ConvGRU(
                input_size=input_size, hidden_size=hidden_size, kernel_size=kernel_size[1], padding=padding[1]
            )
        else:
            self.convgru2 = _pass_through_h
        self.hidden_size = hidden_size

    def forward(self, h, x):
        return self.convgru2(self.convgru1(h, x), x)


class FlowHead(nn.Module):
    """The hidden state -> the flow's update (2 channels)."""

    def __init__(self, *, in_channels, hidden_size):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, hidden_size, 3, padding=1)
        self.conv2 = nn.Conv2d(hidden_size, 2, 3, padding=1)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.conv2(self.relu(self.conv1(x)))


class UpdateBlock(nn.Module):
    """Motion encoder, recurrent block and flow head: (hidden, context, correlation, flow) -> (hidden, delta)."""

    def __init__(self, *, motion_encoder, recurrent_block, flow_head):
        super().__init__()
        self.motion_encoder = motion_encoder
        self.recurrent_block = recurrent_block
        self.flow_head = flow_head
        self.hidden_state_size = recurrent_block.hidden_size

    def forward(self, hidden_state, context, corr_features, flow):
        x = ember.cat([context, self.motion_encoder(flow, corr_features)], dim=1)
        hidden_state = self.recurrent_block(hidden_state, x)
        return hidden_state, self.flow_head(hidden_state)


class MaskPredictor(nn.Module):
    """The hidden state -> the 8 * 8 * 9 convex-upsampling weights (scaled by multiplier, as RAFT's 0.25)."""

    def __init__(self, *, in_channels, hidden_size, multiplier=0.25):
        super().__init__()
        self.convrelu = Conv2dNormActivation(in_channels, hidden_size, norm_layer=None, kernel_size=3)
        self.conv = nn.Conv2d(hidden_size, 8 * 8 * 9, 1, padding=0)
        self.multiplier = multiplier

    def forward(self, x):
        return self.multiplier * self.conv(self.convrelu(x))


class CorrBlock(nn.Module):
    """The all-pairs correlation volume of two feature maps, average-pooled num_levels - 1 times over the second
    map's positions; index_pyramid samples each level on the (2 radius + 1)^2 grid around every pixel's current
    match (bilinear, F.grid_sample)."""

    def __init__(self, *, num_levels=4, radius=4):
        super().__init__()
        self.num_levels = num_levels
        self.radius = radius
        self.corr_pyramid = []
        self.out_channels = num_levels * (2 * radius + 1) ** 2

    def build_pyramid(self, fmap1, fmap2):
        if fmap1.shape != fmap2.shape:
            raise ValueError(
                f"Input feature maps should have the same shape, instead got {fmap1.shape} (fmap1.shape) != "
                f"{fmap2.shape} (fmap2.shape)"
            )
        min_fmap_size = 2 * (2 ** (self.num_levels - 1))
        if any(s < min_fmap_size for s in fmap1.shape[-2:]):
            raise ValueError(
                "Feature maps are too small to be down-sampled by the correlation pyramid. "
                f"H and W of feature maps should be at least {min_fmap_size}; got: {fmap1.shape[-2:]}. "
                "Remember that input images to the model are downsampled by 8, so that means their "
                f"dimensions should be at least 8 * {min_fmap_size} = {8 * min_fmap_size}."
            )
        b, c, h, w = fmap1.shape
        corr = ember.matmul(fmap1.reshape(b, c, h * w).transpose(1, 2), fmap2.reshape(b, c, h * w))
        corr = (corr / math.sqrt(c)).reshape(b * h * w, 1, h, w)
        self.corr_pyramid = [corr]
        for _ in range(self.num_levels - 1):
            corr = F.avg_pool2d(corr, kernel_size=2, stride=2)
            self.corr_pyramid.append(corr)

    def index_pyramid(self, centroids_coords):
        side = 2 * self.radius + 1
        d = ember.linspace(-self.radius, self.radius, side)
        delta = ember.stack(ember.meshgrid(d, d, indexing="ij"), dim=-1).to(centroids_coords.device)
        delta = delta.view(1, side, side, 2)
        b, _, h, w = centroids_coords.shape
        centroids = centroids_coords.permute(0, 2, 3, 1).reshape(b * h * w, 1, 1, 2)
        indexed = []
        for corr in self.corr_pyramid:
            sampled = grid_sample(corr, centroids + delta, align_corners=True, mode="bilinear")
            indexed.append(sampled.view(b, h, w, -1))
            centroids = centroids / 2
        out = ember.cat(indexed, dim=-1).permute(0, 3, 1, 2).contiguous()
        if tuple(out.shape) != (b, self.out_channels, h, w):
            raise ValueError(
                f"Output shape of index pyramid is incorrect. Should be {(b, self.out_channels, h, w)}, got {out.shape}"
            )
        return out


class RAFT(OpticalFlowMixin, nn.Module):
    """RAFT: model(image1, image2, num_flow_updates=12) -> a list of num_flow_updates flows [N, 2, H, W] (the last is
    the best). Images [N, 3, H, W] in [-1, 1] (the weights' transforms()), H and W multiples of 8."""

    def __init__(self, *, feature_encoder, context_encoder, corr_block, update_block, mask_predictor=None):
        super().__init__()
        self.feature_encoder = feature_encoder
        self.context_encoder = context_encoder
        self.corr_block = corr_block
        self.update_block = update_block
        self.mask_predictor = mask_predictor
        if not hasattr(self.update_block, "hidden_state_size"):
            raise ValueError("The update_block parameter should expose a 'hidden_state_size' attribute.")

    def forward(self, image1, image2, num_flow_updates=12):
        batch_size, _, h, w = image1.shape
        if (h, w) != tuple(image2.shape[-2:]):
            raise ValueError(f"input images should have the same shape, instead got ({h}, {w}) != {image2.shape[-2:]}")
        if h % 8 != 0 or w % 8 != 0:
            raise ValueError(f"input image H and W should be divisible by 8, instead got {h} (h) and {w} (w)")
        fmap1, fmap2 = ember.chunk(self.feature_encoder(ember.cat([image1, image2], dim=0)), chunks=2, dim=0)
        if tuple(fmap1.shape[-2:]) != (h // 8, w // 8):
            raise ValueError("The feature encoder should downsample H and W by 8")
        self.corr_block.build_pyramid(fmap1, fmap2)
        context_out = self.context_encoder(image1)
        if tuple(context_out.shape[-2:]) != (h // 8, w // 8):
            raise ValueError("The context encoder should downsample H and W by 8")
        hidden_size = self.update_block.hidden_state_size
        context_size = context_out.shape[1] - hidden_size
        if context_size <= 0:
            raise ValueError(
                f"The context encoder outputs {context_out.shape[1]} channels, but it should have at strictly more "
                f"than hidden_state={hidden_size} channels"
            )
        hidden_state, context = ember.split(context_out, [hidden_size, context_size], dim=1)
        hidden_state, context = ember.tanh(hidden_state), F.relu(context)
        coords0 = make_coords_grid(batch_size, h // 8, w // 8).to(fmap1.device)
        coords1 = make_coords_grid(batch_size, h // 8, w // 8).to(fmap1.device)
        flow_predictions = []
        for _ in range(num_flow_updates):
            coords1 = coords1.detach()  # no gradient through the lookup's coordinates (the paper's choice)
            corr_features = self.corr_block.index_pyramid(centroids_coords=coords1)
            hidden_state, delta_flow = self.update_block(hidden_state, context, corr_features, coords1 - coords0)
            coords1 = coords1 + delta_flow
            up_mask = None if self.mask_predictor is None else self.mask_predictor(hidden_state)
            flow_predictions.append(upsample_flow(flow=coords1 - coords0, up_mask=up_mask))
        return flow_predictions


def _raft(name, weights, progress, kwargs, *, feature_encoder_layers, feature_encoder_block,
          feature_encoder_norm_layer, context_encoder_layers, context_encoder_block, context_encoder_norm_layer,
          corr_block_num_levels, corr_block_radius, motion_encoder_corr_layers, motion_encoder_flow_layers,
          motion_encoder_out_channels, recurrent_block_hidden_state_size, recurrent_block_kernel_size,
          recurrent_block_padding, flow_head_hidden_size, use_mask_predictor):  # fmt: skip
    weights, kwargs = _resolve(name, weights, kwargs)
    feature_encoder = kwargs.pop("feature_encoder", None) or FeatureEncoder(
        block=feature_encoder_block, layers=feature_encoder_layers, norm_layer=feature_encoder_norm_layer
    )
    context_encoder = kwargs.pop("context_encoder", None) or FeatureEncoder(
        block=context_encoder_block, layers=context_encoder_layers, norm_layer=context_encoder_norm_layer
    )
    corr_block = kwargs.pop("corr_block", None) or CorrBlock(num_levels=corr_block_num_levels, radius=corr_block_radius)
    update_block = kwargs.pop("update_block", None)
    if update_block is None:
        motion_encoder = MotionEncoder(
            in_channels_corr=corr_block.out_channels,
            corr_layers=motion_encoder_corr_layers,
            flow_layers=motion_encoder_flow_layers,
            out_channels=motion_encoder_out_channels,
        )
        recurrent_block = RecurrentBlock(
            input_size=motion_encoder.out_channels + context_encoder_layers[-1] - recurrent_block_hidden_state_size,
            hidden_size=recurrent_block_hidden_state_size,
            kernel_size=recurrent_block_kernel_size,
            padding=recurrent_block_padding,
        )
        flow_head = FlowHead(in_channels=recurrent_block_hidden_state_size, hidden_size=flow_head_hidden_size)
        update_block = UpdateBlock(motion_encoder=motion_encoder, recurrent_block=recurrent_block, flow_head=flow_head)
    mask_predictor = kwargs.pop("mask_predictor", None)
    if mask_predictor is None and use_mask_predictor:
        mask_predictor = MaskPredictor(in_channels=recurrent_block_hidden_state_size, hidden_size=256, multiplier=0.25)
    model = RAFT(
        feature_encoder=feature_encoder,
        context_encoder=context_encoder,
        corr_block=corr_block,
        update_block=update_block,
        mask_predictor=mask_predictor,
        **kwargs,
    )
    return _load(model, weights, progress)


@register_model()
def raft_large(*, weights=None, progress=True, **kwargs):
    """RAFT large (5.3M parameters; Raft_Large_Weights, default C_T_SKHT_V2)."""
    return _raft(
        "raft_large", weights, progress, kwargs,
        feature_encoder_layers=(64, 64, 96, 128, 256), feature_encoder_block=ResidualBlock,
        feature_encoder_norm_layer=nn.InstanceNorm2d,
        context_encoder_layers=(64, 64, 96, 128, 256), context_encoder_block=ResidualBlock,
        context_encoder_norm_layer=nn.BatchNorm2d,
        corr_block_num_levels=4, corr_block_radius=4,
        motion_encoder_corr_layers=(256, 192), motion_encoder_flow_layers=(128, 64), motion_encoder_out_channels=128,
        recurrent_block_hidden_state_size=128, recurrent_block_kernel_size=((1, 5), (5, 1)),
        recurrent_block_padding=((0, 2), (2, 0)),
        flow_head_hidden_size=256, use_mask_predictor=True,
    )  # fmt: skip


@register_model()
def raft_small(*, weights=None, progress=True, **kwargs):
    """RAFT small (1M parameters, flow upsampled bilinearly; Raft_Small_Weights, default C_T_V2)."""
    return _raft(
        "raft_small", weights, progress, kwargs,
        feature_encoder_layers=(32, 32, 64, 96, 128), feature_encoder_block=BottleneckBlock,
        feature_encoder_norm_layer=nn.InstanceNorm2d,
        context_encoder_layers=(32, 32, 64, 96, 160), context_encoder_block=BottleneckBlock,
        context_encoder_norm_layer=None,
        corr_block_num_levels=4, corr_block_radius=3,
        motion_encoder_corr_layers=(96,), motion_encoder_flow_layers=(64, 32), motion_encoder_out_channels=82,
        recurrent_block_hidden_state_size=96, recurrent_block_kernel_size=(3,), recurrent_block_padding=(1,),
        flow_head_hidden_size=128, use_mask_predictor=False,
    )  # fmt: skip
