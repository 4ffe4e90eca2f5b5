"""Pooling of channels-last inputs on the CPU (issue 21), ember beside PyTorch: max_pool2d 3x3 stride 2 padding 1 on
[8, 64, 56, 56] (a ResNet's stem pooling) and adaptive_avg_pool2d to 1x1 on [8, 512, 7, 7] (its head), float32,
forward. Each op on a channels-last input, on the same values row-major, and as "copies": the input made row-major,
pooled, and the result made channels-last again (what ember did for channels-last inputs before its channels-last
kernels; Note [Channels-last pooling] in ember/backend/cpu/pool.cpp).
Run: .venv/bin/python benchmarks/pool_layout.py (the torch side runs with TORCH_PYTHON, by default /opt/torch2/py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

SETUP = """
F = lib.nn.functional
lib.manual_seed(0)
cl = lib.channels_last
x = lib.randn(8, 64, 56, 56).contiguous(memory_format=cl)
xr = x.contiguous()
h = lib.randn(8, 512, 7, 7).contiguous(memory_format=cl)
hr = h.contiguous()
"""

CASES = []
for name, op, a, b in (
    ("max_pool2d 3x3/2", "F.max_pool2d({}, 3, 2, 1)", "x", "xr"),
    ("adaptive_avg_pool2d 1", "F.adaptive_avg_pool2d({}, 1)", "h", "hr"),
):
    CASES.append((f"{name} channels-last", SETUP, op.format(a)))
    CASES.append((f"{name} row-major", SETUP, op.format(b)))
    CASES.append((f"{name} copies", SETUP, op.format(a + ".contiguous()") + ".contiguous(memory_format=cl)"))

if __name__ == "__main__":
    main(__file__, CASES)
