"""The default DDP communication hooks: hook(process_group, bucket) -> a Future whose value is the bucket's
averaged flat gradient. The casts and the division are ember ops; the collective is ember.distributed's."""

from .... import _C
from ... import distributed_c10d as dist


def _group(process_group):
    return process_group if process_group is not None else dist.group.WORLD


def allreduce_hook(process_group, bucket):
    """What DDP does without a hook: divide by the world size, all-reduce (sum)."""
    group = _group(process_group)
    tensor = bucket.buffer().div_(group.size())
    return dist.all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])


def _compress_hook(dtype, process_group, bucket):
    group = _group(process_group)
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(group.size())
    fut = dist.all_reduce(compressed, group=group, async_op=True).get_future()

    def decompress(fut):
        buffer.copy_(fut.value()[0])  # back into the bucket's dtype, in place
        return buffer

    return fut.then(decompress)


def fp16_compress_hook(process_group, bucket):
    """All-reduces the gradients in float16 (half the bytes), then casts back into the bucket."""
    return _compress_hook(_C.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """All-reduces the gradients in bfloat16, then casts back into the bucket."""
    return _compress_hook(_C.bfloat16, process_group, bucket)
