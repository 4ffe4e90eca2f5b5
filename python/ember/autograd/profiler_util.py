"""The profiler's results, as torch.autograd.profiler_util: FunctionEvent (one recorded scope), FunctionEventAvg
(the events of one key summed), EventList (a list of either, with table(), key_averages(), export_chrome_trace()).

The events come from ember's C++ recorder (ember/profiler/profiler.h) as tuples; build_events() makes the tree
(parent/children on one thread) from which self times and memory are computed (docs/profiler.md)."""

import json
import math
import os
from collections import defaultdict
from enum import Enum

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "FormattedTimesMixin",
    "Interval",
    "Kernel",
    "MEMORY_EVENT_NAME",
    "OUT_OF_MEMORY_EVENT_NAME",
    "DeviceType",
]

MEMORY_EVENT_NAME = "[memory]"
OUT_OF_MEMORY_EVENT_NAME = "[OutOfMemory]"


class DeviceType(Enum):
    CPU = 0
    CUDA = 1


def _format_time(time_us):
    """'1.234s', '12.345ms' or '7.000us', as PyTorch's table prints times."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        assert time_us == 0, f"Expected time_us == 0 but got {time_us}"
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    kb, mb, gb = 1024, 1024 * 1024, 1024 * 1024 * 1024
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} Gb"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} Mb"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} Kb"
    return f"{nbytes} b"


def _attr_formatter(name):
    return property(lambda self: _format_time(getattr(self, name)))


class FormattedTimesMixin:
    """The *_str properties of the time fields, and the per-call averages."""

    cpu_time_str = _attr_formatter("cpu_time")
    cuda_time_str = _attr_formatter("cuda_time")
    cpu_time_total_str = _attr_formatter("cpu_time_total")
    cuda_time_total_str = _attr_formatter("cuda_time_total")
    self_cpu_time_total_str = _attr_formatter("self_cpu_time_total")
    self_cuda_time_total_str = _attr_formatter("self_cuda_time_total")

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cuda_time(self):
        return 0.0 if self.count == 0 else self.cuda_time_total / self.count

    # PyTorch 2 calls the CUDA fields device_*; both spellings work.
    device_time = cuda_time
    device_time_total = property(lambda self: self.cuda_time_total)
    self_device_time_total = property(lambda self: self.self_cuda_time_total)
    device_memory_usage = property(lambda self: self.cuda_memory_usage)
    self_device_memory_usage = property(lambda self: self.self_cuda_memory_usage)


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class Kernel:
    """A device kernel's time, as PyTorch's Kernel(name, device, duration)."""

    def __init__(self, name, device, duration):
        self.name, self.device, self.duration = name, device, duration


# FLOPs of the kernels that have a formula (with_flops): from the recorded shapes of (out, a, b, ...).
_numel = math.prod


def _flops(name, shapes):
    if not shapes or not shapes[0]:
        return 0
    out = shapes[0]
    if name in ("ember::matmul", "ember::matmul_bias") and len(shapes) > 1 and shapes[1]:
        return 2 * _numel(out) * shapes[1][-1]
    if name == "ember::conv_forward" and len(shapes) > 2 and shapes[2]:
        return 2 * _numel(out) * _numel(shapes[2][1:])
    if name in ("ember::add", "ember::mul", "ember::sub", "ember::div"):
        return _numel(out)
    return 0


class FunctionEvent(FormattedTimesMixin):
    """One recorded scope: an op (a kernel-slot call), a record_function scope, an autograd node, or a memory
    event. Times are in microseconds."""

    def __init__(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        fwd_thread=None,
        input_shapes=None,
        stack=None,
        scope=0,
        cpu_memory_usage=0,
        cuda_memory_usage=0,
        is_async=False,
        is_remote=False,
        sequence_nr=-1,
        node_id=-1,
        device_type=DeviceType.CPU,
        device_index=0,
        is_legacy=False,
        flops=None,
        trace_name=None,
        kind=None,
    ):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.trace_name = trace_name if trace_name is not None else name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_types = []
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.cpu_memory_usage = cpu_memory_usage
        self.cuda_memory_usage = cuda_memory_usage
        self.self_cpu_memory_usage = cpu_memory_usage
        self.self_cuda_memory_usage = cuda_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.is_legacy = is_legacy
        self.flops = flops
        self.kind = kind
        self.device_range = None  # Interval on the device (ProfilerActivity.CUDA), in host-clock microseconds
        self.cuda_time_total = 0.0
        self.self_cuda_time_total = 0.0

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        if self.is_async:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self):
        return (
            f"<FunctionEvent id={self.id} name={self.name} device_type={self.device_type} "
            f"node_id={self.node_id} cpu_time={self.cpu_time_str} start_us={self.time_range.start:.3f} "
            f"end_us={self.time_range.end:.3f} cpu_children={[c.id for c in self.cpu_children]} "
            f"cuda_time={self.cuda_time_str} name={self.name} thread={self.thread} "
            f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
            f"cuda_memory_usage={self.cuda_memory_usage} is_async={self.is_async} "
            f"is_remote={self.is_remote} seq_nr={self.sequence_nr} is_legacy={self.is_legacy}>"
        )


class FunctionEventAvg(FormattedTimesMixin):
    """The events of one key (name, and with grouping their shapes or stack) summed."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.cpu_time_total = 0
        self.cuda_time_total = 0
        self.self_cpu_time_total = 0
        self.self_cuda_time_total = 0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.cuda_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_cuda_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
        assert isinstance(other, (FunctionEvent, FunctionEventAvg))
        assert other.key == self.key
        self.cpu_time_total += other.cpu_time_total
        self.cuda_time_total += other.cuda_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_cuda_time_total += other.self_cuda_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.cuda_memory_usage += other.cuda_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_cuda_memory_usage += other.self_cuda_memory_usage
        self.count += other.count
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str}  self_cuda_time={self.self_cuda_time_total_str} "
            f"cuda_time={self.cuda_time_str} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage} cuda_memory_usage={self.cuda_memory_usage}>"
        )


