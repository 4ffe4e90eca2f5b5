"""The FFT engine (docs/fft.md): ember's internal ops beside NumPy's pocketfft (numpy.fft, this process) and PyTorch's
torch.fft (its own process: TORCH_PYTHON, by default /opt/torch2/py). float32 (complex64) data; per-call medians; the
ratios are ember / NumPy and ember / PyTorch. THREADS=n sets ember's and PyTorch's thread count (NumPy's FFT runs on
one thread). Run: .venv/bin/python benchmarks/fft.py"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import time_per_call  # noqa: E402

TORCH_PYTHON = os.environ.get("TORCH_PYTHON", "/opt/torch2/py")
T = int(os.environ.get("THREADS", "0"))

# (name, kind, shape, dims): kind c2c takes complex data of `shape`, r2c real data.
CASES = [
    ("c2c 1024", "c2c", (1024,), (-1,)),
    ("c2c 4096", "c2c", (4096,), (-1,)),
    ("c2c 2^20", "c2c", (1 << 20,), (-1,)),
    ("c2c 1000", "c2c", (1000,), (-1,)),
    ("c2c 4099 (prime)", "c2c", (4099,), (-1,)),
    ("r2c 1024", "r2c", (1024,), (-1,)),
    ("r2c 4096", "r2c", (4096,), (-1,)),
    ("r2c 2^20", "r2c", (1 << 20,), (-1,)),
    ("r2c 1000", "r2c", (1000,), (-1,)),
    ("r2c 4099 (prime)", "r2c", (4099,), (-1,)),
    ("c2c 1024 x 64 batch", "c2c", (64, 1024), (-1,)),
    ("c2c 2-d 8 x 256x256", "c2c", (8, 256, 256), (-2, -1)),
    ("r2c 2-d 8 x 256x256", "r2c", (8, 256, 256), (-2, -1)),
    ("c2c 2-d 1024x1024", "c2c", (1024, 1024), (-2, -1)),
    ("r2c 2-d 1024x1024", "r2c", (1024, 1024), (-2, -1)),
]


def setup(lib, kind, shape, dims):
    """The call to time, as a zero-argument function over data made once."""
    name = lib.__name__
    if name == "numpy":
        rng = lib.random.default_rng(0)
        if kind == "c2c":
            x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(lib.complex64)
            return lambda: lib.fft.fftn(x, axes=dims)
        x = rng.standard_normal(shape).astype(lib.float32)
        return lambda: lib.fft.rfftn(x, axes=dims)
    if T:
        lib.set_num_threads(T)
    if name == "torch":
        if kind == "c2c":
            x = lib.randn(shape, dtype=lib.complex64)
            return lambda: lib.fft.fftn(x, dim=dims)
        x = lib.randn(shape)
        return lambda: lib.fft.rfftn(x, dim=dims)
    if kind == "c2c":
        x = lib.randn(*shape, 2)
        return lambda: lib._C._fft_c2c(x, list(dims), 0, True)
    x = lib.randn(*shape)
    return lambda: lib._C._fft_r2c(x, list(dims), 0, True)


def run(lib_name):
    lib = __import__(lib_name)
    out = {}
    for name, kind, shape, dims in CASES:
        f = setup(lib, kind, shape, dims)
        out[name] = time_per_call("f()", "", {"f": f}, target_s=0.1)
    return out


def main():
    if "--child" in sys.argv:
        print(json.dumps(run(sys.argv[sys.argv.index("--child") + 1])))
        return
    ours, npy = run("ember"), run("numpy")
    theirs, version = None, "-"
    try:
        proc = subprocess.run([TORCH_PYTHON, __file__, "--child", "torch"], capture_output=True, text=True, check=True)
        theirs = json.loads(proc.stdout.strip().splitlines()[-1])
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(PyTorch not available through {TORCH_PYTHON}: {e})")
    print(f"fft.py: per call in us, median of 7 runs; ember vs NumPy's pocketfft and PyTorch {version}")
    print(f"{'case':<24}{'ember':>10}{'numpy':>10}{'torch':>10}{'/numpy':>8}{'/torch':>8}")
    for name, *_ in CASES:
        e, n = ours[name] * 1e6, npy[name] * 1e6
        t = theirs[name] * 1e6 if theirs else float("nan")
        print(f"{name:<24}{e:>10.1f}{n:>10.1f}{t:>10.1f}{e / n:>8.2f}{e / t:>8.2f}")


if __name__ == "__main__":
    main()
