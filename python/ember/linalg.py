"""ember.linalg: torch.linalg's functions (the math runs in C++: LAPACK through OpenBLAS on the CPU).

Factorizations return namedtuples as torch.linalg's do. Not available: the general (non-symmetric) eigenvalue
problem (eig, eigvals: complex results) and the complex dtypes.
"""
from ._C import _linalg_vector_norm as vector_norm
from ._C import _linalg_cross as cross, _linalg_vander as vander  # noqa: F401
from ._C import diagonal as _diagonal
from ._C import _LinAlgError as LinAlgError  # noqa: F401  (a RuntimeError, as torch.linalg.LinAlgError)
from ._C._linalg import (cholesky_ex, cond, householder_product, inv_ex, ldl_factor, ldl_factor_ex,  # noqa: F401
                         ldl_solve, lu, lu_factor, lu_factor_ex, lu_solve, matrix_exp, matrix_rank, solve_ex,
                         tensorinv, tensorsolve)
from ._C._linalg import (cholesky, det, eigh, eigvalsh, inv, lstsq, matmul, matrix_norm, matrix_power,  # noqa: F401
                         multi_dot, norm, pinv, qr, slogdet, solve, solve_triangular, svd, svdvals, vecdot)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: ember.diagonal with the defaults on the last two dims (a view)."""
    return _diagonal(A, offset, dim1, dim2)


__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh",
           "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu",
           "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
           "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular",
           "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]
