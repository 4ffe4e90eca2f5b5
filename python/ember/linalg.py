"""ember.linalg: torch.linalg's functions (the math runs in C++: LAPACK through OpenBLAS on the CPU, cuSOLVER on CUDA).

Factorizations return namedtuples as torch.linalg's do. float32, float64, complex64 and complex128 on both devices
(docs/linalg.md), with PyTorch's gradients.
"""

from ._C import _linalg  # noqa: F401  (its __all__: the functions below bound in C++)
from ._C import diagonal as _diagonal
from ._C._linalg import *  # noqa: F403  cholesky, det, eig, eigh, inv, lstsq, lu, matrix_norm, norm, qr, solve, svd, ...


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


__all__ = [*_linalg.__all__, "diagonal"]
