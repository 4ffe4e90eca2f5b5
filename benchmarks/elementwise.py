"""Elementwise ops over [64, 1024] float32 (64K elements, about the grain size): the unary and binary ops whose
kernels are vector code (clamp, rounding, rsqrt, hardsigmoid, atan2, hypot, fmod, remainder, logaddexp, lerp, erfinv;
Note [Selects GCC does not vectorize] and Note [Vector binary functions] in backend/cpu/vec_math.cpp) and a few
they sit beside, ember beside PyTorch, per-call medians. Run: scripts/bench elementwise"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

S = (
    "lib.manual_seed(0)\n"
    "x = lib.randn(64, 1024); y = lib.randn(64, 1024); xp = x.abs() + 0.1\n"
    "u = lib.rand(64, 1024) * 1.8 - 0.9\n"
)
CASES = [
    ("add [64,1024]", S, "x + y"),
    ("clamp(-1, 1)", S, "x.clamp(-1, 1)"),
    ("clamp(min=0)", S, "x.clamp(min=0)"),
    ("nan_to_num", S, "x.nan_to_num()"),
    ("floor", S, "x.floor()"),
    ("round", S, "x.round()"),
    ("rsqrt", S, "xp.rsqrt()"),
    ("hardsigmoid", S, "lib.nn.functional.hardsigmoid(x)"),
    ("atan2", S, "x.atan2(y)"),
    ("hypot", S, "x.hypot(y)"),
    ("fmod(1.5)", S, "x.fmod(1.5)"),
    ("remainder", S, "x.remainder(y)"),
    ("logaddexp", S, "x.logaddexp(y)"),
    ("lerp(y, 0.3)", S, "x.lerp(y, 0.3)"),
    ("lerp(y, tensor)", S, "x.lerp(y, u)"),
    ("erfinv", S, "u.erfinv()"),
    ("flip(1)", S, "x.flip(1)"),
]

if __name__ == "__main__":
    main(__file__, CASES)
