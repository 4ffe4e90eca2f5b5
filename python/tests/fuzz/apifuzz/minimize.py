"""Shrinking a crash to a reproducer.

A crashing call is first run alone in a fresh worker. If it crashes again (the same way), it is simplified greedily:
each variant calls.Call.simpler() offers (an argument dropped, a tensor made contiguous, float32, smaller, a value
made plainer) is kept when it still crashes the same way, until none does or the time is up. If the call does not
crash alone, the worker's history (up to 300 calls before it) is replayed in a fresh worker, and when that crashes
the history is cut down (chunks dropped while it still crashes), and the reproducer is the remaining calls in order.
"""

import os
import subprocess
import sys
import time

from .calls import USE_SOURCE
from .pool import Outcome, describe


class Minimizer:
    def __init__(self, worker, timeout):
        self.worker = worker  # a pool.Worker used for the trials only
        self.timeout = timeout

    def _crashes(self, how, seed, call):
        out = self.worker.run(seed, call, self.timeout)
        return out.kind == "crash" and out.how == how

    def _history_crashes(self, how, history):
        """Runs history in a fresh worker; True when its last call dies the way it did."""
        self.worker.kill()
        for i, (seed, call) in enumerate(history):
            out = self.worker.run(seed, call, self.timeout)
            if out.kind == "crash":
                return out.how == how and i == len(history) - 1
            if out.kind == "timeout":
                return False
        return False

    def call(self, how, seed, call, seconds):
        """(minimized call, True) when the call crashes alone; (call, False) when it does not."""
        self.worker.kill()
        if not self._crashes(how, seed, call):
            return call, False
        deadline = time.monotonic() + seconds
        progress = True
        while progress and time.monotonic() < deadline:
            progress = False
            for variant in call.simpler():
                if time.monotonic() >= deadline:
                    break
                if self._crashes(how, seed, variant):
                    call, progress = variant, True
                    break
        return call, True

    def history(self, how, history, seconds):
        """The shortest prefix-preserving subsequence of history found that still ends in the crash, or None when the
        whole history does not reproduce it."""
        deadline = time.monotonic() + seconds
        if not self._history_crashes(how, history):
            return None
        last, rest = history[-1], history[:-1]
        chunk = max(1, len(rest) // 2)
        while rest and chunk >= 1 and time.monotonic() < deadline:
            i, cut = 0, False
            while i < len(rest) and time.monotonic() < deadline:
                trial = rest[:i] + rest[i + chunk :]
                if self._history_crashes(how, trial + [last]):
                    rest, cut = trial, True
                else:
                    i += chunk
            if not cut:
                if chunk == 1:
                    break
                chunk //= 2
        return rest + [last]


def history_source(history):
    """A script that replays calls in order, each in a try (their exceptions are expected)."""
    lines = ["import ember", "", USE_SOURCE]
    for seed, call in history:
        setup, source = call.source()
        body = ["ember.manual_seed(%d)" % seed] + ([setup] if setup else []) + [source]
        lines.append("try:")
        lines += ["    " + ln for b in body for ln in b.splitlines()]
        lines.append("except Exception:\n    pass")
    return "\n".join(lines) + "\n"


def standalone(source, rlimit_gb, workdir, timeout):
    """Runs a reproducer as its own Python program (as a user would): its Outcome."""

    def limit():
        if rlimit_gb > 0:
            import resource

            n = int(rlimit_gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (n, n))

    t = time.monotonic()
    try:
        p = subprocess.run(
            [sys.executable, "-X", "faulthandler", "-c", source],
            cwd=workdir,
            preexec_fn=limit,
            capture_output=True,
            timeout=timeout,
            env=dict(os.environ),
        )
    except subprocess.TimeoutExpired:
        return Outcome("timeout", seconds=time.monotonic() - t)
    if p.returncode == 0:
        return Outcome("ok")
    if p.returncode < 0:
        return Outcome("crash", how=describe(p.returncode), stderr=p.stderr.decode(errors="replace")[-30000:])
    return Outcome("raised", exc="exit %d" % p.returncode, msg=p.stderr.decode(errors="replace")[-300:])
