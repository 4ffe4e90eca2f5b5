"""The DataLoader worker process: seeds its random generators, then turns index lists into batches until told to
stop (or until the main process is gone)."""

import array
import multiprocessing.connection
import os
import queue
import random
import socket
import struct
import sys

from .... import _C

_worker_info = None


class WorkerInfo:
    """What get_worker_info() returns inside a worker: id, num_workers, seed and dataset (this worker's copy)."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError("Cannot assign attributes to {} objects".format(self.__class__.__name__))
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ["{}={}".format(k, getattr(self, k)) for k in self.__keys]
        return "{}({})".format(self.__class__.__name__, ", ".join(items))


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset). In the main process: None.

    An IterableDataset uses it in __iter__ to give each worker its own share of the data."""
    return _worker_info


class _IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Starts a new epoch in a persistent worker; the worker answers with (this object, None)."""

    def __init__(self, epoch):
        self.epoch = epoch


def _seed_all(seed):
    random.seed(seed)
    _C.manual_seed(seed)
    np = sys.modules.get("numpy")
    if np is None:
        try:
            import numpy as np
        except ImportError:
            return
    # NumPy's legacy seed takes 32-bit words: the 64-bit seed as two of them.
    np.random.seed([seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF])


class _ResultSender:
    """The worker's end of its result socket (Note [DataLoader workers]). Pickles in this thread, so that an
    unpicklable result becomes an error the main process sees instead of a lost batch, and sends the bytes with
    the batch's segment descriptors in one sendmsg: no round trip per tensor, and the descriptors are in the
    kernel's hands once sent, whatever happens to this process afterwards."""

    def __init__(self, sock):
        self.sock = sock

    def _dumps(self, idx, data, worker_id):
        from ....multiprocessing.reductions import dumps_with_fds
        from . import ExceptionWrapper

        try:
            return dumps_with_fds((idx, data))
        except Exception:
            if not isinstance(data, ExceptionWrapper):
                data = ExceptionWrapper(
                    where="in DataLoader worker process {} (sending the batch to the main process)".format(worker_id)
                )
            try:
                return dumps_with_fds((idx, data))
            except Exception:
                data.exc_type = RuntimeError  # the exception's type itself cannot be pickled: keep its text
                return dumps_with_fds((idx, data))

    def send(self, idx, data, worker_id):
        payload, fds = self._dumps(idx, data, worker_id)
        send_message(self.sock, payload, fds)


_HEADER = struct.Struct("<QI")  # payload bytes, descriptors


def send_message(sock, payload, fds):
    header = _HEADER.pack(len(payload), len(fds))
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
    sent = sock.sendmsg([header, payload], anc)
    total = len(header) + len(payload)
    if sent < total:  # a large payload: the rest follows without descriptors
        rest = memoryview(header + bytes(payload))[sent:]
        sock.sendall(rest)


def recv_message(sock):
    """The next message on sock: (payload, descriptors). EOFError when the peer is gone."""
    header, fds = bytearray(), []
    try:
        while len(header) < _HEADER.size:
            data, anc, flags, _ = sock.recvmsg(_HEADER.size - len(header), socket.CMSG_SPACE(253 * 4))
            for level, kind, cdata in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.extend(array.array("i", cdata[: len(cdata) - len(cdata) % 4]))
            if flags & socket.MSG_CTRUNC:
                raise RuntimeError("DataLoader: descriptors of a batch were truncated (too many open files?)")
            if not data:
                raise EOFError
            header += data
        n, nfds = _HEADER.unpack(header)
        if len(fds) != nfds:
            raise RuntimeError("DataLoader: received %d descriptors with a batch, expected %d" % (len(fds), nfds))
        payload = bytearray(n)
        view, got = memoryview(payload), 0
        while got < n:
            r = sock.recv_into(view[got:])
            if r == 0:
                raise EOFError
            got += r
        return payload, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _worker_loop(
    iterable,
    dataset,
    index_queue,
    result_sock,
    done_event,
    auto_collation,
    collate_fn,
    drop_last,
    base_seed,
    init_fn,
    worker_id,
    num_workers,
    persistent_workers,
    sharing_strategy,
    parent_pid,
    inherited_fds=(),
):
    global _worker_info
    from . import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper
    from .fetch import create_fetcher

    if inherited_fds:
        # Replaced by /dev/null rather than closed: the socket objects inherited with the parent's memory still
        # name these numbers, which must not be reused for something else.
        null = os.open(os.devnull, os.O_RDONLY)
        for fd in inherited_fds:
            os.dup2(null, fd)
        os.close(null)
    from ....multiprocessing import reductions

    reductions.wait_at_exit = False  # Note [Descriptors outlive their sender]
    try:
        if _C._get_sharing_strategy() != sharing_strategy:
            from ....multiprocessing import set_sharing_strategy

            set_sharing_strategy(sharing_strategy)
        _C.set_num_threads(1)  # workers run side by side; each one on many threads would oversubscribe the cores
        seed = base_seed + worker_id
        _seed_all(seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        sender = _ResultSender(result_sock)

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))

        iteration_end = False
        # The main process writes a byte to the result socket when it shuts down, and its end closes when it dies:
        # either wakes this loop at once, even when the index queue can no longer deliver the None that asks to
        # stop (a queue collected in a garbage cycle is closed before the iterator's __del__ runs). The parent-pid
        # check is a backstop.
        watch = [index_queue._reader, result_sock]
        while os.getppid() == parent_pid:
            ready = multiprocessing.connection.wait(watch, timeout=MP_STATUS_CHECK_INTERVAL)
            if result_sock in ready:
                break  # the main process writes here only to say stop (or its end closed)
            if not ready:
                continue
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                try:
                    sender.send(r, None, worker_id)
                except (BrokenPipeError, ConnectionResetError):
                    break
                iteration_end = False
                if iterable and init_exception is None:
                    try:
                        fetcher = create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                    except Exception:
                        init_exception = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # shutting down, or this worker's iterable is exhausted: no answer expected
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))
            try:
                sender.send(idx, data, worker_id)
            except (BrokenPipeError, ConnectionResetError):
                break  # the main process closed its end: it is shutting down or gone
            del data, idx, index, r  # release the batch's shared memory before waiting for the next task
    except KeyboardInterrupt:
        pass  # Ctrl-C reaches the whole process group; the main process handles it
    if done_event.is_set():
        index_queue.cancel_join_thread()
        index_queue.close()
