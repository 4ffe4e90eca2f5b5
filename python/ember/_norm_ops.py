"""PyTorch's deprecated and low-level normalization entry points, as compositions of ember ops (autograd included):
frobenius_norm, nuclear_norm (ember.linalg), native_layer_norm / native_batch_norm / native_group_norm (the output and
the saved statistics), and the batch_norm_* pieces that SyncBatchNorm implementations call (batch_norm_stats,
batch_norm_gather_stats(_with_counts), batch_norm_update_stats, batch_norm_elemt, batch_norm_backward_reduce,
batch_norm_backward_elemt; CUDA-only in PyTorch, on every device here)."""

import math

from . import _C


def _linalg():
    from . import linalg

    return linalg


def _dims_list(dim):
    return [dim] if isinstance(dim, int) else list(dim)


def frobenius_norm(input, dim=None, keepdim=False, *, out=None):
    """Returns the Frobenius norm of `input`, ``sqrt(sum(x ** 2))``, over `dim` (one or two dims; all of them when
    None or empty). Deprecated in PyTorch for :func:`ember.linalg.vector_norm`, which computes it.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimensions to reduce.
        keepdim (bool): whether the reduced dimensions are kept, with size 1.

    Keyword args:
        out (Tensor, optional): the output tensor.
    """
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        result = _linalg().vector_norm(input, 2)
        if keepdim:
            result = result.reshape([1] * input.dim())
    else:
        dims = _dims_list(dim)
        if len(dims) > 2:
            raise RuntimeError(
                "frobenius_norm(): Expected at most 2 dimensions, but got {} dimensions instead.".format(len(dims))
            )
        result = _linalg().vector_norm(input, 2, dim=dims, keepdim=keepdim)
    return result if out is None else out.resize_(result.shape).copy_(result)


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """Returns the nuclear norm of `input`: the sum of the singular values of the matrices over `dim` (two dims;
    `input` must be 2-D when None). Deprecated in PyTorch for :func:`ember.linalg.matrix_norm` with ``ord="nuc"``.

    Args:
        input (Tensor): the input tensor.
        dim (tuple of two ints, optional): the dimensions of the matrices.
        keepdim (bool): whether the reduced dimensions are kept, with size 1.

    Keyword args:
        out (Tensor, optional): the output tensor.
    """
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim) positionally, as PyTorch's first overload
        dim, keepdim = None, dim
    if dim is None:
        if input.dim() != 2:
            raise RuntimeError(
                "nuclear_norm(): Expected a tensor with 2 dimensions, but got a tensor with {} "
                "dimensions instead.".format(input.dim())
            )
        dim = (0, 1)
    dims = _dims_list(dim)
    if len(dims) != 2:
        raise RuntimeError("nuclear norm requires a 'dim' argument of size 2")
    result = _linalg().matrix_norm(input, "nuc", dim=dims, keepdim=keepdim)
    return result if out is None else out.resize_(result.shape).copy_(result)


def _stats(x, dims):
    """(mean, rstd) over dims with the biased variance, without eps (added by the caller), keeping dims."""
    var, mean = _C.var_mean(x, dims, correction=0, keepdim=True)
    return mean, var


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Returns ``(layer_norm(input), mean, rstd)``: the layer normalization of `input` and the statistics of its
    normalized dims (the last ``len(normalized_shape)``), ``rstd = 1 / sqrt(var + eps)`` with the biased variance,
    shaped ``input.shape[:axis] + [1] * len(normalized_shape)``. See :func:`ember.nn.functional.layer_norm`."""
    normalized_shape = _dims_list(normalized_shape)
    out = _C.layer_norm(input, normalized_shape, weight, bias, eps)
    k = len(normalized_shape)
    dims = list(range(input.dim() - k, input.dim()))
    mean, var = _stats(input, dims)
    return out, mean, (var + eps).rsqrt()


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Returns ``(group_norm(input), mean, rstd)``: the group normalization of `input` (viewed as `N` samples of `C`
    channels of `HxW` elements each, in `group` groups) and the statistics of each group, of shape ``(N, group)``.
    See :func:`ember.nn.functional.group_norm`."""
    if input.numel() != N * C * HxW:
        raise RuntimeError(
            "native_group_norm(): expected input with N*C*HxW = {} elements, got input of shape {}".format(
                N * C * HxW, list(input.shape)
            )
        )
    if group <= 0 or C % group != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of "
            "shape {} and num_groups={}".format(list(input.shape), group)
        )
    out = _C.group_norm(input, group, weight, bias, eps)
    mean, var = _stats(input.reshape(N, group, -1), [2])
    return out, mean.reshape(N, group), (var + eps).rsqrt().reshape(N, group)


def _channel_dims(input):
    return [0] + list(range(2, input.dim()))


