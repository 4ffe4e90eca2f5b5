"""ember.futures (torch.futures): Future, collect_all, wait_all.

A Future holds a value or an exception once completed (set_result / set_exception, exactly once). Callbacks added by
then() and add_done_callback() run when it completes: synchronously, in the thread that completes it, or at once if
it is already done. A subclass may complete itself lazily (Note [Lazy futures]): ember.distributed's Work futures
complete when asked whether they are done or for their value."""

import threading
import warnings

__all__ = ["Future", "collect_all", "wait_all"]

# Note [Lazy futures]
# A Future made by Work.get_future() has no thread that completes it when the collective finishes; instead, done()
# and wait() poll or wait the Work and complete the Future there (running its callbacks). A Future returned by then()
# remembers its parent and asks it the same questions first, so fut.then(f).wait() waits the Work, runs f, and
# returns f's value, and done() is True as soon as the Work has finished.


class Future:
    """The result of an asynchronous computation (torch.futures.Future)."""

    def __init__(self, *, devices=None):
        self._devices = list(devices) if devices is not None else []
        self._cond = threading.Condition()
        self._completed = False
        self._value = None
        self._exception = None
        self._callbacks = []
        self._parent = None  # the Future whose completion completes this one (then())

    # Subclasses that complete lazily override _poll (complete if finished, without blocking) and _drive (block
    # until completed). A then()-child forwards both to its parent.
    def _poll(self):
        if self._parent is not None:
            self._parent._poll()

    def _drive(self):
        if self._parent is not None:
            self._parent._drive()

    def done(self):
        """True once the Future has a result or an exception."""
        if not self._completed:
            self._poll()
        return self._completed

    def wait(self):
        """Blocks until completed; returns the value or raises the exception it was completed with."""
        if not self._completed:
            self._drive()
            with self._cond:
                self._cond.wait_for(lambda: self._completed)
        return self.value()

    def value(self):
        """The value of a completed Future (raising its exception); RuntimeError if it is not completed yet."""
        if not self._completed and not self.done():
            raise RuntimeError("Future.value(): the Future is not completed yet (call wait() first)")
        if self._exception is not None:
            raise self._exception
        return self._value

    def _complete(self, value, exception):
        with self._cond:
            if self._completed:
                raise RuntimeError(
                    "Attempting to mark a completed Future as complete again. Note that a Future "
                    "can only be marked completed once."
                )
            self._value, self._exception, self._completed = value, exception, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for callback in callbacks:
            callback(self)

    def set_result(self, result):
        """Completes the Future with `result` and runs its callbacks."""
        self._complete(result, None)

    def set_exception(self, result):
        """Completes the Future with the exception `result`: wait() and value() raise it."""
        assert isinstance(result, Exception), f"{result} is of type {type(result)}, not an Exception."
        self._complete(None, result)

    def _add_callback(self, callback):
        with self._cond:
            if not self._completed:
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new Future of callback(self), run when this one completes (at once if it is done). If the callback
        raises, the new Future holds a RuntimeError naming that error."""
        child = type(self)._child(self)

        def run(fut):
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001  (stored, raised by the child's wait())
                err = RuntimeError(
                    "Got the following error when running the callback: {}: {}".format(type(e).__name__, e)
                )
                err.__cause__ = e
                child.set_exception(err)
            else:
                child.set_result(result)

        self._add_callback(run)
        return child

    @staticmethod
    def _child(parent):
        child = Future(devices=parent._devices)
        child._parent = parent
        return child

    def add_done_callback(self, callback):
        """Runs callback(self) when this Future completes (at once if it is done). An exception it raises is
        reported as a warning and otherwise ignored, as PyTorch logs it."""

        def run(fut):
            try:
                callback(fut)
            except Exception as e:  # noqa: BLE001
                warnings.warn(
                    "Got the following error when running the callback: {}: {}".format(type(e).__name__, e),
                    RuntimeWarning,
                    stacklevel=2,
                )

        self._add_callback(run)

    def __repr__(self):
        return "<ember.futures.Future completed={}>".format(self._completed)


def collect_all(futures):
    """A Future that completes when all of `futures` have, with the list of them as its value (or the first
    exception among them, in list order)."""
    futures = list(futures)
    result = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def on_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            for f in futures:
                if f._exception is not None:
                    result.set_exception(f._exception)
                    return
            result.set_result(futures)

    if not futures:
        result.set_result([])
        return result
    result._poll = lambda: [f.done() for f in futures]
    result._drive = lambda: [f._drive() for f in futures]
    for f in futures:
        f._add_callback(on_done)
    return result


def wait_all(futures):
    """Waits for all of `futures` and returns their values, raising the first exception among them."""
    return [fut.wait() for fut in collect_all(futures).wait()]
