"""Complex tensors, ember beside PyTorch: elementwise multiplication (complex64, 1M elements), cgemm / zgemm at 512 and
2048 (OpenBLAS in both), a.mH @ b beside a @ b (the conjugate bit folded into cgemm's flags: Note [Conjugate operands
of GEMM]), and a rotary-embedding step written LLaMA's way (view_as_complex, multiply, view_as_real). Then the GEMMs
beside OpenBLAS's own figure: cblas_cgemm called directly (ctypes, the libopenblas that ember links, its own threads),
in a process of its own. Run: TORCH_PYTHON=/opt/torch2/py .venv/bin/python benchmarks/complex.py (PyTorch 2.15)."""

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys

os.environ.setdefault("TORCH_PYTHON", "/opt/torch2/py")  # read by common at import
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main, run_cases, time_per_call  # noqa: E402

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
    ("cgemm 512 a.mH @ b", SETUP, "a512.mH @ b512"),
    ("cgemm 512 resolved a.mH @ b", SETUP, "a512.mH.resolve_conj() @ b512"),  # the copy matmul made before
    ("cgemm 2048", BIG, "a @ b"),
    ("cgemm 2048 a.mH @ b", BIG, "a.mH @ b"),
    ("rotary 8x128x32x64", SETUP, "lib.view_as_real(lib.view_as_complex(q.reshape(8, 128, 32, 32, 2)) * freqs)"),
]

# The GEMMs beside OpenBLAS's own: (case, n, transa) with CblasNoTrans 111, CblasConjTrans 113.
GEMMS = [
    ("cgemm 512", 512, 111),
    ("cgemm 512 a.mH @ b", 512, 113),
    ("cgemm 2048", 2048, 111),
    ("cgemm 2048 a.mH @ b", 2048, 113),
]


def openblas_times(threads):
    """Seconds per cblas_cgemm(RowMajor, transa, NoTrans) of n x n complex64 matrices, OpenBLAS on `threads` threads."""
    import numpy as np

    blas = ctypes.CDLL(ctypes.util.find_library("openblas"))
    blas.openblas_set_num_threads(threads)
    rng = np.random.default_rng(0)
    out = {}
    for case, n, transa in GEMMS:
        a, b = (rng.standard_normal((n, n, 2), dtype=np.float32).view(np.complex64)[..., 0] for _ in range(2))
        c = np.empty((n, n), np.complex64)
        one, zero = np.ones(1, np.complex64), np.zeros(1, np.complex64)
        ptr = [x.ctypes.data_as(ctypes.c_void_p) for x in (a, b, c, one, zero)]
        args = (101, transa, 111, n, n, n, ptr[3], ptr[0], n, ptr[1], n, ptr[4], ptr[2], n)
        out[case] = time_per_call("f(*args)", "", {"f": blas.cblas_cgemm, "args": args})
    return out


def gemms_beside_openblas():
    print("\nbeside OpenBLAS's own cblas_cgemm (ctypes, its threads), per call in ms; ratio = ember / OpenBLAS")
    print(f"{'case':<24}{'threads':>8}{'OpenBLAS':>10}{'ember':>10}{'ratio':>8}")
    for n in (1, 2):
        theirs, ours = (
            json.loads(
                subprocess.run([sys.executable, __file__, flag, str(n)], capture_output=True, text=True, check=True)
                .stdout.strip()
                .splitlines()[-1]
            )
            for flag in ("--openblas-child", "--ember-gemm-child")
        )
        for case, _, _ in GEMMS:
            t, e = theirs[case] * 1e3, ours[case] * 1e3
            print(f"{case:<24}{n:>8}{t:>10.2f}{e:>10.2f}{e / t:>8.2f}")


if __name__ == "__main__":
    if "--openblas-child" in sys.argv:
        print(json.dumps(openblas_times(int(sys.argv[-1]))))
    elif "--ember-gemm-child" in sys.argv:
        print(json.dumps(run_cases("ember", [c for c in CASES if c[0] in {g[0] for g in GEMMS}], int(sys.argv[-1]))))
    else:
        if "--gemms-only" not in sys.argv:  # --gemms-only: just the table beside OpenBLAS
            main(__file__, CASES, unit=1e-3, unit_name="ms")
        if "--child" not in sys.argv:
            gemms_beside_openblas()
