"""Swin Transformer T/S/B (Liu et al., 2021) and Swin V2 T/S/B (2022) with torchvision's arguments and state_dict
keys. Activations are channels-last [B, H, W, C] inside the network, as in torchvision."""

import functools
import math

import ember

from ... import nn
from ...nn import functional as F
from ..ops.misc import MLP, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import ClassifierMixin, _load, _resolve, register_model

__all__ = ["SwinTransformer", "swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"]


def _patch_merging_pad(x):
    """[..., H, W, C] -> [..., ceil(H/2), ceil(W/2), 4C]: each 2x2 patch's pixels side by side (odd sizes padded)."""
    h, w = x.shape[-3], x.shape[-2]
    x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))
    return ember.cat([x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :], x[..., 0::2, 1::2, :], x[..., 1::2, 1::2, :]], -1)


class PatchMerging(nn.Module):
    def __init__(self, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(4 * dim)

    def forward(self, x):
        return self.reduction(self.norm(_patch_merging_pad(x)))


class PatchMergingV2(nn.Module):
    def __init__(self, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(2 * dim)

    def forward(self, x):
        return self.norm(self.reduction(_patch_merging_pad(x)))


def _shift_mask(pad_h, pad_w, window_size, shift_size, num_windows, like):
    """-100 between the positions of a window that came from different regions of the shifted image, else 0."""
    mask = like.new_zeros((pad_h, pad_w))
    count = 0
    for h in ((0, -window_size[0]), (-window_size[0], -shift_size[0]), (-shift_size[0], None)):
        for w in ((0, -window_size[1]), (-window_size[1], -shift_size[1]), (-shift_size[1], None)):
            mask[h[0] : h[1], w[0] : w[1]] = count
            count += 1
    mask = mask.view(pad_h // window_size[0], window_size[0], pad_w // window_size[1], window_size[1])
    mask = mask.permute(0, 2, 1, 3).reshape(num_windows, window_size[0] * window_size[1])
    mask = mask.unsqueeze(1) - mask.unsqueeze(2)
    return mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)


def shifted_window_attention(
    input, qkv_weight, proj_weight, relative_position_bias, window_size, num_heads, shift_size, attention_dropout=0.0,
    dropout=0.0, qkv_bias=None, proj_bias=None, logit_scale=None, training=True,
):  # fmt: skip
    """Window-based multi-head self attention with a cyclic shift, on [B, H, W, C]. logit_scale: Swin V2's scaled
    cosine attention."""
    b, h, w, c = input.shape
    pad_r = (window_size[1] - w % window_size[1]) % window_size[1]
    pad_b = (window_size[0] - h % window_size[0]) % window_size[0]
    x = F.pad(input, (0, 0, 0, pad_r, 0, pad_b))
    _, pad_h, pad_w, _ = x.shape
    shift_size = list(shift_size)
    if window_size[0] >= pad_h:  # a window covering the image needs no shift
        shift_size[0] = 0
    if window_size[1] >= pad_w:
        shift_size[1] = 0
    shifted = sum(shift_size) > 0
    if shifted:
        x = ember.roll(x, shifts=(-shift_size[0], -shift_size[1]), dims=(1, 2))
    num_windows = (pad_h // window_size[0]) * (pad_w // window_size[1])
    x = x.view(b, pad_h // window_size[0], window_size[0], pad_w // window_size[1], window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b * num_windows, window_size[0] * window_size[1], c)
    if logit_scale is not None and qkv_bias is not None:  # V2 has no key bias
        length = qkv_bias.numel() // 3
        qkv_bias = ember.cat(
            [qkv_bias[:length], ember.zeros_like(qkv_bias[length : 2 * length]), qkv_bias[2 * length :]]
        )
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.size(0), x.size(1), 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if logit_scale is not None:
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * ember.clamp(logit_scale, max=math.log(100.0)).exp()
    else:
        attn = (q * (c // num_heads) ** -0.5).matmul(k.transpose(-2, -1))
    attn = attn + relative_position_bias
    if shifted:
        mask = _shift_mask(pad_h, pad_w, window_size, shift_size, num_windows, x)
        attn = attn.view(x.size(0) // num_windows, num_windows, num_heads, x.size(1), x.size(1))
        attn = (attn + mask.unsqueeze(1).unsqueeze(0)).view(-1, num_heads, x.size(1), x.size(1))
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), x.size(1), c)
    x = F.dropout(F.linear(x, proj_weight, proj_bias), p=dropout, training=training)
    x = x.view(b, pad_h // window_size[0], pad_w // window_size[1], window_size[0], window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b, pad_h, pad_w, c)
    if shifted:
        x = ember.roll(x, shifts=(shift_size[0], shift_size[1]), dims=(1, 2))
    return x[:, :h, :w, :].contiguous()


def _relative_position_index(window_size):
    """For each pair of positions in a window, the row of the bias table of their offset."""
    coords = ember.stack(ember.meshgrid(ember.arange(window_size[0]), ember.arange(window_size[1]), indexing="ij"))
    flat = ember.flatten(coords, 1)
    rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0)
    rel_h = (rel[:, :, 0] + (window_size[0] - 1)) * (2 * window_size[1] - 1)
    rel_w = rel[:, :, 1] + (window_size[1] - 1)
    return (rel_h + rel_w).flatten()


class ShiftedWindowAttention(nn.Module):
    def __init__(
        self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True, attention_dropout=0.0,
        dropout=0.0,
    ):  # fmt: skip
        super().__init__()
        if len(window_size) != 2 or len(shift_size) != 2:
            raise ValueError("window_size and shift_size must be of length 2")
        self.window_size = window_size
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.define_relative_position_bias_table()
        self.register_buffer("relative_position_index", _relative_position_index(window_size))

    def define_relative_position_bias_table(self):
        size = (2 * self.window_size[0] - 1) * (2 * self.window_size[1] - 1)
        self.relative_position_bias_table = nn.Parameter(ember.zeros(size, self.num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def _bias(self, table):
        n = self.window_size[0] * self.window_size[1]
        return table[self.relative_position_index].view(n, n, -1).permute(2, 0, 1).contiguous().unsqueeze(0)

    def get_relative_position_bias(self):
        return self._bias(self.relative_position_bias_table)

    def forward(self, x, logit_scale=None):
        return shifted_window_attention(
            x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(), self.window_size, self.num_heads,
            shift_size=self.shift_size, attention_dropout=self.attention_dropout, dropout=self.dropout,
            qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, logit_scale=logit_scale, training=self.training,
        )  # fmt: skip


class ShiftedWindowAttentionV2(ShiftedWindowAttention):
    """Swin V2's attention: scaled cosine similarity and a bias from a small MLP over log-spaced offsets."""

    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True, **kwargs):
        super().__init__(dim, window_size, shift_size, num_heads, qkv_bias=qkv_bias, proj_bias=proj_bias, **kwargs)
        self.logit_scale = nn.Parameter(ember.log(10 * ember.ones((num_heads, 1, 1))))
        self.cpb_mlp = nn.Sequential(
            nn.Linear(2, 512, bias=True), nn.ReLU(inplace=True), nn.Linear(512, num_heads, bias=False)
        )
        if qkv_bias:
            length = self.qkv.bias.numel() // 3
            with ember.no_grad():
                self.qkv.bias[length : 2 * length].zero_()

    def define_relative_position_bias_table(self):
        wh, ww = self.window_size
        h = ember.arange(-(wh - 1), wh, dtype=ember.float32) / (wh - 1) * 8
        w = ember.arange(-(ww - 1), ww, dtype=ember.float32) / (ww - 1) * 8
        table = ember.stack(ember.meshgrid([h, w], indexing="ij")).permute(1, 2, 0).contiguous().unsqueeze(0)
        table = ember.sign(table) * ember.log2(ember.abs(table) + 1.0) / 3.0
        self.register_buffer("relative_coords_table", table)

    def get_relative_position_bias(self):
        return 16 * ember.sigmoid(self._bias(self.cpb_mlp(self.relative_coords_table).view(-1, self.num_heads)))

    def forward(self, x):
        return super().forward(x, logit_scale=self.logit_scale)


class SwinTransformerBlock(nn.Module):
    def __init__(
        self, dim, num_heads, window_size, shift_size, mlp_ratio=4.0, dropout=0.0, attention_dropout=0.0,
        stochastic_depth_prob=0.0, norm_layer=nn.LayerNorm, attn_layer=ShiftedWindowAttention,
    ):  # fmt: skip
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(
            dim, window_size, shift_size, num_heads, attention_dropout=attention_dropout, dropout=dropout
        )
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.norm2 = norm_layer(dim)
        self.mlp = MLP(dim, [int(dim * mlp_ratio), dim], activation_layer=nn.GELU, inplace=None, dropout=dropout)
        for m in self.mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def forward(self, x):
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class SwinTransformerBlockV2(SwinTransformerBlock):
    """V2's block normalizes after attention and MLP (res-post-norm) instead of before."""

    def __init__(self, dim, num_heads, window_size, shift_size, attn_layer=ShiftedWindowAttentionV2, **kwargs):
        super().__init__(dim, num_heads, window_size, shift_size, attn_layer=attn_layer, **kwargs)

    def forward(self, x):
        x = x + self.stochastic_depth(self.norm1(self.attn(x)))
        return x + self.stochastic_depth(self.norm2(self.mlp(x)))


class SwinTransformer(ClassifierMixin, nn.Module):
    def __init__(
        self, patch_size, embed_dim, depths, num_heads, window_size, mlp_ratio=4.0, dropout=0.0,
        attention_dropout=0.0, stochastic_depth_prob=0.1, num_classes=1000, norm_layer=None, block=None,
        downsample_layer=PatchMerging,
    ):  # fmt: skip
        super().__init__()
        self.num_classes = num_classes
        block = block or SwinTransformerBlock
        norm_layer = norm_layer or functools.partial(nn.LayerNorm, eps=1e-5)
        patch = (patch_size[0], patch_size[1])
        layers = [
            nn.Sequential(
                nn.Conv2d(3, embed_dim, kernel_size=patch, stride=patch), Permute([0, 2, 3, 1]), norm_layer(embed_dim)
            )
        ]
        total = sum(depths)
        block_id = 0
        for i_stage, depth in enumerate(depths):
            dim = embed_dim * 2**i_stage
            stage = []
            for i_layer in range(depth):
                stage.append(
                    block(
                        dim, num_heads[i_stage], window_size=window_size,
                        shift_size=[0 if i_layer % 2 == 0 else w // 2 for w in window_size], mlp_ratio=mlp_ratio,
                        dropout=dropout, attention_dropout=attention_dropout,
                        stochastic_depth_prob=stochastic_depth_prob * float(block_id) / (total - 1),
                        norm_layer=norm_layer,
                    )
                )  # fmt: skip
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(num_features)
        self.permute = Permute([0, 3, 1, 2])
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.head(self.flatten(self.avgpool(self.permute(self.norm(self.features(x))))))


def _swin(name, embed_dim, depths, num_heads, window, sd_prob, v2, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    if v2:
        kwargs.setdefault("block", SwinTransformerBlockV2)
        kwargs.setdefault("downsample_layer", PatchMergingV2)
    model = SwinTransformer(
        patch_size=[4, 4], embed_dim=embed_dim, depths=depths, num_heads=num_heads, window_size=[window, window],
        stochastic_depth_prob=kwargs.pop("stochastic_depth_prob", sd_prob), **kwargs,
    )  # fmt: skip
    return _load(model, weights, progress)


@register_model()
def swin_t(*, weights=None, progress=True, **kwargs):
    return _swin("swin_t", 96, [2, 2, 6, 2], [3, 6, 12, 24], 7, 0.2, False, weights, progress, kwargs)


@register_model()
def swin_s(*, weights=None, progress=True, **kwargs):
    return _swin("swin_s", 96, [2, 2, 18, 2], [3, 6, 12, 24], 7, 0.3, False, weights, progress, kwargs)


@register_model()
def swin_b(*, weights=None, progress=True, **kwargs):
    return _swin("swin_b", 128, [2, 2, 18, 2], [4, 8, 16, 32], 7, 0.5, False, weights, progress, kwargs)


@register_model()
def swin_v2_t(*, weights=None, progress=True, **kwargs):
    return _swin("swin_v2_t", 96, [2, 2, 6, 2], [3, 6, 12, 24], 8, 0.2, True, weights, progress, kwargs)


@register_model()
def swin_v2_s(*, weights=None, progress=True, **kwargs):
    return _swin("swin_v2_s", 96, [2, 2, 18, 2], [3, 6, 12, 24], 8, 0.3, True, weights, progress, kwargs)


@register_model()
def swin_v2_b(*, weights=None, progress=True, **kwargs):
    return _swin("swin_v2_b", 128, [2, 2, 18, 2], [4, 8, 16, 32], 8, 0.5, True, weights, progress, kwargs)
