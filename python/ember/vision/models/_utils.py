"""Helpers shared by the models; the layers they share are torchvision.ops.misc's (ember.vision.ops.misc)."""

from collections import OrderedDict

from ... import nn
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation

__all__ = ["make_divisible", "Conv2dNormActivation", "SqueezeExcitation", "IntermediateLayerGetter"]


def make_divisible(v, divisor, min_value=None):
    """v rounded to a multiple of divisor (at least min_value), never below 90% of v (the MobileNet rule)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class IntermediateLayerGetter(nn.ModuleDict):
    """The children of ``model`` up to the last one named in ``return_layers`` ({child name: output name}), run in
    order; forward returns an OrderedDict of the named children's outputs. Only direct children can be returned, and
    the model must use them in the order they were registered (torchvision.models._utils)."""

    _version = 2

    def __init__(self, model, return_layers):
        if not set(return_layers).issubset([name for name, _ in model.named_children()]):
            raise ValueError("return_layers are not present in model")
        orig_return_layers = return_layers
        return_layers = {str(k): str(v) for k, v in return_layers.items()}
        remaining = dict(return_layers)
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            remaining.pop(name, None)
            if not remaining:
                break
        super().__init__(layers)
        self.return_layers = orig_return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


def _ovewrite_value_param(param, actual, expected):
    """expected, or an error when the caller gave another value for param (torchvision's spelling)."""
    if actual is not None and actual != expected:
        raise ValueError(f"The parameter '{param}' expected value {expected} but got {actual} instead.")
    return expected
