"""ember.futures (torch.futures): completion, callbacks (then / add_done_callback, run at completion or at once),
errors, collect_all / wait_all, and a Future completed from another thread."""

import threading

import pytest

import ember
from ember.futures import Future, collect_all, wait_all


def test_set_result_wait_value_done():
    f = Future()
    assert not f.done()
    with pytest.raises(RuntimeError, match="not completed"):
        f.value()
    f.set_result([1, 2])
    assert f.done() and f.wait() == [1, 2] and f.value() == [1, 2]
    with pytest.raises(RuntimeError, match="can only be marked completed once"):
        f.set_result(3)
    with pytest.raises(RuntimeError, match="can only be marked completed once"):
        f.set_exception(ValueError("late"))
    assert ember.futures.Future is Future and Future(devices=[]).done() is False


def test_set_exception():
    f = Future()
    f.set_exception(ValueError("boom"))
    assert f.done()
    with pytest.raises(ValueError, match="boom"):
        f.wait()
    with pytest.raises(ValueError, match="boom"):
        f.value()
    with pytest.raises(AssertionError, match="not an Exception"):
        Future().set_exception(3)


def test_then_runs_at_completion_and_chains():
    calls = []
    f = Future()
    g = f.then(lambda fut: calls.append("g") or fut.value() * 2)
    h = g.then(lambda fut: calls.append("h") or fut.value() + 1)
    assert calls == [] and not g.done() and not h.done()
    f.set_result(5)  # callbacks run synchronously here
    assert calls == ["g", "h"] and g.done() and h.done()
    assert g.wait() == 10 and h.wait() == 11
    k = f.then(lambda fut: fut.value() - 5)  # already done: runs at once
    assert k.done() and k.value() == 0


def test_then_callback_error_and_failed_parent():
    f = Future()
    bad = f.then(lambda fut: 1 / 0)
    passed = f.then(lambda fut: fut.wait())
    ignores = f.then(lambda fut: "ran")
    f.set_exception(KeyError("k"))
    with pytest.raises(RuntimeError, match="ZeroDivisionError: division by zero"):
        bad.wait()
    with pytest.raises(RuntimeError, match="KeyError"):
        passed.wait()
    assert ignores.wait() == "ran"  # a callback runs even when the parent failed


def test_add_done_callback():
    seen = []
    f = Future()
    f.add_done_callback(lambda fut: seen.append(fut.value()))
    assert seen == []
    f.set_result("x")
    assert seen == ["x"]
    f.add_done_callback(lambda fut: seen.append("again"))
    assert seen == ["x", "again"]
    with pytest.warns(RuntimeWarning, match="KeyError"):
        f.add_done_callback(lambda fut: {}["missing"])


def test_wait_blocks_until_another_thread_completes():
    f = Future()
    child = f.then(lambda fut: fut.value() + 1)
    t = threading.Timer(0.05, lambda: f.set_result(41))
    t.start()
    assert child.wait() == 42 and f.wait() == 41
    t.join()


def test_collect_all_and_wait_all():
    a, b = Future(), Future()
    c = collect_all([a, b])
    a.set_result(1)
    assert not c.done()
    b.set_result(2)
    assert c.done() and [x.value() for x in c.wait()] == [1, 2] and c.value()[0] is a
    assert collect_all([]).wait() == [] and wait_all([]) == []
    d = Future()
    d.set_result(5)
    assert wait_all([d, a]) == [5, 1]
    e = Future()
    e.set_exception(RuntimeError("r"))
    with pytest.raises(RuntimeError, match="r"):
        wait_all([d, e])
    with pytest.raises(RuntimeError, match="r"):
        collect_all([d, e]).wait()
