"""torchvision 0.29's Multiscale Vision Transformers: MViT v1 B (Fan et al., 2021) and MViT v2 S (Li et al., 2022,
relative positions, pooled residuals), with torchvision's arguments and state_dict keys. Tokens are [B, 1 + T*H*W, C]
(a class token first); attention pools queries and keys/values with depthwise Conv3d on the token grid."""

import dataclasses
import functools
import math

import ember

from .... import nn
from ....nn import functional as F
from ...ops.misc import MLP
from ...ops.stochastic_depth import StochasticDepth
from .._api import _load, _ovewrite_named_param, _resolve, register_model
from .._predict import VideoClassifierMixin

__all__ = ["MViT", "MSBlockConfig", "mvit_v1_b", "mvit_v2_s"]


@dataclasses.dataclass
class MSBlockConfig:
    num_heads: int
    input_channels: int
    output_channels: int
    kernel_q: list
    kernel_kv: list
    stride_q: list
    stride_kv: list


def _prod(s):
    return math.prod(s)


def _unsqueeze(x, target_dim, expand_dim):
    tensor_dim = x.dim()
    if tensor_dim == target_dim - 1:
        x = x.unsqueeze(expand_dim)
    elif tensor_dim != target_dim:
        raise ValueError(f"Unsupported input dimension {x.shape}")
    return x, tensor_dim


class Pool(nn.Module):
    """Pools the tokens [B, (heads,) 1 + T*H*W, C] on their T x H x W grid (the class token passes by), then the
    norm; returns the tokens and the new grid size."""

    def __init__(self, pool, norm, activation=None, norm_before_pool=False):
        super().__init__()
        self.pool = pool
        layers = [m for m in (norm, activation) if m is not None]
        self.norm_act = nn.Sequential(*layers) if layers else None
        self.norm_before_pool = norm_before_pool

    def forward(self, x, thw):
        x, tensor_dim = _unsqueeze(x, 4, 1)
        class_token, x = ember.tensor_split(x, (1,), dim=2)
        x = x.transpose(2, 3)
        b, n, c = x.shape[:3]
        x = x.reshape((b * n, c) + tuple(thw)).contiguous()
        if self.norm_before_pool and self.norm_act is not None:
            x = self.norm_act(x)
        x = self.pool(x)
        t, h, w = x.shape[2:]
        x = ember.cat((class_token, x.reshape(b, n, c, -1).transpose(2, 3)), dim=2)
        if not self.norm_before_pool and self.norm_act is not None:
            x = self.norm_act(x)
        if tensor_dim == 3:
            x = x.squeeze(1)
        return x, (t, h, w)


def _interpolate(embedding, d):
    if embedding.shape[0] == d:
        return embedding
    return F.interpolate(embedding.permute(1, 0).unsqueeze(0), size=d, mode="linear").squeeze(0).permute(1, 0)


def _rel_index(q, k):
    """[q, k] rows of the relative-position table for query and key grids of sizes q and k (the coarser one's
    positions scaled up)."""
    q_ratio, k_ratio = max(k / q, 1.0), max(q / k, 1.0)
    dist = ember.arange(q)[:, None] * q_ratio - (ember.arange(k)[None, :] + (1.0 - k)) * k_ratio
    return dist.long()


def _add_rel_pos(attn, q, q_thw, k_thw, rel_pos_h, rel_pos_w, rel_pos_t):
    """attn plus MViT v2's decomposed relative-position terms q . R_t + q . R_h + q . R_w (not on the class token)."""
    (q_t, q_h, q_w), (k_t, k_h, k_w) = q_thw, k_thw
    rh = _interpolate(rel_pos_h, int(2 * max(q_h, k_h) - 1))[_rel_index(q_h, k_h)]
    rw = _interpolate(rel_pos_w, int(2 * max(q_w, k_w) - 1))[_rel_index(q_w, k_w)]
    rt = _interpolate(rel_pos_t, int(2 * max(q_t, k_t) - 1))[_rel_index(q_t, k_t)]
    b, n_head, _, dim = q.shape
    r_q = q[:, :, 1:].reshape(b, n_head, q_t, q_h, q_w, dim)
    rel_h = ember.einsum("bythwc,hkc->bythwk", r_q, rh)
    rel_w = ember.einsum("bythwc,wkc->bythwk", r_q, rw)
    r_qt = r_q.permute(2, 0, 1, 3, 4, 5).reshape(q_t, b * n_head * q_h * q_w, dim)
    rel_t = ember.matmul(r_qt, rt.transpose(1, 2)).transpose(0, 1)
    rel_t = rel_t.view(b, n_head, q_h, q_w, q_t, k_t).permute(0, 1, 4, 2, 3, 5)
    rel_pos = (
        rel_h[:, :, :, :, :, None, :, None] + rel_w[:, :, :, :, :, None, None, :] + rel_t[:, :, :, :, :, :, None, None]
    ).reshape(b, n_head, q_t * q_h * q_w, k_t * k_h * k_w)
    return attn + F.pad(rel_pos, (1, 0, 1, 0))  # zeros on the class token's row and column


