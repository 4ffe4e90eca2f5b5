"""Internals of the DataLoader: collation, fetching, the worker loop."""

import sys
import traceback

# How often a blocked worker looks whether the main process is still there (seconds).
MP_STATUS_CHECK_INTERVAL = 1.0


class KeyErrorMessage(str):
    """A KeyError's message is repr()'d when printed; this keeps the newlines of the traceback readable."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception raised in a worker, with its traceback as text, re-raised in the main process as the same
    type: "Caught ValueError in DataLoader worker process 1.\\nOriginal Traceback (most recent call last): ..."."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = "Caught {} {}.\nOriginal {}".format(self.exc_type.__name__, self.where, self.exc_msg)
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)  # exceptions whose constructor takes only a keyword `message`
        try:
            exception = self.exc_type(msg)
        except Exception:
            # The type cannot be built from one message string: a RuntimeError carries the text instead.
            raise RuntimeError(msg) from None
        raise exception


from . import collate, fetch, worker  # noqa: E402,F401
