"""The heavy ops of neural networks, ember beside PyTorch (its own process, benchmarks/common.py) and, where one
exists, beside the library ember calls for it, called directly (OpenBLAS's cblas_sgemm through ctypes, on the same
libopenblas.so.0 ember links).

Each case gives per-call times, GFLOP/s where it has a FLOP count, and the ratios ember / torch (time) and
ember / direct (throughput). Goal for matmul (issue 5): at least 95% of OpenBLAS called directly.
Run: scripts/bench nn    (or: python benchmarks/nn.py [name-filter])

CASES is the list to extend (convolutions, LSTMs): a Case has a name, a setup and a statement run with `lib` bound
to ember or torch, the FLOPs of one call (0: no GFLOP/s column), and optionally the direct library's setup and
statement (run with `np` and `blas` bound; see DIRECT_SETUP).
"""

import ctypes
import json
import os
import subprocess
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TORCH_PYTHON, time_per_call  # noqa: E402


class Case:
    def __init__(self, name, setup, stmt, flops=0, direct=None):
        self.name, self.setup, self.stmt, self.flops, self.direct = name, setup, stmt, flops, direct


# cblas_sgemm on row-major float32 NumPy arrays, C = A @ B, with its arguments converted once (in the setup).
DIRECT_SETUP = """
_p = ctypes.POINTER(ctypes.c_float)
blas.cblas_sgemm.argtypes = [ctypes.c_int] * 6 + [ctypes.c_float, _p, ctypes.c_int, _p, ctypes.c_int, ctypes.c_float,
                                                   _p, ctypes.c_int]
def sgemm_call(a, b, c):
    m, k = a.shape
    n = b.shape[1]
    args = (101, 111, 111, m, n, k, 1.0, a.ctypes.data_as(_p), k, b.ctypes.data_as(_p), n, 0.0,
            c.ctypes.data_as(_p), n)
    f = blas.cblas_sgemm
    return lambda: f(*args)
"""


def matmul_case(n, dtype="float32"):
    setup = f"a = lib.randn({n}, {n}, dtype=lib.{dtype}); b = lib.randn({n}, {n}, dtype=lib.{dtype})"
    direct = (
        f"a = np.random.default_rng(0).standard_normal(({n}, {n})).astype(np.float32); b = a.copy(); "
        f"c = np.empty_like(a); call = sgemm_call(a, b, c)",
        "call()",
    )
    return Case(f"matmul {n}x{n} {dtype}", setup, "a @ b", 2 * n**3, direct)


CASES = [
    matmul_case(256),
    matmul_case(1024),
    matmul_case(2048),
    Case(
        "bmm 64x(64x64) float32",
        "a = lib.randn(64, 64, 64); b = lib.randn(64, 64, 64)",
        "lib.bmm(a, b)",
        64 * 2 * 64**3,
    ),
    Case(
        "linear 128x1024 -> 1024 +bias",
        "x = lib.randn(128, 1024); w = lib.randn(1024, 1024); b = lib.randn(1024)",
        "lib.nn.functional.linear(x, w, b)",
        2 * 128 * 1024 * 1024,
    ),
    Case(
        "linear [32,64,512] -> 512",
        "x = lib.randn(32, 64, 512); w = lib.randn(512, 512)",
        "lib.nn.functional.linear(x, w)",
        2 * 32 * 64 * 512 * 512,
    ),
    Case("mv 2048x2048", "a = lib.randn(2048, 2048); v = lib.randn(2048)", "lib.mv(a, v)", 2 * 2048 * 2048),
]


def conv_cases(cin, cout):
    """conv2d 3x3, padding 1, batch 32, 32x32 (benchmarks/conv.py has more variants and a --cpu-time mode)."""
    flops = 2 * 32 * cout * 32 * 32 * cin * 9
    setup = (
        f"x = lib.randn(32, {cin}, 32, 32); w = lib.randn({cout}, {cin}, 3, 3) * 0.1; b = lib.randn({cout})\n"
        f"xg = x.clone().requires_grad_(); wg = w.clone().requires_grad_(); bg = b.clone().requires_grad_()"
    )
    return [
        Case(f"conv2d {cin}->{cout} 3x3 b32 32x32 fwd", setup, "lib.nn.functional.conv2d(x, w, b, padding=1)", flops),
        Case(
            f"conv2d {cin}->{cout} 3x3 b32 32x32 fwd+bwd",
            setup,
            "lib.nn.functional.conv2d(xg, wg, bg, padding=1).sum().backward()",
            3 * flops,
        ),
    ]


