"""Streams and events (PyTorch's torch.cuda.Stream / Event). A Stream is a device index and a cudaStream_t handle
(cuda_stream); the handles of new streams come from a per-device pool and stay valid for the process."""

from .. import _C
from ._utils import _device_index


class Stream:
    """A CUDA stream of `device` (default: the current one). priority < 0 asks for a high-priority stream."""

    def __init__(self, device=None, priority=0, **kwargs):
        self.device_index, self.cuda_stream = _C._cuda_new_stream(_device_index(device), int(priority))

    @classmethod
    def _wrap(cls, device_and_handle):
        s = object.__new__(cls)
        s.device_index, s.cuda_stream = device_and_handle
        return s

    @property
    def device(self):
        return _device_type("cuda", self.device_index)

    @property
    def priority(self):
        return _C._cuda_stream_priority(self.device_index, self.cuda_stream)

    @staticmethod
    def priority_range():
        return _C._cuda_stream_priority_range()

    def query(self):
        """True when all work queued on this stream has completed."""
        return _C._cuda_stream_query(self.device_index, self.cuda_stream)

    def synchronize(self):
        _C._cuda_stream_synchronize(self.device_index, self.cuda_stream)

    def wait_event(self, event):
        """Work queued on this stream from now on waits for `event`."""
        event.wait(self)

    def wait_stream(self, stream):
        """Work queued on this stream from now on waits for the work queued on `stream` so far."""
        _C._cuda_stream_wait_stream(self.device_index, self.cuda_stream, stream.device_index, stream.cuda_stream)

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return (
            isinstance(other, Stream)
            and self.device_index == other.device_index
            and self.cuda_stream == other.cuda_stream
        )

    def __hash__(self):
        return hash((self.device_index, self.cuda_stream))

    def __repr__(self):
        return f"<ember.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"


class ExternalStream(Stream):
    """A Stream around a cudaStream_t made outside ember (stream_ptr, an int), on `device` (default: the current
    device). ember enqueues work on it like on its own streams and never destroys it: keep it alive while in use."""

    def __init__(self, stream_ptr, device=None, **kwargs):
        if not isinstance(stream_ptr, int):
            raise TypeError(
                f"ExternalStream: stream_ptr must be an int (a cudaStream_t), got {type(stream_ptr).__name__}"
            )
        _C._cuda_check("ExternalStream")
        idx = _device_index(device)
        self.device_index = _C._cuda_current_device() if idx < 0 else idx
        self.cuda_stream = stream_ptr


def _device_type(kind, index):
    return _C.device(f"{kind}:{index}")


class Event:
    """A CUDA event: a point in a stream's work. Created on its first record(), on that stream's device."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if interprocess:
            raise RuntimeError("Event: interprocess events are not supported by ember")
        self._event = _C._CudaEvent(bool(enable_timing), bool(blocking))

    @property
    def cuda_event(self):
        return self._event.cuda_event

    @property
    def device(self):
        i = self._event.device_index
        return None if i is None else _device_type("cuda", i)

    def record(self, stream=None):
        """Records the event on `stream` (default: the current stream)."""
        _C._cuda_check("Event.record")
        if stream is None:
            stream = current_stream()
        self._event.record(stream.device_index, stream.cuda_stream)

    def wait(self, stream=None):
        """Makes the work queued on `stream` (default: the current stream) from now on wait for this event."""
        _C._cuda_check("Event.wait")
        if stream is None:
            stream = current_stream()
        self._event.wait(stream.device_index, stream.cuda_stream)

    def query(self):
        """True when the recorded work has completed (or the event was never recorded)."""
        return self._event.query()

    def synchronize(self):
        """Waits on the host until the recorded work has completed."""
        self._event.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds between this event and end_event (both recorded, completed, with enable_timing=True)."""
        return self._event.elapsed_time(end_event._event)

    def __repr__(self):
        return f"<ember.cuda.Event {self.cuda_event:#x}>" if self.cuda_event else "<ember.cuda.Event uninitialized>"


def current_stream(device=None):
    """The calling thread's current stream of `device` (default: the current device)."""
    return Stream._wrap(_C._cuda_current_stream(_device_index(device)))


def default_stream(device=None):
    return Stream._wrap(_C._cuda_default_stream(_device_index(device)))


def set_stream(stream):
    """Makes `stream` current for the calling thread (and its device the current device); None does nothing."""
    if stream is None:
        return
    _C._cuda_check("set_stream")
    if _C._cuda_current_device() != stream.device_index:
        _C._cuda_set_device(stream.device_index)
    _C._cuda_set_stream(stream.device_index, stream.cuda_stream)


class StreamContext:
    """Context manager: `stream` is current (and its device) for the block; both are restored after."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        s = self.stream
        if s is None:
            return
        _C._cuda_check("stream")
        self.prev_device = _C._cuda_current_device()
        self.prev_stream = current_stream(s.device_index)  # the stream of s's device that s replaces
        self.prev_stream_here = current_stream(self.prev_device)
        set_stream(s)

    def __exit__(self, *exc):
        s = self.stream
        if s is None:
            return False
        _C._cuda_set_stream(self.prev_stream.device_index, self.prev_stream.cuda_stream)
        _C._cuda_set_stream(self.prev_stream_here.device_index, self.prev_stream_here.cuda_stream)
        if _C._cuda_current_device() != self.prev_device:
            _C._cuda_set_device(self.prev_device)
        return False


def stream(stream):
    """with ember.cuda.stream(s): ... enqueues the block's work on s (None: no change)."""
    return StreamContext(stream)
