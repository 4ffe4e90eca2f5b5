"""Vision Transformer B/16, B/32, L/16, L/32, H/14 (Dosovitskiy et al., 2021) with torchvision's arguments and
state_dict keys."""

import functools
import math
from collections import OrderedDict, namedtuple

import ember

from ... import nn
from ..ops.misc import MLP, Conv2dNormActivation
from ._api import ClassifierMixin, _load, _ovewrite_named_param, _resolve, register_model

__all__ = [
    "VisionTransformer",
    "ConvStemConfig",
    "interpolate_embeddings",
    "vit_b_16",
    "vit_b_32",
    "vit_l_16",
    "vit_l_32",
    "vit_h_14",
]

ConvStemConfig = namedtuple(
    "ConvStemConfig", ["out_channels", "kernel_size", "stride", "norm_layer", "activation_layer"],
    defaults=[nn.BatchNorm2d, nn.ReLU],
)  # fmt: skip

_LN = functools.partial(nn.LayerNorm, eps=1e-6)


class MLPBlock(MLP):
    """The transformer's feed-forward block: Linear -> GELU -> Dropout -> Linear -> Dropout."""

    _version = 2

    def __init__(self, in_dim, mlp_dim, dropout):
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None, dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors):
        # Checkpoints from before torchvision 0.13 name the layers linear_1 and linear_2.
        for i in range(2):
            for kind in ("weight", "bias"):
                old = f"{prefix}linear_{i + 1}.{kind}"
                if old in state_dict:
                    state_dict[f"{prefix}{3 * i}.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors)


class EncoderBlock(nn.Module):
    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout, norm_layer=_LN):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        if input.dim() != 3:
            raise RuntimeError(f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    def __init__(
        self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout, norm_layer=_LN
    ):
        super().__init__()
        self.pos_embedding = nn.Parameter(ember.empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        layers = OrderedDict()
        for i in range(num_layers):
            layers[f"encoder_layer_{i}"] = EncoderBlock(
                num_heads, hidden_dim, mlp_dim, dropout, attention_dropout, norm_layer
            )
        self.layers = nn.Sequential(layers)
        self.ln = norm_layer(hidden_dim)

    def forward(self, input):
        if input.dim() != 3:
            raise RuntimeError(f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(ClassifierMixin, nn.Module):
    def __init__(
        self,
        image_size,
        patch_size,
        num_layers,
        num_heads,
        hidden_dim,
        mlp_dim,
        dropout=0.0,
        attention_dropout=0.0,
        num_classes=1000,
        representation_size=None,
        norm_layer=_LN,
        conv_stem_configs=None,
    ):
        super().__init__()
        if image_size % patch_size != 0:
            raise RuntimeError("Input shape indivisible by patch size!")
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.mlp_dim = mlp_dim
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.num_classes = num_classes
        self.representation_size = representation_size
        self.norm_layer = norm_layer
        if conv_stem_configs is not None:
            seq_proj = nn.Sequential()
            prev = 3
            for i, cfg in enumerate(conv_stem_configs):
                seq_proj.add_module(
                    f"conv_bn_relu_{i}",
                    Conv2dNormActivation(
                        prev, cfg.out_channels, kernel_size=cfg.kernel_size, stride=cfg.stride,
                        norm_layer=cfg.norm_layer, activation_layer=cfg.activation_layer,
                    ),
                )  # fmt: skip
                prev = cfg.out_channels
            seq_proj.add_module("conv_last", nn.Conv2d(prev, hidden_dim, kernel_size=1))
            self.conv_proj = seq_proj
        else:
            self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2 + 1  # the patches and the class token
        self.class_token = nn.Parameter(ember.zeros(1, 1, hidden_dim))
        self.encoder = Encoder(
            seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout, norm_layer
        )
        self.seq_length = seq_length
        heads = OrderedDict()
        if representation_size is None:
            heads["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads["act"] = nn.Tanh()
            heads["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads)
        if isinstance(self.conv_proj, nn.Conv2d):
            fan_in = self.conv_proj.in_channels * self.conv_proj.kernel_size[0] * self.conv_proj.kernel_size[1]
            nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
            if self.conv_proj.bias is not None:
                nn.init.zeros_(self.conv_proj.bias)
        else:
            last = self.conv_proj.conv_last
            nn.init.normal_(last.weight, mean=0.0, std=math.sqrt(2.0 / last.out_channels))
            if last.bias is not None:
                nn.init.zeros_(last.bias)
        if "pre_logits" in heads:
            nn.init.trunc_normal_(self.heads.pre_logits.weight, std=math.sqrt(1 / self.heads.pre_logits.in_features))
            nn.init.zeros_(self.heads.pre_logits.bias)
        nn.init.zeros_(self.heads.head.weight)
        nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        n, c, h, w = x.shape
        if h != self.image_size:
            raise RuntimeError(f"Wrong image height! Expected {self.image_size} but got {h}!")
        if w != self.image_size:
            raise RuntimeError(f"Wrong image width! Expected {self.image_size} but got {w}!")
        n_patches = (h // self.patch_size) * (w // self.patch_size)
        return self.conv_proj(x).reshape(n, self.hidden_dim, n_patches).permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        x = ember.cat([self.class_token.expand(x.shape[0], -1, -1), x], dim=1)
        return self.heads(self.encoder(x)[:, 0])


def _vit(name, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, weights, progress, kwargs):
    weights, kwargs = _resolve(name, weights, kwargs)
    if weights is not None:
        _ovewrite_named_param(kwargs, "image_size", weights.meta["min_size"][0])
    image_size = kwargs.pop("image_size", 224)
    model = VisionTransformer(image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim, **kwargs)
    return _load(model, weights, progress)


@register_model()
def vit_b_16(*, weights=None, progress=True, **kwargs):
    return _vit("vit_b_16", 16, 12, 12, 768, 3072, weights, progress, kwargs)


@register_model()
def vit_b_32(*, weights=None, progress=True, **kwargs):
    return _vit("vit_b_32", 32, 12, 12, 768, 3072, weights, progress, kwargs)


@register_model()
def vit_l_16(*, weights=None, progress=True, **kwargs):
    return _vit("vit_l_16", 16, 24, 16, 1024, 4096, weights, progress, kwargs)


@register_model()
def vit_l_32(*, weights=None, progress=True, **kwargs):
    return _vit("vit_l_32", 32, 24, 16, 1024, 4096, weights, progress, kwargs)


@register_model()
def vit_h_14(*, weights=None, progress=True, **kwargs):
    return _vit("vit_h_14", 14, 32, 16, 1280, 5120, weights, progress, kwargs)


def interpolate_embeddings(image_size, patch_size, model_state, interpolation_mode="bicubic", reset_heads=False):
    """Interpolates a checkpoint's position embeddings for a model of another image size.

    Args:
        image_size (int): Image size of the new model.
        patch_size (int): Patch size of the new model.
        model_state (OrderedDict[str, Tensor]): State dict of the pre-trained model.
        interpolation_mode (str): The algorithm used for upsampling. Default: bicubic.
        reset_heads (bool): If true, not copying the state of heads. Default: False.

    Returns:
        OrderedDict[str, Tensor]: A state dict which can be loaded into the new model.
    """
    pos_embedding = model_state["encoder.pos_embedding"]
    n, seq_length, hidden_dim = pos_embedding.shape
    if n != 1:
        raise ValueError(f"Unexpected position embedding shape: {pos_embedding.shape}")
    new_seq_length = (image_size // patch_size) ** 2 + 1
    if new_seq_length == seq_length:
        return model_state
    # The class token's embedding is kept; the patches' form a square grid that is resized.
    side = int(math.sqrt(seq_length - 1))
    if side * side != seq_length - 1:
        raise ValueError(
            f"seq_length is not a perfect square! Instead got seq_length_1d * seq_length_1d = {side * side} and "
            f"seq_length = {seq_length - 1}"
        )
    grid = pos_embedding[:, 1:, :].permute(0, 2, 1).reshape(1, hidden_dim, side, side)
    new_side = image_size // patch_size
    grid = nn.functional.interpolate(grid, size=new_side, mode=interpolation_mode, align_corners=True)
    grid = grid.reshape(1, hidden_dim, new_side * new_side).permute(0, 2, 1)
    model_state["encoder.pos_embedding"] = ember.cat([pos_embedding[:, :1, :], grid], dim=1)
    if reset_heads:
        model_state = OrderedDict((k, v) for k, v in model_state.items() if not k.startswith("heads"))
    return model_state
