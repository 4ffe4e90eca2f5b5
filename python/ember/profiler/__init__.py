"""ember.profiler, as torch.profiler: profile() with activities, a step schedule and on_trace_ready,
record_function, tensorboard_trace_handler. The recording is ember's C++ recorder (docs/profiler.md); the results
are torch.autograd.profiler_util's EventList and FunctionEvent(Avg)."""

import gzip
import json
import os
import socket
import time
import warnings
from enum import Enum

import ember
from ember.autograd import profiler as _legacy
from ember.autograd.profiler import record_function  # noqa: F401
from ember.autograd.profiler_util import _chrome_trace

__all__ = [
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
    "record_function",
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "itt",
]


class ProfilerActivity(Enum):
    CPU = 0
    CUDA = 1

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {self.value}>"


DeviceType = _legacy.DeviceType


def supported_activities():
    """CPU, and CUDA where a GPU is usable."""
    out = {ProfilerActivity.CPU}
    if ember.cuda.is_available():
        out.add(ProfilerActivity.CUDA)
    return out


_supported_activities = supported_activities


def kineto_available():
    return False


class ProfilerAction(Enum):
    """What the profiler does at a step: NONE, WARMUP, RECORD, RECORD_AND_SAVE (the last recorded step, after
    which on_trace_ready gets the trace)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """The step -> ProfilerAction function: after skip_first steps, cycles of `wait` idle steps, `warmup` steps
    and `active` recorded ones, `repeat` times (0: forever)."""

    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    assert wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0, (
        "Invalid profiler schedule arguments"
    )
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready that writes `dir_name/{worker_name}.{ms since epoch}.pt.trace.json[.gz]` (what
    TensorBoard's profiler plugin reads); worker_name defaults to '{hostname}_{pid}'."""

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{int(time.time() * 1000)}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class _KinetoProfile:
    """The recording session without a schedule: start_trace/stop_trace and the results (PyTorch's base class
    of profile)."""

    def __init__(
        self,
        *,
        activities=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
    ):
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.profiler = None
        self._metadata = {}

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        self.profiler = _legacy.profile(
            use_cuda=ProfilerActivity.CUDA in self.activities,
            use_cpu=ProfilerActivity.CPU in self.activities,
            record_shapes=self.record_shapes,
            with_flops=self.with_flops,
            profile_memory=self.profile_memory,
            with_stack=self.with_stack,
            with_modules=self.with_modules,
        )

    def start_trace(self):
        if self.profiler is None:
            self.prepare_trace()
        self.profiler.__enter__()

    def stop_trace(self):
        if self.profiler is not None and self.profiler.entered and self.profiler.function_events is None:
            self.profiler.__exit__(None, None, None)

    def _results(self):
        if self.profiler is None or self.profiler.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.profiler

    def export_chrome_trace(self, path):
        """Chrome trace JSON (chrome://tracing, ui.perfetto.dev); a path ending in .gz is gzipped."""
        trace = _chrome_trace(self._results().function_events)
        if self._metadata:
            trace.update(self._metadata)
        if path.endswith(".gz"):
            with gzip.open(path, "wt") as f:
                json.dump(trace, f)
        else:
            with open(path, "w") as f:
                json.dump(trace, f)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        return self._results().export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self._results().key_averages(group_by_input_shape, group_by_stack_n)

    def events(self):
        return self._results().function_events

    def add_metadata(self, key, value):
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        self._metadata[key] = json.loads(value)

    def _get_distributed_info(self):
        return None


class profile(_KinetoProfile):
    """torch.profiler.profile: records while the schedule says so (always, without a schedule), numbers steps
    with prof.step() ("ProfilerStep#N" scopes), and calls on_trace_ready after each RECORD_AND_SAVE step."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        use_cuda=None,
    ):
        activities = set(activities) if activities else supported_activities()
        if use_cuda is not None:
            warnings.warn("use_cuda is deprecated, use activities argument instead")
            if use_cuda:
                activities.add(ProfilerActivity.CUDA)
            else:
                activities.discard(ProfilerActivity.CUDA)
        assert len(activities) > 0, "No valid profiler activities found"
        super().__init__(
            activities=activities,
            record_shapes=record_shapes,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_flops=with_flops,
            with_modules=with_modules,
            experimental_config=experimental_config,
        )
        if schedule:
            self.schedule = schedule
            self.record_steps = True  # ProfilerStep#N scopes, as PyTorch records them with a schedule
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn = None
        A = ProfilerAction
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [
                partial_warn("Incorrect schedule: WARMUP followed by NONE"),
                self.start_trace,
                self.stop_trace,
            ],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [partial_warn("Incorrect schedule: RECORD followed by NONE"), self.stop_trace],
            (A.RECORD, A.WARMUP): [partial_warn("Incorrect schedule: RECORD followed by WARMUP"), self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace, self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [
                self.stop_trace,
                self._trace_ready,
                self.prepare_trace,
                self.start_trace,
            ],
            # the profile ends (None)
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
        self._transit_action(self.current_action, None)

    def step(self):
        """Marks the end of one step: closes its ProfilerStep scope and acts on the schedule's next action."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), []):
            action()


def partial_warn(message):
    return lambda: warnings.warn(message)


class _ITT:
    """torch.profiler.itt: Intel ITT annotations; ember has none, so these do nothing."""

    @staticmethod
    def is_available():
        return False

    @staticmethod
    def range_push(msg):
        return 0

    @staticmethod
    def range_pop():
        return 0

    @staticmethod
    def mark(msg):
        return 0


itt = _ITT()
