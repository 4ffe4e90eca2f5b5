"""ember.vision beside torchvision 0.29 on PyTorch 2.15, in one run: resnet50, efficientnet_b0 and vit_b_16 inference
(eval, no_grad, 224x224) at batch 1 and 32, fasterrcnn_mobilenet_v3_large_320_fpn on 2 images,
NMS on 10k boxes, RoI Align / RoI Pool on 1k boxes over a [2, 256, 50, 68] feature map (an FPN level of an
800x1088 image), and decode_jpeg of a 1080p image. Each case runs in its own process on each side (2 threads), so
the peak RSS printed is that case's: the interpreter, the library and the workload.

Run: .venv/bin/python benchmarks/vision.py [--quick]   (--quick: batch 1 and 4, fewer and shorter repeats)
The torch side runs with TORCH_PYTHON, by default /opt/torch2/py (which has torchvision)."""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TORCH_PYTHON", "/opt/torch2/py")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TORCH_PYTHON  # noqa: E402

THREADS = 2

OPS_SETUP = """
import numpy as np
rng = np.random.default_rng(0)
xy = rng.uniform(0, 1000, (10000, 2))
wh = rng.uniform(10, 100, (10000, 2))
boxes = lib.tensor(np.concatenate([xy, xy + wh], 1).astype(np.float32))
scores = lib.tensor(rng.uniform(0, 1, 10000).astype(np.float32))
idxs = lib.tensor(rng.integers(0, 80, 10000))
feat = lib.tensor(rng.normal(size=(2, 256, 50, 68)).astype(np.float32))
xy = rng.uniform(0, 900, (1000, 2))
wh = rng.uniform(16, 300, (1000, 2))
rois = lib.tensor(np.concatenate([rng.integers(0, 2, (1000, 1)), xy, xy + wh], 1).astype(np.float32))
feat_g = feat.clone().requires_grad_()
"""

JPEG_SETUP = """
data = io.read_file(JPEG_PATH)
"""


def model_setup(builder, batch, size=224):
    return f"""
lib.manual_seed(0)
model = models.{builder}(weights=None).eval()
x = lib.randn({batch}, 3, {size}, {size})
"""


def detection_setup(builder):
    return f"""
lib.manual_seed(0)
model = models.detection.{builder}(weights=None, weights_backbone=None).eval()
x = [lib.rand(3, 240, 320), lib.rand(3, 300, 400)]
"""


def cases(quick):
    big = 4 if quick else 32
    out = [
        ("nms 10k boxes iou 0.5", OPS_SETUP, "ops.nms(boxes, scores, 0.5)"),
        ("batched_nms 10k boxes, 80 classes", OPS_SETUP, "ops.batched_nms(boxes, scores, idxs, 0.5)"),
        ("roi_align 1k boxes 7x7 sr2", OPS_SETUP, "ops.roi_align(feat, rois, 7, 1 / 16, 2, True)"),
        ("roi_align adaptive 7x7", OPS_SETUP, "ops.roi_align(feat, rois, 7, 1 / 16, -1, True)"),
        ("roi_align fwd+bwd 1k 7x7", OPS_SETUP, "ops.roi_align(feat_g, rois, 7, 1 / 16, 2, True).sum().backward()"),
        ("roi_pool 1k boxes 7x7", OPS_SETUP, "ops.roi_pool(feat, rois, 7, 1 / 16)"),
        ("decode_jpeg 1920x1080 rgb", JPEG_SETUP, "io.decode_jpeg(data)"),
    ]
    for builder in ("resnet50", "efficientnet_b0", "vit_b_16"):
        for batch in (1, big):
            out.append((f"{builder} batch {batch}", model_setup(builder, batch), "model(x)"))
    # (run_case reports "missing" on a side that lacks a builder)
    out.append(
        ("fasterrcnn_mbv3_320_fpn 2 images", detection_setup("fasterrcnn_mobilenet_v3_large_320_fpn"), "model(x)")
    )
    return out


