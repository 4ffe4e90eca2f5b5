"""Checkpoint save and load of a ~100 MB and a ~1 GB state dict (float32 tensors of 1 MiB), ember beside PyTorch's
torch.save / torch.load (its own process, benchmarks/common.py; TORCH_PYTHON=/opt/torch2/py for PyTorch 2.15), plus
ember's loads without checksum verification (verify=False), mmap loads, ember's own format (save_ember) and
safetensors. ember.save writes PyTorch's zip format, whose members' CRC-32s ember.load checks by default (also under
mmap=True, where torch.load does not); ember's own format has a CRC-32C per storage (Note [Checkpoint checksums]).

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

ROWS, COLS = 512, 512  # 1 MiB of float32 per tensor
SIZES = [int(n) for n in os.environ.get("BENCH_TENSORS", "100,1000").split(",")]  # ~100 MB and ~1 GB
REPEATS = 5


def median_time(fn, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def run(lib_name, n_tensors):
    lib = __import__(lib_name)
    lib.manual_seed(0)
    sd = {f"layer{i}.weight": lib.randn(ROWS, COLS) for i in range(n_tensors)}
    repeats = REPEATS if n_tensors <= 100 else 3
    out = {}

    def read_all(d):
        return [t.clone() for t in d.values()]  # touches every byte (a copy costs the same in both)

    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as d:
        path = os.path.join(d, "model.ckpt")
        out["save"] = median_time(lambda: lib.save(sd, path), repeats)
        out["load"] = median_time(lambda: lib.load(path), repeats)
        out["load mmap=True + read all"] = median_time(lambda: read_all(lib.load(path, mmap=True)), repeats)
        if lib_name == "ember":
            out["load verify=False"] = median_time(lambda: lib.load(path, verify=False), repeats)
            out["load mmap=True verify=False + read all"] = median_time(
                lambda: read_all(lib.load(path, mmap=True, verify=False)), repeats
            )
            out["load mmap=True verify=False (lazy)"] = median_time(
                lambda: lib.load(path, mmap=True, verify=False), repeats
            )
            native = os.path.join(d, "model.ember")  # ember's own format (docs/serialization.md)
            out["save_ember"] = median_time(lambda: lib.serialization.save_ember(sd, native), repeats)
            out["load (ember's format)"] = median_time(lambda: lib.load(native), repeats)
            from ember import safetensors

            st = os.path.join(d, "model.safetensors")
            out["safetensors save_file"] = median_time(lambda: safetensors.save_file(sd, st), repeats)
            out["safetensors load_file"] = median_time(lambda: safetensors.load_file(st), repeats)
        out["file MB"] = os.path.getsize(path) / 1e6
    return out


def main():
    if "--child" in sys.argv:
        k = sys.argv.index("--child")
        print(json.dumps(run(sys.argv[k + 1], int(sys.argv[k + 2]))))
        return
    version = "-"
    try:
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(PyTorch not available through {TORCH_PYTHON}: {e}; showing ember only)")
    for n in SIZES:
        ours = run("ember", n)
        theirs = {}
        if version != "-":
            proc = subprocess.run(
                [TORCH_PYTHON, os.path.abspath(__file__), "--child", "torch", str(n)],
                capture_output=True,
                text=True,
                check=True,
            )
            theirs = json.loads(proc.stdout.strip().splitlines()[-1])
        print(
            f"serialize.py: seconds, median of {REPEATS if n <= 100 else 3} runs; {n} tensors of {ROWS}x{COLS} "
            f"float32 ({ours['file MB']:.1f} MB file); ember vs PyTorch {version} (torch.save's file: "
            f"{theirs.get('file MB', float('nan')):.1f} MB)"
        )
        print(f"{'case':<42}{'ember':>10}{'torch':>10}{'ratio':>8}")
        for name, e in ours.items():
            if name == "file MB":
                continue
            t = theirs.get(name)
            print(f"{name:<42}{e:>10.4f}" + (f"{t:>10.4f}{e / t:>8.2f}" if t else f"{'-':>10}{'-':>8}"))
        print()


if __name__ == "__main__":
    main()
