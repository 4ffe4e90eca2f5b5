"""make_tensor, as torch.testing.make_tensor: a tensor of the given shape, dtype and device with values drawn
uniformly from [low, high) (defaults by dtype), optionally non-contiguous, without zeros, or requiring grad."""

import collections.abc
import math

from .. import _C
from .._utils import finfo, iinfo

_INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
_FLOATING = ("float16", "bfloat16", "float32", "float64")


def make_tensor(
    *shape,
    dtype,
    device,
    low=None,
    high=None,
    requires_grad=False,
    noncontiguous=False,
    exclude_zero=False,
    memory_format=None,
):
    def modify_low_high(low, high, lowest, highest, default_low, default_high, integral):
        low = low if low is not None else default_low
        high = high if high is not None else default_high
        if low != low or high != high:
            raise ValueError("make_tensor: one of low or high was NaN!")
        if low > high:
            raise ValueError("make_tensor: low must be weakly less than high!")
        low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
        return (math.floor(low), math.ceil(high)) if integral else (low, high)

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    name = str(dtype).split(".")[-1]
    if requires_grad and name not in _FLOATING:
        raise ValueError("make_tensor: requires_grad must be False for integral dtype")
    if name == "bool":
        result = _C.randint(0, 2, shape, device=device, dtype=dtype)
    elif name in _INTEGRAL:
        info = iinfo(dtype)
        low, high = modify_low_high(low, high, info.min, info.max, 0 if name == "uint8" else -9, 10, True)
        result = _C.randint(low, high, shape, device=device, dtype=dtype)
    elif name in _FLOATING:
        info = finfo(dtype)
        low, high = modify_low_high(low, high, info.min, info.max, -9, 9, False)
        rand = _C.rand(shape, device=device, dtype=dtype)
        result = high * rand + low * (1 - rand)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by ember.testing.make_tensor().")
    if memory_format is not None and not getattr(memory_format, "_ember_strided", False):
        raise NotImplementedError("make_tensor: ember tensors have the contiguous (strided) format only")
    if noncontiguous and result.numel() > 1:
        result = result.repeat_interleave(2, dim=-1)[..., ::2]
    if exclude_zero:
        result.masked_fill_(result == 0, finfo(dtype).tiny if name in _FLOATING else 1)
    if name in _FLOATING:
        result.requires_grad_(requires_grad)
    return result
