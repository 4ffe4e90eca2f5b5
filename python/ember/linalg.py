"""ember.linalg: torch.linalg's functions (the math runs in C++: LAPACK through OpenBLAS on the CPU).

Factorizations return namedtuples as torch.linalg's do. Not available: the general (non-symmetric) eigenvalue
problem (eig, eigvals: complex results), lu/lu_factor, and the complex dtypes.
"""
from ._C import _linalg_vector_norm as vector_norm
from ._C import _linalg_cross as cross, _linalg_vander as vander  # noqa: F401
from ._C import diagonal as _diagonal
from ._C._linalg import (cholesky, det, eigh, eigvalsh, inv, lstsq, matmul, matrix_norm, matrix_power,  # noqa: F401
                         multi_dot, norm, pinv, qr, slogdet, solve, solve_triangular, svd, svdvals, vecdot)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: ember.diagonal with the defaults on the last two dims (a view)."""
    return _diagonal(A, offset, dim1, dim2)


__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm",
           "matrix_power", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_triangular", "svd", "svdvals", "vander",
           "vecdot", "vector_norm"]
