"""A fuzz worker: `python worker.py CMD_FD RESULT_FD RLIMIT_GB`, started by pool.py.

Reads one JSON message per line from CMD_FD ({"seed", "setup", "call"}: source made by calls.Call.source), runs it and
answers one JSON line on RESULT_FD: {"ok": true} or {"ok": false, "stage", "exc", "msg"}. The call's namespace is
cleared before answering, so a crash in a destructor still belongs to the call. A worker that dies (a signal, an exit)
answers nothing: the pool notices the closed pipe.

The address space is capped (RLIMIT_AS, before ember is imported) so that an allocation far too large fails as
ember's OutOfMemoryError or MemoryError instead of taking the machine's memory; 0 leaves it uncapped (AddressSanitizer
reserves terabytes of address space for its shadow).
"""

import json
import os
import resource
import signal
import sys
import warnings


def main():
    cmd_fd, res_fd, rlimit_gb = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    if rlimit_gb > 0:
        limit = int(rlimit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's to handle
    warnings.simplefilter("ignore")  # the calls warn by the thousand; the report wants only crashes
    sys.setrecursionlimit(2000)

    sys.path[0] = os.path.dirname(sys.path[0])  # python/tests/fuzz, not this folder
    import ember
    from apifuzz.calls import USE_SOURCE

    base = {"ember": ember, "__name__": "__fuzz__"}
    exec(USE_SOURCE, base)
    default_dtype = ember.get_default_dtype()
    out = os.fdopen(res_fd, "w", buffering=1)
    out.write(json.dumps({"ready": os.getpid()}) + "\n")
    for line in os.fdopen(cmd_fd, "r"):
        msg = json.loads(line)
        ns = dict(base)
        stage = "setup"
        try:
            ember.manual_seed(msg["seed"])
            exec(compile(msg["setup"], "<setup>", "exec"), ns)
            stage = "call"
            exec(compile(msg["call"], "<call>", "exec"), ns)
            res = {"ok": True}
        except BaseException as e:  # SystemExit and KeyboardInterrupt from a call are findings too, not our exit
            try:
                text = str(e)[:300]
            except BaseException:
                text = "<str() raised>"
            res = {"ok": False, "stage": stage, "exc": type(e).__name__, "msg": text}
        ns.clear()
        # Grad mode and the default dtype are put back, in case a call changed them on the way (the callables that
        # set them are denylisted).
        if not ember.is_grad_enabled():
            ember.set_grad_enabled(True)
        if ember.get_default_dtype() != default_dtype:
            ember.set_default_dtype(default_dtype)
        out.write(json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
