"""Memory-bound ops on large tensors, ember beside PyTorch: copies (allocating against preallocated:
ember's caching CPU allocator, docs/memory.md, should make them nearly equal), elementwise ops and
reductions that allocate their outputs. Goal (issue 3): a + b, relu, sum at >= 80% of the bandwidth of a
preallocated copy. The last column of `main` prints ember / torch time. Run: scripts/bench bandwidth
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

N = 16 * 1024 * 1024  # 16M float32 = 64 MiB
SETUP = f"x = lib.ones({N}); y = lib.empty({N}); z = lib.empty({N}, dtype=lib.float64)"

CASES = [
    ("clone 16M f32 (allocates)", SETUP, "x.clone()"),
    ("copy_ 16M f32 (preallocated)", SETUP, "y.copy_(x)"),
    ("to(float64) 16M (allocates)", SETUP, "x.to(lib.float64)"),
    ("copy_ 16M f32->f64 (prealloc.)", SETUP, "z.copy_(x)"),
    ("zeros 16M (allocates)", "", f"lib.zeros({N})"),
    ("a + b 16M f32 (allocates)", SETUP, "x + y"),
    ("relu(a) 16M f32 (allocates)", SETUP, "lib.relu(x)"),
    ("a.sum() 16M f32", SETUP, "x.sum()"),
    ("a.exp() 16M f32 (allocates)", SETUP, "x.exp()"),
    ("a * 2 + 1 16M f32", SETUP, "x * 2 + 1"),
    ("a.sum(0) [4096x4096] f32", "x = lib.ones(4096, 4096)", "x.sum(0)"),
    ("a.t().contiguous() 4096^2 f32", "x = lib.ones(4096, 4096)", "x.t().contiguous()"),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
