"""The steps of benchmarks/steps.py, ember beside PyTorch, measured interleaved on a machine that is not quiet.

  benchmarks/interleaved.py [--rounds R] [--seconds S] [--before PYTHONPATH] [CASE ...]   (default: the ResNet cases)

One long-lived process per configuration (ember at 1 and 2 threads; PyTorch at 1 and 2 threads, with OpenMP's
default and passive waiting) runs S seconds of a case per request; the configurations take turns in a shuffled order,
R rounds, so that a change in the machine's load falls on all of them alike. Each request reports the wall time, the
process's CPU time and the calling thread's CPU time per step; the table gives their medians over the rounds.

On a busy machine the wall time measures the scheduler more than the library: a one-thread run's CPU time is what
its wall time would be on a quiet machine, and for two threads the calling thread's CPU time is close to it (ember's
caller runs the chunks that late workers have not taken, so it is an upper bound for ember; PyTorch's caller runs
its static share and sleeps at the barrier with passive waiting). After a request of PyTorch with active waiting the
driver pauses, since its OpenMP threads spin for about 200 ms after each parallel region.

--before adds "before 1T" and "before 2T": another build of ember, imported from that PYTHONPATH (for a worktree built
with scripts/dev-build NAME: DIR/build/NAME/pkg:DIR/build/NAME/site), interleaved with the rest, to measure a change.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps  # noqa: E402
from common import TORCH_PYTHON  # noqa: E402

CASES = {name: (setup, stmt) for name, setup, stmt in steps.TRAIN_STEPS + steps.INFERENCE_STEPS}
DEFAULT = ["ResNet-18 CIFAR train b32", "ResNet-18 CIFAR eval b1", "ResNet-50 eval b1 224"]
CONFIGS = [  # (label, python, library, threads, environment)
    ("ember 1T", sys.executable, "ember", 1, {}),
    ("ember 2T", sys.executable, "ember", 2, {}),
    ("torch 1T", TORCH_PYTHON, "torch", 1, {}),
    ("torch 2T", TORCH_PYTHON, "torch", 2, {}),
    ("torch 2T passive", TORCH_PYTHON, "torch", 2, {"OMP_WAIT_POLICY": "PASSIVE"}),
]


def worker(lib_name, threads):
    """Serves requests `case<TAB>steps` on stdin with `[wall, cpu, thread cpu]` per step on stdout."""
    ns = steps.namespace(lib_name)
    ns["lib"].set_num_threads(threads)
    ready = {}
    print("ready", flush=True)
    for line in sys.stdin:
        name, n = line.rstrip("\n").split("\t")
        if name not in ready:
            setup, stmt = CASES[name]
            g = dict(ns)
            exec(setup, g)
            code = compile(stmt, name, "exec")
            exec(code, g)  # warm-up: primitives, caches, thread start
            exec(code, g)
            ready[name] = (g, code)
        g, code = ready[name]
        n = int(n)
        t0, c0, m0 = time.perf_counter(), time.process_time(), time.thread_time()
        for _ in range(n):
            exec(code, g)
        t1, c1, m1 = time.perf_counter(), time.process_time(), time.thread_time()
        print(json.dumps([(t1 - t0) / n, (c1 - c0) / n, (m1 - m0) / n]), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", default=DEFAULT)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--before", metavar="PYTHONPATH", help="another ember build to interleave as 'before'")
    args = ap.parse_args()
    procs = {}
    configs = CONFIGS
    if args.before:
        configs = (
            CONFIGS[:2]
            + [(f"before {t}T", sys.executable, "ember", t, {"PYTHONPATH": args.before}) for t in (1, 2)]
            + CONFIGS[2:]
        )
    for label, python, lib_name, threads, env in configs:
        cmd = [python, os.path.abspath(__file__), "--worker", lib_name, str(threads)]
        try:
            p = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, **env}
            )
        except OSError:
            continue  # no PyTorch
        if p.stdout.readline().strip() == "ready":
            procs[label] = p

    def ask(label, case, n):
        procs[label].stdin.write(f"{case}\t{n}\n")
        procs[label].stdin.flush()
        r = json.loads(procs[label].stdout.readline())
        if label == "torch 2T":
            time.sleep(0.4)
        return r

    print(f"median of {args.rounds} interleaved rounds of ~{args.seconds} s; ms per step")
    print(f"{'case':<28}{'config':<18}{'wall':>9}{'cpu':>9}{'thread cpu':>12}")
    for case in args.cases:
        n = {label: max(1, int(args.seconds / max(ask(label, case, 1)[0], 1e-6))) for label in procs}
        runs = {label: [] for label in procs}
        for _ in range(args.rounds):
            order = list(procs)
            random.shuffle(order)
            for label in order:
                runs[label].append(ask(label, case, n[label]))
        best = {}
        for label, r in runs.items():
            wall, cpu, main_cpu = (statistics.median(x[i] for x in r) * 1e3 for i in range(3))
            best[label] = main_cpu
            print(f"{case:<28}{label:<18}{wall:>9.2f}{cpu:>9.2f}{main_cpu:>12.2f}")
        ours = [v for k, v in best.items() if k.startswith("ember")]
        if args.before:
            was = min(v for k, v in best.items() if k.startswith("before"))
            print(f"{case:<28}{'ember / before':<18}{min(ours) / was:>30.2f}")
        theirs = [v for k, v in best.items() if k.startswith("torch")]
        if ours and theirs:
            print(f"{case:<28}{'ratio (thread cpu)':<18}{min(ours) / min(theirs):>30.2f}")
    for p in procs.values():
        p.stdin.close()
        p.wait()


if __name__ == "__main__":
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        worker(sys.argv[i + 1], int(sys.argv[i + 2]))
    else:
        main()
