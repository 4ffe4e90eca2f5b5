"""Stochastic depth and DropBlock (torchvision.ops): random masks from ember's generator, applied with ember ops."""

import ember

from ... import nn
from ...nn import functional as F

__all__ = ["stochastic_depth", "StochasticDepth", "drop_block2d", "drop_block3d", "DropBlock2d", "DropBlock3d"]


def stochastic_depth(input, p, mode, training=True):
    """Implements the Stochastic Depth from "Deep Networks with Stochastic Depth": drops whole residual branches.

    Args:
        input (Tensor[N, ...]): the input tensor, the residual branch's output.
        p (float): probability of the input to be zeroed.
        mode (str): ``"batch"`` zeroes the whole input at once, ``"row"`` each sample independently.
        training: apply stochastic depth if True. Default: True

    Returns:
        Tensor[N, ...]: the randomly zeroed input, scaled by 1 / (1 - p).
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    size = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
    noise = ember.empty(size, dtype=input.dtype, device=input.device).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class StochasticDepth(nn.Module):
    """See :func:`stochastic_depth`."""

    def __init__(self, p, mode):
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input):
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p}, mode={self.mode})"


def _drop_block(input, p, block_size, inplace, eps, training, dims):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}.")
    if input.ndim != dims + 2:
        raise ValueError(f"input should be {dims + 2} dimensional. Got {input.ndim} dimensions.")
    if not training or p == 0.0:
        return input
    spatial = input.shape[2:]
    block_size = min(block_size, *spatial)
    if block_size % 2 == 0:
        raise ValueError(f"block size should be odd. Got {block_size} which is even.")
    # The seed rate gamma that makes the expected dropped fraction p (Ghiasi et al., eq. 1).
    valid, total = 1, 1
    for s in spatial:
        valid *= s - block_size + 1
        total *= s
    gamma = p * total / (block_size**dims * valid)
    noise = ember.empty(
        (*input.shape[:2], *(s - block_size + 1 for s in spatial)), dtype=input.dtype, device=input.device
    ).bernoulli_(gamma)
    # Each seed grows into a block: pad back to full size, then a max pool of the block's size.
    noise = F.pad(noise, [block_size // 2] * (2 * dims), value=0)
    pool = F.max_pool2d if dims == 2 else F.max_pool3d
    noise = 1 - pool(noise, stride=(1,) * dims, kernel_size=(block_size,) * dims, padding=block_size // 2)
    normalize_scale = noise.numel() / (eps + noise.sum())
    if inplace:
        return input.mul_(noise).mul_(normalize_scale)
    return input * noise * normalize_scale


def drop_block2d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """Implements DropBlock2d from "DropBlock: A regularization method for convolutional networks".

    Args:
        input (Tensor[N, C, H, W]): the input tensor.
        p (float): probability of an element to be dropped.
        block_size (int): size of the block to drop (odd).
        inplace (bool): if True, do the operation in place. Default: False
        eps (float): a value added to the denominator for numerical stability. Default: 1e-6
        training (bool): apply dropblock if True. Default: True

    Returns:
        Tensor[N, C, H, W]: the randomly zeroed input, rescaled to keep its expected sum.
    """
    return _drop_block(input, p, block_size, inplace, eps, training, 2)


def drop_block3d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """Implements DropBlock3d from "DropBlock: A regularization method for convolutional networks".

    Args:
        input (Tensor[N, C, D, H, W]): the input tensor.
        p (float): probability of an element to be dropped.
        block_size (int): size of the block to drop (odd).
        inplace (bool): if True, do the operation in place. Default: False
        eps (float): a value added to the denominator for numerical stability. Default: 1e-6
        training (bool): apply dropblock if True. Default: True

    Returns:
        Tensor[N, C, D, H, W]: the randomly zeroed input, rescaled to keep its expected sum.
    """
    return _drop_block(input, p, block_size, inplace, eps, training, 3)


class DropBlock2d(nn.Module):
    """See :func:`drop_block2d`."""

    def __init__(self, p, block_size, inplace=False, eps=1e-06):
        super().__init__()
        self.p = p
        self.block_size = block_size
        self.inplace = inplace
        self.eps = eps

    def forward(self, input):
        return drop_block2d(input, self.p, self.block_size, self.inplace, self.eps, self.training)

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p}, block_size={self.block_size}, inplace={self.inplace})"


class DropBlock3d(DropBlock2d):
    """See :func:`drop_block3d`."""

    def forward(self, input):
        return drop_block3d(input, self.p, self.block_size, self.inplace, self.eps, self.training)