def run_case(lib_name, setup, stmt, quick, jpeg_path):
    """In the child: times `stmt` (median over repeats of about target seconds each) and reports the peak RSS."""
    lib = __import__(lib_name)
    lib.set_num_threads(THREADS)
    if lib_name == "torch":
        import torchvision.io as io
        import torchvision.models as models
        from torchvision import ops
    else:
        import ember.vision.io as io
        import ember.vision.models as models
        from ember.vision import ops
    if "models." in setup:
        where = models
        for name in setup.split("models.")[1].split("(")[0].split("."):  # "resnet50", "detection.fasterrcnn_..."
            where = getattr(where, name, None)
            if where is None:
                return {"missing": True}
    ns = {"lib": lib, "io": io, "models": models, "ops": ops, "JPEG_PATH": jpeg_path}
    with lib.no_grad() if "backward" not in stmt else _null():
        exec(setup, ns)
        code = compile(stmt, "<case>", "eval")
        t0 = time.perf_counter()
        eval(code, ns)  # warm-up (and the first estimate of one call's time)
        one = max(time.perf_counter() - t0, 1e-7)
        target, repeats = (0.1, 3) if quick else (0.5, 7)
        n = max(1, int(target / one))
        runs = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(n):
                eval(code, ns)
            runs.append((time.perf_counter() - t0) / n)
    return {"s": statistics.median(runs), "rss_mb": _peak_rss_mb()}


def _peak_rss_mb():
    """This process's peak RSS: VmHWM (getrusage's ru_maxrss would include the parent's peak, which Linux carries
    across fork and exec)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _child(python, lib_name, index, quick, jpeg_path):
    cmd = [python, os.path.abspath(__file__), "--child", lib_name, str(index), jpeg_path] + (
        ["--quick"] if quick else []
    )
    env = dict(os.environ)
    if lib_name == "torch":
        env["PYTHONPATH"] = ""
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1][:60]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _make_jpeg(path):
    """A 1920x1080 RGB JPEG (quality 90) of smooth gradients and noise, written with ember's encoder."""
    import numpy as np

    import ember
    from ember.vision import io

    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:1080, 0:1920]
    img = np.stack([xx * 255 // 1919, yy * 255 // 1079, (xx + yy) % 256]).astype(np.float64)
    img += rng.normal(0, 12, img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    io.write_jpeg(ember.from_numpy(np.ascontiguousarray(img)), path, quality=90)


def main():
    quick = "--quick" in sys.argv
    if "--child" in sys.argv:
        i = sys.argv.index("--child")
        lib_name, index, jpeg_path = sys.argv[i + 1], int(sys.argv[i + 2]), sys.argv[i + 3]
        _, setup, stmt = cases(quick)[index]
        print(json.dumps(run_case(lib_name, setup, stmt, quick, jpeg_path)))
        return
    version = subprocess.run(
        [TORCH_PYTHON, "-c", "import torch, torchvision; print(torch.__version__, torchvision.__version__)"],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=""),
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as d:
        jpeg_path = os.path.join(d, "1080p.jpg")
        _make_jpeg(jpeg_path)
        print(
            f"vision.py{' --quick' if quick else ''}: ms per call (median of {3 if quick else 7} runs), {THREADS} "
            f"threads each side, beside torch/torchvision {version or '- (not available)'}; ratio = ember / torch; "
            "peak RSS in MB of each case's process"
        )
        print(f"{'case':<36}{'ember ms':>11}{'torch ms':>11}{'ratio':>7}{'ember MB':>10}{'torch MB':>10}{'ratio':>7}")
        rows = []
        for index, (case, _, _) in enumerate(cases(quick)):
            e = _child(sys.executable, "ember", index, quick, jpeg_path)
            t = _child(TORCH_PYTHON, "torch", index, quick, jpeg_path) if version else {"error": "no torch"}
            if "s" not in e:
                note = "not in ember.vision yet" if e.get("missing") else f"ember failed: {e.get('error')}"
                print(f"{case:<36}{note}")
                continue
            es, em = e["s"] * 1e3, e["rss_mb"]
            if "s" in t:
                ts, tm = t["s"] * 1e3, t["rss_mb"]
                print(f"{case:<36}{es:>11.3f}{ts:>11.3f}{es / ts:>7.2f}{em:>10.0f}{tm:>10.0f}{em / tm:>7.2f}")
                rows.append({"case": case, "ember": es, "torch": ts, "torch_config": f"{THREADS}T", "unit": "ms"})
            else:
                print(f"{case:<36}{es:>11.3f}{'-':>11}{'-':>7}{em:>10.0f}{'-':>10}{'-':>7}")
    summary = os.environ.get("EMBER_BENCH_SUMMARY")
    if summary and rows:  # scripts/bench prints these together at the end
        with open(summary, "a") as f:
            f.write(json.dumps({"benchmark": "vision.py", "torch": version, "rows": rows}) + "\n")


if __name__ == "__main__":
    main()
