"""The API fuzzer's machinery (python/tests/fuzz/apifuzz, docs/fuzzing.md): calls are determined by (seed, index); a
worker's death is attributed to the call in flight, a hang is killed, an allocation past the address-space cap is an
exception; a crash is minimized to the arguments that matter."""

import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))

from apifuzz import minimize  # noqa: E402
from apifuzz.calls import Call  # noqa: E402
from apifuzz.harness import make_call  # noqa: E402
from apifuzz.pool import Worker  # noqa: E402
from apifuzz.targets import DENYLIST, Target, targets  # noqa: E402
from apifuzz.values import Src, Tensor  # noqa: E402


def _target(path):
    t = Target("torch", "probe", [[]])
    t.path = path
    return t


@pytest.fixture
def worker():
    with tempfile.TemporaryDirectory() as d:
        w = Worker(d, 4.0, 0)
        yield w
        w.kill()


def test_calls_are_determined_by_seed_and_index():
    ts = targets()
    names = {t.qualname for t in ts}
    assert "torch.add" in names and "Tensor.view" in names and "nn.functional.conv2d" in names
    assert "Tensor.__getitem__" in names
    assert not names & set(DENYLIST)
    a = [make_call(ts, 5, i)[0].source() for i in range(50)]
    b = [make_call(ts, 5, i)[0].source() for i in range(50)]
    c = [make_call(ts, 6, i)[0].source() for i in range(50)]
    assert a == b and a != c


def test_huge_calls_are_slow_not_hangs():
    """A timeout counts as slow, not as a hang, only where the work itself is huge: 2**31 elements in a tensor
    argument, or a factory asked for 2**30 elements; an op given a huge integer elsewhere is still a finding."""
    assert Call(_target("torch.logspace"), None, [Src("1.0"), Src("0"), Src("2147483647")], {}).huge()
    assert Call(_target("torch.randperm"), None, [Src(str(2**30))], {}).huge()
    assert not Call(_target("torch.logspace"), None, [Src("1.0"), Src("0"), Src("100")], {}).huge()
    assert not Call(
        _target("nn.functional.max_pool3d"), None, [Tensor((1, 2, 3), "float32"), Src(str(2**62))], {}
    ).huge()


def test_tensor_spec_views_render_their_shape():
    t = Tensor((3, 4), "float16", view="T", grad=True)
    assert t.build() == "ember.randn((4, 3), dtype=ember.float16).requires_grad_().transpose(0, 1)"
    t = Tensor((2, 3), "int32", fill="index", view="strided0", hi=7)
    assert t.build() == "ember.randint(-1, 7, (1,), dtype=ember.int32).as_strided((2, 3), (0, 0))"


def test_outcomes(worker):
    ok = worker.run(1, Call(_target("ember.tensor"), None, [Src("[1, 2]")], {}, use=False), 10)
    assert ok.kind == "ok"
    raised = worker.run(1, Call(_target("ember.zeros"), None, [Src("'x'")], {}), 10)
    assert raised.kind == "raised" and raised.exc == "TypeError" and raised.stage == "call"
    # Past the 4 GiB cap the allocator's failure is ember's exception, not a kill.
    oom = worker.run(1, Call(_target("ember.empty"), None, [Src("2**36")], {}, use=False), 10)
    assert oom.kind == "raised" and oom.exc == "OutOfMemoryError"
    crash = worker.run(1, Call(_target("__import__('os').abort"), None, [], {}, use=False), 10)
    assert crash.kind == "crash" and crash.how == "SIGABRT"
    assert "Fatal Python error: Aborted" in crash.stderr
    # A loop is killed once it has used the timeout's CPU time; a call blocked without using any, after six times
    # the timeout of wall-clock time.
    spin = worker.run(1, Call(_target("(lambda: next(i for i in iter(int, 1) if i))"), None, [], {}, use=False), 1)
    assert spin.kind == "timeout" and not worker.alive()
    hang = worker.run(1, Call(_target("__import__('time').sleep"), None, [Src("60")], {}, use=False), 0.5)
    assert hang.kind == "timeout" and 3 <= hang.seconds < 30 and not worker.alive()
    assert worker.run(1, Call(_target("ember.tensor"), None, [Src("[1.5]")], {}), 10).kind == "ok"


def test_minimize_keeps_only_what_crashes(worker):
    # Dies when its first argument is a tensor of more than one dim; every other argument is noise.
    path = "(lambda a, *r, **k: __import__('os').abort() if a.dim() > 1 else None)"
    call = Call(
        _target(path),
        None,
        [Tensor((2, 3), "float64", view="T", grad=True), Src("7")],
        {"x": Src("'s'")},
    )
    small, alone = minimize.Minimizer(worker, 10).call("SIGABRT", 3, call, 60)
    assert alone
    assert small.reproducer(3) == (
        "import ember\n\nember.manual_seed(3)\nt0 = ember.randn((1, 1), dtype=ember.float32)\nr = %s(t0)\n" % path
    )
    assert minimize.standalone(small.reproducer(3), 4.0, os.getcwd(), 30).how == "SIGABRT"
