"""FeaturePyramidNetwork (torchvision.ops.feature_pyramid_network, Lin et al. 2017) with its state_dict keys."""

from collections import OrderedDict

from ... import nn
from ...nn import functional as F
from .misc import Conv2dNormActivation

__all__ = ["FeaturePyramidNetwork", "ExtraFPNBlock", "LastLevelMaxPool", "LastLevelP6P7"]


class ExtraFPNBlock(nn.Module):
    """The base of the blocks that add levels on top of an FPN: forward(results, x, names) -> (results, names), with
    results the FPN's outputs, x the original features and names their names."""

    def forward(self, results, x, names):
        raise NotImplementedError(f"{type(self).__name__} must implement forward(results, x, names)")


class FeaturePyramidNetwork(nn.Module):
    """Adds an FPN on top of a set of feature maps (from the highest resolution to the lowest).

    Args:
        in_channels_list (list[int]): number of channels of each feature map passed in.
        out_channels (int): number of channels of the FPN's outputs.
        extra_blocks (ExtraFPNBlock, optional): adds extra levels on top.
        norm_layer (Callable, optional): normalization layer of the convolutions. Default: None
    """

    _version = 2

    def __init__(self, in_channels_list, out_channels, extra_blocks=None, norm_layer=None):
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks.append(
                Conv2dNormActivation(
                    in_channels, out_channels, kernel_size=1, padding=0, norm_layer=norm_layer, activation_layer=None
                )
            )
            self.layer_blocks.append(
                Conv2dNormActivation(
                    out_channels, out_channels, kernel_size=3, norm_layer=norm_layer, activation_layer=None
                )
            )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=1)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
        if extra_blocks is not None and not isinstance(extra_blocks, ExtraFPNBlock):
            raise TypeError(f"extra_blocks should be of type ExtraFPNBlock not {type(extra_blocks)}")
        self.extra_blocks = extra_blocks

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors):
        # Checkpoints from before the blocks became Conv2dNormActivation name the convolutions "inner_blocks.0.weight"
        # (torchvision tells them by version metadata, which ember.load's dicts do not carry; the names tell here).
        for block in ("inner_blocks", "layer_blocks"):
            for i in range(len(self.inner_blocks)):
                for kind in ("weight", "bias"):
                    old = f"{prefix}{block}.{i}.{kind}"
                    if old in state_dict:
                        state_dict[f"{prefix}{block}.{i}.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors)

    def forward(self, x):
        """Computes the FPN for an OrderedDict of feature maps; returns an OrderedDict with the same keys (and those
        the extra blocks add), highest resolution first."""
        names = list(x.keys())
        x = list(x.values())
        last_inner = self.inner_blocks[-1](x[-1])
        results = [self.layer_blocks[-1](last_inner)]
        for idx in range(len(x) - 2, -1, -1):
            inner_lateral = self.inner_blocks[idx](x[idx])
            top_down = F.interpolate(last_inner, size=inner_lateral.shape[-2:], mode="nearest")
            last_inner = inner_lateral + top_down
            results.insert(0, self.layer_blocks[idx](last_inner))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, x, names)
        return OrderedDict(zip(names, results))


class LastLevelMaxPool(ExtraFPNBlock):
    """Adds a level "pool": a max pool of stride 2 of the last level."""

    def forward(self, x, y, names):
        names.append("pool")
        x.append(F.max_pool2d(x[-1], kernel_size=1, stride=2, padding=0))
        return x, names


class LastLevelP6P7(ExtraFPNBlock):
    """Adds levels P6 and P7 (RetinaNet): strided 3x3 convolutions of P5 (or of C5 when the channels differ)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.p6 = nn.Conv2d(in_channels, out_channels, 3, 2, 1)
        self.p7 = nn.Conv2d(out_channels, out_channels, 3, 2, 1)
        for module in [self.p6, self.p7]:
            nn.init.kaiming_uniform_(module.weight, a=1)
            nn.init.constant_(module.bias, 0)
        self.use_P5 = in_channels == out_channels

    def forward(self, p, c, names):
        p6 = self.p6(p[-1] if self.use_P5 else c[-1])
        p7 = self.p7(F.relu(p6))
        p.extend([p6, p7])
        names.extend(["p6", "p7"])
        return p, names
