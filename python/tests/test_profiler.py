"""ember.profiler and ember.autograd.profiler: what is recorded (names, counts, tree, shapes, memory, threads), the
schedule's state machine against PyTorch's documented one, the table and the Chrome trace."""

import json
import os
import threading
import warnings
from collections import Counter

import pytest

import ember
import ember.nn as nn
from ember.autograd.profiler_util import EventList, FunctionEventAvg, _format_memory, _format_time
from ember.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def names(events):
    return Counter(e.name for e in events)


def three_matmuls_and_relu():
    a = ember.ones(8, 8)
    b = ember.ones(8, 8)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        c = a @ b
        c = c @ b
        c = c @ b
        ember.relu(c)
    return prof


def test_known_program_counts():
    prof = three_matmuls_and_relu()
    n = names(prof.events())
    assert n["ember::matmul"] == 3
    assert n["ember::relu"] == 1
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["ember::matmul"].count == 3
    assert avg["ember::relu"].count == 1
    assert isinstance(avg["ember::matmul"], FunctionEventAvg)


def test_profiler_off_records_nothing():
    a = ember.ones(4)
    with profile() as prof:
        pass
    ember.relu(a)  # after the profile: nothing
    assert len(prof.events()) == 0
    assert not ember._C._profiler_enabled()
    # record_function outside a profile is free and records nothing.
    with record_function("outside"):
        ember.relu(a)
    with profile() as prof:
        pass
    assert "outside" not in names(prof.events())


def test_tree_self_time_and_nesting():
    a = ember.ones(32, 32)
    with profile() as prof:
        with record_function("outer"):
            with record_function("inner"):
                a @ a
            ember.relu(a)
    events = prof.events()
    outer = next(e for e in events if e.name == "outer")
    inner = next(e for e in events if e.name == "inner")
    assert inner.cpu_parent is outer
    assert {c.name for c in outer.cpu_children} >= {"inner", "ember::relu"}
    for e in events:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total + 1e-9
        for c in e.cpu_children:
            assert c.time_range.start >= e.time_range.start
            assert c.time_range.end <= e.time_range.end
    assert outer.self_cpu_time_total == pytest.approx(
        outer.cpu_time_total - sum(c.cpu_time_total for c in outer.cpu_children)
    )
    for avg in prof.key_averages():
        assert avg.self_cpu_time_total <= avg.cpu_time_total + 1e-9


def profiled_matmul(m, k, n, **options):
    """The profile of one [m, k] @ [k, n], and its matmul event."""
    a, b = ember.ones(m, k), ember.ones(k, n)
    with profile(**options) as prof:
        a @ b
    return prof, next(e for e in prof.events() if e.name == "ember::matmul")


def test_record_shapes():
    prof, mm = profiled_matmul(4, 5, 6, record_shapes=True)
    assert mm.input_shapes[:3] == [[4, 6], [4, 5], [5, 6]]  # (out, a, b, alpha, beta)
    assert mm.input_shapes[3] == []
    grouped = prof.key_averages(group_by_input_shape=True)
    row = next(e for e in grouped if e.key == "ember::matmul")
    assert row.input_shapes[:3] == [[4, 6], [4, 5], [5, 6]]
    assert "Input Shapes" in grouped.table()
    # Without record_shapes: no shapes.
    assert profiled_matmul(4, 5, 6)[1].input_shapes == []


def test_memory_attribution():
    with profile(profile_memory=True) as prof:
        with record_function("alloc"):
            t = ember.empty(1000, dtype=ember.float32)
            del t
    scope = next(e for e in prof.events() if e.name == "alloc")
    empty = next(e for e in prof.events() if e.name == "ember::empty")
    assert empty.cpu_parent is scope
    assert empty.self_cpu_memory_usage == 4000
    assert scope.self_cpu_memory_usage == -4000  # the free happens in the scope itself
    assert scope.cpu_memory_usage == 0
    table = prof.key_averages().table(sort_by="cpu_memory_usage")
    assert "CPU Mem" in table and "Self CPU Mem" in table
    assert _format_memory(4000) == "3.91 Kb"
    assert _format_memory(-32 * 1024) == "-32.00 Kb"
    assert _format_memory(12) == "12 b"


