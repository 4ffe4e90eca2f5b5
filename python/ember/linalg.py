"""ember.linalg: torch.linalg's functions (the math runs in C++: LAPACK through OpenBLAS on the CPU).

Factorizations return namedtuples as torch.linalg's do. Not available: the general (non-symmetric) eigenvalue
problem (eig, eigvals: complex results) and the complex dtypes.
"""
from ._C import _linalg  # noqa: F401  (its __all__: the functions below bound in C++)
from ._C._linalg import *  # noqa: F403  cholesky, det, eigh, inv, lstsq, lu, matrix_norm, norm, qr, solve, svd, ...
from ._C import _linalg_vector_norm as vector_norm
from ._C import _linalg_cross as cross, _linalg_vander as vander
from ._C import diagonal as _diagonal
from ._C import _LinAlgError as LinAlgError  # a RuntimeError, as torch.linalg.LinAlgError


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: ember.diagonal with the defaults on the last two dims (a view)."""
    return _diagonal(A, offset, dim1, dim2)


__all__ = [*_linalg.__all__, "LinAlgError", "cross", "diagonal", "vander", "vector_norm"]
