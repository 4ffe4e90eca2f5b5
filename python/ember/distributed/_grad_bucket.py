"""GradBucket: what a DistributedDataParallel communication hook receives (torch.distributed.GradBucket)."""


class GradBucket:
    """One bucket of gradients: its flat buffer (the parameters' gradients laid end to end), and the views of
    that buffer for each parameter."""

    def __init__(self, index, count, buffer, params, offsets):
        self._index, self._count = index, count
        self._buffer, self._params, self._offsets = buffer, list(params), list(offsets)

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def set_buffer(self, tensor):
        self._buffer = tensor

    def gradients(self):
        return [self._buffer[o : o + p.numel()].view(p.shape) for p, o in zip(self._params, self._offsets)]

    def parameters(self):
        return list(self._params)

    def is_last(self):
        """True for the bucket reduced last in an iteration (the one holding the first parameters)."""
        return self._index == self._count - 1