LSTM_SETUP = "lib.manual_seed(0)\nm = lib.nn.LSTM(256, 256, num_layers=2)\nx = lib.randn(35, 20, 256)"
CASES += (
    conv_cases(3, 64)
    + conv_cases(64, 64)
    + [
        Case("LSTM 2x256 seq35 b20 fwd+bwd", LSTM_SETUP, "m(x)[0].sum().backward()"),
    ]
)


def run(lib_name, cases, threads=None):
    if lib_name == "torch":
        import torch as lib
        import torch.nn.functional  # noqa: F401

        if threads:  # the same thread count as ember (Debian's torch may default to 1 in a container)
            lib.set_num_threads(threads)
    else:
        import ember as lib
        import ember.nn.functional  # noqa: F401
    return {c.name: time_per_call(c.stmt, c.setup, {"lib": lib}) for c in cases}


def run_paired(cases):
    """ember and, where a case has one, the direct call, alternating run by run (so that both see the same load):
    median seconds per call of each."""
    import numpy as np

    import ember
    import ember.nn.functional  # noqa: F401

    direct_ns = {"np": np, "ctypes": ctypes, "blas": ctypes.CDLL("libopenblas.so.0")}  # the library ember loaded
    exec(DIRECT_SETUP, direct_ns)
    ours, direct = {}, {}
    for c in cases:
        timers = [timeit.Timer(c.stmt, c.setup, globals={"lib": ember})]
        if c.direct:
            timers.append(timeit.Timer(c.direct[1], c.direct[0], globals=direct_ns))
        counts = []
        for t in timers:  # calls per run: about 0.2 s
            n, el = 1, 0.0
            while el < 0.02:
                n *= 10
                el = t.timeit(n)
            counts.append(max(1, int(n * 0.2 / max(el, 1e-9))))
        runs = [[] for _ in timers]
        for _ in range(7):
            for i, t in enumerate(timers):
                runs[i].append(t.timeit(counts[i]) / counts[i])
        ours[c.name] = sorted(runs[0])[3]
        if c.direct:
            direct[c.name] = sorted(runs[1])[3]
    return ours, direct


def main():
    argv = sys.argv[1:]
    args = [
        a for i, a in enumerate(argv) if not a.startswith("--") and not (i and argv[i - 1] in ("--child", "--threads"))
    ]
    cases = [c for c in CASES if not args or any(a in c.name for a in args)]
    if "--child" in sys.argv:
        threads = int(sys.argv[sys.argv.index("--threads") + 1])
        print(json.dumps(run(sys.argv[sys.argv.index("--child") + 1], cases, threads)))
        return
    import ember

    threads = ember.get_num_threads()
    ours, direct = run_paired(cases)
    theirs, version = {}, "-"
    try:
        proc = subprocess.run(
            [TORCH_PYTHON, __file__, "--child", "torch", "--threads", str(threads), *args],
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
    print(
        f"nn.py: median of 7 runs, {threads} threads each; ember vs PyTorch {version} vs the library ember calls, "
        f"called directly (ember and direct alternate run by run)"
    )
    print(
        f"{'case':<34}{'ember ms':>10}{'torch ms':>10}{'direct ms':>10}{'ember GF/s':>11}{'torch GF/s':>11}"
        f"{'direct GF/s':>12}{'e/torch':>9}{'e/direct':>9}"
    )
    for c in cases:
        e, t, d = ours[c.name], theirs.get(c.name), direct.get(c.name)

        def ms(x):
            return f"{x * 1e3:>10.3f}" if x else f"{'-':>10}"

        def gf(x, w=11):
            return f"{c.flops / x / 1e9:>{w}.1f}" if x and c.flops else f"{'-':>{w}}"

        ratio_t = f"{e / t:>9.2f}" if t else f"{'-':>9}"
        ratio_d = f"{d / e * 100:>8.1f}%" if d else f"{'-':>9}"  # throughput ratio
        print(f"{c.name:<34}{ms(e)}{ms(t)}{ms(d)}{gf(e)}{gf(t)}{gf(d, 12)}{ratio_t}{ratio_d}")


if __name__ == "__main__":
    main()
