"""Checkpoint save and load of a ~100 MB state dict (100 float32 tensors of 1 MiB), ember beside PyTorch's
torch.save / torch.load (its own process, benchmarks/common.py), plus ember's mmap load and safetensors.

Files go to one temporary directory (BENCH_DIR, default the system's) and are read back while still in the page
cache, so load times are the format's cost, not the disk's. ember.save fsyncs (Note [Atomic save]): that is part
of its time, and torch.save does not do it. Medians of 5 runs.
Run: scripts/bench serialize    (or: python benchmarks/serialize.py)
"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TORCH_PYTHON  # noqa: E402

N_TENSORS, ROWS, COLS = 100, 512, 512  # 100 x 1 MiB of float32
REPEATS = 5


def median_time(fn, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def run(lib_name):
    lib = __import__(lib_name)
    lib.manual_seed(0)
    sd = {f"layer{i}.weight": lib.randn(ROWS, COLS) for i in range(N_TENSORS)}
    out = {}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        path = os.path.join(d, "model.ckpt")
        out["save 100 MB state dict"] = median_time(lambda: lib.save(sd, path))
        out["load"] = median_time(lambda: lib.load(path))
        if lib_name == "ember":
            out["load mmap=True"] = median_time(lambda: lib.load(path, mmap=True))
            out["load mmap=True + read all"] = median_time(
                lambda: [t.sum() for t in lib.load(path, mmap=True).values()]
            )
            from ember import safetensors

            st = os.path.join(d, "model.safetensors")
            out["safetensors save_file"] = median_time(lambda: safetensors.save_file(sd, st))
            out["safetensors load_file"] = median_time(lambda: safetensors.load_file(st))
        out["file MB"] = os.path.getsize(path) / 1e6
    return out


def main():
    if "--child" in sys.argv:
        print(json.dumps(run(sys.argv[sys.argv.index("--child") + 1])))
        return
    ours = run("ember")
    theirs, version = {}, "-"
    try:
        proc = subprocess.run(
            [TORCH_PYTHON, os.path.abspath(__file__), "--child", "torch"], capture_output=True, text=True, check=True
        )
        theirs = json.loads(proc.stdout.strip().splitlines()[-1])
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(PyTorch not available through {TORCH_PYTHON}: {e}; showing ember only)")
    print(
        f"serialize.py: seconds, median of {REPEATS} runs; {N_TENSORS} tensors of {ROWS}x{COLS} float32 "
        f"({ours['file MB']:.1f} MB file); ember vs PyTorch {version} (torch.save's file: "
        f"{theirs.get('file MB', float('nan')):.1f} MB)"
    )
    print(f"{'case':<30}{'ember':>10}{'torch':>10}{'ratio':>8}")
    for name, e in ours.items():
        if name == "file MB":
            continue
        t = theirs.get(name)
        print(f"{name:<30}{e:>10.4f}" + (f"{t:>10.4f}{e / t:>8.2f}" if t else f"{'-':>10}{'-':>8}"))


if __name__ == "__main__":
    main()
