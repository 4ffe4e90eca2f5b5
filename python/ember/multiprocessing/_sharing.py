"""Sharing strategies, as torch.multiprocessing's."""

from .. import _C

_all_strategies = {"file_descriptor", "file_system"}


class _InvalidStrategy(ValueError, AssertionError):
    """PyTorch asserts on an unknown strategy; this error is both a ValueError and that AssertionError."""


def get_all_sharing_strategies():
    """The set of sharing strategies this system supports."""
    return set(_all_strategies)


def get_sharing_strategy():
    """The strategy used for tensors moved into shared memory from now on."""
    return _C._get_sharing_strategy()


def set_sharing_strategy(new_strategy):
    """'file_descriptor' (default: anonymous memfd segments, descriptors passed over Unix sockets; nothing in
    /dev/shm) or 'file_system' (named segments in /dev/shm, opened by name; a tracker process unlinks the segments
    of processes that die)."""
    if new_strategy not in _all_strategies:
        raise _InvalidStrategy(
            "invalid sharing strategy %r; expected one of %s" % (new_strategy, sorted(_all_strategies))
        )
    if new_strategy == "file_system":
        from . import _tracker

        _tracker.ensure_running()
    _C._set_sharing_strategy(new_strategy)