class EventList(list):
    """A list of FunctionEvents (or FunctionEventAvgs) with PyTorch's table and trace export."""

    def __init__(self, *args, **kwargs):
        use_cuda = kwargs.pop("use_cuda", False)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_cuda = use_cuda
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = True

    def _build_tree(self):
        pass  # build_events() links the tree as it makes the events

    def __str__(self):
        return self.table()

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

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
        """The events as PyTorch's profiler table: one row each, sorted by the attribute `sort_by` (descending)."""
        return _build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            profile_memory=self._profile_memory,
            with_flops=self._with_flops,
            use_cuda=self._use_cuda,
            top_level_events_only=top_level_events_only,
        )

    def export_chrome_trace(self, path):
        """Writes the events as Chrome trace JSON (chrome://tracing, ui.perfetto.dev)."""
        with open(path, "w") as f:
            json.dump(_chrome_trace(self), f)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """One line per event with a stack: 'frame;frame;... value' (the flame-graph input format)."""
        with open(path, "w") as f:
            for e in self:
                if e.stack:
                    f.write(";".join(reversed(e.stack)) + " " + str(int(getattr(e, metric))) + "\n")

    def supported_export_stacks_metrics(self):
        return ["self_cpu_time_total", "self_cuda_time_total", "self_device_time_total"]

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0):
        """One FunctionEventAvg per name (and, if asked, per input shapes and first n stack frames), in the order
        the keys first appear."""
        stats = defaultdict(FunctionEventAvg)

        def key_of(e):
            key = [str(e.key), str(e.node_id)]
            if group_by_input_shapes:
                key.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                key += list(e.stack[:group_by_stack_n])
            return tuple(key)

        for e in self:
            stats[key_of(e)].add(e)
        out = EventList(
            stats.values(), use_cuda=self._use_cuda, profile_memory=self._profile_memory, with_flops=self._with_flops
        )
        for avg in out:
            avg.stack = avg.stack[:group_by_stack_n] if group_by_stack_n else []
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return out

    def total_average(self):
        """One FunctionEventAvg keyed 'Total' summing every event."""
        total = FunctionEventAvg()
        for e in self:
            for name in (
                "cpu_time_total",
                "cuda_time_total",
                "self_cpu_time_total",
                "self_cuda_time_total",
                "cpu_memory_usage",
                "cuda_memory_usage",
                "self_cpu_memory_usage",
                "self_cuda_memory_usage",
                "count",
            ):
                setattr(total, name, getattr(total, name) + getattr(e, name))
        total.key = "Total"
        return total


