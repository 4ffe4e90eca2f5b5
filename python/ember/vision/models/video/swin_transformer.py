"""torchvision 0.29's Video Swin Transformer (Liu et al., 2022) T/S/B: the 2-d Swin blocks with 3-d shifted-window
attention over [B, T, H, W, C] activations, with torchvision's arguments and state_dict keys."""

import functools

import ember

from .... import nn
from ....nn import functional as F
from .._api import _load, _resolve, register_model
from .._predict import VideoClassifierMixin
from ..swin_transformer import PatchMerging, SwinTransformerBlock

__all__ = ["SwinTransformer3d", "swin3d_t", "swin3d_s", "swin3d_b"]


def _pad_size_3d(size_dhw, patch_size):
    return tuple((patch_size[i] - size_dhw[i] % patch_size[i]) % patch_size[i] for i in range(3))


def _attention_mask_3d(like, size_dhw, window_size, shift_size):
    """-100 between the positions of a window that came from different regions of the shifted clip, else 0:
    [num_windows, window volume, window volume]."""
    mask = like.new_zeros(tuple(size_dhw))
    regions = [((0, -w), (-w, -s), (-s, None)) for w, s in zip(window_size, shift_size)]
    count = 0
    for d in regions[0]:
        for h in regions[1]:
            for w in regions[2]:
                mask[d[0] : d[1], h[0] : h[1], w[0] : w[1]] = count
                count += 1
    n = [size_dhw[i] // window_size[i] for i in range(3)]
    mask = mask.view(n[0], window_size[0], n[1], window_size[1], n[2], window_size[2])
    mask = mask.permute(0, 2, 4, 1, 3, 5).reshape(n[0] * n[1] * n[2], -1)
    mask = mask.unsqueeze(1) - mask.unsqueeze(2)
    return mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)


def shifted_window_attention_3d(
    input, qkv_weight, proj_weight, relative_position_bias, window_size, num_heads, shift_size,
    attention_dropout=0.0, dropout=0.0, qkv_bias=None, proj_bias=None, training=True,
):  # fmt: skip
    """Multi-head self-attention within (shifted) windows of a [B, T, H, W, C] clip, the clip padded at the end to
    whole windows; returns [B, T, H, W, C]."""
    b, t, h, w, c = input.shape
    pad = _pad_size_3d((t, h, w), window_size)
    x = F.pad(input, (0, 0, 0, pad[2], 0, pad[1], 0, pad[0]))
    padded = x.shape[1:4]
    shifted = sum(shift_size) > 0
    if shifted:
        x = ember.roll(x, shifts=tuple(-s for s in shift_size), dims=(1, 2, 3))
    n = [padded[i] // window_size[i] for i in range(3)]
    num_windows = n[0] * n[1] * n[2]
    vol = window_size[0] * window_size[1] * window_size[2]
    x = x.view(b, n[0], window_size[0], n[1], window_size[1], n[2], window_size[2], c)
    x = x.permute(0, 1, 3, 5, 2, 4, 6, 7).reshape(b * num_windows, vol, c)
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.shape[0], vol, 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    attn = (q * (c // num_heads) ** -0.5).matmul(k.transpose(-2, -1)) + relative_position_bias
    if shifted:
        mask = _attention_mask_3d(x, padded, window_size, shift_size)
        attn = attn.view(b, num_windows, num_heads, vol, vol) + mask.unsqueeze(1).unsqueeze(0)
        attn = attn.view(-1, num_heads, vol, vol)
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.shape[0], vol, c)
    x = F.dropout(F.linear(x, proj_weight, proj_bias), p=dropout, training=training)
    x = x.view(b, n[0], n[1], n[2], window_size[0], window_size[1], window_size[2], c)
    x = x.permute(0, 1, 4, 2, 5, 3, 6, 7).reshape(b, padded[0], padded[1], padded[2], c)
    if shifted:
        x = ember.roll(x, shifts=tuple(shift_size), dims=(1, 2, 3))
    return x[:, :t, :h, :w, :].contiguous()


class ShiftedWindowAttention3d(nn.Module):
    """See shifted_window_attention_3d. A window larger than the clip shrinks to it, unshifted."""

    def __init__(
        self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True, attention_dropout=0.0,
        dropout=0.0,
    ):  # fmt: skip
        super().__init__()
        if len(window_size) != 3 or len(shift_size) != 3:
            raise ValueError("window_size and shift_size must be of length 2")  # torchvision's message
        self.window_size = list(window_size)
        self.shift_size = list(shift_size)
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        wd, wh, ww = self.window_size
        self.relative_position_bias_table = nn.Parameter(
            ember.zeros((2 * wd - 1) * (2 * wh - 1) * (2 * ww - 1), num_heads)
        )
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)
        coords = ember.stack(ember.meshgrid(ember.arange(wd), ember.arange(wh), ember.arange(ww), indexing="ij"))
        flat = ember.flatten(coords, 1)
        rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0)  # [vol, vol, 3] offsets
        index = (rel[:, :, 0] + (wd - 1)) * ((2 * wh - 1) * (2 * ww - 1))
        index = index + (rel[:, :, 1] + (wh - 1)) * (2 * ww - 1) + (rel[:, :, 2] + (ww - 1))
        self.register_buffer("relative_position_index", index)

    def get_relative_position_bias(self, window_size):
        # Note: a shrunk window takes the top-left block of the full window's index table, as torchvision does
        vol = window_size[0] * window_size[1] * window_size[2]
        bias = self.relative_position_bias_table[self.relative_position_index[:vol, :vol].flatten()]
        return bias.view(vol, vol, -1).permute(2, 0, 1).contiguous().unsqueeze(0)

    def forward(self, x):
        window_size, shift_size = list(self.window_size), list(self.shift_size)
        for i, size in enumerate(x.shape[1:4]):
            if size <= window_size[i]:
                window_size[i], shift_size[i] = size, 0
        return shifted_window_attention_3d(
            x,
            self.qkv.weight,
            self.proj.weight,
            self.get_relative_position_bias(window_size),
            window_size,
            self.num_heads,
            shift_size=shift_size,
            attention_dropout=self.attention_dropout,
            dropout=self.dropout,
            qkv_bias=self.qkv.bias,
            proj_bias=self.proj.bias,
            training=self.training,
        )


