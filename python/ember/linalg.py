"""ember.linalg: torch.linalg's functions (the math runs in C++: LAPACK through OpenBLAS on the CPU).

Factorizations return namedtuples as torch.linalg's do. Not available: the general (non-symmetric) eigenvalue
problem (eig, eigvals: complex results) and the complex dtypes.
"""
from ._C import diagonal as _diagonal
from ._C._linalg import LinAlgError, cross, vander, vector_norm  # noqa: F401  (LinAlgError is ember._C._LinAlgError)
from ._C._linalg import (cholesky_ex, cond, householder_product, inv_ex, ldl_factor, ldl_factor_ex,  # noqa: F401
                         ldl_solve, lu, lu_factor, lu_factor_ex, lu_solve, matrix_exp, matrix_rank, solve_ex,
                         tensorinv, tensorsolve)
from ._C._linalg import (cholesky, det, eigh, eigvalsh, inv, lstsq, matmul, matrix_norm, matrix_power,  # noqa: F401
                         multi_dot, norm, pinv, qr, slogdet, solve, solve_triangular, svd, svdvals, vecdot)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """Returns a view of the diagonals of the matrices in ``A``, by default over its last two dimensions.

    :func:`ember.diagonal` with defaults suited to batches of matrices: for ``A`` of shape :math:`(*, m, n)` the
    result has shape :math:`(*, k)`, the diagonal's length :math:`k`. ``offset`` picks a diagonal above (positive)
    or below (negative) the main one. The result shares ``A``'s memory. Differentiable.

    Args:
        A (Tensor): a tensor of at least 2 dimensions.

    Keyword args:
        offset (int, optional): which diagonal: 0 the main one, positive above it, negative below it. Default: 0.
        dim1 (int, optional): the dimension of the rows. Default: -2.
        dim2 (int, optional): the dimension of the columns. Default: -1.

    Example::

        >>> A = ember.arange(9.).reshape(3, 3)
        >>> ember.linalg.diagonal(A)
        tensor([0., 4., 8.])
        >>> ember.linalg.diagonal(A, offset=1)
        tensor([1., 5.])
    """
    return _diagonal(A, offset, dim1, dim2)


__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh",
           "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu",
           "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
           "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular",
           "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]
