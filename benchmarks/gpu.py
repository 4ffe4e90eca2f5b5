"""ember's CUDA backend beside PyTorch on the same GPU, in one run (issue 8; docs/gpu_testing.md).

  python benchmarks/gpu.py [--quick] [--only NAME[,NAME...]] [--iters N]

Cases (each in its own process, first ember, then PyTorch under TORCH_PYTHON, default this interpreter, whose torch
and torchvision are the GPU machine's; GPU_BENCH_CASE_TIMEOUT seconds each, default 240, and GPU_BENCH_BUDGET
seconds in all, default 480, after which the remaining cases are skipped and the table printed):
  resnet50     ResNet-50 training step (batch 64, 224x224, float32 with TF32 allowed, cudnn.benchmark on, SGD with
               momentum, cross_entropy): images/s, the number of cudaMalloc calls after the first iteration
               (memory_stats()["num_device_alloc"], PyTorch's key), and per iteration the host's time to enqueue the
               step against the GPU's time for it (CUDA events): the PyTorch paper's Figure 1, the host runs ahead.
  resnet50_bf16_autocast   the same under torch.autocast("cuda", dtype=bfloat16) (convolutions and matmuls in
               bfloat16, the loss in float32; docs/amp.md).
  matmul_fp32 / matmul_tf32 / matmul_bf16   4096^3 products: TFLOP/s.
  conv3x3      3x3 convolution 64->64 channels on 56x56, batch 64, forward + backward (input and weight gradients).
  lstm         2-layer LSTM, input and hidden 512, sequence 100, batch 64, float32 (cuDNN's allow_tf32 default),
               forward + backward (input and parameter gradients): sequences/s. ember copies the parameters into
               cuDNN's weight layout each call (PyTorch keeps them there, flatten_parameters).
  add          elementwise add of two 64M-element float32 tensors: GB/s (3 x 256 MiB moved).
  sum          sum of 64M float32 elements: GB/s.
  softmax      softmax over the last dim of [4096, 4096] float32.
  layer_norm   layer_norm over [8192, 1024] float32 with affine weights.
  adam         one Adam step over ResNet-50's parameters (25.6M), gradients set.
Times are medians over repeats, measured with CUDA events where the library has them (else synchronize + clock).
A case that fails in ember (an op or API not there yet) prints "skipped: <why>" and the run goes on.
Ratios are ember time / PyTorch time: below 1 is ember faster.
"""

import json
import math
import os
import statistics
import subprocess
import sys
import time
import traceback

QUICK = "--quick" in sys.argv
# GPU_BENCH_DEVICE=cpu runs every case on the CPU at toy sizes: a check of this script on a machine without a GPU.
DEVICE = os.environ.get("GPU_BENCH_DEVICE", "cuda")
TOY = DEVICE == "cpu"
ITERS = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else (5 if QUICK else 20)


class Skip(Exception):
    pass


def _need(obj, path):
    """obj.a.b.c, or Skip naming what is missing."""
    cur = obj
    for part in path.split("."):
        if not hasattr(cur, part):
            raise Skip(f"{obj.__name__}.{path} is not there")
        cur = getattr(cur, part)
    return cur


def set_tf32(lib, on):
    """Returns False where the library has no such switch."""
    b = getattr(lib, "backends", None)
    try:
        b.cuda.matmul.allow_tf32 = on
        b.cudnn.allow_tf32 = on
        return True
    except AttributeError:
        return False


def set_cudnn_benchmark(lib, on):
    try:
        lib.backends.cudnn.benchmark = on
        return True
    except AttributeError:
        return False


