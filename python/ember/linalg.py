"""ember.linalg: torch.linalg's functions (the math runs in C++: LAPACK through OpenBLAS on the CPU).

Factorizations return namedtuples as torch.linalg's do. Not available: the general (non-symmetric) eigenvalue
problem (eig, eigvals: complex results), lu/lu_factor, and the complex dtypes.
"""
from ._C import _linalg_vector_norm as vector_norm
from ._C._linalg import (cholesky, det, eigh, eigvalsh, inv, lstsq, matmul, matrix_norm, matrix_power,  # noqa: F401
                         multi_dot, norm, pinv, qr, slogdet, solve, solve_triangular, svd, svdvals, vecdot)

__all__ = ["cholesky", "det", "eigh", "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power",
           "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_triangular", "svd", "svdvals", "vecdot",
           "vector_norm"]
