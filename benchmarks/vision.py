"""ember.vision.ops beside torchvision 0.29's: NMS on 10k boxes, RoI Align (forward, and forward + backward) and RoI
Pool on 1k boxes over a [2, 256, 50, 68] feature map (an FPN level of an 800x1088 image), 7x7 bins.
Run: .venv/bin/python benchmarks/vision.py (the torch side runs with TORCH_PYTHON, by default /opt/torch2/py, which
has torchvision)."""

import os
import sys

os.environ.setdefault("TORCH_PYTHON", "/opt/torch2/py")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

SETUP = """
import numpy as np
if lib.__name__ == "ember":
    from ember.vision import ops
else:
    from torchvision import ops
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

CASES = [
    ("nms 10k boxes iou 0.5", SETUP, "ops.nms(boxes, scores, 0.5)"),
    ("batched_nms 10k boxes, 80 classes", SETUP, "ops.batched_nms(boxes, scores, idxs, 0.5)"),
    ("roi_align 1k boxes 7x7 sr2", SETUP, "ops.roi_align(feat, rois, 7, 1 / 16, 2, True)"),
    ("roi_align adaptive 7x7", SETUP, "ops.roi_align(feat, rois, 7, 1 / 16, -1, True)"),
    ("roi_align fwd+bwd 1k 7x7", SETUP, "ops.roi_align(feat_g, rois, 7, 1 / 16, 2, True).sum().backward()"),
    ("roi_pool 1k boxes 7x7", SETUP, "ops.roi_pool(feat, rois, 7, 1 / 16)"),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
