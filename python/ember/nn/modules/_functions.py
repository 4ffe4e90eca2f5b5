"""SyncBatchNorm's autograd function: batch statistics reduced across a process group, as PyTorch's
torch/nn/modules/_functions.py SyncBatchNorm (the math is ember ops; the reductions are all_reduce)."""

from ... import _C
from ...autograd import Function


def _reduce_dims(x):
    return [0] + list(range(2, x.dim()))


class SyncBatchNorm(Function):
    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, process_group, world_size):
        from ... import distributed as dist

        c = input.size(1)
        dims = _reduce_dims(input)
        acc = _C.float64 if input.dtype == _C.float64 else _C.float32
        x = input.to(acc)
        count = input.numel() // c
        # Per channel sum and sum of squares, and the element count: one all_reduce.
        stats = _C.cat([x.sum(dims), (x * x).sum(dims), _C.full((1,), float(count), dtype=acc)])
        dist.all_reduce(stats, group=process_group)
        total = stats[2 * c]
        if float(total.item()) <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size {}".format(list(input.shape))
            )
        mean = stats[:c] / total
        var = (stats[c : 2 * c] / total - mean * mean).clamp_min(0.0)
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            running_mean.mul_(1.0 - momentum).add_(mean.to(running_mean.dtype) * momentum)
        if running_var is not None:
            unbiased = var * (total / (total - 1))
            running_var.mul_(1.0 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
        shape = [1, c] + [1] * (input.dim() - 2)
        out = (x - mean.view(shape)) * invstd.view(shape)
        if weight is not None:
            out = out * weight.to(acc).view(shape)
        if bias is not None:
            out = out + bias.to(acc).view(shape)
        ctx.save_for_backward(input, weight, mean, invstd)
        ctx.total = total
        ctx.process_group = process_group
        ctx.has_bias = bias is not None
        return out.to(input.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        from ... import distributed as dist

        input, weight, mean, invstd = ctx.saved_tensors
        c = input.size(1)
        dims = _reduce_dims(input)
        acc = mean.dtype
        shape = [1, c] + [1] * (input.dim() - 2)
        g = grad_output.to(acc)
        xmu = input.to(acc) - mean.view(shape)
        sum_dy = g.sum(dims)
        sum_dy_xmu = (g * xmu).sum(dims)
        grad_input = grad_weight = grad_bias = None
        # weight and bias get this process's share (DistributedDataParallel sums them), as in PyTorch.
        if weight is not None and ctx.needs_input_grad[1]:
            grad_weight = (sum_dy_xmu * invstd).to(weight.dtype)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            grad_bias = sum_dy.to(weight.dtype if weight is not None else input.dtype)
        if ctx.needs_input_grad[0]:
            both = _C.cat([sum_dy, sum_dy_xmu])
            dist.all_reduce(both, group=ctx.process_group)
            mean_dy = (both[:c] / ctx.total).view(shape)
            mean_dy_xmu = (both[c:] / ctx.total).view(shape)
            inv = invstd.view(shape)
            scale = inv if weight is None else inv * weight.to(acc).view(shape)
            grad_input = ((g - mean_dy - xmu * inv * inv * mean_dy_xmu) * scale).to(input.dtype)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None
