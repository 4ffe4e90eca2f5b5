"""Worker processes (worker.py), one call in flight each: the pool sends a call, and learns its outcome, the worker's
death (a signal or an exit, attributed to the call in flight) or a hang (the call ran past the timeout: the worker is
killed). A dead worker is replaced by a fresh one on its next call.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time

WALL_FACTOR = 6  # a call that uses little CPU still times out after this many timeouts of wall-clock time
WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")


def describe(returncode):
    """ "SIGSEGV" for a death by signal, "exit 3" for an exit."""
    if returncode is not None and returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return "signal %d" % -returncode
    return "exit %s" % returncode


class Outcome:
    """What became of one call: kind is "ok", "raised" (exc, msg, stage), "crash" (how: SIGSEGV, exit 1, ...; stderr:
    the end of the worker's stderr, where a sanitizer's report or faulthandler's traceback is) or "timeout"."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.exc = kw.get("exc")
        self.msg = kw.get("msg")
        self.stage = kw.get("stage")
        self.how = kw.get("how")
        self.stderr = kw.get("stderr", "")
        self.seconds = kw.get("seconds", 0.0)


class Worker:
    def __init__(self, workdir, rlimit_gb, index):
        self.workdir = workdir
        self.rlimit_gb = rlimit_gb
        self.index = index
        self.proc = None
        self.history = []  # (seed, Call) run by this process, oldest first
        self.errpath = os.path.join(workdir, "worker%d.stderr" % index)
        self.pending = None  # (tag, seed, call, start time)
        self.buf = b""

    def start(self):
        cmd_r, cmd_w = os.pipe()
        res_r, res_w = os.pipe()
        self.err = open(self.errpath, "w+b")
        self.proc = subprocess.Popen(
            [sys.executable, "-X", "faulthandler", WORKER, str(cmd_r), str(res_w), str(self.rlimit_gb)],
            pass_fds=(cmd_r, res_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.err,
            cwd=self.workdir,
        )
        os.close(cmd_r)
        os.close(res_w)
        self.cmd = os.fdopen(cmd_w, "w", buffering=1)
        self.res = res_r
        self.buf = b""
        self.history = []
        line = self._read_line(120.0)
        if line is None or "ready" not in json.loads(line):
            raise RuntimeError("fuzz worker did not start:\n" + self.stderr_tail())

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def cpu_seconds(self):
        """The worker's CPU time so far (all its threads), 0 when it cannot be read."""
        try:
            with open("/proc/%d/stat" % self.proc.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

    def send(self, tag, seed, call):
        """Starts a call; poll() or wait() gives its outcome."""
        if not self.alive():
            self.start()
        setup, source = call.source()
        self.pending = (tag, seed, call, time.monotonic())
        self.cpu_start = self.cpu_seconds()
        self.history.append((seed, call))
        del self.history[:-300]
        try:
            self.cmd.write(json.dumps({"seed": seed, "setup": setup, "call": source}) + "\n")
        except BrokenPipeError:
            pass  # died between calls: the read sees it

    def _read_line(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.res], [], [], left)
            if not r:
                return None
            chunk = os.read(self.res, 65536)
            if not chunk:
                return ""
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def finish(self, timeout):
        """The pending call's outcome, waiting at most until its start + timeout (None if it is still running and
        within it)."""
        tag, seed, call, start = self.pending
        line = self._read_line(max(0.0, start + timeout - time.monotonic()))
        elapsed = time.monotonic() - start
        if line is None:
            if elapsed < timeout:
                return None
            # On a busy machine a call may wait for a CPU that long: it hangs when it has used the time itself (a
            # loop), or when the wall clock is far past (a call blocked without using any).
            if self.cpu_seconds() - self.cpu_start < timeout and elapsed < WALL_FACTOR * timeout:
                return None
            self.kill()
            return Outcome("timeout", seconds=elapsed)
        self.pending = None
        if line == "":  # the pipe closed: the worker died in the call
            rc = self.proc.wait()
            out = Outcome("crash", how=describe(rc), stderr=self.stderr_tail(), seconds=elapsed)
            self.close()
            return out
        res = json.loads(line)
        if res["ok"]:
            return Outcome("ok", seconds=elapsed)
        return Outcome("raised", exc=res["exc"], msg=res["msg"], stage=res["stage"], seconds=elapsed)

    def run(self, seed, call, timeout):
        """Runs one call to its end."""
        self.send(None, seed, call)
        while True:
            out = self.finish(timeout)
            if out is not None:
                return out
            select.select([self.res], [], [], 0.5)  # past the timeout finish() only polls

    def stderr_tail(self, limit=30000):
        try:
            self.err.flush()
            with open(self.errpath, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - limit))
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def kill(self):
        if self.alive():
            self.proc.kill()
        self.close()

    def close(self):
        if self.proc is not None:
            try:
                self.cmd.close()
            except OSError:
                pass
            if self.proc.poll() is None:
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            os.close(self.res)
            self.err.close()
        self.proc = None
        self.pending = None