class PatchEmbed3d(nn.Module):
    """[B, C, T, H, W] -> [B, T', H', W', embed_dim]: non-overlapping patches (the clip padded at the end to whole
    patches) through a strided Conv3d, then the norm."""

    def __init__(self, patch_size, in_channels=3, embed_dim=96, norm_layer=None):
        super().__init__()
        self.tuple_patch_size = (patch_size[0], patch_size[1], patch_size[2])
        self.proj = nn.Conv3d(in_channels, embed_dim, kernel_size=self.tuple_patch_size, stride=self.tuple_patch_size)
        self.norm = norm_layer(embed_dim) if norm_layer is not None else nn.Identity()

    def forward(self, x):
        pad = _pad_size_3d(x.shape[2:5], self.tuple_patch_size)
        x = self.proj(F.pad(x, (0, pad[2], 0, pad[1], 0, pad[0])))
        return self.norm(x.permute(0, 2, 3, 4, 1))


class SwinTransformer3d(VideoClassifierMixin, nn.Module):
    """Video Swin on clips [N, 3, T, H, W] -> logits [N, num_classes]."""

    def __init__(
        self, patch_size, embed_dim, depths, num_heads, window_size, mlp_ratio=4.0, dropout=0.0,
        attention_dropout=0.0, stochastic_depth_prob=0.1, num_classes=400, norm_layer=None, block=None,
        downsample_layer=PatchMerging, patch_embed=None,
    ):  # fmt: skip
        super().__init__()
        self.num_classes = num_classes
        if block is None:
            block = functools.partial(SwinTransformerBlock, attn_layer=ShiftedWindowAttention3d)
        if norm_layer is None:
            norm_layer = functools.partial(nn.LayerNorm, eps=1e-5)
        if patch_embed is None:
            patch_embed = PatchEmbed3d
        self.patch_embed = patch_embed(patch_size=patch_size, embed_dim=embed_dim, norm_layer=norm_layer)
        self.pos_drop = nn.Dropout(p=dropout)
        layers, total, block_id = [], sum(depths), 0
        for i_stage, depth in enumerate(depths):
            dim = embed_dim * 2**i_stage
            stage = []
            for i_layer in range(depth):
                stage.append(
                    block(
                        dim,
                        num_heads[i_stage],
                        window_size=window_size,
                        shift_size=[0 if i_layer % 2 == 0 else w // 2 for w in window_size],
                        mlp_ratio=mlp_ratio,
                        dropout=dropout,
                        attention_dropout=attention_dropout,
                        stochastic_depth_prob=stochastic_depth_prob * float(block_id) / (total - 1),
                        norm_layer=norm_layer,
                        attn_layer=ShiftedWindowAttention3d,
                    )
                )
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        self.num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(self.num_features)
        self.avgpool = nn.AdaptiveAvgPool3d(1)
        self.head = nn.Linear(self.num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.norm(self.features(self.pos_drop(self.patch_embed(x))))
        x = self.avgpool(x.permute(0, 4, 1, 2, 3))
        return self.head(ember.flatten(x, 1))


def _swin3d(name, embed_dim, depths, num_heads, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    model = SwinTransformer3d(
        patch_size=[2, 4, 4],
        embed_dim=embed_dim,
        depths=depths,
        num_heads=num_heads,
        window_size=[8, 7, 7],
        stochastic_depth_prob=0.1,
        **kwargs,
    )
    return _load(model, weights, progress)


@register_model()
def swin3d_t(*, weights=None, progress=True, **kwargs):
    """Video Swin-T (Kinetics-400 weights: Swin3D_T_Weights)."""
    return _swin3d("swin3d_t", 96, [2, 2, 6, 2], [3, 6, 12, 24], weights, progress, kwargs)


@register_model()
def swin3d_s(*, weights=None, progress=True, **kwargs):
    """Video Swin-S (Swin3D_S_Weights)."""
    return _swin3d("swin3d_s", 96, [2, 2, 18, 2], [3, 6, 12, 24], weights, progress, kwargs)


@register_model()
def swin3d_b(*, weights=None, progress=True, **kwargs):
    """Video Swin-B (Swin3D_B_Weights: Kinetics-400, and Kinetics-400 after ImageNet-22K)."""
    return _swin3d("swin3d_b", 128, [2, 2, 18, 2], [4, 8, 16, 32], weights, progress, kwargs)