def build_events(raw, record_shapes=False, with_flops=False, stacks=None, use_cuda=False):
    """FunctionEvents from the C++ recorder's tuples (python/src/profiler.cpp), linked into per-thread trees,
    with memory attributed to the innermost scope and totals summed up the tree. Memory events outside every
    scope stay as '[memory]' events."""
    stacks = stacks or {}
    events, by_id, memory = [], {}, []
    base = min((r[4] for r in raw), default=0)
    for name, kind, eid, parent, start, end, thread, dev, dev_index, shapes, dtypes, nbytes, addr, dstart, dend in raw:
        if kind == 3:
            memory.append((eid, parent, start, thread, dev, dev_index, nbytes, addr))
            continue
        device_type = DeviceType.CUDA if dev == "cuda" else DeviceType.CPU
        e = FunctionEvent(
            eid,
            name,
            thread,
            (start - base) / 1e3,
            (end - base) / 1e3,
            input_shapes=shapes if record_shapes else [],
            stack=stacks.get(eid, []),
            device_type=DeviceType.CPU,
            device_index=max(dev_index, 0) if dev == "cuda" else 0,
            flops=_flops(name, shapes) if with_flops else None,
            kind=kind,
        )
        e.input_types = dtypes if record_shapes else []
        e.parent_id = parent
        e.op_device = (device_type, dev_index)
        if dstart >= 0 and dend >= dstart:
            e.device_range = Interval((dstart - base) / 1e3, (dend - base) / 1e3)
            e.append_kernel(name, max(dev_index, 0), e.device_range.elapsed_us())
        events.append(e)
        by_id[eid] = e
    for e in events:
        p = by_id.get(e.parent_id)
        if p is not None:
            e.set_cpu_parent(p)
            p.append_cpu_child(e)
    # Memory: self bytes on the innermost scope; totals up the tree (children come after their parents).
    for e in events:
        e.self_cpu_memory_usage = e.self_cuda_memory_usage = 0
    orphans = []
    for eid, parent, start, thread, dev, dev_index, nbytes, addr in memory:
        p = by_id.get(parent)
        if p is None:
            m = FunctionEvent(
                eid,
                MEMORY_EVENT_NAME,
                thread,
                (start - base) / 1e3,
                (start - base) / 1e3,
                cpu_memory_usage=nbytes if dev == "cpu" else 0,
                cuda_memory_usage=nbytes if dev == "cuda" else 0,
                kind=3,
            )
            m.parent_id = -1
            orphans.append(m)
        elif dev == "cuda":
            p.self_cuda_memory_usage += nbytes
        else:
            p.self_cpu_memory_usage += nbytes
    for e in reversed(events):
        e.cpu_memory_usage = e.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in e.cpu_children)
        e.cuda_memory_usage = e.self_cuda_memory_usage + sum(c.cuda_memory_usage for c in e.cpu_children)
        children_cuda = sum(c.cuda_time_total for c in e.cpu_children)
        e.cuda_time_total = e.device_range.elapsed_us() if e.device_range is not None else children_cuda
        e.self_cuda_time_total = max(0.0, e.cuda_time_total - children_cuda)
    out = EventList(sorted(events + orphans, key=lambda e: (e.time_range.start, e.id)), use_cuda=use_cuda)
    out._memory_records = memory
    out._base_ns = base
    return out


def _chrome_trace(events):
    """The Chrome trace-event JSON object: complete ('X') events for scopes, per thread; device intervals on one
    row per device; memory events as instant ('i') events."""
    pid = os.getpid()
    trace = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": "CPU"}}]
    devices = set()
    for e in events:
        if isinstance(e, FunctionEventAvg):
            raise ValueError("export_chrome_trace: the events must be FunctionEvents, not key averages")
        if e.kind == 3:
            continue  # from the memory records below
        cat = {0: "cpu_op", 1: "user_annotation", 2: "cpu_op"}.get(e.kind, "cpu_op")
        args = {}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = e.input_types
        if e.self_cpu_memory_usage or e.self_cuda_memory_usage:
            args["Self CPU Mem"] = e.self_cpu_memory_usage
            args["Self CUDA Mem"] = e.self_cuda_memory_usage
        if e.flops:
            args["flops"] = e.flops
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        trace.append(
            {
                "name": e.trace_name,
                "ph": "X",
                "cat": cat,
                "ts": e.time_range.start,
                "dur": e.time_range.elapsed_us(),
                "pid": pid,
                "tid": e.thread,
                "args": args,
            }
        )
        if e.device_range is not None:
            dev = e.op_device[1] if e.op_device[1] >= 0 else 0
            devices.add(dev)
            trace.append(
                {
                    "name": e.trace_name,
                    "ph": "X",
                    "cat": "kernel",
                    "ts": e.device_range.start,
                    "dur": e.device_range.elapsed_us(),
                    "pid": 1000000 + dev,
                    "tid": 0,
                    "args": {"device": dev, "cpu op id": e.id},
                }
            )
    base = getattr(events, "_base_ns", 0)
    for _, _, start, thread, dev, dev_index, nbytes, addr in getattr(events, "_memory_records", []):
        trace.append(
            {
                "name": MEMORY_EVENT_NAME,
                "ph": "i",
                "s": "t",
                "cat": "cpu_instant_event",
                "ts": (start - base) / 1e3,
                "pid": pid,
                "tid": thread,
                "args": {
                    "Addr": addr,
                    "Bytes": nbytes,
                    "Device Type": 1 if dev == "cuda" else 0,
                    "Device Id": max(dev_index, 0) if dev == "cuda" else -1,
                },
            }
        )
    for dev in sorted(devices):
        trace.append(
            {"name": "process_name", "ph": "M", "pid": 1000000 + dev, "tid": 0, "args": {"name": f"GPU {dev}"}}
        )
    return {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace}


