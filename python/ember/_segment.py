"""nonzero_static and segment_reduce, PyTorch's, as compositions of ember ops (nonzero and cat; repeat_interleave and
scatter_reduce, whose gradients make segment_reduce's). No numeric loop runs in Python."""

import ember

from . import _C

_REDUCES = ("sum", "mean", "max", "min", "prod")


def nonzero_static(input, *, size, fill_value=-1):
    """Returns the indices of the nonzero elements of ``input`` as :func:`ember.nonzero` does, as a tensor of exactly
    ``size`` rows: the first ``size`` indices, padded with rows of ``fill_value`` when there are fewer.

    Args:
        input (Tensor): the input tensor.

    Keyword args:
        size (int): the number of rows of the result (>= 0).
        fill_value (int): the value of the padding rows. Default: -1.

    Example::

        >>> ember.nonzero_static(ember.tensor([[1, 0], [0, 3]]), size=3)
        tensor([[ 0,  0],
                [ 1,  1],
                [-1, -1]])
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"nonzero_static(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if type(size) is not int:
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not {type(size).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    nz = ember.nonzero(input)
    n = nz.shape[0]
    if n >= size:
        return nz[:size].contiguous()
    pad = ember.full((size - n, input.dim()), fill_value, dtype=ember.int64, device=input.device)
    return ember.cat([nz, pad])


def _segment_lengths(data, lengths, offsets, axis, unsafe):
    """The segments' lengths as an int64 tensor of shape [batch..., segments] (lengths' or offsets' leading dims are
    data's leading dims before `axis`), checked as PyTorch checks them."""
    if (lengths is None) == (offsets is None):
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    given = lengths if lengths is not None else offsets
    name = "lengths" if lengths is not None else "offsets"
    if not isinstance(given, _C.Tensor) or given.is_floating_point() or given.is_complex() or given.dtype == ember.bool:
        raise RuntimeError(f"segment_reduce(): {name} must be an integer tensor")
    if given.dim() == 0:
        raise RuntimeError(f"segment_reduce(): {name} must have at least one dimension")
    if axis != given.dim() - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    if list(given.shape[:-1]) != list(data.shape[:axis]):
        raise RuntimeError(
            f"segment_reduce(): {name} of shape {list(given.shape)} do not match data of shape {list(data.shape)}: "
            f"their leading dims must be data's dims before axis {axis}"
        )
    if given.device != data.device:
        raise RuntimeError(
            f"segment_reduce(): Expected all tensors to be on the same device, but found {given.device} and "
            f"{data.device}"
        )
    if lengths is None:
        if offsets.shape[-1] == 0:
            raise RuntimeError("segment_reduce(): offsets must have at least one element along axis")
        if not unsafe and bool((offsets[..., 0] != 0).any()):
            raise RuntimeError("segment_reduce(): offsets must start at 0")
        lengths = offsets[..., 1:] - offsets[..., :-1]
    lengths = lengths.to(ember.int64)
    if not unsafe and lengths.numel() and bool((lengths < 0).any()):
        raise RuntimeError("lengths contains negative value!")
    totals = lengths.sum(-1)
    # unsafe skips PyTorch's checks, but segments that do not cover data are refused all the same: never a wrong read
    if lengths.numel() and bool((totals != data.shape[axis]).any()) and not (unsafe and lengths.dim() == 1):
        raise RuntimeError(
            f"segment_reduce(): the segment lengths sum to {totals.tolist()}, but data has {data.shape[axis]} "
            f"elements along axis {axis}"
        )
    return lengths


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """Reduces consecutive segments of ``data`` along ``axis``, as PyTorch's ``torch.segment_reduce``.

    Segment ``i`` is the next ``lengths[i]`` elements along ``axis`` (or those between ``offsets[i]`` and
    ``offsets[i + 1]``); the result has ``len(lengths)`` elements along ``axis``. An empty segment gives ``initial``
    when given, else the reduction's identity (sum 0, prod 1, max -inf, min inf) or NaN (mean). With ``initial``,
    sum and prod combine it with the segment's values, max and min take it as one more value, and mean is
    ``(initial + sum) / length``. Differentiable in ``data``.

    Args:
        data (Tensor): the values (floating point).
        reduce (str): ``"sum"``, ``"mean"``, ``"max"``, ``"min"`` or ``"prod"``.

    Keyword args:
        lengths (Tensor, optional): the segments' lengths (integers), of shape ``data.shape[:axis] + (segments,)``.
        indices (Tensor, optional): not supported (as PyTorch's).
        offsets (Tensor, optional): the segments' boundaries, of shape ``data.shape[:axis] + (segments + 1,)``.
        axis (int): the dimension of ``data`` to reduce: the last dimension of ``lengths``. Default: 0.
        unsafe (bool): skip the checks that the lengths are non-negative and cover ``data``. Default: False.
        initial (Number, optional): the value combined into every segment.

    Example::

        >>> ember.segment_reduce(ember.tensor([1.0, 2.0, 3.0, 4.0]), "sum", lengths=ember.tensor([1, 3]))
        tensor([1., 9.])
    """
    if not isinstance(data, _C.Tensor):
        raise TypeError(f"segment_reduce(): argument 'data' (position 1) must be Tensor, not {type(data).__name__}")
    if reduce not in _REDUCES:
        raise RuntimeError(f"segment_reduce(): reduction is not one of (max, mean, min, sum, prod), got '{reduce}'")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if not (data.is_floating_point()):
        raise RuntimeError(f"segment_reduce(): expected a floating point data tensor, got {data.dtype}")
    axis = axis + data.dim() if axis < 0 else axis
    if not 0 <= axis < max(data.dim(), 1) or data.dim() == 0:
        raise IndexError(f"segment_reduce(): axis {axis} is out of range for data of {data.dim()} dimensions")
    lengths = _segment_lengths(data, lengths, offsets, axis, unsafe)
    # Batched lengths [batch..., S]: the batch dims flatten with data's, and segment ids run on across the batch.
    batch, segments, n = lengths.shape[:-1], lengths.shape[-1], data.shape[axis]
    x = data.reshape([-1] + list(data.shape[axis + 1 :])) if axis else data
    flat = lengths.reshape(-1)
    ids = ember.repeat_interleave(ember.arange(flat.numel(), device=data.device), flat)
    if ids.numel() > x.shape[0]:  # unsafe lengths that overrun data
        raise RuntimeError(f"segment_reduce(): the segment lengths sum past data's {n} elements along axis {axis}")
    x = x[: ids.numel()]
    index = ids.reshape([-1] + [1] * (x.dim() - 1)).expand(x.shape)
    shape = [flat.numel()] + list(x.shape[1:])
    lengths = flat
    if reduce == "mean":
        total = ember.zeros(shape, dtype=data.dtype, device=data.device).scatter_add(0, index, x)
        count = lengths.to(data.dtype).reshape([-1] + [1] * (x.dim() - 1))
        if initial is None:
            out = total / count  # an empty segment: 0 / 0, NaN (PyTorch's)
        else:
            out = ember.where(count > 0, (total + initial) / count.clamp(min=1), ember.full_like(total, initial))
    else:
        identity = {"sum": 0.0, "prod": 1.0, "max": float("-inf"), "min": float("inf")}[reduce]
        start = ember.full(shape, identity if initial is None else initial, dtype=data.dtype, device=data.device)
        op = {"sum": "sum", "prod": "prod", "max": "amax", "min": "amin"}[reduce]
        out = start.scatter_reduce(0, index, x, op, include_self=True)
    return out.reshape(list(batch) + [segments] + list(out.shape[1:]))


__all__ = ["nonzero_static", "segment_reduce"]