class MultiscaleAttention(nn.Module):
    def __init__(
        self, input_size, embed_dim, output_dim, num_heads, kernel_q, kernel_kv, stride_q, stride_kv, residual_pool,
        residual_with_cls_embed, rel_pos_embed, dropout=0.0, norm_layer=nn.LayerNorm,
    ):  # fmt: skip
        super().__init__()
        self.embed_dim = embed_dim
        self.output_dim = output_dim
        self.num_heads = num_heads
        self.head_dim = output_dim // num_heads
        self.scaler = 1.0 / math.sqrt(self.head_dim)
        self.residual_pool = residual_pool
        self.residual_with_cls_embed = residual_with_cls_embed
        self.qkv = nn.Linear(embed_dim, 3 * output_dim)
        layers = [nn.Linear(output_dim, output_dim)]
        if dropout > 0.0:
            layers.append(nn.Dropout(dropout, inplace=True))
        self.project = nn.Sequential(*layers)

        def pool(kernel, stride):
            conv = nn.Conv3d(
                self.head_dim,
                self.head_dim,
                kernel,
                stride=stride,
                padding=[int(k // 2) for k in kernel],
                groups=self.head_dim,
                bias=False,
            )
            return Pool(conv, norm_layer(self.head_dim))

        self.pool_q = pool(kernel_q, stride_q) if _prod(kernel_q) > 1 or _prod(stride_q) > 1 else None
        self.pool_k = self.pool_v = None
        if _prod(kernel_kv) > 1 or _prod(stride_kv) > 1:
            self.pool_k = pool(kernel_kv, stride_kv)
            self.pool_v = pool(kernel_kv, stride_kv)
        self.rel_pos_h = self.rel_pos_w = self.rel_pos_t = None
        if rel_pos_embed:
            size = max(input_size[1:])
            q_size = size // stride_q[1] if len(stride_q) > 0 else size
            kv_size = size // stride_kv[1] if len(stride_kv) > 0 else size
            spatial_dim = 2 * max(q_size, kv_size) - 1
            self.rel_pos_h = nn.Parameter(ember.zeros(spatial_dim, self.head_dim))
            self.rel_pos_w = nn.Parameter(ember.zeros(spatial_dim, self.head_dim))
            self.rel_pos_t = nn.Parameter(ember.zeros(2 * input_size[0] - 1, self.head_dim))
            for p in (self.rel_pos_h, self.rel_pos_w, self.rel_pos_t):
                nn.init.trunc_normal_(p, std=0.02)

    def forward(self, x, thw):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.num_heads, self.head_dim).transpose(1, 3).unbind(dim=2)
        k_thw = thw
        if self.pool_k is not None:
            k, k_thw = self.pool_k(k, thw)
        if self.pool_v is not None:
            v = self.pool_v(v, thw)[0]
        if self.pool_q is not None:
            q, thw = self.pool_q(q, thw)
        attn = ember.matmul(self.scaler * q, k.transpose(2, 3))
        if self.rel_pos_h is not None:
            attn = _add_rel_pos(attn, q, thw, k_thw, self.rel_pos_h, self.rel_pos_w, self.rel_pos_t)
        x = ember.matmul(attn.softmax(dim=-1), v)
        if self.residual_pool:  # MViT v2: the pooled queries added back (with or without the class token's)
            x = x + (q if self.residual_with_cls_embed else F.pad(q[:, :, 1:, :], (0, 0, 1, 0)))
        x = x.transpose(1, 2).reshape(b, -1, self.output_dim)
        return self.project(x), thw


class MultiscaleBlock(nn.Module):
    def __init__(
        self, input_size, cnf, residual_pool, residual_with_cls_embed, rel_pos_embed, proj_after_attn, dropout=0.0,
        stochastic_depth_prob=0.0, norm_layer=nn.LayerNorm,
    ):  # fmt: skip
        super().__init__()
        self.proj_after_attn = proj_after_attn
        self.pool_skip = None
        if _prod(cnf.stride_q) > 1:
            kernel_skip = [s + 1 if s > 1 else s for s in cnf.stride_q]
            padding_skip = [int(k // 2) for k in kernel_skip]
            self.pool_skip = Pool(nn.MaxPool3d(kernel_skip, stride=cnf.stride_q, padding=padding_skip), None)
        attn_dim = cnf.output_channels if proj_after_attn else cnf.input_channels
        self.norm1 = norm_layer(cnf.input_channels)
        self.norm2 = norm_layer(attn_dim)
        self.needs_transposal = isinstance(self.norm1, nn.BatchNorm1d)
        self.attn = MultiscaleAttention(
            input_size,
            cnf.input_channels,
            attn_dim,
            cnf.num_heads,
            kernel_q=cnf.kernel_q,
            kernel_kv=cnf.kernel_kv,
            stride_q=cnf.stride_q,
            stride_kv=cnf.stride_kv,
            rel_pos_embed=rel_pos_embed,
            residual_pool=residual_pool,
            residual_with_cls_embed=residual_with_cls_embed,
            dropout=dropout,
            norm_layer=norm_layer,
        )
        self.mlp = MLP(attn_dim, [4 * attn_dim, cnf.output_channels], activation_layer=nn.GELU, dropout=dropout,
                       inplace=None)  # fmt: skip
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.project = None
        if cnf.input_channels != cnf.output_channels:
            self.project = nn.Linear(cnf.input_channels, cnf.output_channels)

    def _norm(self, norm, x):
        return norm(x.transpose(1, 2)).transpose(1, 2) if self.needs_transposal else norm(x)

    def forward(self, x, thw):
        x_norm1 = self._norm(self.norm1, x)
        x_attn, thw_new = self.attn(x_norm1, thw)
        x = x if self.project is None or not self.proj_after_attn else self.project(x_norm1)
        x_skip = x if self.pool_skip is None else self.pool_skip(x, thw)[0]
        x = x_skip + self.stochastic_depth(x_attn)
        x_norm2 = self._norm(self.norm2, x)
        x_proj = x if self.project is None or self.proj_after_attn else self.project(x_norm2)
        return x_proj + self.stochastic_depth(self.mlp(x_norm2)), thw_new


class PositionalEncoding(nn.Module):
    """Prepends the class token; without relative positions, adds learned absolute ones (temporal + spatial)."""

    def __init__(self, embed_size, spatial_size, temporal_size, rel_pos_embed):
        super().__init__()
        self.spatial_size = tuple(spatial_size)
        self.temporal_size = temporal_size
        self.class_token = nn.Parameter(ember.zeros(embed_size))
        self.spatial_pos = self.temporal_pos = self.class_pos = None
        if not rel_pos_embed:
            self.spatial_pos = nn.Parameter(ember.zeros(self.spatial_size[0] * self.spatial_size[1], embed_size))
            self.temporal_pos = nn.Parameter(ember.zeros(self.temporal_size, embed_size))
            self.class_pos = nn.Parameter(ember.zeros(embed_size))

    def forward(self, x):
        x = ember.cat((self.class_token.expand(x.shape[0], -1).unsqueeze(1), x), dim=1)
        if self.spatial_pos is not None:
            hw, c = self.spatial_pos.shape
            pos = ember.repeat_interleave(self.temporal_pos, hw, dim=0)
            pos = pos + self.spatial_pos.unsqueeze(0).expand(self.temporal_size, -1, -1).reshape(-1, c)
            x = x + ember.cat((self.class_pos.unsqueeze(0), pos), dim=0).unsqueeze(0)
        return x


class MViT(VideoClassifierMixin, nn.Module):
    """MViT on clips [N, 3, T, H, W] of exactly temporal_size x spatial_size (or images [N, 3, H, W] when
    temporal_size is 1) -> logits [N, num_classes]."""

    def __init__(
        self, spatial_size, temporal_size, block_setting, residual_pool, residual_with_cls_embed, rel_pos_embed,
        proj_after_attn, dropout=0.5, attention_dropout=0.0, stochastic_depth_prob=0.0, num_classes=400, block=None,
        norm_layer=None, patch_embed_kernel=(3, 7, 7), patch_embed_stride=(2, 4, 4), patch_embed_padding=(1, 3, 3),
    ):  # fmt: skip
        super().__init__()
        total = len(block_setting)
        if total == 0:
            raise ValueError("The configuration parameter can't be empty.")
        if block is None:
            block = MultiscaleBlock
        if norm_layer is None:
            norm_layer = functools.partial(nn.LayerNorm, eps=1e-6)
        self.conv_proj = nn.Conv3d(
            3,
            block_setting[0].input_channels,
            kernel_size=patch_embed_kernel,
            stride=patch_embed_stride,
            padding=patch_embed_padding,
        )
        input_size = [s // st for s, st in zip((temporal_size,) + tuple(spatial_size), self.conv_proj.stride)]
        self.pos_encoding = PositionalEncoding(
            block_setting[0].input_channels, (input_size[1], input_size[2]), input_size[0], rel_pos_embed
        )
        self.blocks = nn.ModuleList()
        for i, cnf in enumerate(block_setting):
            self.blocks.append(
                block(
                    input_size=input_size,
                    cnf=cnf,
                    residual_pool=residual_pool,
                    residual_with_cls_embed=residual_with_cls_embed,
                    rel_pos_embed=rel_pos_embed,
                    proj_after_attn=proj_after_attn,
                    dropout=attention_dropout,
                    stochastic_depth_prob=stochastic_depth_prob * i / (total - 1.0),
                    norm_layer=norm_layer,
                )
            )
            if len(cnf.stride_q) > 0:
                input_size = [s // st for s, st in zip(input_size, cnf.stride_q)]
        self.norm = norm_layer(block_setting[-1].output_channels)
        self.head = nn.Sequential(
            nn.Dropout(dropout, inplace=True), nn.Linear(block_setting[-1].output_channels, num_classes)
        )
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.LayerNorm):
                if m.weight is not None:
                    nn.init.ones_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, PositionalEncoding):
                for p in m.parameters():
                    nn.init.trunc_normal_(p, std=0.02)

    def forward(self, x):
        x = self.conv_proj(_unsqueeze(x, 5, 2)[0])
        grid = tuple(x.shape[2:])
        thw = (self.pos_encoding.temporal_size,) + self.pos_encoding.spatial_size
        if grid != thw:
            raise ValueError(
                f"MViT: the clip makes a {list(grid)} grid of patches but the model was built for {list(thw)} "
                f"(temporal_size x spatial_size / the patch stride {list(self.conv_proj.stride)})"
            )
        x = self.pos_encoding(x.flatten(2).transpose(1, 2))
        for blk in self.blocks:
            x, thw = blk(x, thw)
        return self.head(self.norm(x)[:, 0])


def _config(num_heads, input_channels, output_channels, kernel_q, kernel_kv, stride_q, stride_kv):
    return [MSBlockConfig(*c) for c in zip(num_heads, input_channels, output_channels, kernel_q, kernel_kv,
                                           stride_q, stride_kv)]  # fmt: skip


def _mvit(name, block_setting, weights, progress, kwargs, **arch):
    weights, kwargs = _resolve(name, weights, kwargs)
    if weights is not None:
        _ovewrite_named_param(kwargs, "spatial_size", weights.meta["min_size"])
        _ovewrite_named_param(kwargs, "temporal_size", weights.meta["min_temporal_size"])
    for key, value in arch.items():  # the architecture's own: not the caller's to change (as in torchvision)
        if key in kwargs:
            raise TypeError(f"{name}() got multiple values for keyword argument '{key}'")
        kwargs[key] = value
    kwargs.setdefault("spatial_size", (224, 224))
    kwargs.setdefault("temporal_size", 16)
    kwargs.setdefault("stochastic_depth_prob", 0.2)
    for key in ("residual_pool", "rel_pos_embed", "proj_after_attn"):
        kwargs.setdefault(key, False)
    kwargs.setdefault("residual_with_cls_embed", True)
    return _load(MViT(block_setting=block_setting, **kwargs), weights, progress)


_K3 = [3, 3, 3]
_STRIDE_KV = [[1, 8, 8]] + [[1, 4, 4]] * 2 + [[1, 2, 2]] * 11 + [[1, 1, 1]] * 2
_HEADS = [1, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8, 8]


@register_model()
def mvit_v1_b(*, weights=None, progress=True, **kwargs):
    """MViT v1 B, 16 frames of 224x224 (Kinetics-400 weights: MViT_V1_B_Weights)."""
    block_setting = _config(
        _HEADS,
        [96] + [192] * 2 + [384] * 11 + [768] * 2,
        [192] * 2 + [384] * 11 + [768] * 3,
        [[], _K3, [], _K3, [], [], [], [], [], [], [], [], [], [], _K3, []],
        [_K3] * 16,
        [[], [1, 2, 2], [], [1, 2, 2], [], [], [], [], [], [], [], [], [], [], [1, 2, 2], []],
        _STRIDE_KV,
    )
    return _mvit("mvit_v1_b", block_setting, weights, progress, kwargs, residual_pool=False,
                 residual_with_cls_embed=False)  # fmt: skip


@register_model()
def mvit_v2_s(*, weights=None, progress=True, **kwargs):
    """MViT v2 S, 16 frames of 224x224 (MViT_V2_S_Weights)."""
    one, two = [1, 1, 1], [1, 2, 2]
    block_setting = _config(
        _HEADS,
        [96] * 2 + [192] * 2 + [384] * 11 + [768],
        [96] + [192] * 2 + [384] * 11 + [768] * 2,
        [_K3] * 16,
        [_K3] * 16,
        [one, two, one, two] + [one] * 10 + [two, one],
        _STRIDE_KV,
    )
    return _mvit("mvit_v2_s", block_setting, weights, progress, kwargs, residual_pool=True,
                 residual_with_cls_embed=False, rel_pos_embed=True, proj_after_attn=True)  # fmt: skip
