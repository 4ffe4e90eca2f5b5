"""MaxViT-T (Tu et al., 2022) with torchvision's arguments and state_dict keys: MBConv, then block (window) and grid
attention in every layer."""

import functools
import math
from collections import OrderedDict

import numpy as np

import ember

from ... import nn
from ...nn import functional as F
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._api import ClassifierMixin, _load, _ovewrite_named_param, _resolve, register_model

__all__ = ["MaxVit", "maxvit_t"]


def _conv_out(size, kernel_size, stride, padding):
    return tuple((s - kernel_size + 2 * padding) // stride + 1 for s in size)


def _relative_position_index(height, width):
    coords = ember.stack(ember.meshgrid([ember.arange(height), ember.arange(width)], indexing="ij"))
    flat = ember.flatten(coords, 1)
    rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0)
    return (rel[:, :, 0] + (height - 1)) * (2 * width - 1) + (rel[:, :, 1] + (width - 1))


class MBConv(nn.Module):
    def __init__(
        self, in_channels, out_channels, expansion_ratio, squeeze_ratio, stride, activation_layer, norm_layer,
        p_stochastic_dropout=0.0,
    ):  # fmt: skip
        super().__init__()
        if stride != 1 or in_channels != out_channels:
            proj = [nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, bias=True)]
            if stride == 2:
                proj = [nn.AvgPool2d(kernel_size=3, stride=stride, padding=1)] + proj
            self.proj = nn.Sequential(*proj)
        else:
            self.proj = nn.Identity()
        mid = int(out_channels * expansion_ratio)
        self.stochastic_depth = (
            StochasticDepth(p_stochastic_dropout, mode="row") if p_stochastic_dropout else nn.Identity()
        )
        layers = OrderedDict()
        layers["pre_norm"] = norm_layer(in_channels)
        layers["conv_a"] = Conv2dNormActivation(
            in_channels, mid, kernel_size=1, stride=1, padding=0, activation_layer=activation_layer,
            norm_layer=norm_layer, inplace=None,
        )  # fmt: skip
        layers["conv_b"] = Conv2dNormActivation(
            mid, mid, kernel_size=3, stride=stride, padding=1, activation_layer=activation_layer,
            norm_layer=norm_layer, groups=mid, inplace=None,
        )  # fmt: skip
        layers["squeeze_excitation"] = SqueezeExcitation(mid, int(out_channels * squeeze_ratio), activation=nn.SiLU)
        layers["conv_c"] = nn.Conv2d(mid, out_channels, kernel_size=1, bias=True)
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.proj(x) + self.stochastic_depth(self.layers(x))


class RelativePositionalMultiHeadAttention(nn.Module):
    def __init__(self, feat_dim, head_dim, max_seq_len):
        super().__init__()
        if feat_dim % head_dim != 0:
            raise ValueError(f"feat_dim: {feat_dim} must be divisible by head_dim: {head_dim}")
        self.n_heads = feat_dim // head_dim
        self.head_dim = head_dim
        self.size = int(math.sqrt(max_seq_len))
        self.max_seq_len = max_seq_len
        self.to_qkv = nn.Linear(feat_dim, self.n_heads * self.head_dim * 3)
        self.scale_factor = feat_dim**-0.5  # torchvision's: the feature width, not the head width
        self.merge = nn.Linear(self.head_dim * self.n_heads, feat_dim)
        self.relative_position_bias_table = nn.Parameter(
            ember.empty(((2 * self.size - 1) * (2 * self.size - 1), self.n_heads), dtype=ember.float32)
        )
        self.register_buffer("relative_position_index", _relative_position_index(self.size, self.size))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def get_relative_positional_bias(self):
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)]
        return bias.view(self.max_seq_len, self.max_seq_len, -1).permute(2, 0, 1).contiguous().unsqueeze(0)

    def forward(self, x):
        b, g, p, d = x.shape
        h, dh = self.n_heads, self.head_dim
        q, k, v = (t.reshape(b, g, p, h, dh).permute(0, 1, 3, 2, 4) for t in ember.chunk(self.to_qkv(x), 3, dim=-1))
        attn = F.softmax(q.matmul((k * self.scale_factor).transpose(-2, -1)) + self.get_relative_positional_bias(), -1)
        return self.merge(attn.matmul(v).permute(0, 1, 3, 2, 4).reshape(b, g, p, d))


