"""ember.utils.benchmark (torch.utils.benchmark): Timer on statements of known duration (loose bounds only),
Measurement's statistics against closed forms, and Compare's table."""

import re

import pytest

import ember
from ember.utils.benchmark import Compare, Measurement, TaskSpec, Timer, select_unit, trim_sigfig
from ember.utils.benchmark.utils.common import _percentile


def test_blocked_autorange_on_a_sleep():
    t = Timer("time.sleep(0.002)", setup="import time", label="sleep", sub_label="2ms", description="desc")
    m = t.blocked_autorange(min_run_time=0.05)
    assert isinstance(m, Measurement)
    assert m.number_per_run in (1, 10)  # 2 ms per run soon dwarfs the timer's overhead
    assert len(m.times) >= 1
    assert 0.0019 < m.median < 0.05  # sleeps at least its duration; the upper bound only rules out nonsense
    assert sum(m.raw_times) >= 0.05
    r = repr(m)
    assert "sleep: 2ms" in r and "desc" in r and "setup: import time" in r
    assert re.search(r"(Median: )?\d+\.\d\d ms", r)
    assert re.search(r"\d+ measurements?, \d+ runs (per measurement,|,) 1 thread", r)


def test_timeit_number_and_globals():
    x = ember.ones(10)
    m = Timer("x + x", globals={"x": x}, label="add", description="d1").timeit(50)
    assert m.number_per_run == 50 and len(m.times) == 1
    assert m.times[0] == pytest.approx(m.raw_times[0] / 50)
    assert "1 measurement, 50 runs , 1 thread" in repr(m)
    # `torch` in statements is ember.
    m = Timer("torch.zeros(3)").timeit(5)
    assert m.stmt == "torch.zeros(3)" and m.title == "torch.zeros(3)"


def test_adaptive_autorange_and_callback():
    calls = []
    t = Timer("time.sleep(0.001)", setup="import time")
    m = t.adaptive_autorange(
        threshold=0.5, min_run_time=0.01, max_run_time=1.0, callback=lambda n, s: calls.append((n, s))
    )
    assert len(calls) == len(m.raw_times) >= 4
    assert 0.0009 < m.median < 0.05


def test_repeat_and_autorange_raise_as_in_pytorch():
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        Timer("pass").repeat()
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        Timer("pass").autorange()
    with pytest.raises(ValueError):
        Timer(lambda: None)


def test_num_threads_is_set_during_timing_and_restored():
    before = ember.get_num_threads()
    seen = []
    m = Timer("seen.append(torch.get_num_threads())", globals={"seen": seen}, num_threads=1).timeit(3)
    assert set(seen) == {1}
    assert ember.get_num_threads() == before
    assert m.num_threads == 1


def test_measurement_statistics():
    spec = TaskSpec(stmt="f()", setup="pass")
    times = [4.0, 1.0, 3.0, 2.0, 100.0]
    m = Measurement(number_per_run=2, raw_times=times, task_spec=spec)
    per_run = sorted(t / 2 for t in times)
    assert m.times == [t / 2 for t in times]
    assert m.median == 1.5
    assert m.mean == pytest.approx(sum(per_run) / 5)
    assert m.iqr == pytest.approx(_percentile(per_run, 75) - _percentile(per_run, 25))
    assert _percentile([1.0, 2.0, 3.0, 4.0], 25) == 1.75  # NumPy's linear interpolation
    assert 1 <= m.significant_figures <= 4
    assert m.has_warnings  # IQR of 50% of the median
    assert "WARNING: Interquartile range" in repr(m)
    steady = Measurement(1, [1e-3] * 10, spec)
    assert steady.significant_figures == 4 and not steady.has_warnings
    merged = Measurement.merge([m, steady])
    assert len(merged) == 1 and len(merged[0].times) == 15


def test_units_and_sigfigs():
    assert select_unit(2.5e-9) == ("ns", 1e-9)
    assert select_unit(2.5e-6) == ("us", 1e-6)
    assert select_unit(2.5e-3) == ("ms", 1e-3)
    assert select_unit(2.5) == ("s", 1.0)
    assert trim_sigfig(123456.0, 2) == 120000.0
    assert trim_sigfig(0.0012345, 3) == pytest.approx(0.00123)


def test_compare_table():
    def spec(sub, desc, threads=1):
        return TaskSpec(stmt="x + x", setup="pass", label="add", sub_label=sub, description=desc, num_threads=threads)

    results = [
        Measurement(1, [1e-6, 1.1e-6, 1.05e-6, 0.95e-6], spec("n=10", "ember")),
        Measurement(1, [2e-6, 2.1e-6, 2.05e-6, 1.95e-6], spec("n=1000", "ember")),
        Measurement(1, [3e-6, 3.1e-6, 3.05e-6, 2.95e-6], spec("n=10", "other")),
        Measurement(1, [4e-6] * 4, spec("n=10", "ember", threads=2)),
    ]
    c = Compare(results)
    out = str(c)
    lines = out.split("\n")
    assert lines[0].startswith("[") and " add " in lines[0]
    assert "ember" in lines[1] and "other" in lines[1]
    assert any(l.startswith("1 threads: ---") for l in lines)
    assert any(l.startswith("2 threads: ---") for l in lines)
    row = next(l for l in lines if "n=1000" in l)
    assert "2.0" in row
    assert "Times are in microseconds (us)." in out
    c.trim_significant_figures()
    c.colorize()
    colored = str(c)
    assert "\033[92m" in colored  # the best of a column is green
    c2 = Compare(results[:1])
    c2.colorize(rowwise=True)
    assert "n=10" in str(c2)
    with pytest.raises(ValueError):
        Compare([1.0])


def test_compare_of_timer_results_prints(capsys):
    x = ember.ones(10)
    results = [
        Timer("x * 2", globals={"x": x}, label="mul", sub_label="small", description=d).timeit(20) for d in ("a", "b")
    ]
    Compare(results).print()
    out = capsys.readouterr().out
    assert "mul" in out and "small" in out and " a " in out and " b " in out
