"""The shared parts of ember.utils.benchmark (torch.utils.benchmark.utils.common): TaskSpec, Measurement and
the unit and significant-figure helpers. Statistics of a few hundred timings are plain Python (no tensor math)."""

import contextlib
import dataclasses
import math
import textwrap

import ember

__all__ = [
    "TaskSpec",
    "Measurement",
    "select_unit",
    "unit_to_english",
    "trim_sigfig",
    "ordered_unique",
    "set_torch_threads",
]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns: below that, timer resolution dominates
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def _percentile(sorted_values, q):
    """Linear interpolation between the closest ranks (NumPy's default)."""
    if not sorted_values:
        return math.nan
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What was timed: the statement, its setup, and the labels Compare groups by."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self):
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self):
        if not self.setup or self.setup == "pass":
            return ""
        return "setup:" + (f"\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup else f" {self.setup}")

    def summarize(self):
        sections = [self.title, self.description or ""]
        if self.env:
            sections.append(f"env: {self.env}")
        sections.append(self.setup_str())
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


class Measurement:
    """The times of one task: `raw_times` are seconds per block of `number_per_run` runs; `times` per run.
    median, mean, iqr, significant_figures and has_warnings summarize them."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata
        self._sorted_times = sorted(t / number_per_run for t in self.raw_times)
        self._times = [t / number_per_run for t in self.raw_times]

    def __getattr__(self, name):  # stmt, label, description, num_threads, ... come from the task spec
        if name in _TASKSPEC_FIELDS:
            return getattr(self.__dict__["task_spec"], name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)

    @property
    def times(self):
        return list(self._times)

    @property
    def median(self):
        return _percentile(self._sorted_times, 50)

    @property
    def mean(self):
        return sum(self._sorted_times) / len(self._sorted_times) if self._sorted_times else math.nan

    @property
    def iqr(self):
        return _percentile(self._sorted_times, 75) - _percentile(self._sorted_times, 25)

    @property
    def significant_figures(self):
        """How many figures of the median the spread of the middle half of the times supports (1 to 4)."""
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4 : math.ceil(3 * n / 4)] or self._sorted_times
        mean = sum(middle) / len(middle)
        std = math.sqrt(sum((t - mean) ** 2 for t in middle) / len(middle))
        ci = max(1.645 * std / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        figures = int(math.floor(math.log10(self.median / ci))) if self.median > 0 else 1
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        return bool(self._warnings())

    def _warnings(self):
        if not self._sorted_times or self.median <= 0:
            return []
        rel = self.iqr / self.median
        if rel < _IQR_WARN_THRESHOLD:
            return []
        why = (
            "This suggests significant environmental influence."
            if rel >= _IQR_GROSS_WARN_THRESHOLD
            else "This could indicate system fluctuation."
        )
        return [f"  WARNING: Interquartile range is {rel * 100:.1f}% of the median measurement.\n           {why}"]

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        return "Unspecified env" if self.taskspec_env is None else self.taskspec_env

    @property
    def taskspec_env(self):
        return self.task_spec.env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def to_array(self):
        return list(self._times)

    def __repr__(self):
        unit, scale = select_unit(self.median)
        n = len(self._sorted_times)
        lines = [
            f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>",
            self.task_spec.summarize(),
        ]
        if n == 1:
            lines.append(f"  {self.median / scale:.2f} {unit}")
        else:
            p25, p75 = _percentile(self._sorted_times, 25), _percentile(self._sorted_times, 75)
            lines.append(f"  Median: {self.median / scale:.2f} {unit}")
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({p25 / scale:.2f} to {p75 / scale:.2f})")
        threads = self.num_threads
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if n > 1 else ','} {threads} thread{'s' if threads > 1 else ''}"
        )
        lines += self._warnings()
        return "\n".join(lines)

    @staticmethod
    def merge(measurements):
        """One Measurement per task spec, pooling the per-run times of those that share it."""
        grouped = {}
        for m in measurements:
            grouped.setdefault(m.task_spec, []).append(m)
        out = []
        for spec, group in grouped.items():
            times = [t for m in group for t in m.times]
            out.append(Measurement(number_per_run=1, raw_times=times, task_spec=spec, metadata=None))
        return out


def select_unit(t):
    """('ns' | 'us' | 'ms' | 's', its scale in seconds) for a time in seconds."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3) if t > 0 else -3, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """x rounded to n significant figures."""
    if x == 0:
        return 0.0
    scale = 10 ** (math.ceil(math.log10(abs(x))) - n)
    return float(round(x / scale) * scale)


def ordered_unique(elements):
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    prior = ember.get_num_threads()
    try:
        ember.set_num_threads(n)
        yield
    finally:
        ember.set_num_threads(prior)
