"""DataLoader: batches from a dataset, in the main process (num_workers=0) or in worker processes.

Note [DataLoader workers]
Each worker has its own index queue (a multiprocessing.Queue: the main process never blocks on a put) and its own
result socket (a Unix socketpair; only that worker holds the other end, so the main process reads EOF when it
dies). Batches are tensors in shared memory (default_collate stacks them straight into a segment in a worker);
the worker pickles a batch itself (an unpicklable batch becomes an error the main process sees) into handles and
geometry, and sends the bytes together with the segments' descriptors in one sendmsg (SCM_RIGHTS): no resource
sharer round trip per tensor, and a batch sent is safe even if the worker dies right after. The main process
keeps at most prefetch_factor tasks per worker in flight, counting batches that arrived early and wait for their
turn, and waits on the sockets together with the workers' sentinels: a worker that dies is noticed at once and
named with its signal, and `timeout` bounds each wait. Shutting down (end of epoch, error, deletion, interpreter exit)
asks the workers to exit, drains the results still in flight (releasing their segments), and terminates what
is still running after a grace period. docs/data.md has the guarantees.
"""

import atexit
import math
import multiprocessing as _python_mp
import multiprocessing.connection
import os
import signal
import socket
import sys
import time
import warnings
import weakref

from ... import _C
from ._utils import ExceptionWrapper
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import create_fetcher
from ._utils.worker import _IterableDatasetStopIteration, _ResumeIteration, _worker_loop, get_worker_info, recv_message
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

# Seconds shutting-down workers get to exit before they are terminated (a worker inside a slow __getitem__
# cannot see the request to stop until it returns).
_SHUTDOWN_GRACE = 1.0


class _InfiniteConstantSampler(Sampler):
    """The index sampler of an IterableDataset: the dataset decides what comes next."""

    def __iter__(self):
        while True:
            yield None


def _worker_number_warning(num_workers):
    try:
        suggest = len(os.sched_getaffinity(0))
        cpuset = True
    except (AttributeError, OSError):
        suggest = os.cpu_count()
        cpuset = False
    if suggest is not None and num_workers <= suggest:
        return
    if suggest is not None:
        suggested = (
            "Our suggested max number of worker in current system is {}{}, which is smaller than what this "
            "DataLoader is going to create."
        ).format(suggest, "" if cpuset else " (`cpuset` is not taken into account)")
    else:
        suggested = "DataLoader is not able to compute a suggested max number of worker in current system."
    warnings.warn(
        "This DataLoader will create {} worker processes in total. {} Please be aware that excessive worker "
        "creation might get DataLoader running slow or even freeze, lower the worker number to avoid "
        "potential slowness/freeze if necessary.".format(num_workers, suggested)
    )


class DataLoader:
    """Combines a dataset and a sampler and iterates over batches, in the main process or in `num_workers` worker
    processes, with PyTorch's arguments and semantics (docs/data.md)."""

    __initialized = False

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                "to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor <= 0:
            raise ValueError(
                "prefetch_factor option should be positive, but got prefetch_factor={}".format(prefetch_factor)
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={}".format(
                        shuffle
                    )
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={}".format(
                        sampler
                    )
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                    "got batch_sampler={}".format(batch_sampler)
                )
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError(
                    "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
                )

        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        if num_workers > 0:
            _worker_number_warning(num_workers)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx):
        if ctx is not None:
            if self.num_workers > 0:
                if isinstance(ctx, str):
                    valid = _python_mp.get_all_start_methods()
                    if ctx not in valid:
                        raise ValueError(
                            "multiprocessing_context option should specify a valid start method in {!r}, "
                            "but got multiprocessing_context={!r}".format(valid, ctx)
                        )
                    ctx = _python_mp.get_context(ctx)
                if not isinstance(ctx, _python_mp.context.BaseContext):
                    raise TypeError(
                        "multiprocessing_context option should be a valid context object or a string "
                        "specifying the start method, but got multiprocessing_context={}".format(ctx)
                    )
            else:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    "(num_workers > 0), but got num_workers={}".format(self.num_workers)
                )
        self.__multiprocessing_context = ctx

    def __setattr__(self, attr, val):
        if self.__initialized and attr in (
            "batch_size",
            "batch_sampler",
            "sampler",
            "drop_last",
            "dataset",
            "persistent_workers",
        ):
            raise ValueError(
                "{} attribute should not be set after {} is initialized".format(attr, self.__class__.__name__)
            )
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None or self._iterator._shutdown:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if self._dataset_kind == "iterable":
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._pin_memory = False
        if loader.pin_memory:
            from ... import cuda

            if cuda.is_available():
                self._pin_memory = True
            else:
                warnings.warn(
                    "'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                    "memory won't be used."
                )
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # Drawn for every iterator (as PyTorch), so that the default generator advances the same with or without
        # workers and shuffled orders agree between the two.
        self._base_seed = int(_C.empty((), dtype=_C.int64).random_(generator=loader.generator).item())
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def _pin(self, data):
        if not self._pin_memory:
            return data
        return _pin_memory(data)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (
            self._dataset_kind == "iterable"
            and self._IterableDataset_len_called is not None
            and self._num_yielded > self._IterableDataset_len_called
        ):
            msg = (
                "Length of IterableDataset {} was reported to be {} (when accessing len(dataloader)), but {} "
                "samples have been fetched. "
            ).format(self._dataset, self._IterableDataset_len_called, self._num_yielded)
            if self._num_workers > 0:
                msg += (
                    "For multiprocessing data-loading, this could be caused by not properly configuring the "
                    "IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples."
                )
            warnings.warn(msg)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled".format(self.__class__.__name__))