class Timer:
    """GPU time of a callable: CUDA events where the library has them, else synchronize and the host clock."""

    def __init__(self, lib):
        self.lib = lib
        self.events = DEVICE == "cuda" and hasattr(lib.cuda, "Event")

    def sync(self):
        if DEVICE == "cuda":
            self.lib.cuda.synchronize()

    def ms(self, fn, iters, repeats=5, warmup=2, budget_s=30.0):
        for _ in range(warmup):
            fn()
        self.sync()
        runs, t_start = [], time.perf_counter()
        for _ in range(repeats):
            if self.events:
                a, b = self.lib.cuda.Event(enable_timing=True), self.lib.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(iters):
                    fn()
                b.record()
                b.synchronize()
                runs.append(a.elapsed_time(b) / iters)
            else:
                t = time.perf_counter()
                for _ in range(iters):
                    fn()
                self.sync()
                runs.append((time.perf_counter() - t) * 1e3 / iters)
            if time.perf_counter() - t_start > budget_s:
                break
        return statistics.median(runs)


def num_device_alloc(lib):
    if DEVICE != "cuda":
        return None
    try:
        return lib.cuda.memory_stats().get("num_device_alloc")
    except Exception:
        return None


# -- cases: each takes the library and returns a dict of numbers (ms: the time a ratio is taken of) ------------


def resnet50_models(lib):
    if lib.__name__ == "torch":
        import torchvision

        return torchvision.models.resnet50
    return _need(lib, "vision.models.resnet50")


def case_resnet50(lib, bf16_autocast=False):
    if bf16_autocast and not hasattr(lib, "autocast"):
        raise Skip(f"{lib.__name__} has no autocast yet")
    tf32 = set_tf32(lib, True)
    set_cudnn_benchmark(lib, True)
    lib.manual_seed(0)
    model = resnet50_models(lib)().to(DEVICE)
    model.train()
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    batch, size = (2, 64) if TOY else (32 if QUICK else 64, 224)
    x = lib.randn(batch, 3, size, size, device=DEVICE)
    y = lib.randint(0, 1000, (batch,), device=DEVICE)
    F = lib.nn.functional

    def step():
        if bf16_autocast:
            with lib.autocast(DEVICE, dtype=lib.bfloat16):
                loss = F.cross_entropy(model(x), y)
        else:
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    timer = Timer(lib)
    first = step()  # the first iteration: cuDNN's algorithm search, the allocator's first segments
    first_loss = float(first.item())
    for _ in range(2):
        step()
    timer.sync()
    allocs_after_first = num_device_alloc(lib)
    iters = 2 if TOY else ITERS
    host_ms, gpu_ms, events = [], [], []
    t0 = time.perf_counter()
    for _ in range(iters):
        if timer.events:
            a, b = lib.cuda.Event(enable_timing=True), lib.cuda.Event(enable_timing=True)
            a.record()
        h = time.perf_counter()
        step()
        host_ms.append((time.perf_counter() - h) * 1e3)
        if timer.events:
            b.record()
            events.append((a, b))
    timer.sync()
    wall = time.perf_counter() - t0
    gpu_ms = [a.elapsed_time(b) for a, b in events]
    allocs_after = num_device_alloc(lib)
    last_loss = float(step().item())
    out = {
        "ms": wall * 1e3 / iters,
        "images/s": batch * iters / wall,
        "batch": batch,
        "host enqueue ms (median)": statistics.median(host_ms),
        "gpu ms (median)": statistics.median(gpu_ms) if gpu_ms else None,
        "cudaMalloc after 1st iteration": (
            allocs_after - allocs_after_first if allocs_after is not None and allocs_after_first is not None else None
        ),
        "loss first/last": f"{first_loss:.3f}/{last_loss:.3f}",
        "tf32 switch": tf32,
        "peak GB": (
            lib.cuda.max_memory_allocated() / 2**30
            if DEVICE == "cuda" and hasattr(lib.cuda, "max_memory_allocated")
            else None
        ),
    }
    if not math.isfinite(last_loss):
        raise Skip(f"loss is {last_loss}: the training step is broken")
    return out


