"""Complex tensors, ember beside PyTorch: elementwise multiplication (complex64, 1M elements), cgemm / zgemm at 512 and
2048 (OpenBLAS in both), and a rotary-embedding step written LLaMA's way (view_as_complex, multiply, view_as_real).
Run: TORCH_PYTHON=/opt/torch2/py .venv/bin/python benchmarks/complex.py (PyTorch 2.15, which has complex dtypes)."""

import os
import sys

os.environ.setdefault("TORCH_PYTHON", "/opt/torch2/py")  # read by common at import
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

SETUP = """
lib.manual_seed(0)
def crand(*shape, dtype):
    return lib.complex(lib.randn(*shape, dtype=dtype.to_real()), lib.randn(*shape, dtype=dtype.to_real()))
x, y = crand(1 << 20, dtype=lib.complex64), crand(1 << 20, dtype=lib.complex64)
xd = crand(1 << 20, dtype=lib.complex128)
xc = x.conj()  # a lazy conjugate view (Note [The conjugate bit])
out = lib.empty_like(x)
a512, b512 = crand(512, 512, dtype=lib.complex64), crand(512, 512, dtype=lib.complex64)
z512, w512 = crand(512, 512, dtype=lib.complex128), crand(512, 512, dtype=lib.complex128)
q = lib.randn(8, 128, 32, 64)
r1, r2 = lib.randn(1 << 21), lib.randn(1 << 21)
freqs = lib.polar(lib.ones(128, 1, 32), lib.randn(128, 1, 32))
"""
BIG = """
lib.manual_seed(0)
def crand(*shape, dtype):
    return lib.complex(lib.randn(*shape, dtype=dtype.to_real()), lib.randn(*shape, dtype=dtype.to_real()))
a, b = crand(2048, 2048, dtype=lib.complex64), crand(2048, 2048, dtype=lib.complex64)
"""

CASES = [
    ("add f32 2M (real baseline)", SETUP, "r1 + r2"),
    ("mul c64 1M", SETUP, "x * y"),
    ("mul c64 1M out=", SETUP, "lib.mul(x, y, out=out)"),
    ("add c64 1M", SETUP, "x + y"),
    ("abs c64 1M", SETUP, "x.abs()"),
    ("sum c64 1M", SETUP, "x.sum()"),
    ("sum c128 1M", SETUP, "xd.sum()"),
    ("sum c64 1M conj view", SETUP, "xc.sum()"),
    ("mul c64 1M by a conj view", SETUP, "x * xc"),
    ("resolve_conj c64 1M", SETUP, "xc.resolve_conj()"),
    ("cgemm 512", SETUP, "a512 @ b512"),
    ("zgemm 512", SETUP, "z512 @ w512"),
    ("cgemm 2048", BIG, "a @ b"),
    ("rotary 8x128x32x64", SETUP, "lib.view_as_real(lib.view_as_complex(q.reshape(8, 128, 32, 32, 2)) * freqs)"),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