class SwapAxes(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.a = a
        self.b = b

    def forward(self, x):
        return ember.swapaxes(x, self.a, self.b)


class WindowPartition(nn.Module):
    """[B, C, H, W] -> [B, H/P * W/P, P*P, C]: non-overlapping P x P windows."""

    def forward(self, x, p):
        b, c, h, w = x.shape
        return x.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1).reshape(b, (h // p) * (w // p), p * p, c)


class WindowDepartition(nn.Module):
    """The inverse of WindowPartition."""

    def forward(self, x, p, h_partitions, w_partitions):
        b, g, pp, c = x.shape
        x = x.reshape(b, h_partitions, w_partitions, p, p, c).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(b, c, h_partitions * p, w_partitions * p)


class PartitionAttentionLayer(nn.Module):
    def __init__(
        self, in_channels, head_dim, partition_size, partition_type, grid_size, mlp_ratio, activation_layer,
        norm_layer, attention_dropout, mlp_dropout, p_stochastic_dropout,
    ):  # fmt: skip
        super().__init__()
        self.n_heads = in_channels // head_dim
        self.head_dim = head_dim
        self.n_partitions = grid_size[0] // partition_size
        self.partition_type = partition_type
        self.grid_size = grid_size
        if partition_type not in ["grid", "window"]:
            raise ValueError("partition_type must be either 'grid' or 'window'")
        # Window attention: P x P windows; grid attention: a sparse grid spanning the map (the axes swapped).
        if partition_type == "window":
            self.p, self.g = partition_size, self.n_partitions
        else:
            self.p, self.g = self.n_partitions, partition_size
        self.partition_op = WindowPartition()
        self.departition_op = WindowDepartition()
        self.partition_swap = SwapAxes(-2, -3) if partition_type == "grid" else nn.Identity()
        self.departition_swap = SwapAxes(-2, -3) if partition_type == "grid" else nn.Identity()
        self.attn_layer = nn.Sequential(
            norm_layer(in_channels),
            RelativePositionalMultiHeadAttention(in_channels, head_dim, partition_size**2),
            nn.Dropout(attention_dropout),
        )
        self.mlp_layer = nn.Sequential(
            nn.LayerNorm(in_channels),
            nn.Linear(in_channels, in_channels * mlp_ratio),
            activation_layer(),
            nn.Linear(in_channels * mlp_ratio, in_channels),
            nn.Dropout(mlp_dropout),
        )
        self.stochastic_dropout = StochasticDepth(p_stochastic_dropout, mode="row")

    def forward(self, x):
        if self.grid_size[0] % self.p != 0 or self.grid_size[1] % self.p != 0:
            raise RuntimeError(
                f"Grid size must be divisible by partition size. Got grid size of {self.grid_size} and partition size "
                f"of {self.p}"
            )
        gh, gw = self.grid_size[0] // self.p, self.grid_size[1] // self.p
        x = self.partition_swap(self.partition_op(x, self.p))
        x = x + self.stochastic_dropout(self.attn_layer(x))
        x = x + self.stochastic_dropout(self.mlp_layer(x))
        return self.departition_op(self.departition_swap(x), self.p, gh, gw)


class MaxVitLayer(nn.Module):
    def __init__(
        self, in_channels, out_channels, squeeze_ratio, expansion_ratio, stride, norm_layer, activation_layer,
        head_dim, mlp_ratio, mlp_dropout, attention_dropout, p_stochastic_dropout, partition_size, grid_size,
    ):  # fmt: skip
        super().__init__()
        layers = OrderedDict()
        layers["MBconv"] = MBConv(
            in_channels, out_channels, expansion_ratio, squeeze_ratio, stride, activation_layer, norm_layer,
            p_stochastic_dropout,
        )  # fmt: skip
        for kind in ("window", "grid"):
            layers[f"{kind}_attention"] = PartitionAttentionLayer(
                out_channels, head_dim, partition_size, kind, grid_size, mlp_ratio, activation_layer, nn.LayerNorm,
                attention_dropout, mlp_dropout, p_stochastic_dropout,
            )  # fmt: skip
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.layers(x)


class MaxVitBlock(nn.Module):
    def __init__(
        self, in_channels, out_channels, squeeze_ratio, expansion_ratio, norm_layer, activation_layer, head_dim,
        mlp_ratio, mlp_dropout, attention_dropout, partition_size, input_grid_size, n_layers, p_stochastic,
    ):  # fmt: skip
        super().__init__()
        if not len(p_stochastic) == n_layers:
            raise ValueError(f"p_stochastic must have length n_layers={n_layers}, got p_stochastic={p_stochastic}.")
        self.layers = nn.ModuleList()
        self.grid_size = _conv_out(input_grid_size, kernel_size=3, stride=2, padding=1)
        for idx, p in enumerate(p_stochastic):
            self.layers.append(
                MaxVitLayer(
                    in_channels if idx == 0 else out_channels, out_channels, squeeze_ratio, expansion_ratio,
                    2 if idx == 0 else 1, norm_layer, activation_layer, head_dim, mlp_ratio, mlp_dropout,
                    attention_dropout, p, partition_size, self.grid_size,
                )
            )  # fmt: skip

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class MaxVit(ClassifierMixin, nn.Module):
    def __init__(
        self, input_size, stem_channels, partition_size, block_channels, block_layers, head_dim,
        stochastic_depth_prob, norm_layer=None, activation_layer=nn.GELU, squeeze_ratio=0.25, expansion_ratio=4,
        mlp_ratio=4, mlp_dropout=0.0, attention_dropout=0.0, num_classes=1000,
    ):  # fmt: skip
        super().__init__()
        norm_layer = norm_layer or functools.partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01)
        sizes, size = [], _conv_out(input_size, 3, 2, 1)
        for _ in block_channels:
            size = _conv_out(size, 3, 2, 1)
            sizes.append(size)
        for idx, s in enumerate(sizes):
            if s[0] % partition_size != 0 or s[1] % partition_size != 0:
                raise ValueError(
                    f"Input size {s} of block {idx} is not divisible by partition size {partition_size}. Consider "
                    f"changing the partition size or the input size.\nCurrent configuration yields the following "
                    f"block input sizes: {sizes}."
                )
        self.stem = nn.Sequential(
            Conv2dNormActivation(
                3, stem_channels, 3, stride=2, norm_layer=norm_layer, activation_layer=activation_layer, bias=False,
                inplace=None,
            ),
            Conv2dNormActivation(
                stem_channels, stem_channels, 3, stride=1, norm_layer=None, activation_layer=None, bias=True
            ),
        )  # fmt: skip
        input_size = _conv_out(input_size, kernel_size=3, stride=2, padding=1)
        self.partition_size = partition_size
        self.blocks = nn.ModuleList()
        p_stochastic = np.linspace(0, stochastic_depth_prob, sum(block_layers)).tolist()
        p_idx = 0
        for cin, cout, n in zip([stem_channels] + block_channels[:-1], block_channels, block_layers):
            self.blocks.append(
                MaxVitBlock(
                    cin, cout, squeeze_ratio, expansion_ratio, norm_layer, activation_layer, head_dim, mlp_ratio,
                    mlp_dropout, attention_dropout, partition_size, input_size, n, p_stochastic[p_idx : p_idx + n],
                )
            )  # fmt: skip
            input_size = self.blocks[-1].grid_size
            p_idx += n
        c = block_channels[-1]
        self.classifier = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(c), nn.Linear(c, c), nn.Tanh(),
            nn.Linear(c, num_classes, bias=False),
        )  # fmt: skip
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.classifier(x)


@register_model()
def maxvit_t(*, weights=None, progress=True, **kwargs):
    weights, kwargs = _resolve("maxvit_t", weights, kwargs)
    if weights is not None:
        _ovewrite_named_param(kwargs, "input_size", weights.meta["min_size"])
    model = MaxVit(
        input_size=kwargs.pop("input_size", (224, 224)), stem_channels=64, block_channels=[64, 128, 256, 512],
        block_layers=[2, 2, 5, 2], head_dim=32, stochastic_depth_prob=0.2, partition_size=7, **kwargs,
    )  # fmt: skip
    return _load(model, weights, progress)