def case_matmul(lib, mode):
    n = 256 if TOY else 2048 if QUICK else 4096
    dtype = lib.bfloat16 if mode == "bf16" else lib.float32
    if not set_tf32(lib, mode == "tf32") and mode == "tf32":
        raise Skip(f"{lib.__name__}.backends.cuda.matmul.allow_tf32 is not there")
    a = lib.randn(n, n, device=DEVICE).to(dtype)
    b = lib.randn(n, n, device=DEVICE).to(dtype)
    ms = Timer(lib).ms(lambda: lib.matmul(a, b), iters=10)
    set_tf32(lib, False)
    return {"ms": ms, "TFLOP/s": 2 * n**3 / ms / 1e9}


def case_conv3x3(lib):
    set_tf32(lib, True)
    set_cudnn_benchmark(lib, True)
    n = 1 if TOY else 16 if QUICK else 64
    x = lib.randn(n, 64, 56, 56, device=DEVICE, requires_grad=True)
    w = lib.randn(64, 64, 3, 3, device=DEVICE, requires_grad=True)
    g = lib.randn(n, 64, 56, 56, device=DEVICE)
    F = lib.nn.functional

    def fwd_bwd():
        x.grad = w.grad = None
        F.conv2d(x, w, padding=1).backward(g)

    ms = Timer(lib).ms(fwd_bwd, iters=5)
    flops = 3 * 2 * n * 64 * 64 * 9 * 56 * 56  # forward, input gradient, weight gradient
    return {"ms": ms, "TFLOP/s": flops / ms / 1e9}


def case_lstm(lib):
    steps, batch, hidden = (10, 4, 64) if TOY else (50, 32, 512) if QUICK else (100, 64, 512)
    lib.manual_seed(0)
    m = lib.nn.LSTM(hidden, hidden, num_layers=2).to(DEVICE)
    x = lib.randn(steps, batch, hidden, device=DEVICE, requires_grad=True)
    g = lib.randn(steps, batch, hidden, device=DEVICE)

    def fwd_bwd():
        x.grad = None
        for p in m.parameters():
            p.grad = None
        m(x)[0].backward(g)

    ms = Timer(lib).ms(fwd_bwd, iters=5)
    return {"ms": ms, "sequences/s": batch / ms * 1e3}


def _numel():
    return (1 if TOY else 16 if QUICK else 64) << 20


def case_add(lib):
    a = lib.randn(_numel(), device=DEVICE)
    b = lib.randn(_numel(), device=DEVICE)
    ms = Timer(lib).ms(lambda: lib.add(a, b), iters=20)
    return {"ms": ms, "GB/s": 3 * 4 * _numel() / ms / 1e6}


def case_sum(lib):
    a = lib.randn(_numel(), device=DEVICE)
    ms = Timer(lib).ms(lambda: a.sum(), iters=20)
    return {"ms": ms, "GB/s": 4 * _numel() / ms / 1e6}


def case_softmax(lib):
    x = lib.randn(*((512, 512) if TOY else (4096, 4096)), device=DEVICE)
    ms = Timer(lib).ms(lambda: lib.softmax(x, -1), iters=20)
    return {"ms": ms, "GB/s": 2 * 4 * x.numel() / ms / 1e6}


def case_layer_norm(lib):
    x = lib.randn(512 if TOY else 8192, 1024, device=DEVICE)
    w = lib.randn(1024, device=DEVICE)
    b = lib.randn(1024, device=DEVICE)
    F = lib.nn.functional
    ms = Timer(lib).ms(lambda: F.layer_norm(x, (1024,), w, b), iters=20)
    return {"ms": ms, "GB/s": 2 * 4 * x.numel() / ms / 1e6}


def case_adam(lib):
    model = resnet50_models(lib)().to(DEVICE)
    params = list(model.parameters())
    for p in params:
        p.grad = lib.randn_like(p)
    opt = lib.optim.Adam(params, lr=1e-3)
    ms = Timer(lib).ms(opt.step, iters=1 if TOY else 5, repeats=2 if TOY else 5)
    n = sum(p.numel() for p in params)
    # read param, grad, exp_avg, exp_avg_sq; write param, exp_avg, exp_avg_sq
    return {"ms": ms, "params (M)": n / 1e6, "GB/s": 7 * 4 * n / ms / 1e6}


