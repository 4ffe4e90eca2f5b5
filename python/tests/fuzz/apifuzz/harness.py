"""The run: call i of seed S is made from random.Random("S:i") alone (its target and arguments), so a run is
deterministic per call whatever the number of workers or the timing; the calls go to the workers in order; outcomes
are counted; each crash (distinct by callable and how the worker died) is minimized and printed as a standalone
reproducer, each hang re-run alone to confirm it.
"""

import collections
import json
import random
import select
import shutil
import sys
import tempfile
import time

from . import minimize
from .calls import Generator
from .pool import Worker
from .targets import denied, targets

# Exceptions that bad input should not raise: they come from a Python-level slip (ember/*.py) or from the binding
# layer, not from a check. Reported (not failures), each with the call that replays it.
ODD_EXCEPTIONS = {
    "AssertionError", "ZeroDivisionError", "SystemError", "KeyError", "UnboundLocalError", "NameError",
    "RecursionError", "UnicodeDecodeError", "UnicodeEncodeError", "SystemExit", "KeyboardInterrupt",
}  # fmt: skip
# Where PyTorch itself raises one of those (its own Python-level assert), ember matches it: (callable, exception).
PYTORCH_RAISES_TOO = {("nn.functional.embedding", "AssertionError")}


def excerpt(stderr):
    """What matters of a dead worker's stderr: a sanitizer's report (its error line, the top of its stack, its summary;
    not the shadow-byte map), else the end (faulthandler's Python traceback)."""
    lines = stderr.strip().splitlines()
    for i, ln in enumerate(lines):
        if "runtime error:" in ln or "ERROR: AddressSanitizer" in ln or "ERROR: LeakSanitizer" in ln:
            frames = [x for x in lines[i + 1 :] if x.lstrip().startswith("#")][:12]
            summary = [x for x in lines[i + 1 :] if x.startswith("SUMMARY:")][:1]
            return [ln] + frames + summary
    return lines[-25:]


class Finding:
    def __init__(self, kind, target, how, seed, call, outcome, history):
        self.kind = kind  # "crash" or "timeout"
        self.target = target
        self.how = how
        self.seed = seed
        self.call = call
        self.outcome = outcome
        self.history = history
        self.count = 1
        self.reproducer = None
        self.standalone = None  # the reproducer's Outcome when run as its own program
        self.note = ""


def make_call(all_targets, seed, i, only=None):
    rng = random.Random("%d:%d" % (seed, i))
    pool = only if only is not None else all_targets
    target = pool[rng.randrange(len(pool))]
    return Generator(rng).call(target), (seed * 1000003 + i) % 2**31


