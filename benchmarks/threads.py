"""ember with 2 threads against ember with 1 thread on the same work, across sizes around the grain
size where waking a worker can cost more than it saves. Goal (issue 3): 2 threads never slower than 1.
Also prints PyTorch's 2-vs-1 ratio where PyTorch is available. Run: scripts/bench threads
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TORCH_PYTHON, time_per_call  # noqa: E402

SIZES = [4096, 32768, 65536, 262144, 1 << 20, 1 << 24]
OPS = [("a + b", "a + b"), ("exp(a)", "a.exp()"), ("a.sum()", "a.sum()"), ("a.sum(0) [n/64, 64]", "c.sum(0)")]


def measure(lib_name):
    lib = __import__(lib_name)
    out = {}
    for threads in (1, 2):
        lib.set_num_threads(threads)
        for n in SIZES:
            setup = f"a = lib.rand({n}); b = lib.rand({n}); c = lib.rand({n // 64}, 64)"
            for name, stmt in OPS:
                out[f"{name}|{n}|{threads}"] = time_per_call(stmt, setup, {"lib": lib}, target_s=0.1, repeats=5)
    return out


if __name__ == "__main__":
    if "--child" in sys.argv:
        print(json.dumps(measure(sys.argv[sys.argv.index("--child") + 1])))
        sys.exit()
    ours = measure("ember")
    try:
        proc = subprocess.run([TORCH_PYTHON, __file__, "--child", "torch"], capture_output=True, text=True, check=True)
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
