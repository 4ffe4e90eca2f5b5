"""conv2d on the CPU, ember (oneDNN) beside PyTorch: 3x3 convolutions with padding 1 on a batch of 32 32x32 float32
images, 3->64 channels (a network's first layer: no input gradient) and 64->64, forward alone and forward+backward.
Prints ms per call and GFLOP/s for both and the ratio ember / torch (below 1: ember is faster). PyTorch runs in its
own process with as many threads as ember uses.

Goal (issue 5): at least PyTorch's speed. Run: scripts/bench conv (or python benchmarks/conv.py).
Options: --threads N (default: ember's count); --cpu-time times with the process's CPU time instead of the wall
clock, which with --threads 1 gives stable figures on a machine that other work shares (it counts no time spent
waiting for a core). EMBER_DNNL_LAYOUT=plain|any picks the oneDNN layout strategy (Note [oneDNN primitives] in
ember/backend/cpu/dnnl.cpp).
"""

import json
import os
import subprocess
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TORCH_PYTHON  # noqa: E402

N, HW, K = 32, 32, 3


def setup(cin, cout, grad_input, grad):
    return f"""
F = lib.nn.functional
x = lib.randn({N}, {cin}, {HW}, {HW}).requires_grad_({grad and grad_input})
w = lib.randn({cout}, {cin}, {K}, {K}).requires_grad_({grad})
b = lib.randn({cout}).requires_grad_({grad})
gy = lib.randn({N}, {cout}, {HW}, {HW})
"""


def flops(cin, cout):
    return 2 * N * cout * HW * HW * cin * K * K  # one pass: multiply-adds of the forward, or of one gradient


# (name, setup, statement, FLOPs per call)
CASES = []
for cin, cout in ((3, 64), (64, 64)):
    grad_input = cin != 3  # a first layer's input needs no gradient
    CASES.append(
        (f"{cin}->{cout} forward", setup(cin, cout, False, False), "F.conv2d(x, w, b, padding=1)", flops(cin, cout))
    )
    CASES.append(
        (
            f"{cin}->{cout} forward+backward",
            setup(cin, cout, grad_input, True),
            "F.conv2d(x, w, b, padding=1).backward(gy)",
            flops(cin, cout) * (3 if grad_input else 2),
        )
    )


def time_per_call(stmt, setup, namespace, timer, target_s=0.5, repeats=7):
    """Median seconds per call over `repeats` runs of about `target_s` each (common.time_per_call with a timer)."""
    t = timeit.Timer(stmt, setup, timer=timer, globals=namespace)
    n = max(1, int(target_s / max(t.timeit(1), 1e-6)))
    runs = sorted(t.repeat(repeats, n))
    return runs[len(runs) // 2] / n


def run(lib_name, threads, cpu_time):
    lib = __import__(lib_name)
    if lib_name == "torch":
        import torch.nn.functional  # noqa: F401
    lib.set_num_threads(threads)
    timer = time.process_time if cpu_time else time.perf_counter
    return {name: time_per_call(stmt, s, {"lib": lib}, timer) for name, s, stmt, _ in CASES}


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    cpu_time = "--cpu-time" in sys.argv
    if "--child" in sys.argv:
        print(json.dumps(run(arg("--child", "torch"), int(arg("--threads", 1)), cpu_time)))
        return
    import ember

    threads = int(arg("--threads", ember.get_num_threads()))
    ours = run("ember", threads, cpu_time)
    theirs, version = None, None
    try:
        proc = subprocess.run(
            [TORCH_PYTHON, __file__, "--child", "torch", "--threads", str(threads)]
            + (["--cpu-time"] if cpu_time else []),
            capture_output=True,
            text=True,
            check=True,
        )
        theirs = json.loads(proc.stdout.strip().splitlines()[-1])
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(PyTorch not available through {TORCH_PYTHON}: {e}; showing ember only)")
    layout = os.environ.get("EMBER_DNNL_LAYOUT", "any")
    print(
        f"conv.py: conv2d {K}x{K}, padding 1, batch {N}, {HW}x{HW}, float32, {threads} threads, oneDNN layout "
        f"{layout}; median of 7 runs ({'CPU' if cpu_time else 'wall'} time); ember vs PyTorch {version or '-'}"
    )
    print(f"{'case':<26}{'ember ms':>10}{'GFLOP/s':>9}{'torch ms':>10}{'GFLOP/s':>9}{'ratio':>7}")
    for name, _, _, fl in CASES:
        e = ours[name]
        row = f"{name:<26}{e * 1e3:>10.2f}{fl / e / 1e9:>9.1f}"
        if theirs:
            tt = theirs[name]
            row += f"{tt * 1e3:>10.2f}{fl / tt / 1e9:>9.1f}{e / tt:>7.2f}"
        print(row)


if __name__ == "__main__":
    main()