def test_memory_outside_scopes_is_a_memory_event():
    with profile(profile_memory=True) as prof:
        pass
    assert len(prof.events()) == 0
    keep = ember.ones(10)  # allocated before: its free inside is unattributed
    with profile(profile_memory=True) as prof:
        del keep
    mem = [e for e in prof.events() if e.name == "[memory]"]
    assert len(mem) == 1 and mem[0].cpu_memory_usage == -40


def test_autograd_and_optimizer_scopes():
    model = nn.Linear(3, 2)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    x = ember.ones(4, 3)
    with profile(with_modules=True) as prof:
        loss = model(x).sum()
        loss.backward()
        opt.step()
    n = names(prof.events())
    assert any(k.startswith("autograd::engine::evaluate_function: ") for k in n)
    assert n["autograd::engine::evaluate_function: SumBackward0"] == 1
    assert n["Optimizer.step#SGD.step"] == 1
    assert n["nn.Module: Linear"] == 1
    assert nn.Module.__call__ is nn.Module._call_impl  # restored after the profile


def test_with_flops():
    prof, mm = profiled_matmul(10, 20, 30, with_flops=True)
    assert mm.flops == 2 * 10 * 20 * 30
    assert "FLOPs" in prof.key_averages().table()


def test_table_layout_sorting_and_row_limit():
    prof = three_matmuls_and_relu()
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=1)
    lines = table.strip().split("\n")
    header = lines[1]
    for col in ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]:
        assert col in header
    assert header.index("Self CPU %") < header.index("CPU total %") < header.index("# of Calls")
    assert lines[0].startswith("-") and lines[2].startswith("-")
    rows = lines[3:-2]
    assert len(rows) == 1
    top = max(prof.key_averages(), key=lambda e: e.cpu_time_total)
    assert rows[0].split()[0] == top.key
    assert lines[-1].startswith("Self CPU time total:")
    full = prof.key_averages().table(sort_by="count")
    rows = full.strip().split("\n")[3:-2]
    calls = [int(r.split()[-1]) for r in rows]
    assert calls == sorted(calls, reverse=True)
    assert _format_time(1234.5) == "1.234ms" or _format_time(1234.5) == "1.235ms"
    assert _format_time(12.0) == "12.000us"
    assert _format_time(2.5e6) == "2.500s"


def test_chrome_trace_json(tmp_path):
    a = ember.ones(8, 8)
    with profile(record_shapes=True, profile_memory=True) as prof:
        with record_function("block"):
            a @ a
    path = str(tmp_path / "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert {"block", "ember::matmul"} <= {e["name"] for e in complete}
    for e in complete:
        assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
    mm = next(e for e in complete if e["name"] == "ember::matmul")
    assert mm["args"]["Input Dims"][1] == [8, 8]
    assert any(e["ph"] == "i" and e["name"] == "[memory]" for e in events)


def test_schedule_matches_pytorch():
    A = ProfilerAction
    s = schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    assert [s(i) for i in range(8)] == [A.NONE, A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE, A.NONE, A.NONE, A.NONE]
    s = schedule(wait=1, warmup=1, active=2)
    assert [s(i) for i in range(10)] == [A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE] * 2 + [A.NONE, A.WARMUP]
    with pytest.warns(UserWarning, match="warmup"):
        schedule(wait=0, warmup=0, active=1)
    with pytest.raises(AssertionError):
        schedule(wait=0, warmup=1, active=0)


def test_schedule_steps_and_trace_handler(tmp_path):
    a = ember.ones(4)
    traces = []
    with profile(
        schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
        on_trace_ready=lambda p: traces.append(names(p.events())),
    ) as prof:
        for step in range(10):
            ember.relu(a)
            prof.step()
    assert len(traces) == 2
    # Each trace covers the two active steps: steps 2-3 and 6-7, one relu each, and their step scopes.
    for t, first in zip(traces, (2, 6)):
        assert t["ember::relu"] == 2
        assert t[f"ProfilerStep#{first}"] == 1 and t[f"ProfilerStep#{first + 1}"] == 1
    handler = tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w")
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=1), on_trace_ready=handler) as prof:
        for _ in range(3):
            ember.relu(a)
            prof.step()
    files = os.listdir(tmp_path / "tb")
    assert len(files) == 1 and files[0].startswith("w.") and files[0].endswith(".pt.trace.json")
    with open(tmp_path / "tb" / files[0]) as f:
        assert any(e.get("name") == "ember::relu" for e in json.load(f)["traceEvents"])