def _channel_shape(input):
    return [1, input.size(1)] + [1] * (input.dim() - 2)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Returns ``(batch_norm(input), save_mean, save_invstd)``: in training, the batch's per-channel mean and
    ``1 / sqrt(biased var + eps)`` (the running statistics updated as batch_norm does); in evaluation, two empty
    tensors. See :func:`ember.nn.functional.batch_norm`."""
    if training:
        var, mean = _C.var_mean(input, _channel_dims(input), correction=0)
        save_mean, save_invstd = mean, (var + eps).rsqrt()
    else:
        save_mean = _C.empty((0,), dtype=input.dtype, device=input.device)
        save_invstd = _C.empty((0,), dtype=input.dtype, device=input.device)
    out = _C.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)
    return out, save_mean, save_invstd


def _acc(input):
    return _C.float64 if input.dtype == _C.float64 else _C.float32


def batch_norm_stats(input, eps):
    """Returns the per-channel (dim 1) mean and ``1 / sqrt(biased var + eps)`` of `input`, in float32 (float64 for
    a float64 input): the local statistics of a synchronized batch norm."""
    var, mean = _C.var_mean(input.to(_acc(input)), _channel_dims(input), correction=0)
    return mean, (var + eps).rsqrt()


def _update_running(running_mean, running_var, mean, var, total, momentum):
    if running_mean is not None:
        running_mean.mul_(1.0 - momentum).add_(mean.to(running_mean.dtype) * momentum)
    if running_var is not None:
        # One value per channel: PyTorch's n / (n - 1) is 1 / 0, so the running variance becomes NaN (0 * inf).
        unbiased = var * (total / (total - 1) if not isinstance(total, int) or total != 1 else math.inf)
        running_var.mul_(1.0 - momentum).add_(unbiased.to(running_var.dtype) * momentum)


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    """Combines per-process statistics (`mean`, `invstd` of shape ``(W, C)``, `counts` of shape ``(W,)``) into the
    global mean and invstd, and updates the running statistics (the variance unbiased by the total count)."""
    n = counts.to(mean.dtype).reshape(-1, 1)
    total = n.sum()
    global_mean = (mean * n).sum(0) / total
    var_i = invstd.reciprocal().square() - eps
    global_var = (n * (var_i + (mean - global_mean).square())).sum(0) / total
    _update_running(running_mean, running_var, global_mean, global_var, total, momentum)
    return global_mean, (global_var + eps).rsqrt()


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """Combines per-process statistics as :func:`ember.batch_norm_gather_stats_with_counts` does, with the same
    `count` for every process."""
    counts = _C.full((mean.size(0),), float(count), dtype=mean.dtype, device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """Returns the per-channel mean and biased variance of `input`, and updates the running statistics with them
    (the variance unbiased)."""
    if input.numel() == 0:
        raise RuntimeError(f"input tensor must have at least one element, but got input_sizes = {list(input.shape)}")
    x = input.to(_acc(input))
    var, mean = _C.var_mean(x, _channel_dims(input), correction=0)
    total = input.numel() // input.size(1)
    _update_running(running_mean, running_var, mean, var, total, momentum)
    return mean, var


def batch_norm_elemt(input, weight, bias, mean, invstd, eps, *, out=None):
    """Returns ``(input - mean) * invstd * weight + bias``, per channel: the elementwise step of a synchronized batch
    norm (`eps` is unused, as in PyTorch)."""
    shape = _channel_shape(input)
    y = (input.to(mean.dtype) - mean.view(shape)) * invstd.view(shape)
    if weight is not None:
        y = y * weight.to(mean.dtype).view(shape)
    if bias is not None:
        y = y + bias.to(mean.dtype).view(shape)
    y = y.to(input.dtype)
    return y if out is None else out.resize_(y.shape).copy_(y)


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """Returns the per-channel sums of a synchronized batch norm's backward, ``(sum_dy, sum_dy_xmu, grad_weight,
    grad_bias)``; each is None when its flag (`input_g` for the first two) is False."""
    shape = _channel_shape(input)
    dims = _channel_dims(input)
    g = grad_out.to(mean.dtype)
    sum_dy = g.sum(dims)
    sum_dy_xmu = (g * (input.to(mean.dtype) - mean.view(shape))).sum(dims)
    wdtype = weight.dtype if weight is not None else mean.dtype
    grad_weight = (sum_dy_xmu * invstd).to(wdtype) if weight_g else None
    grad_bias = sum_dy.to(wdtype) if bias_g else None
    if not input_g:
        sum_dy = sum_dy_xmu = None
    return sum_dy, sum_dy_xmu, grad_weight, grad_bias


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """Returns the input's gradient of a synchronized batch norm from the all-reduced sums: ``(dy - mean_dy - (x -
    mean) * invstd ** 2 * mean_dy_xmu) * invstd * weight``, where ``mean_* = sum_* / count.sum()``."""
    shape = _channel_shape(input)
    total = count.to(mean.dtype).sum()
    mean_dy = (sum_dy / total).view(shape)
    mean_dy_xmu = (sum_dy_xmu / total).view(shape)
    inv = invstd.view(shape)
    scale = inv if weight is None else inv * weight.to(mean.dtype).view(shape)
    xmu = input.to(mean.dtype) - mean.view(shape)
    return ((grad_out.to(mean.dtype) - mean_dy - xmu * inv * inv * mean_dy_xmu) * scale).to(input.dtype)


__all__ = [
    "batch_norm_backward_elemt",
    "batch_norm_backward_reduce",
    "batch_norm_elemt",
    "batch_norm_gather_stats",
    "batch_norm_gather_stats_with_counts",
    "batch_norm_stats",
    "batch_norm_update_stats",
    "frobenius_norm",
    "native_batch_norm",
    "native_group_norm",
    "native_layer_norm",
    "nuclear_norm",
]