CASES = {
    "resnet50": lambda lib: case_resnet50(lib),
    "resnet50_bf16_autocast": lambda lib: case_resnet50(lib, bf16_autocast=True),
    "matmul_fp32": lambda lib: case_matmul(lib, "fp32"),
    "matmul_tf32": lambda lib: case_matmul(lib, "tf32"),
    "matmul_bf16": lambda lib: case_matmul(lib, "bf16"),
    "conv3x3": case_conv3x3,
    "lstm": case_lstm,
    "add": case_add,
    "sum": case_sum,
    "softmax": case_softmax,
    "layer_norm": case_layer_norm,
    "adam": case_adam,
}


def selected():
    if "--only" in sys.argv:
        names = sys.argv[sys.argv.index("--only") + 1].split(",")
        unknown = [n for n in names if n not in CASES]
        if unknown:
            sys.exit(f"gpu.py: unknown case(s) {unknown}; cases: {', '.join(CASES)}")
        return names
    return list(CASES)


def run_all(lib_name, names):
    """{case: dict of numbers, or {"skipped": why}}; never raises for one case."""
    try:
        lib = __import__(lib_name)
        if lib_name == "ember":
            import ember.vision.models  # noqa: F401  (ember.vision's models are a subpackage)
    except Exception as e:
        return {n: {"skipped": f"import {lib_name} failed: {e}"} for n in names}
    if DEVICE == "cuda" and not lib.cuda.is_available():
        return {n: {"skipped": f"{lib_name}.cuda.is_available() is False"} for n in names}
    out = {}
    for name in names:
        try:
            out[name] = CASES[name](lib)
        except Skip as e:
            out[name] = {"skipped": str(e)}
        except Exception as e:  # an op or an API ember lacks: report and go on
            last = traceback.extract_tb(e.__traceback__)[-1]
            out[name] = {
                "skipped": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''} "
                f"(at {os.path.basename(last.filename)}:{last.lineno})"
            }
        finally:
            try:
                import gc

                gc.collect()
                if DEVICE == "cuda":
                    lib.cuda.synchronize()
                    lib.cuda.empty_cache()
            except Exception as e:  # a sticky CUDA error: the remaining cases cannot run
                for rest in names[names.index(name) + 1 :]:
                    out[rest] = {"skipped": f"after {name}: {type(e).__name__}: {e}"}
                return out
    return out


START = time.monotonic()
# The whole run's budget (seconds): scripts/gpu-run gives the bench step 540 s, so the table must be printed before.
BUDGET = float(os.environ.get("GPU_BENCH_BUDGET", "480"))


def run_in_child(lib_name, name):
    """One case of one library in its own process: a crash, a sticky CUDA error or a hang costs that case only, and
    each case starts with an empty allocator. PyTorch runs under TORCH_PYTHON (default: this interpreter)."""
    env = dict(os.environ)
    python = sys.executable
    if lib_name == "torch":
        python = os.environ.get("TORCH_PYTHON", sys.executable)
        # scripts/gpu-run puts Debian 12's libraries first for ember; keep them away from torch.
        drop = set(filter(None, os.environ.get("EMBER_GPU_RUN_LIBS", "").split(":")))
        if "LD_LIBRARY_PATH" in env:
            env["LD_LIBRARY_PATH"] = ":".join(p for p in env["LD_LIBRARY_PATH"].split(":") if p not in drop)
    args = [python, os.path.abspath(__file__), "--child", lib_name, "--only", name]
    args += ["--quick"] if QUICK else []
    args += ["--iters", str(ITERS)] if "--iters" in sys.argv else []
    limit = min(float(os.environ.get("GPU_BENCH_CASE_TIMEOUT", "240")), BUDGET - (time.monotonic() - START))
    if limit < 10:
        return {"skipped": f"out of time (GPU_BENCH_BUDGET={BUDGET:.0f} s)"}
    try:
        proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"skipped": f"{lib_name} took over {limit:.0f} s (GPU_BENCH_CASE_TIMEOUT)"}
    except OSError as e:
        return {"skipped": f"cannot start {python}: {e}"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"skipped": f"{lib_name} process failed (exit {proc.returncode}): {tail[:300]}"}
    return json.loads(lines[-1])[name]


