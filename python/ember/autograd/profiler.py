"""torch.autograd.profiler: the legacy profile() context manager, record_function, emit_nvtx.

The recording is done in C++ (ember/profiler/profiler.h): every kernel-slot call, autograd node, optimizer step
and record_function scope; this module starts and stops it and turns the events into an EventList."""

import sys
import traceback
from contextlib import ContextDecorator

import ember
from ember import _C
from ember.autograd.profiler_util import (  # noqa: F401
    MEMORY_EVENT_NAME,
    OUT_OF_MEMORY_EVENT_NAME,
    DeviceType,
    EventList,
    FunctionEvent,
    FunctionEventAvg,
    _format_memory,
    _format_time,
    build_events,
)

__all__ = [
    "profile",
    "record_function",
    "emit_nvtx",
    "emit_itt",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "kineto_available",
]


def kineto_available():
    return False


# The session that is recording now (one at a time), for record_function's stacks and module scopes.
_current = None


def _python_stack():
    """'file.py(12): func' frames of the caller, innermost first, without the profiler's own frames."""
    frames = traceback.extract_stack(sys._getframe(2))
    out = []
    for f in reversed(frames):
        if "ember/autograd/profiler" in f.filename or "ember/profiler" in f.filename or "contextlib" in f.filename:
            continue
        out.append(f"{f.filename}({f.lineno}): {f.name}")
    return out


class record_function(ContextDecorator):
    """A named scope in the profile (context manager or decorator); free when the profiler is off."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._handle = 0

    def _recreate_cm(self):  # a fresh scope per decorated call, so that recursion and threads nest properly
        return record_function(self.name, self.args)

    def __enter__(self):
        self._handle = _C._record_function_enter(self.name)  # args is metadata PyTorch does not show either
        session = _current
        if self._handle and session is not None and session.with_stack:
            session._stacks[_C._record_function_event_id(self._handle)] = _python_stack()
        return self

    def __exit__(self, *exc):
        if self._handle:
            handle, self._handle = self._handle, 0
            _C._record_function_exit(handle)
        return False

    def _call_end_callbacks_on_future(self, fut):
        return fut


def _module_call(orig):
    def __call__(self, *args, **kwargs):
        handle = _C._record_function_enter(f"nn.Module: {type(self).__name__}")
        session = _current
        if handle and session is not None and session.with_stack:
            session._stacks[_C._record_function_event_id(handle)] = _python_stack()
        try:
            return orig(self, *args, **kwargs)
        finally:
            _C._record_function_exit(handle)

    __call__._ember_profiled = True
    return __call__


class profile:
    """Records what runs inside it: `with profile(record_shapes=True) as prof: ...`, then prof.key_averages(),
    prof.table(), prof.export_chrome_trace(path). use_cuda adds each kernel's time on the GPU."""

    def __init__(
        self,
        enabled=True,
        *,
        use_cuda=False,
        use_device=None,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
    ):
        self.enabled = enabled
        self.use_cuda = bool(use_cuda or use_device == "cuda")
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.function_events = None
        self.entered = False
        self._stacks = {}
        self._module_call = None
        if not use_cpu and not self.use_cuda:
            raise AssertionError("profile: use_cpu=False needs use_cuda=True (nothing else to profile)")

    # -- recording -----------------------------------------------------------------------------------------
    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        self.entered = True
        return self

    def _start(self):
        global _current
        device_timing = self.use_cuda and ember.cuda.is_available()
        if device_timing:
            ember.cuda.synchronize()
        self._stacks = {}
        _C._profiler_start(self.record_shapes or self.with_flops, self.profile_memory, device_timing)
        _current = self
        if self.with_modules:
            from ember.nn.modules.module import Module

            self._module_call = Module.__call__
            Module.__call__ = _module_call(self._module_call)

    def _stop(self):
        global _current
        if self._module_call is not None:
            from ember.nn.modules.module import Module

            Module.__call__ = self._module_call
            self._module_call = None
        if self.use_cuda and ember.cuda.is_available():
            ember.cuda.synchronize()
        raw = _C._profiler_stop()
        if _current is self:
            _current = None
        self.function_events = build_events(
            raw,
            record_shapes=self.record_shapes,
            with_flops=self.with_flops,
            stacks=self._stacks,
            use_cuda=self.use_cuda,
        )
        if self.with_stack:
            _inherit_stacks(self.function_events)
        self.function_events._profile_memory = self.profile_memory
        self.function_events._with_flops = self.with_flops

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        self._stop()
        return False

    # -- results -------------------------------------------------------------------------------------------
    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
    ):
        self._check_finish()
        return self.function_events.table(
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
        )

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._check_finish()
        if not self.with_stack:
            raise AssertionError("stacks were not recorded: use profile(with_stack=True)")
        return self.function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total


def _inherit_stacks(events):
    """Ops have no Python stack of their own: they take their innermost enclosing scope's."""
    for e in events:  # parents come before their children
        if not e.stack and e.cpu_parent is not None and e.cpu_parent.stack:
            e.stack = e.cpu_parent.stack


class emit_nvtx:
    """Every op and record_function scope inside it becomes an NVTX range (seen by Nsight Systems / nvprof);
    where ember has no NVTX (no CUDA), it does nothing."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        if ember.cuda.is_available():
            ember.cuda.synchronize()
        _C._set_nvtx(True)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        if ember.cuda.is_available():
            ember.cuda.synchronize()
        _C._set_nvtx(False)
        self.entered = False
        return False


class emit_itt:
    """Intel ITT annotations: ember has none; a context manager that does nothing."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def load_nvprof(path):
    raise NotImplementedError("load_nvprof: ember does not read nvprof traces")
