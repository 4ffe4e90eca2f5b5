"""NVTX ranges and marks for profilers such as Nsight Systems (torch.cuda.nvtx). Without a profiler attached the
calls cost next to nothing; in a build without CUDA they raise RuntimeError, as PyTorch's stub does."""

from contextlib import contextmanager

from .. import _C

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def range_push(msg):
    """Opens a nested range named `msg`; returns its depth (0-based), or a negative number on error."""
    return _C._nvtx_range_push(msg)


def range_pop():
    """Closes the innermost open range; returns the depth it ended at."""
    return _C._nvtx_range_pop()


def range_start(msg):
    """Starts a range that may end on another thread; returns its id for range_end."""
    return _C._nvtx_range_start(msg)


def range_end(range_id):
    _C._nvtx_range_end(range_id)


def mark(msg):
    """An instantaneous event named `msg`."""
    return _C._nvtx_mark(msg)


@contextmanager
def range(msg, *args, **kwargs):  # noqa: A001
    """with range("step {}", i): ... (or @range("name") on a function) wraps the block in a range."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