def versions():
    """PyTorch's version and the GPU's name, from a short PyTorch process."""
    python = os.environ.get("TORCH_PYTHON", sys.executable)
    code = (
        "import torch; print(torch.__version__); "
        "print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else '?')"
    )
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120).stdout.split("\n")
        return out[0].strip() or None, out[1].strip() if len(out) > 1 else "?"
    except Exception:
        return None, "?"


def fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def report(names, ours, theirs, version, dev):
    print(
        f"\n== benchmarks/gpu.py on {dev}: ember vs PyTorch {version or '-'}"
        f"{' (--quick: smaller sizes)' if QUICK else ''}; ratio = ember time / torch time (below 1: ember faster)"
    )
    print(f"{'case':<26}{'ember ms':>11}{'torch ms':>11}{'ratio':>8}  details (ember | torch)")
    skipped = []
    for n in names:
        e, t = ours.get(n, {}), theirs.get(n, {})
        if "skipped" in e:
            skipped.append(f"{n}: ember: {e['skipped']}")
        if "skipped" in t:
            skipped.append(f"{n}: torch: {t['skipped']}")
        ems, tms = e.get("ms"), t.get("ms")
        ratio = f"{ems / tms:.2f}" if ems and tms else "-"
        keys = [k for k in list(e) + [k for k in t if k not in e] if k not in ("ms", "skipped")]
        details = "; ".join(f"{k} {fmt(e.get(k))} | {fmt(t.get(k))}" for k in keys)
        print(f"{n:<26}{fmt(ems) if ems else 'skipped':>11}{fmt(tms) if tms else '-':>11}{ratio:>8}  {details}")
    r = ours.get("resnet50", {})
    if "ms" in r:
        print(
            f"\nResNet-50 training: ember {r['images/s']:.1f} images/s"
            + (f", PyTorch {theirs['resnet50']['images/s']:.1f} images/s" if "ms" in theirs.get("resnet50", {}) else "")
            + f"; cudaMalloc calls after the first iteration: ember {fmt(r.get('cudaMalloc after 1st iteration'))}"
            + (
                f", PyTorch {fmt(theirs['resnet50'].get('cudaMalloc after 1st iteration'))}"
                if "ms" in theirs.get("resnet50", {})
                else ""
            )
            + f"; ember per iteration: host enqueue {fmt(r['host enqueue ms (median)'])} ms, "
            f"GPU {fmt(r['gpu ms (median)'])} ms (the host should run well ahead: enqueue < GPU)"
        )
    if skipped:
        print("\nskipped:")
        for s in skipped:
            print("  " + s)


def main():
    names = selected()
    if "--child" in sys.argv:
        print(json.dumps(run_all(sys.argv[sys.argv.index("--child") + 1], names)))
        return
    ours, theirs = {}, {}
    for name in names:
        ours[name] = run_in_child("ember", name)
        print(f"  ember {name}: {ours[name]}", flush=True)
        # No PyTorch reference for what ember cannot run at all yet (autocast): it would only spend GPU time.
        if name.endswith("autocast") and "no autocast" in ours[name].get("skipped", ""):
            continue
        theirs[name] = run_in_child("torch", name)
        print(f"  torch {name}: {theirs[name]}", flush=True)
    version, device = versions()
    report(names, ours, theirs, version, device)
    path = os.environ.get("GPU_BENCH_JSON") or (
        os.path.join(os.environ["OUT"], "gpu_bench.json") if os.environ.get("OUT") else None
    )
    if path:
        with open(path, "w") as f:
            json.dump(
                {
                    "ember": ours,
                    "torch": theirs,
                    "torch_version": version,
                    "device": device,
                    "quick": QUICK,
                    "iters": ITERS,
                },
                f,
                indent=1,
            )
        print(f"(all numbers: {path})")


if __name__ == "__main__":
    main()