def _auto_scale_flops(flops):
    headers = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
    log = max(0.0, min(math.log10(flops) / 3, float(len(headers) - 1)))
    return 10 ** (math.floor(log) * -3.0), headers[int(log)]


def _build_table(
    events,
    sort_by=None,
    header=None,
    row_limit=100,
    max_src_column_width=75,
    max_name_column_width=55,
    max_shapes_column_width=80,
    with_flops=False,
    profile_memory=False,
    use_cuda=False,
    top_level_events_only=False,
):
    """PyTorch's profiler table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, [CUDA columns],
    [memory columns], # of Calls, [Input Shapes], [Source Location], [FLOPs]."""
    if len(events) == 0:
        return ""
    has_cuda_time = use_cuda or any(e.self_cuda_time_total > 0 for e in events)
    has_cuda_mem = any(e.self_cuda_memory_usage > 0 for e in events)
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        events = EventList(
            sorted(events, key=lambda e: getattr(e, sort_by.replace("device_", "cuda_")), reverse=True),
            use_cuda=use_cuda,
            profile_memory=profile_memory,
            with_flops=with_flops,
        )
    name_width = min(max(len(e.key) for e in events) + 4, max_name_column_width or 10**9)
    shapes_width = min(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes_column_width or 10**9)
    width = 12
    flops_width = width
    stacks = [e.stack for e in events if e.stack]
    has_stack = len(stacks) > 0
    src_width = min(max(len(f) for s in stacks for f in s) + 4, max_src_column_width) if has_stack else 0

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if has_cuda_time:
        headers += ["Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if has_cuda_mem:
            headers += ["CUDA Mem", "Self CUDA Mem"]
    headers.append("# of Calls")
    append_node_id = any(getattr(e, "node_id", -1) not in (-1, 0) for e in events)
    if append_node_id:
        headers.append("Node ID")

    widths = [name_width] + [width] * (len(headers) - 1)
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    if has_stack:
        headers.append("Source Location")
        widths.append(src_width)
    flops_scale, flops_header = 1.0, ""
    if with_flops:
        raw = [e.flops for e in events if e.flops and e.flops > 0]
        if raw:
            flops_scale, flops_header = _auto_scale_flops(min(raw))
            headers.append(f"Total {flops_header}")
            widths.append(flops_width)
        else:
            with_flops = False

    spacing = 2
    row_format = "".join("{: >" + str(w) + "}" + " " * spacing for w in widths)
    line = "".join("-" * w + " " * spacing for w in widths)
    total_width = sum(widths) + spacing * len(widths)

    sum_self_cpu = sum(e.self_cpu_time_total for e in events)
    sum_self_cuda = sum(e.self_cuda_time_total for e in events if e.device_type == DeviceType.CPU)

    def trim(s, n):
        return s[: n - 3] + "..." if len(s) > n else s

    result = []
    if header is not None:
        result += ["=" * total_width, header]
    result += [line, row_format.format(*headers), line]

    count = 0
    for e in events:
        if count == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        count += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        row = [
            name,
            _format_time_share(e.self_cpu_time_total, sum_self_cpu),
            _format_time(e.self_cpu_time_total),
            _format_time_share(e.cpu_time_total, sum_self_cpu) if not e.is_async else 0,
            _format_time(e.cpu_time_total),
            _format_time(e.cpu_time),
        ]
        if has_cuda_time:
            row += [
                _format_time(e.self_cuda_time_total),
                _format_time_share(e.self_cuda_time_total, sum_self_cuda),
                _format_time(e.cuda_time_total),
                _format_time(e.cuda_time),
            ]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            if has_cuda_mem:
                row += [_format_memory(e.cuda_memory_usage), _format_memory(e.self_cuda_memory_usage)]
        row.append(e.count)
        if append_node_id:
            row.append(e.node_id)
        if has_input_shapes:
            row.append(trim(str(e.input_shapes), shapes_width - 4))
        if has_stack:
            row.append(trim(e.stack[0], src_width - 4) if e.stack else "")
        if with_flops:
            row.append("--" if not e.flops or e.flops <= 0 else f"{e.flops * flops_scale:8.3f}")
        result.append(row_format.format(*row))
        if has_stack:
            for frame in (e.stack or [])[1:]:
                empty = [""] * (len(headers))
                empty[headers.index("Source Location")] = trim(frame, src_width - 4)
                result.append(row_format.format(*empty))
    result.append(line)
    result.append(f"Self CPU time total: {_format_time(sum_self_cpu)}")
    if has_cuda_time:
        result.append(f"Self CUDA time total: {_format_time(sum_self_cuda)}")
    return "\n".join(r for r in result if r != "") + "\n"