class Run:
    def __init__(self, args):
        self.args = args
        self.targets = targets()
        if args.target:
            pick = [t for t in self.targets if any(s == t.qualname or s == t.path for s in args.target)]
            if not pick:
                sys.exit("api fuzz: no callable matches %s" % args.target)
            self.only = pick
        else:
            self.only = None
        self.workdir = tempfile.mkdtemp(prefix="ember-api-fuzz-")
        self.calls = 0
        self.outcomes = collections.Counter()
        self.exceptions = collections.Counter()
        self.setup_errors = collections.Counter()
        self.crashes = {}  # (qualname, how) -> Finding
        self.timeouts = {}  # qualname -> Finding
        self.quarantined = set()  # targets that crashed thrice: left alone for the rest of the run
        self.crash_count = collections.Counter()
        self.odd = {}  # (qualname, exception type) -> (call index, message): see ODD_EXCEPTIONS
        self.slow_huge = collections.Counter()  # timeouts of calls on over 2**31 elements: slow, not hangs

    def log(self, *a):
        print(*a, flush=True)

    def main(self):
        a = self.args
        self.log(
            "api fuzz: seed %d, %d callables (%d denylisted), %d workers, %s, call timeout %gs, address space %s"
            % (
                a.seed,
                len(self.only or self.targets),
                len(denied()),
                a.workers,
                "%g s" % a.seconds if a.seconds else "%d calls" % a.calls,
                a.timeout,
                "%g GiB" % a.rlimit_gb if a.rlimit_gb > 0 else "uncapped",
            )
        )
        try:
            self.fuzz()
            self.minimize()
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)
        self.report()
        return 1 if self.crashes or any(f.note == "hangs" for f in self.timeouts.values()) else 0

    def fuzz(self):
        a = self.args
        workers = [Worker(self.workdir, a.rlimit_gb, k) for k in range(a.workers)]
        start = time.monotonic()
        last_progress = start
        i = a.start
        try:
            while True:
                now = time.monotonic()
                more = (a.seconds and now - start < a.seconds) or (a.calls and i - a.start < a.calls)
                if a.seconds and a.calls:
                    more = now - start < a.seconds and i - a.start < a.calls
                for w in workers:
                    if w.pending is None and more:
                        call, cseed = make_call(self.targets, a.seed, i, self.only)
                        i += 1
                        while call.target.qualname in self.quarantined and len(self.quarantined) < len(
                            self.only or self.targets
                        ):
                            call, cseed = make_call(self.targets, a.seed, i, self.only)
                            i += 1
                        if call.target.qualname in self.quarantined:
                            break  # every target is: nothing left to call
                        if a.print_calls:
                            self.log("-- call %d\n%s" % (i - 1, call.reproducer(cseed)))
                        w.send(i - 1, cseed, call)
                busy = [w for w in workers if w.pending is not None]
                if not busy:
                    break
                ready, _, _ = select.select([w.res for w in busy], [], [], 0.5)
                for w in busy:
                    if w.res in ready or time.monotonic() - w.pending[3] >= a.timeout:
                        pending = w.pending
                        out = w.finish(a.timeout)
                        if out is not None:
                            self.record(w, pending, out)
                if time.monotonic() - last_progress >= 30:
                    last_progress = time.monotonic()
                    self.log(
                        "  %4.0f s: %d calls, %d crashes, %d timeouts"
                        % (last_progress - start, self.calls, len(self.crashes), len(self.timeouts))
                    )
        finally:
            for w in workers:
                w.kill()
        self.elapsed = time.monotonic() - start

    def record(self, worker, pending, out):
        tag, seed, call, _ = pending
        self.calls += 1
        self.outcomes[out.kind] += 1
        q = call.target.qualname
        if out.kind == "raised":
            (self.exceptions if out.stage == "call" else self.setup_errors)[out.exc] += 1
            if out.stage == "call" and out.exc in ODD_EXCEPTIONS and (q, out.exc) not in PYTORCH_RAISES_TOO:
                self.odd.setdefault((q, out.exc), (tag, out.msg))
            if out.stage != "call" and self.args.verbose:
                self.log("setup error: %s: %s\n%s" % (out.exc, out.msg, call.source()[0]))
        elif out.kind == "crash":
            self.crash_count[q] += 1
            if self.crash_count[q] >= 3:
                self.quarantined.add(q)
            key = (q, out.how)
            if key in self.crashes:
                self.crashes[key].count += 1
            else:
                self.log("  crash: %s (%s) at call %d" % (q, out.how, tag))
                self.crashes[key] = Finding("crash", q, out.how, seed, call, out, list(worker.history))
        elif out.kind == "timeout" and call.huge():
            self.slow_huge[q] += 1
        elif out.kind == "timeout":
            self.quarantined.add(q)
            if q in self.timeouts:
                self.timeouts[q].count += 1
            else:
                self.log("  timeout: %s at call %d (%.1f s)" % (q, tag, out.seconds))
                self.timeouts[q] = Finding("timeout", q, "timeout", seed, call, out, [])

    def minimize(self):
        a = self.args
        m = minimize.Minimizer(Worker(self.workdir, a.rlimit_gb, 99), a.timeout)
        deadline = time.monotonic() + a.minimize_seconds
        try:
            # Timeouts first: a spurious one (a busy machine) finishes at once, a real hang costs twice the timeout.
            for f in self.timeouts.values():
                f.reproducer = f.call.reproducer(f.seed)
                if deadline - time.monotonic() < 0:
                    f.note = "not re-run alone (out of --minimize-seconds)"
                    continue
                again = m.worker.run(f.seed, f.call, 2 * a.timeout)
                f.note = "hangs" if again.kind == "timeout" else "finished when run alone (%s)" % again.kind
            for f in self.crashes.values():
                # At least a few seconds each (the first trial tells whether it crashes alone); past the budget the
                # call is reported as it was.
                left = max(5.0, min(a.minimize_seconds / 4, deadline - time.monotonic()))
                if deadline - time.monotonic() < 0:
                    f.reproducer = f.call.reproducer(f.seed)
                    f.note = "not minimized (out of --minimize-seconds)"
                    continue
                call, alone = m.call(f.how, f.seed, f.call, left)
                if alone:
                    f.reproducer = call.reproducer(f.seed)
                else:
                    hist = m.history(f.how, f.history, left)
                    if hist is None:
                        f.note = "did not crash again, alone or after the %d calls before it" % (len(f.history) - 1)
                        f.reproducer = f.call.reproducer(f.seed)
                        continue
                    f.note = "crashes only after %d earlier calls (reproducer replays them)" % (len(hist) - 1)
                    f.reproducer = minimize.history_source(hist)
                f.standalone = minimize.standalone(f.reproducer, a.rlimit_gb, self.workdir, a.timeout * 3)
        finally:
            m.worker.kill()

    def report(self):
        a = self.args
        self.log("")
        self.log("== api fuzz: seed %d, %.0f s, %d calls" % (a.seed, self.elapsed, self.calls))
        self.log("outcomes: " + ", ".join("%s %d" % kv for kv in sorted(self.outcomes.items())))
        self.log("exceptions: " + ", ".join("%s %d" % kv for kv in self.exceptions.most_common()))
        if self.setup_errors:
            self.log("setup errors (the fuzzer's own): " + ", ".join("%s %d" % kv for kv in self.setup_errors.items()))
        hangs = [f for f in self.timeouts.values() if f.note == "hangs"]
        self.log(
            "crashes: %d distinct; timeouts: %d (%d hang when run alone)"
            % (len(self.crashes), len(self.timeouts), len(hangs))
        )
        if self.slow_huge:
            self.log(
                "slow (timed out on a tensor of over 2**31 elements; not findings): "
                + ", ".join("%s %d" % kv for kv in sorted(self.slow_huge.items()))
            )
        if self.odd:
            self.log(
                "exceptions bad input should not raise (see one: --seed %d --start I --calls 1 --print-calls):" % a.seed
            )
            for (q, exc), (tag, msg) in sorted(self.odd.items()):
                self.log("  %s: %s at call %d: %s" % (q, exc, tag, msg.splitlines()[0][:100] if msg else ""))
        for f in list(self.crashes.values()) + list(self.timeouts.values()):
            self.log("")
            self.log("-- %s: %s (%s, %d call%s)" % (f.kind, f.target, f.how, f.count, "s" * (f.count > 1)))
            if f.note:
                self.log("   " + f.note)
            if f.standalone is not None:
                same = f.standalone.kind == "crash" and f.standalone.how == f.how
                self.log(
                    "   standalone reproducer: %s"
                    % ("crashes (%s)" % f.how if same else "does NOT crash (%s)" % f.standalone.kind)
                )
            self.log("   reproducer:")
            for ln in (f.reproducer or "").splitlines():
                self.log("   | " + ln)
            tail = (f.standalone.stderr if f.standalone is not None and f.standalone.stderr else f.outcome.stderr) or ""
            if tail.strip():
                self.log("   stderr:")
                for ln in excerpt(tail):
                    self.log("   > " + ln)
        if a.report:
            with open(a.report, "w") as fh:
                json.dump(
                    {
                        "seed": a.seed,
                        "seconds": self.elapsed,
                        "calls": self.calls,
                        "outcomes": self.outcomes,
                        "exceptions": self.exceptions,
                        "crashes": [
                            {
                                "target": f.target,
                                "how": f.how,
                                "count": f.count,
                                "note": f.note,
                                "reproducer": f.reproducer,
                            }
                            for f in self.crashes.values()
                        ],
                        "timeouts": [
                            {"target": f.target, "note": f.note, "reproducer": f.reproducer}
                            for f in self.timeouts.values()
                        ],
                    },
                    fh,
                    indent=1,
                )
