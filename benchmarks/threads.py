"""Threads, ember beside PyTorch.

  scripts/bench threads            2 threads against 1 on a quiet machine, across sizes around the grain size.
  benchmarks/threads.py --load N   N busy processes (pure-Python loops) run beside the measurement: prints, for the
                                   NCF, CNN and GPT training steps and for elementwise and reduction sizes around the
                                   grain size, each library's time at 2 threads under load over its own time at 1
                                   thread on the quiet machine (PyTorch with OpenMP's default and passive waiting).

Goal (issue 21): ember at 2 threads under load is never slower than ember at 1 thread (ratio <= 1.00), and its
absolute time is at most PyTorch's best configuration's.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps  # noqa: E402
from common import TORCH_PYTHON, time_per_call  # noqa: E402

SIZES = [4096, 32768, 65536, 262144, 1 << 20, 1 << 24]
OPS = [("a + b", "a + b"), ("exp(a)", "a.exp()"), ("a.sum()", "a.sum()"), ("a.sum(0) [n/64, 64]", "c.sum(0)")]
LOAD_SIZES = [32768, 65536, 262144, 1 << 20]
LOAD_OPS = [("a + b", "a + b"), ("a.sum()", "a.sum()")]
LOAD_STEPS = [s for s in steps.TRAIN_STEPS if s[0].split()[0] in ("NCF", "CNN", "GPT")]


def measure_sizes(lib_name, ops, sizes, thread_counts):
    lib = __import__(lib_name)
    out = {}
    for threads in thread_counts:
        lib.set_num_threads(threads)
        for n in sizes:
            setup = f"a = lib.rand({n}); b = lib.rand({n}); c = lib.rand({n // 64}, 64)"
            for name, stmt in ops:
                out[f"{name}|{n}|{threads}"] = time_per_call(stmt, setup, {"lib": lib}, target_s=0.1, repeats=5)
    return out


def measure_load_cases(lib_name, threads):
    """Seconds per call of the --load cases at `threads` threads."""
    ns = steps.namespace(lib_name)
    ns["lib"].set_num_threads(threads)
    out = {}
    for name, setup, step in LOAD_STEPS:
        out[name] = time_per_call(step, setup, dict(ns), target_s=0.3, repeats=5)
    for n in LOAD_SIZES:
        setup = f"a = lib.rand({n}); b = lib.rand({n})"
        for name, stmt in LOAD_OPS:
            out[f"{name} n={n}"] = time_per_call(stmt, setup, dict(ns), target_s=0.1, repeats=5)
    return out


def child(python, lib_name, threads, env=None):
    cmd = [python, __file__, "--child", lib_name, str(threads)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env={**os.environ, **(env or {})})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def busy(n):
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    time.sleep(0.5)  # let the scheduler spread them
    return procs


def under_load(n, run):
    procs = busy(n)
    try:
        return run()
    finally:
        for p in procs:
            p.kill()
            p.wait()


def load_table(n_load):
    configs = [("ember", sys.executable, "ember", {})]
    if os.path.exists(TORCH_PYTHON):
        configs += [
            ("torch", TORCH_PYTHON, "torch", {}),
            ("torch passive", TORCH_PYTHON, "torch", {"OMP_WAIT_POLICY": "PASSIVE"}),
        ]
    quiet, loaded = {}, {}
    for label, python, lib, env in configs:
        try:
            quiet[label] = child(python, lib, 1, env)
            loaded[label] = under_load(n_load, lambda python=python, lib=lib, env=env: child(python, lib, 2, env))
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"({label} not available: {e})")
    version = ""
    if "torch" in quiet:
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
        ).stdout.strip()
    print(
        f"threads.py --load {n_load}: {n_load} busy process(es) beside 2 threads, over 1 thread on the quiet "
        f"machine (ember; PyTorch {version or '-'} default and OMP_WAIT_POLICY=PASSIVE)"
    )
    labels = [c[0] for c in configs if c[0] in quiet]
    head = f"{'case':<28}{'ember 1T':>11}{'ember 2T+L':>12}" + "".join(f"{lab + ' ratio':>20}" for lab in labels)
    head += f"{'ember/torch best':>18}"
    print(head)
    for name in quiet["ember"]:
        unit, scale = ("ms", 1e3) if "train" in name else ("us", 1e6)
        e1, e2 = quiet["ember"][name], loaded["ember"][name]
        row = f"{name:<28}{e1 * scale:>8.2f}{unit:>3}{e2 * scale:>9.2f}{unit:>3}"
        for lab in labels:
            row += f"{loaded[lab][name] / quiet[lab][name]:>20.2f}"
        # against PyTorch's better waiting policy under the same load
        best = [loaded[lab][name] for lab in labels if lab != "ember"]
        row += f"{e2 / min(best):>18.2f}" if best else f"{'-':>18}"
        print(row)


def sizes_table():
    ours = measure_sizes("ember", OPS, SIZES, (1, 2))
    try:
        proc = subprocess.run(
            [TORCH_PYTHON, __file__, "--child-sizes", "torch"], capture_output=True, text=True, check=True
        )
        theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.CalledProcessError):
        theirs = None
    print("threads.py: time with 2 threads / time with 1 thread (below 1.00: the second thread helps)")
    print(f"{'op':<22}{'n':>10}{'ember 1T us':>13}{'ember 2T/1T':>13}{'torch 2T/1T':>13}")
    for name, _ in OPS:
        for n in SIZES:
            t1, t2 = ours[f"{name}|{n}|1"], ours[f"{name}|{n}|2"]
            tt = f"{theirs[f'{name}|{n}|2'] / theirs[f'{name}|{n}|1']:.2f}" if theirs else "-"
            print(f"{name:<22}{n:>10}{t1 * 1e6:>13.1f}{t2 / t1:>13.2f}{tt:>13}")


if __name__ == "__main__":
    if "--child" in sys.argv:
        i = sys.argv.index("--child")
        print(json.dumps(measure_load_cases(sys.argv[i + 1], int(sys.argv[i + 2]))))
    elif "--child-sizes" in sys.argv:
        print(json.dumps(measure_sizes(sys.argv[sys.argv.index("--child-sizes") + 1], OPS, SIZES, (1, 2))))
    elif "--load" in sys.argv:
        load_table(int(sys.argv[sys.argv.index("--load") + 1]))
    else:
        sizes_table()