def _pin_memory(data):
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    if isinstance(data, dict):
        pinned = {k: _pin_memory(v) for k, v in data.items()}
        try:
            return type(data)(pinned)
        except TypeError:
            return pinned
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin_memory(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin_memory(d) for d in data)
    return data


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = create_fetcher(
            self._dataset_kind == "iterable", self._dataset, self._auto_collation, self._collate_fn, self._drop_last
        )

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        data = self._fetcher.fetch(index)  # may raise StopIteration
        return self._pin(data)


# Iterators with live workers, shut down at interpreter exit (before multiprocessing's own exit handler).
_live_iterators = weakref.WeakSet()


@atexit.register
def _shutdown_live_iterators():
    for it in list(_live_iterators):
        it._shutdown_workers()


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Note [DataLoader workers]."""

    def __init__(self, loader):
        super().__init__(loader)
        from ... import multiprocessing as _emp  # noqa: F401  (the tensor reducers)

        self._shutdown = True  # until the workers are up: a failed start must not run the shutdown
        ctx = loader.multiprocessing_context or _python_mp
        self._in_order = loader.in_order
        self._worker_init_fn = loader.worker_init_fn
        self._epoch = 0
        self._done_event = ctx.Event()
        self._index_queues, self._workers, self._socks = [], [], []
        strategy = _C._get_sharing_strategy()
        if "numpy" in sys.modules:
            import numpy.random  # noqa: F401  (loaded lazily by NumPy 2: once here, not in every forked worker)
        self._reset(loader, first_iter=True, dispatch=False)
        try:
            for i in range(self._num_workers):
                q = ctx.Queue()
                q.cancel_join_thread()  # never block the interpreter's exit on a put to a worker that is gone
                # Made just before its worker starts and closed here right after: no other process holds the
                # worker's end, so its death reads as EOF.
                mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
                self._socks.append(mine)
                self._index_queues.append(q)
                # A forked worker inherits the main process's ends of the sockets so far: it closes them, so
                # that the main process's death reads as EOF in every worker.
                inherited = [m.fileno() for m in self._socks] if ctx.get_start_method() == "fork" else []
                w = ctx.Process(
                    target=_worker_loop,
                    args=(
                        self._dataset_kind == "iterable",
                        self._dataset,
                        q,
                        theirs,
                        self._done_event,
                        self._auto_collation,
                        self._collate_fn,
                        self._drop_last,
                        self._base_seed,
                        self._worker_init_fn,
                        i,
                        self._num_workers,
                        self._persistent_workers,
                        strategy,
                        os.getpid(),
                        inherited,
                    ),
                )
                w.daemon = True
                try:
                    w.start()
                finally:
                    theirs.close()
                self._workers.append(w)
                self._send_task(i)  # worker i starts on its first batch while the next one forks
            self._dispatch()
        except BaseException:
            self._shutdown = False
            self._shutdown_workers()
            raise
        self._worker_pids = [w.pid for w in self._workers]
        self._shutdown = False
        _live_iterators.add(self)

    # ---- epochs

    def _reset(self, loader, first_iter=False, dispatch=True):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task's index
        self._rcvd_idx = 0  # the next batch to return (in order)
        self._task_worker = {}  # task index -> worker, for tasks whose result has not arrived
        self._early = {}  # task index -> (worker, data): arrived before its turn
        self._outstanding = [0] * self._num_workers  # per worker: tasks sent and not yet returned to the user
        self._active = [True] * self._num_workers  # False once a worker's iterable dataset is exhausted
        self._stopped = [False] * self._num_workers  # workers asked to exit early (their exit is expected)
        self._next_worker = 0
        self._sampler_done = False
        if not first_iter:
            # A persistent worker starts a new epoch; results of the old one still in flight are dropped.
            self._epoch += 1
            for q in self._index_queues:
                q.put(_ResumeIteration(self._epoch))
            acks = 0  # each worker acknowledges once; its later results belong to the new epoch
            while acks < self._num_workers:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration) and idx.epoch == self._epoch:
                    acks += 1
        if dispatch:
            self._dispatch()

    def _dispatch(self):
        """Sends tasks until every active worker has prefetch_factor of them outstanding."""
        n = self._num_workers
        while not self._sampler_done:
            for k in range(n):
                w = (self._next_worker + k) % n
                if self._active[w] and self._outstanding[w] < self._prefetch_factor:
                    break
            else:
                return
            self._send_task(w)

    def _send_task(self, w):
        """Sends the sampler's next item to worker w (round robin continues after w)."""
        if self._sampler_done:
            return
        try:
            index = self._next_index()
        except StopIteration:
            self._sampler_done = True
            return
        self._index_queues[w].put((self._send_idx, index))
        self._task_worker[self._send_idx] = w
        self._outstanding[w] += 1
        self._send_idx += 1
        self._next_worker = (w + 1) % self._num_workers

    # ---- receiving

    def _check_workers(self):
        for i, w in enumerate(self._workers):
            if self._stopped[i] or w.is_alive():
                continue
            code = w.exitcode
            self._shutdown_workers()
            if code is not None and code < 0:
                try:
                    name = signal.strsignal(-code) or "signal %d" % -code
                except ValueError:
                    name = "signal %d" % -code
                msg = "DataLoader worker (pid {}) is killed by signal: {}.".format(w.pid, name)
                if -code == signal.SIGBUS:
                    msg += (
                        " It is possible that dataloader's workers are out of shared memory. Please try to raise "
                        "your shared memory limit."
                    )
                raise RuntimeError(msg)
            if code:
                raise RuntimeError(
                    "DataLoader worker (pid {}) exited unexpectedly with exit code {}. Details are lost "
                    "due to multiprocessing. Rerunning with num_workers=0 may give better error "
                    "trace.".format(w.pid, code)
                )
            raise RuntimeError("DataLoader worker (pid(s) {}) exited unexpectedly".format(w.pid))

    def _recv(self, i):
        from ...multiprocessing.reductions import loads_with_fds

        try:
            payload, fds = recv_message(self._socks[i])
        except (EOFError, ConnectionResetError):
            # Worker i is gone (its end of the socket closed): a stopped worker's normal exit, or a death.
            self._workers[i].join(1.0)
            if not self._stopped[i]:
                self._check_workers()
            self._socks[i].close()
            return None
        return loads_with_fds(payload, fds)

    def _get_data(self):
        """The next (task index, data) from any worker. Raises when a worker died or `timeout` passed."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            socks = [s for s in self._socks if s.fileno() >= 0]
            sentinels = [w.sentinel for i, w in enumerate(self._workers) if not self._stopped[i]]
            # Short slices: a signal delivered to another thread (Ctrl-C can land on any thread) is acted upon only
            # when the main thread runs Python code again.
            wait = 0.2
            if deadline is not None:
                wait = min(wait, max(0.0, deadline - time.monotonic()))
            ready = multiprocessing.connection.wait(socks + sentinels, timeout=wait)
            for s in ready:
                if isinstance(s, socket.socket):
                    msg = self._recv(self._socks.index(s))
                    if msg is not None:
                        return msg
            if any(not isinstance(s, socket.socket) for s in ready):  # a worker's sentinel: it exited
                self._check_workers()
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError("DataLoader timed out after {} seconds".format(self._timeout))

    def _next_data(self):
        while True:
            if self._shutdown:
                raise StopIteration
            # Skip task indices that will never be returned (dropped by an exhausted worker, or returned early).
            while (
                self._rcvd_idx < self._send_idx
                and self._rcvd_idx not in self._task_worker
                and self._rcvd_idx not in self._early
            ):
                self._rcvd_idx += 1
            if self._rcvd_idx in self._early:
                w, data = self._early.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._deliver(w, data)
            if not self._task_worker:
                # Nothing in flight: the sampler is exhausted, or every worker's iterable is.
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            idx, data = self._get_data()
            if isinstance(idx, _ResumeIteration):
                continue  # a late acknowledgement of an epoch start
            w = self._task_worker.pop(idx, None)
            if w is None:
                continue  # a result of an abandoned epoch
            if isinstance(data, _IterableDatasetStopIteration):
                self._worker_exhausted(w)
                continue
            if not self._in_order or idx == self._rcvd_idx:
                if idx == self._rcvd_idx:
                    self._rcvd_idx += 1
                return self._deliver(w, data)
            self._early[idx] = (w, data)

    def _worker_exhausted(self, w):
        self._active[w] = False
        for idx in [i for i, ww in self._task_worker.items() if ww == w]:
            del self._task_worker[idx]  # tasks queued behind the exhaustion: the worker drops them
        self._outstanding[w] = 0
        if not self._persistent_workers:
            self._stopped[w] = True
            self._index_queues[w].put(None)  # this worker has nothing more to give: let it exit

    def _deliver(self, w, data):
        self._outstanding[w] -= 1
        self._dispatch()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return self._pin(data)

    # ---- shutting down

    def _shutdown_workers(self):
        if getattr(self, "_shutdown", True):  # done already, or __init__ failed before starting workers
            return
        self._shutdown = True
        _live_iterators.discard(self)
        try:
            self._done_event.set()
            for i, w in enumerate(self._workers):
                if w.is_alive():
                    # A byte on its socket wakes the worker at once, even when the index queue can no longer
                    # deliver the None (a queue collected in a garbage cycle is closed before this __del__ runs).
                    for stop in (
                        lambda: self._index_queues[i].put(None),
                        lambda: self._socks[i].send(b"\0", socket.MSG_DONTWAIT),
                    ):
                        try:
                            stop()
                        except (OSError, ValueError):
                            pass
            # Batches in flight are mapped and dropped as they come (a file_system segment is then unlinked at
            # once, not when the tracker notices its worker's exit; a worker blocked on a full socket goes on).
            deadline = time.monotonic() + _SHUTDOWN_GRACE
            while any(w.is_alive() for w in self._workers) and time.monotonic() < deadline:
                socks = [s for s in self._socks if s.fileno() >= 0]
                ready = multiprocessing.connection.wait(
                    socks + [w.sentinel for w in self._workers if w.is_alive()], timeout=0.05
                )
                for s in ready:
                    if isinstance(s, socket.socket):
                        self._drain_one(s)
            for s in self._socks:
                while s.fileno() >= 0 and multiprocessing.connection.wait([s], timeout=0):
                    self._drain_one(s)
        except (OSError, EOFError):
            pass
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()  # still inside a slow __getitem__
            for w in self._workers:
                w.join(1.0)
                if w.is_alive():
                    w.kill()
                    w.join()
            for q in self._index_queues:
                q.close()
            for s in self._socks:
                s.close()

    def _drain_one(self, s):
        from ...multiprocessing.reductions import loads_with_fds

        try:
            payload, fds = recv_message(s)
        except (EOFError, OSError):
            s.close()
            return
        try:
            loads_with_fds(payload, fds)  # mapped and dropped at once: its segments are released
        except Exception:
            pass

    def __del__(self):
        self._shutdown_workers()