def test_second_thread_is_recorded_separately():
    a = ember.ones(16)
    done = threading.Event()

    def worker():
        for _ in range(20):
            ember.neg(a)
        done.set()

    with profile() as prof:
        t = threading.Thread(target=worker)
        t.start()
        for _ in range(20):
            ember.relu(a)
        t.join()
    assert done.is_set()
    evs = prof.events()
    relu_threads = {e.thread for e in evs if e.name == "ember::relu"}
    neg_threads = {e.thread for e in evs if e.name == "ember::neg"}
    assert names(evs)["ember::relu"] == 20 and names(evs)["ember::neg"] == 20
    assert len(relu_threads) == 1 and len(neg_threads) == 1 and relu_threads != neg_threads


def test_legacy_autograd_profiler():
    a = ember.ones(4, 4)
    with ember.autograd.profiler.profile(record_shapes=True) as prof:
        with ember.autograd.profiler.record_function("label"):
            ember.mm(a, a)
    assert isinstance(prof.function_events, EventList)
    assert names(prof.function_events)["label"] == 1
    assert "label" in prof.table()
    assert prof.self_cpu_time_total >= 0
    assert prof.total_average().key == "Total"
    unfinished = ember.autograd.profiler.profile()
    with pytest.raises(RuntimeError, match="didn't finish"):
        unfinished.key_averages()
    with pytest.raises(RuntimeError, match="already"):
        with profile():
            with profile():
                pass


def test_record_function_decorator_and_args():
    @record_function("decorated")
    def f(x):
        return ember.relu(x)

    with profile() as prof:
        f(ember.ones(2))
        f(ember.ones(2))
    assert names(prof.events())["decorated"] == 2
    with ember.profiler.profile() as prof:
        with ember.autograd.profiler.record_function("withargs", "a=1"):
            pass
    assert names(prof.events())["withargs"] == 1  # args is not part of the name (as in PyTorch)


def test_with_stack():
    with profile(with_stack=True) as prof:
        with record_function("stacked"):
            ember.relu(ember.ones(2))
    e = next(e for e in prof.events() if e.name == "stacked")
    assert e.stack and "test_profiler.py" in e.stack[0]
    relu = next(e for e in prof.events() if e.name == "ember::relu")
    assert relu.stack == e.stack  # ops take their enclosing scope's stack
    assert prof.key_averages(group_by_stack_n=1).table()


def test_emit_nvtx_and_names():
    with ember.autograd.profiler.emit_nvtx():
        ember.relu(ember.ones(2))
    assert not ember._C._profiler_enabled()
    assert ember.profiler.ProfilerActivity.CPU in ember.profiler.supported_activities()
    assert ember.profiler.kineto_available() is False
    from ember.autograd import profiler_util  # noqa: F401  (the module PyTorch code imports names from)

    assert profiler_util.MEMORY_EVENT_NAME == "[memory]"


def test_cuda_activity_on_cpu_only_build_runs():
    a = ember.ones(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            ember.relu(a)
    table = prof.key_averages().table(sort_by="self_cuda_time_total")
    assert "Self CUDA" in table and "CUDA total" in table
    relu = next(e for e in prof.events() if e.name == "ember::relu")
    assert relu.cuda_time_total == 0  # a CPU op has no device time


@pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU")
def test_cuda_kernels_get_device_time():
    a = ember.ones(256, 256, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        a @ a
    mm = next(e for e in prof.events() if e.name == "ember::matmul")
    assert mm.device_range is not None and mm.cuda_time_total > 0
    assert "Self CUDA time total" in prof.key_averages().table()
