"""Runs the same workload in ember (this interpreter) and in PyTorch (its own process, by default
Debian's python3-torch through /usr/bin/python3) and prints both with the ratio ember / torch."""

import json
import os
import subprocess
import sys
import timeit

TORCH_PYTHON = os.environ.get("TORCH_PYTHON", "/usr/bin/python3")


def time_per_call(stmt, setup, namespace, target_s=0.2, repeats=7):
    """Median seconds per call over `repeats` runs of about `target_s` each."""
    timer = timeit.Timer(stmt, setup, globals=namespace)
    n, t = 1, 0.0
    while t < target_s / 10:
        n *= 10
        t = timer.timeit(n)
    n = max(1, int(n * target_s / max(t, 1e-9)))
    runs = sorted(timer.repeat(repeats, n))
    return runs[len(runs) // 2] / n


def run_cases(lib_name, cases):
    lib = __import__(lib_name)
    out = {}
    for name, setup, stmt in cases:
        ns = {"lib": lib}
        out[name] = time_per_call(stmt, setup, ns)
    return out


def main(script, cases, unit=1e-6, unit_name="us"):
    if "--child" in sys.argv:
        print(json.dumps(run_cases(sys.argv[sys.argv.index("--child") + 1], cases)))
        return
    ours = run_cases("ember", cases)
    theirs, version = None, None
    try:
        proc = subprocess.run([TORCH_PYTHON, script, "--child", "torch"], capture_output=True, text=True, check=True)
        theirs = json.loads(proc.stdout.strip().splitlines()[-1])
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(PyTorch not available through {TORCH_PYTHON}: {e}; showing ember only)")
    print(f"{os.path.basename(script)}: per call in {unit_name}, median of 7 runs; ember vs PyTorch {version or '-'}")
    print(f"{'case':<32}{'ember':>10}{'torch':>10}{'ratio':>8}")
    for name, _, _ in cases:
        e = ours[name] / unit
        if theirs:
            t = theirs[name] / unit
            print(f"{name:<32}{e:>10.3f}{t:>10.3f}{e / t:>8.2f}")
        else:
            print(f"{name:<32}{e:>10.3f}{'-':>10}{'-':>8}")
