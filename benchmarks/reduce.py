"""Reductions at memory bandwidth, ember beside PyTorch (issue 21; Note [Reductions] in
ember/backend/cpu/reduce.cpp): whole-tensor sums, the inner (sum(1)) and outer (sum(0)) strategies, short
inner reductions (a mean over a last dim of 3, global average pooling over 7 x 7), and maxima with and without
indices. Each case runs at 1 and 2 threads; the last column is ember 2T / PyTorch's best. Goal: every ratio
<= 1.0. Run: scripts/bench reduce (or .venv/bin/python benchmarks/reduce.py in a built environment).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

N = 16 * 1024 * 1024  # 16M float32 = 64 MiB
SQUARE = "x = lib.randn(4096, 4096)"
F = "F = lib.nn.functional; "

CASES = [
    ("sum 16M f32", f"x = lib.ones({N})", "x.sum()"),
    ("sum(0) [4096,4096]", SQUARE, "x.sum(0)"),
    ("sum(1) [4096,4096]", SQUARE, "x.sum(1)"),
    ("mean(-1) [200000,3]", "x = lib.randn(200000, 3)", "x.mean(-1)"),
    ("adaptive_avg 2d [8,512,7,7]", F + "x = lib.randn(8, 512, 7, 7)", "F.adaptive_avg_pool2d(x, 1)"),
    ("adaptive_avg 2d [32,1280,7,7]", F + "x = lib.randn(32, 1280, 7, 7)", "F.adaptive_avg_pool2d(x, 1)"),
    ("amax(0) [4096,4096]", SQUARE, "x.amax(0)"),
    ("amax(1) [4096,4096]", SQUARE, "x.amax(1)"),
    ("argmax(0) [4096,4096]", SQUARE, "x.argmax(0)"),
    ("argmax(1) [4096,4096]", SQUARE, "x.argmax(1)"),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
