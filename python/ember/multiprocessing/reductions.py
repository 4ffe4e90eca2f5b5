"""How ember tensors cross process boundaries through multiprocessing (queues, pipes, Process arguments).

ForkingPickler (the pickler of every multiprocessing channel) sends a CPU tensor as the handle of its storage's
shared-memory segment (the storage is moved there first) plus its geometry, dtype and requires_grad; the
receiver maps the same memory, so writes are visible both ways and nothing of the data is copied or pickled.
A Parameter stays a Parameter, and a tensor's .grad travels with it the same way.
"""

import io
import multiprocessing.reduction as _reduction
import os
import pickle
import threading
from multiprocessing.reduction import ForkingPickler

from .. import _C
from .._C import Tensor

_NON_LEAF_MSG = (
    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support crossing "
    "process boundaries.  If you just want to transfer the data, call detach() on the tensor before serializing "
    "(e.g., putting it on the queue)."
)

# Descriptors a spawned child received with its start-up data (popen's DupFd): several tensors of one segment
# name the same inherited descriptor, and each rebuild must own a descriptor of its own.
_inherited_fds_taken = set()


# Descriptors received with the message being unpickled by this thread (loads_with_fds), and which of them a
# rebuilt tensor owns already.
_oob = threading.local()


def _take_oob_fd(i):
    if i in _oob.taken:
        return os.dup(_oob.fds[i])  # a second tensor of the same segment in this message
    _oob.taken.add(i)
    return _oob.fds[i]


def _take_fd(dupfd):
    from multiprocessing import resource_sharer

    if isinstance(dupfd, resource_sharer.DupFd):
        return dupfd.detach()  # a fresh descriptor received over the sender's socket: ours
    fd = dupfd.detach()
    if fd in _inherited_fds_taken:
        import os

        return os.dup(fd)
    _inherited_fds_taken.add(fd)
    return fd


def rebuild_tensor(cls, kind, handle, nbytes, dtype, sizes, strides, offset, requires_grad, grad):
    if kind == "fd":
        handle = _take_fd(handle)
    elif kind == "oob":
        kind, handle = "fd", _take_oob_fd(handle)
    t = _C._rebuild_shared(kind, handle, nbytes, dtype, sizes, strides, offset)
    from ..nn.parameter import Parameter

    if issubclass(cls, Parameter):
        t = cls(t, requires_grad)
    elif requires_grad:
        t.requires_grad_(True)
    if grad is not None:
        t.grad = grad
    return t


# Note [Descriptors outlive their sender]
# A descriptor sent through the resource sharer stays in the sending process until the receiver fetches it, and
# the tracker unlinks the file_system segments a process created once it is gone, so a child that sends a tensor
# and exits at once (a common pattern) would leave the receiver nothing to map. A child process therefore waits at
# exit, up to _EXIT_WAIT seconds, until its queues' feeder threads have flushed and what it sent was received.
# This runs as a multiprocessing finalizer of priority 1: after the queues are closed (10), before the sharer's
# listening socket is unlinked (0). The main process does not wait; DataLoader workers neither (their main
# process drains what it wants before it stops them). A forked child installs it from the after-fork hooks; a
# spawned child never runs those (SpawnProcess._after_fork does nothing), so there ember installs it when it is
# imported: while the child unpickles its start-up data (the main module's imports) or later in the child.
_EXIT_WAIT = 5.0
wait_at_exit = True


def _wait_for_fetches():
    import time
    from multiprocessing import resource_sharer

    deadline = time.monotonic() + _EXIT_WAIT
    for th in threading.enumerate():
        if th.name == "QueueFeederThread" and th is not threading.current_thread():
            th.join(max(0.0, deadline - time.monotonic()))
    if not wait_at_exit:
        return
    sharer = resource_sharer._resource_sharer
    while time.monotonic() < deadline:
        with sharer._lock:
            if not sharer._cache:
                break
        time.sleep(0.005)
    _C._shm_wait_for_sent_names(max(0.0, deadline - time.monotonic()))


class _ExitWait:
    """Registered with multiprocessing's after-fork hooks, which every child process (fork or spawn) runs when it
    starts: the finalizer must exist before the queues' feeder threads pickle anything at exit."""

    @staticmethod
    def install(_):
        from multiprocessing import util

        util.Finalize(None, _wait_for_fetches, exitpriority=1)


_exit_wait = _ExitWait()


def reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(_NON_LEAF_MSG)
    if not t.is_cpu:
        # No CUDA IPC yet: device tensors travel by value (docs/data.md).
        return t.__reduce_ex__(2)
    kind, handle, nbytes, dtype, sizes, strides, offset = _C._share_handle(t)
    if kind == "fd":
        handle = _reduction.DupFd(handle)
    return (rebuild_tensor, (type(t), kind, handle, nbytes, dtype, sizes, strides, offset, t.requires_grad, t.grad))


class _FdCollectingPickler(ForkingPickler):
    """A ForkingPickler that collects the descriptors of memfd segments into `fds` instead of handing them to the
    resource sharer; the caller sends them with the bytes (SCM_RIGHTS, see dumps_with_fds). One descriptor per
    segment per message; beyond what one message can carry, tensors fall back to the resource sharer."""

    MAX_FDS = 200  # the kernel passes at most 253 descriptors per message

    def __init__(self, file, fds):
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        from ..nn.parameter import Parameter

        self._fds = fds
        self._index = {}
        self.dispatch_table[Tensor] = self._reduce
        self.dispatch_table[Parameter] = self._reduce

    def _reduce(self, t):
        if t.requires_grad and not t.is_leaf:
            raise RuntimeError(_NON_LEAF_MSG)
        if not t.is_cpu:
            return t.__reduce_ex__(2)
        kind, handle, nbytes, dtype, sizes, strides, offset = _C._share_handle(t)
        if kind == "fd":
            i = self._index.get(handle)
            if i is None and len(self._fds) < self.MAX_FDS:
                i = self._index[handle] = len(self._fds)
                self._fds.append(handle)
            if i is None:
                handle = _reduction.DupFd(handle)
            else:
                kind, handle = "oob", i
        return (rebuild_tensor, (type(t), kind, handle, nbytes, dtype, sizes, strides, offset, t.requires_grad, t.grad))


def dumps_with_fds(obj):
    """Pickles obj for another process: (bytes, descriptors to send with them). The descriptors belong to the
    tensors' segments: keep the tensors alive until they are sent."""
    buf, fds = io.BytesIO(), []
    _FdCollectingPickler(buf, fds).dump(obj)
    return buf.getbuffer(), fds


def loads_with_fds(data, fds):
    """Unpickles what dumps_with_fds made, given the descriptors received with it (all of which it takes over)."""
    _oob.fds, _oob.taken = fds, set()
    try:
        return pickle.loads(data)
    finally:
        for i, fd in enumerate(fds):
            if i not in _oob.taken:
                os.close(fd)
        _oob.fds, _oob.taken = None, None


def init_reductions():
    """Registers the tensor reducers with multiprocessing's pickler (done when ember.multiprocessing is imported)."""
    from multiprocessing import util

    from ..nn.parameter import Parameter

    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
    util.register_after_fork(_exit_wait, _ExitWait.install)
    from multiprocessing import parent_process, process

    if parent_process() is not None or getattr(process.current_process(), "_inheriting", False):
        _ExitWait.install(None)  # a child that did not fork after ember was imported (spawn)
