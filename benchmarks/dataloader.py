"""DataLoader throughput beside PyTorch: batches per second over an epoch of a map-style dataset of 60,000 28x28
float32 tensors (batch_size 64, shuffled), with 0 and 2 worker processes, and the time to the first batch (which
includes starting the workers). Two datasets: a TensorDataset (with an int64 label tensor) and a Python Dataset
whose __getitem__ returns (tensor, int).

Iterating starts worker processes, so this script has its own harness instead of common.py's timeit loop: each
case runs `--epochs` epochs (median reported); PyTorch runs the same code in its own process through
/usr/bin/python3 (Debian's python3-torch). Run: scripts/bench dataloader  (or python benchmarks/dataloader.py)
"""

import json
import os
import statistics
import subprocess
import sys
import time

TORCH_PYTHON = os.environ.get("TORCH_PYTHON", "/usr/bin/python3")
N, BATCH = 60000, 64


def make_datasets(lib):
    data = lib.utils.data
    lib.manual_seed(0)
    x = lib.rand(N, 28, 28)
    y = lib.randint(0, 10, (N,))
    labels = y.tolist()

    class PyDataset(data.Dataset):
        def __getitem__(self, i):
            return x[i], labels[i]

        def __len__(self):
            return N

    return {"TensorDataset": data.TensorDataset(x, y), "Dataset (tensor, int)": PyDataset()}


def run_case(lib, ds, workers, epochs):
    loader = lib.utils.data.DataLoader(
        ds, batch_size=BATCH, shuffle=True, num_workers=workers, persistent_workers=False
    )
    firsts, rates = [], []
    for _ in range(epochs):
        t0 = time.perf_counter()
        it = iter(loader)
        next(it)
        t1 = time.perf_counter()
        n = 1
        for _ in it:
            n += 1
        t2 = time.perf_counter()
        del it
        firsts.append(t1 - t0)
        rates.append((n - 1) / (t2 - t1))
    return statistics.median(rates), statistics.median(firsts)


def run_all(lib_name, epochs):
    lib = __import__(lib_name)
    out = {}
    for name, ds in make_datasets(lib).items():
        for workers in (0, 2):
            rate, first = run_case(lib, ds, workers, epochs)
            out["%s, %d workers" % (name, workers)] = [rate, first]
    return out


def main():
    epochs = int(sys.argv[sys.argv.index("--epochs") + 1]) if "--epochs" in sys.argv else 3
    if "--child" in sys.argv:
        print(json.dumps(run_all(sys.argv[sys.argv.index("--child") + 1], epochs)))
        return
    ours = run_all("ember", epochs)
    theirs, version = None, None
    try:
        proc = subprocess.run(
            [TORCH_PYTHON, __file__, "--child", "torch", "--epochs", str(epochs)],
            capture_output=True,
            text=True,
            check=True,
        )
        theirs = json.loads(proc.stdout.strip().splitlines()[-1])
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print("(PyTorch not available through %s: %s; showing ember only)" % (TORCH_PYTHON, e))
    print(
        "dataloader.py: %d samples of 28x28 float32, batch %d, shuffled; median of %d epochs; ember vs PyTorch %s"
        % (N, BATCH, epochs, version or "-")
    )
    print(
        "%-34s%11s%11s%8s%13s%13s%8s" % ("case", "ember b/s", "torch b/s", "e/t", "ember 1st ms", "torch 1st ms", "e/t")
    )
    for name, (rate, first) in ours.items():
        if theirs:
            trate, tfirst = theirs[name]
            print(
                "%-34s%11.0f%11.0f%8.2f%13.1f%13.1f%8.2f"
                % (name, rate, trate, rate / trate, first * 1e3, tfirst * 1e3, first / tfirst)
            )
        else:
            print("%-34s%11.0f%11s%8s%13.1f%13s%8s" % (name, rate, "-", "-", first * 1e3, "-", "-"))
    print(
        "(b/s: batches per second over the epoch after the first batch, higher is better; 1st: time from iter() "
        "to the first batch, lower is better)"
    )


if __name__ == "__main__":
    main()
