"""Memory bandwidth of large copies, ember beside PyTorch: an op that allocates its output against the
same copy into a preallocated output. ember's caching CPU allocator (docs/memory.md) should make the
two nearly equal. Run: scripts/bench bandwidth
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
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
