"""ember.multiprocessing.spawn: run fn(i, *args) in nprocs processes and propagate their errors, as
torch.multiprocessing.spawn does."""

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile


class ProcessException(Exception):
    __slots__ = ["error_index", "pid"]

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a non-zero code or was killed by a signal."""

    __slots__ = ["exit_code", "signal_name"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent terminated this process (or Ctrl-C reached the group): nothing to report
    except Exception:  # SystemExit keeps its exit code (reported as such)
        import traceback

        # A file, not a pipe: a long traceback must not block a child whose parent reads only after it exits.
        with open(error_file, "w") as f:
            f.write(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None):
        """Waits for the processes; True when all have exited successfully, False on a timeout. Raises
        ProcessRaisedException / ProcessExitedException (after terminating the others) when one failed."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            p = self.processes[index]
            p.join()
            if p.exitcode != 0:
                failed = index
                break
        if failed is None:
            done = not self.sentinels
            if done:
                self._remove_error_files()
            return done
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join(10)
            if p.is_alive():
                p.kill()
                p.join()
        proc = self.processes[failed]
        trace = None
        try:
            with open(self.error_files[failed]) as f:
                trace = f.read() or None
        except OSError:
            pass
        self._remove_error_files()
        if trace is None:
            code = proc.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(
                    "process %d terminated with signal %s" % (failed, name),
                    error_index=failed,
                    error_pid=proc.pid,
                    exit_code=code,
                    signal_name=name,
                )
            raise ProcessExitedException(
                "process %d terminated with exit code %d" % (failed, code),
                error_index=failed,
                error_pid=proc.pid,
                exit_code=code,
            )
        msg = "\n\n-- Process %d terminated with the following error:\n" % failed + trace
        raise ProcessRaisedException(msg, failed, proc.pid)

    def _remove_error_files(self):
        for name in self.error_files:
            try:
                os.unlink(name)
            except OSError:
                pass


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    ctx = multiprocessing.get_context(start_method)
    error_files, processes = [], []
    for i in range(nprocs):
        fd, name = tempfile.mkstemp(prefix="ember-spawn-", suffix=".err")
        os.close(fd)
        os.unlink(name)  # the child creates it only when it fails
        error_files.append(name)
        p = ctx.Process(target=_wrap, args=(fn, i, args, name), daemon=daemon)
        p.start()
        processes.append(p)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts nprocs processes running fn(i, *args) (i = 0 .. nprocs-1). With join, waits for them and raises
    ProcessRaisedException (with the child's traceback) or ProcessExitedException when one fails, terminating the
    others; without, returns a ProcessContext."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
