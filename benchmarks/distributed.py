"""Collectives and a DistributedDataParallel training step over Gloo on the CPU: ember beside PyTorch, two processes
per library (run one library after the other), per-call medians on rank 0. THREADS=n sets the threads per process
(default 1). Run: scripts/bench distributed"""

import json
import os
import socket
import subprocess
import sys
import time

TORCH_PYTHON = os.environ.get("TORCH_PYTHON", "/usr/bin/python3")
WORLD = 2
REPEATS = 7


def worker(lib_name, rank, port):
    lib = __import__(lib_name)
    import importlib

    dist = importlib.import_module(lib_name + ".distributed")
    lib.set_num_threads(int(os.environ.get("THREADS", "1")))
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    out = {}

    def timed(name, f):
        """Median seconds per call over REPEATS runs of n calls; every rank runs the same n (the largest any rank
        asks for), so that the collectives pair up."""
        for _ in range(3):
            f()
        t = time.perf_counter()
        f()
        n = lib.tensor([max(3, int(0.3 / REPEATS / max(time.perf_counter() - t, 1e-6)))])
        dist.all_reduce(n, op=dist.ReduceOp.MAX)
        runs = []
        for _ in range(REPEATS):
            dist.barrier()
            t = time.perf_counter()
            for _ in range(int(n.item())):
                f()
            runs.append((time.perf_counter() - t) / int(n.item()))
        out[name] = sorted(runs)[len(runs) // 2]

    for n, label in ((1024, "4 KB"), (262144, "1 MB"), (4194304, "16 MB")):
        x = lib.ones(n)
        timed("all_reduce float32 " + label, lambda: dist.all_reduce(x))
    y = lib.ones(262144)
    timed("broadcast float32 1 MB", lambda: dist.broadcast(y, 0))
    w = [lib.ones(1024) for _ in range(16)]
    timed(
        "16 async all_reduce 4 KB, then wait",
        lambda: [h.wait() for h in [dist.all_reduce(t, async_op=True) for t in w]],
    )

    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = lib.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    xb, yb = lib.randn(64, 784), lib.randint(0, 10, (64,))

    def step():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(ddp(xb), yb).backward()
        opt.step()

    timed("DDP step MLP 784-1024-1024-10 b64/rank", step)

    def local_step():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()

    timed("same step without DDP (local only)", local_step)
    dist.barrier()
    if rank == 0:
        print(json.dumps(out))
    dist.destroy_process_group()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(python, lib_name):
    port = _free_port()
    env = dict(os.environ)
    env.pop("PYTHONPATH", None) if lib_name == "torch" else None
    procs = [
        subprocess.Popen(
            [python, __file__, "--worker", lib_name, str(r), str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for r in range(WORLD)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (o, e) in zip(procs, outs):
        if p.returncode != 0:
            raise RuntimeError("{} worker failed:\n{}".format(lib_name, e[-3000:]))
    return json.loads(outs[0][0].strip().splitlines()[-1])


def main():
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        worker(sys.argv[i + 1], int(sys.argv[i + 2]), int(sys.argv[i + 3]))
        return
    ours = run(sys.executable, "ember")
    try:
        theirs = run(TORCH_PYTHON, "torch")
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
        ).stdout.strip()
    except Exception as e:  # no PyTorch: print ember's figures alone
        print("PyTorch run failed: {}".format(str(e).splitlines()[0]))
        theirs, version = {}, None
    threads = os.environ.get("THREADS", "1")
    print(
        f"distributed.py: gloo, {WORLD} processes x {threads} thread(s), per call in ms, median of {REPEATS} runs; "
        f"ember vs PyTorch {version or '-'}"
    )
    print("{:44s} {:>9s} {:>9s} {:>7s}".format("case", "ember", "torch", "ratio"))
    for name, t in ours.items():
        o = theirs.get(name)
        print(
            "{:44s} {:9.3f} {:>9s} {:>7s}".format(
                name, t * 1e3, "-" if o is None else "%.3f" % (o * 1e3), "-" if o is None else "%.2f" % (t / o)
            )
        )


if __name__ == "__main__":
    main()
