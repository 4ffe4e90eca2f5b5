// Bindings of the matrix decompositions (ember/ops/linalg.h, lu.h, matrix_functions.h): Cholesky, QR, SVD, the
// symmetric eigendecomposition, LU and LDL^T with their *_ex forms, and the Householder products; in ember._C._linalg
// (ember.linalg), and the older top-level names (torch.cholesky, svd, qr, lu, lu_unpack, geqrf, orgqr) with their
// Tensor methods. Decompositions return namedtuples, as torch.return_types.
#include <string>

#include "linalg_common.h"

namespace ember::py {

namespace {

using nb::arg;

struct ReturnTypes {
  nb::handle qr, svd, eigh, lu_factor, lu_factor_ex, lu, lu_unpack, cholesky_ex, ldl_factor, ldl_factor_ex,
      lu_with_info, geqrf, legacy_qr, legacy_svd, eig, polar;
} g_types;

const char* kCholeskyDoc = R"(
Computes the Cholesky decomposition of a symmetric positive-definite matrix.

.. math::
    A = L L^{H}

where :math:`L` is lower triangular with a positive diagonal (with ``upper=True``, :math:`A = U^{T} U` and
:math:`U = L^{T}` is returned). Only the lower triangle of ``A`` is read (the upper one for ``upper=True``).
``A`` has shape :math:`(*, n, n)` with any number of batch dims, and dtype float32, float64, complex64 or complex128. Differentiable.

Raises :class:`ember.linalg.LinAlgError` when a matrix is not positive-definite (naming the leading minor that is
not); :func:`ember.linalg.cholesky_ex` reports it in ``info`` instead.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.

Keyword args:
    upper (bool, optional): return the upper-triangular factor :math:`U`. Default: ``False``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.cholesky(ember.tensor([[4., 2.], [2., 3.]]))
    tensor([[2.0000, 0.0000],
            [1.0000, 1.4142]])
)";

const char* kCholeskyExDoc = R"(
Computes the Cholesky decomposition of a symmetric positive-definite matrix, reporting failures in ``info``.

Returns the namedtuple ``(L, info)``: ``L`` as :func:`ember.linalg.cholesky` computes it, and ``info``, an int32
tensor of the batch shape holding LAPACK's code for each matrix: 0 on success, :math:`i > 0` when the leading
minor of order :math:`i` is not positive-definite (``L`` is then only partly computed). Nothing is raised unless
``check_errors=True``. Differentiable in ``L``.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`, float32, float64, complex64 or complex128.

Keyword args:
    upper (bool, optional): return the upper-triangular factor. Default: ``False``.
    check_errors (bool, optional): raise :class:`ember.linalg.LinAlgError` for a failed matrix, as
        :func:`ember.linalg.cholesky` does. Default: ``False``.
    out (tuple, optional): two tensors ``(L, info)`` of the results' shapes and dtypes to write into.

Example::

    >>> ember.linalg.cholesky_ex(ember.tensor([[1., 2.], [2., 1.]])).info
    tensor(2, dtype=ember.int32)
)";

const char* kQrDoc = R"(
Computes the QR decomposition of a matrix.

.. math::
    A = Q R

with :math:`Q` orthogonal (orthonormal columns) and :math:`R` upper triangular. For ``A`` of shape
:math:`(*, m, n)` and :math:`k = \min(m, n)`, ``mode`` chooses the factors returned:

- ``'reduced'`` (default): :math:`Q` of shape :math:`(*, m, k)` and :math:`R` of shape :math:`(*, k, n)`.
- ``'complete'``: :math:`Q` of shape :math:`(*, m, m)` and :math:`R` of shape :math:`(*, m, n)`.
- ``'r'``: only :math:`R` (reduced); :math:`Q` is an empty tensor.

The decomposition is not unique (the signs of :math:`R`'s diagonal may differ from another library's). float32 or
float64; differentiable (not in mode ``'r'``). Returns the namedtuple ``(Q, R)``.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`.
    mode (str, optional): ``'reduced'``, ``'complete'`` or ``'r'``. Default: ``'reduced'``.

Keyword args:
    out (tuple, optional): two tensors ``(Q, R)`` of the results' shapes and dtypes to write into.

Example::

    >>> A = ember.tensor([[3., 1.], [4., 2.], [0., 5.]])
    >>> Q, R = ember.linalg.qr(A)
    >>> Q.shape, R.shape
    (ember.Size([3, 2]), ember.Size([2, 2]))
    >>> ember.allclose(Q @ R, A, atol=1e-6)
    True
)";

const char* kSvdDoc = R"(
Computes the singular value decomposition of a matrix.

.. math::
    A = U \operatorname{diag}(S) V^{H}

For ``A`` of shape :math:`(*, m, n)` and :math:`k = \min(m, n)`, ``S`` holds the :math:`k` singular values in
descending order, ``U`` has orthonormal columns and ``Vh`` (:math:`V^{H}`, :math:`V^{T}` for real input) orthonormal rows.
With ``full_matrices=True``, ``U`` is :math:`(*, m, m)` and ``Vh`` :math:`(*, n, n)`; otherwise ``U`` is
:math:`(*, m, k)` and ``Vh`` :math:`(*, k, n)`. The singular vectors are unique only up to sign. float32 or
float64. Differentiable; the gradient through ``U`` and ``Vh`` is finite only for distinct singular values.
Returns the namedtuple ``(U, S, Vh)``; for the values alone :func:`ember.linalg.svdvals` is cheaper.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`.
    full_matrices (bool, optional): return the full ``U`` and ``Vh`` rather than the reduced ones.
        Default: ``True``.

Keyword args:
    driver (str, optional): accepted for PyTorch's sake (it selects a cuSOLVER routine there); ember always uses
        LAPACK's ``gesdd`` on the CPU and cuSOLVER's ``gesvdj`` on CUDA. Default: ``None``.
    out (tuple, optional): three tensors ``(U, S, Vh)`` of the results' shapes and dtypes to write into.

Example::

    >>> A = ember.tensor([[3., 0.], [0., -2.], [0., 0.]])
    >>> U, S, Vh = ember.linalg.svd(A, full_matrices=False)
    >>> S
    tensor([3., 2.])
    >>> ember.allclose(U @ ember.diag(S) @ Vh, A)
    True
)";

const char* kSvdvalsDoc = R"(
Computes the singular values of a matrix, in descending order.

The values are those :func:`ember.linalg.svd` returns as ``S``, computed without the singular vectors. For ``A``
of shape :math:`(*, m, n)` the result has shape :math:`(*, \min(m, n))`. float32, float64, complex64 or complex128; differentiable.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`.

Keyword args:
    driver (str, optional): accepted for PyTorch's sake and ignored (see :func:`ember.linalg.svd`).
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.svdvals(ember.tensor([[3., 0.], [0., -2.]]))
    tensor([3., 2.])
)";

const char* kEighDoc = R"(
Computes the eigenvalues and eigenvectors of a symmetric matrix.

.. math::
    A = Q \operatorname{diag}(\Lambda) Q^{H}

with real eigenvalues :math:`\Lambda` in ascending order and orthonormal eigenvectors, the columns of :math:`Q`.
Only the triangle of ``A`` named by ``UPLO`` is read. Eigenvectors are unique only up to sign (and, for repeated
eigenvalues, up to a rotation of their subspace). float32, float64, complex64 or complex128, batched over leading dims. Differentiable;
the gradient through the eigenvectors is finite only for distinct eigenvalues. Returns the namedtuple
``(eigenvalues, eigenvectors)``.

Args:
    A (Tensor): the symmetric matrices, :math:`(*, n, n)`.
    UPLO (str, optional): ``'L'`` to read the lower triangle, ``'U'`` the upper one. Default: ``'L'``.

Keyword args:
    out (tuple, optional): two tensors ``(eigenvalues, eigenvectors)`` of the results' shapes and dtypes to write
        into.

Example::

    >>> L, Q = ember.linalg.eigh(ember.tensor([[2., 1.], [1., 2.]]))
    >>> L
    tensor([1., 3.])
    >>> Q.abs()
    tensor([[0.7071, 0.7071],
            [0.7071, 0.7071]])
)";

const char* kEigvalshDoc = R"(
Computes the eigenvalues of a symmetric matrix, in ascending order.

The values are those :func:`ember.linalg.eigh` returns, computed without the eigenvectors. Only the triangle of
``A`` named by ``UPLO`` is read. float32, float64, complex64 or complex128; differentiable.

Args:
    A (Tensor): the symmetric matrices, :math:`(*, n, n)`.
    UPLO (str, optional): ``'L'`` to read the lower triangle, ``'U'`` the upper one. Default: ``'L'``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.eigvalsh(ember.tensor([[2., 1.], [1., 2.]]))
    tensor([1., 3.])
)";

const char* kLuFactorDoc = R"(
Computes a compact LU decomposition with partial pivoting of a matrix.

.. math::
    A = P L U

Returns the namedtuple ``(LU, pivots)``: ``LU`` holds :math:`U` on and above its diagonal and the
multipliers of the unit lower-triangular :math:`L` below it; ``pivots`` (int32, :math:`(*, \min(m, n))`) holds
LAPACK's 1-based row interchanges: row :math:`i` was swapped with row ``pivots[i]``. :func:`ember.lu_unpack`
expands them into :math:`P, L, U`, and :func:`ember.linalg.lu_solve` solves systems with them. float32 or
float64, any :math:`(*, m, n)`. Differentiable.

Raises a RuntimeError when :math:`U` has an exactly zero diagonal entry (a solve would divide by zero);
:func:`ember.linalg.lu_factor_ex` reports it in ``info`` instead.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`.

Keyword args:
    pivot (bool, optional): pivot rows. ``False`` is not supported (as in PyTorch on the CPU). Default: ``True``.
    out (tuple, optional): two tensors ``(LU, pivots)`` of the results' shapes and dtypes to write into.

Example::

    >>> LU, pivots = ember.linalg.lu_factor(ember.tensor([[1., 2.], [3., 4.]]))
    >>> LU
    tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]])
    >>> pivots
    tensor([2, 2], dtype=ember.int32)
)";

const char* kLuFactorExDoc = R"(
Computes a compact LU decomposition with partial pivoting, reporting singular factors in ``info``.

Returns the namedtuple ``(LU, pivots, info)``: ``LU`` and ``pivots`` as :func:`ember.linalg.lu_factor` computes
them, and ``info`` (int32, the batch shape) holding LAPACK's code for each matrix: 0, or :math:`i > 0` when
:math:`U_{ii}` (1-based) is exactly zero. The factorization is complete either way; nothing is raised unless
``check_errors=True``.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`, float32, float64, complex64 or complex128.

Keyword args:
    pivot (bool, optional): pivot rows (``False`` is not supported). Default: ``True``.
    check_errors (bool, optional): raise for a nonzero ``info``. Default: ``False``.
    out (tuple, optional): three tensors ``(LU, pivots, info)`` of the results' shapes and dtypes to write into.

Example::

    >>> ember.linalg.lu_factor_ex(ember.tensor([[1., 2.], [2., 4.]])).info
    tensor(2, dtype=ember.int32)
)";

const char* kLuDoc = R"(
Computes the LU decomposition with partial pivoting of a matrix.

.. math::
    A = P L U

For ``A`` of shape :math:`(*, m, n)` and :math:`k = \min(m, n)`: :math:`P` is an :math:`(*, m, m)` permutation
matrix, :math:`L` an :math:`(*, m, k)` unit lower-triangular matrix and :math:`U` a :math:`(*, k, n)`
upper-triangular one. Returns the namedtuple ``(P, L, U)``. float32, float64, complex64 or complex128; differentiable in ``L`` and
``U``.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`.

Keyword args:
    pivot (bool, optional): pivot rows (``False`` is not supported, as in PyTorch on the CPU). Default: ``True``.
    out (tuple, optional): three tensors ``(P, L, U)`` of the results' shapes and dtypes to write into.

Example::

    >>> P, L, U = ember.linalg.lu(ember.tensor([[1., 2.], [3., 4.]]))
    >>> P
    tensor([[0., 1.],
            [1., 0.]])
    >>> U
    tensor([[3.0000, 4.0000],
            [0.0000, 0.6667]])
)";

const char* kLuUnpackDoc = R"(
Expands the compact LU decomposition of :func:`ember.linalg.lu_factor` into the matrices ``P``, ``L`` and ``U``.

``LU_data`` and ``LU_pivots`` are what :func:`ember.linalg.lu_factor` (or :func:`ember.lu`) returns; the result
is the namedtuple ``(P, L, U)`` of :func:`ember.linalg.lu`. The parts not asked for come back as empty tensors.

Args:
    LU_data (Tensor): the packed factors, :math:`(*, m, n)`.
    LU_pivots (Tensor): the 1-based pivots (int32), :math:`(*, \min(m, n))`.
    unpack_data (bool, optional): compute ``L`` and ``U``. Default: ``True``.
    unpack_pivots (bool, optional): compute ``P``. Default: ``True``.

Keyword args:
    out (tuple, optional): three tensors ``(P, L, U)`` of the results' shapes and dtypes to write into.

Example::

    >>> P, L, U = ember.lu_unpack(*ember.linalg.lu_factor(ember.tensor([[1., 2.], [3., 4.]])))
    >>> L
    tensor([[1.0000, 0.0000],
            [0.3333, 1.0000]])
)";

const char* kTorchLuDoc = R"(
Computes the compact LU decomposition with partial pivoting of a matrix (deprecated in PyTorch).

Returns ``(LU, pivots)`` as :func:`ember.linalg.lu_factor` does, or with ``get_infos=True`` the namedtuple
``(LU, pivots, info)`` of :func:`ember.linalg.lu_factor_ex`. Unlike those it never raises for a singular
:math:`U`. New code should use :func:`ember.linalg.lu_factor`.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`, float32, float64, complex64 or complex128.
    pivot (bool, optional): pivot rows (``False`` is not supported). Default: ``True``.
    get_infos (bool, optional): also return ``info``. Default: ``False``.
    out (tuple, optional): tensors ``(LU, pivots)`` (or ``(LU, pivots, info)``) to write into.

Example::

    >>> LU, pivots = ember.lu(ember.tensor([[1., 2.], [3., 4.]]))
    >>> pivots
    tensor([2, 2], dtype=ember.int32)
)";

const char* kLdlFactorDoc = R"(
Computes a compact LDL decomposition (Bunch-Kaufman) of a symmetric, possibly indefinite, matrix.

.. math::
    A = L D L^{T}

with :math:`L` unit lower triangular (up to the symmetric pivoting) and :math:`D` block diagonal with 1x1 and 2x2
blocks. Only the lower triangle of ``A`` is read. Returns the namedtuple ``(LD, pivots)``: ``LD`` holds :math:`D`
and :math:`L`'s multipliers in its lower triangle (zeros above), ``pivots`` (int32, :math:`(*, n)`) LAPACK's
``sytrf`` pivots (negative entries mark 2x2 blocks). :func:`ember.linalg.ldl_solve` solves systems with them.
float32, float64, complex64 or complex128. Not differentiable.

Raises :class:`ember.linalg.LinAlgError` when :math:`D` is exactly singular; :func:`ember.linalg.ldl_factor_ex`
reports it in ``info`` instead.

Args:
    A (Tensor): the symmetric matrices, :math:`(*, n, n)`.

Keyword args:
    hermitian (bool, optional): whether ``A`` is Hermitian rather than symmetric; the same for real matrices.
        Default: ``False``.
    out (tuple, optional): two tensors ``(LD, pivots)`` of the results' shapes and dtypes to write into.

Example::

    >>> LD, pivots = ember.linalg.ldl_factor(ember.tensor([[4., 2.], [2., 3.]]))
    >>> LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
)";

const char* kLdlFactorExDoc = R"(
Computes a compact LDL decomposition of a symmetric matrix, reporting singular factors in ``info``.

Returns the namedtuple ``(LD, pivots, info)``: ``LD`` and ``pivots`` as :func:`ember.linalg.ldl_factor`
computes them, and ``info`` (int32, the batch shape) holding LAPACK's code for each matrix: 0, or :math:`i > 0`
when :math:`D_{ii}` (1-based) is exactly zero. Nothing is raised unless ``check_errors=True``.

Args:
    A (Tensor): the symmetric matrices, :math:`(*, n, n)`, float32, float64, complex64 or complex128.

Keyword args:
    hermitian (bool, optional): whether ``A`` is Hermitian (``hetrf``) rather than complex symmetric (``sytrf``); the same for real matrices. Default: ``False``.
    check_errors (bool, optional): raise :class:`ember.linalg.LinAlgError` for a nonzero ``info``.
        Default: ``False``.
    out (tuple, optional): three tensors ``(LD, pivots, info)`` of the results' shapes and dtypes to write into.

Example::

    >>> ember.linalg.ldl_factor_ex(ember.tensor([[4., 2.], [2., 3.]])).info
    tensor(0, dtype=ember.int32)
)";

const char* kHouseholderProductDoc = R"(
Computes the first :math:`n` columns of a product of Householder reflections.

.. math::
    H_1 H_2 \cdots H_k, \qquad H_i = I_m - \tau_i v_i v_i^{T}

where :math:`v_i` is column :math:`i` of ``A`` below the diagonal with a 1 on the diagonal (the entries on and
above it are not read). With ``A`` and ``tau`` from :func:`ember.geqrf` this is the :math:`Q` of the QR
decomposition. ``A`` has shape :math:`(*, m, n)` with :math:`m \ge n`, ``tau`` :math:`(*, k)` with
:math:`k \le n`. float32, float64, complex64 or complex128; differentiable.

Args:
    A (Tensor): the Householder vectors, :math:`(*, m, n)`.
    tau (Tensor): the reflections' factors, :math:`(*, k)`.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> A = ember.tensor([[3., 1.], [4., 2.], [0., 5.]])
    >>> Q = ember.linalg.householder_product(*ember.geqrf(A))
    >>> ember.allclose(Q.abs(), ember.linalg.qr(A).Q.abs(), atol=1e-6)
    True
)";

const char* kOrgqrDoc = R"(
Computes the first :math:`n` columns of a product of Householder reflections.

An alias of :func:`ember.linalg.householder_product`.

Args:
    input (Tensor): the Householder vectors, :math:`(*, m, n)`, as :func:`ember.geqrf` returns them.
    tau (Tensor): the reflections' factors, :math:`(*, k)`.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.
)";

const char* kEigDoc = R"(
Computes the eigenvalue decomposition of a square matrix, if it exists.

.. math::
    A = V \operatorname{diag}(L) V^{-1}

for ``A`` of shape :math:`(*, n, n)`, real or complex (float32, float64, complex64, complex128). The eigenvalues
``L`` and the eigenvectors ``V`` (as columns, each of norm 1) are always complex (complex64 for float32 and
complex64 input, complex128 otherwise), even for a real ``A``, as in PyTorch; they come in LAPACK's (``geev``)
order. Eigenvectors are unique only up to a complex phase. Input with infs or NaNs raises. Differentiable; a loss
of the eigenvectors must not depend on their phases (the backward raises otherwise, as PyTorch's), and the gradient
is finite only for distinct eigenvalues. Returns the namedtuple ``(eigenvalues, eigenvectors)``. CPU only.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.

Keyword args:
    out (tuple, optional): two tensors ``(eigenvalues, eigenvectors)`` of the results' shapes and dtypes.

Example::

    >>> L, V = ember.linalg.eig(ember.tensor([[0., -1.], [1., 0.]]))
    >>> L
    tensor([0.+1.j, 0.-1.j])
)";

const char* kEigvalsDoc = R"(
Computes the eigenvalues of a square matrix.

The values :func:`ember.linalg.eig` returns, computed without the eigenvectors (complex, for real or complex
``A`` of shape :math:`(*, n, n)`). Differentiable. CPU only.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.eigvals(ember.tensor([[2., 0.], [0., 3.]]))
    tensor([2.+0.j, 3.+0.j])
)";

const char* kPolarDoc = R"(
Computes the polar decomposition of a matrix.

.. math::
    A = U H

for ``A`` of shape :math:`(*, m, n)` with :math:`m \geq n`: ``U`` :math:`(*, m, n)` has orthonormal columns (it
is the closest such matrix to ``A`` in the Frobenius norm) and ``H`` :math:`(*, n, n)` is symmetric (Hermitian)
positive semi-definite. Computed through the SVD, :math:`U = W V^H` and :math:`H = V \operatorname{diag}(S) V^H`
for :math:`A = W \operatorname{diag}(S) V^H`. float32, float64, complex64, complex128. Differentiable where ``A``
has full column rank. Returns the namedtuple ``(U, H)``. Not related to :func:`ember.polar`.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)` with :math:`m \geq n`.

Keyword args:
    out (tuple, optional): two tensors ``(U, H)`` of the results' shapes and dtypes to write into.

Example::

    >>> U, H = ember.linalg.polar(ember.tensor([[2., 0.], [0., -3.]]))
    >>> U
    tensor([[ 1.,  0.],
            [ 0., -1.]])
    >>> H
    tensor([[2., 0.],
            [0., 3.]])
)";

const char* kMatrixSqrthDoc = R"(
Computes the principal square root of a symmetric (Hermitian) positive-definite matrix.

Returns the symmetric (Hermitian) positive-definite :math:`X` with :math:`X X = A`, for ``A`` of shape
:math:`(*, n, n)`. Only the lower triangle of ``A`` is read (as :func:`ember.linalg.eigh`); eigenvalues below zero
count as zero. float32, float64, complex64, complex128. Differentiable.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.

Example::

    >>> ember.linalg.matrix_sqrth(ember.tensor([[4., 0.], [0., 9.]]))
    tensor([[2., 0.],
            [0., 3.]])
)";

const char* kOrmqrDoc = R"(
Multiplies a matrix by the :math:`Q` of a QR decomposition given in LAPACK's compact form.

With ``input`` :math:`(*, mn, k)` and ``tau`` :math:`(*, \min(mn, k))` from :func:`ember.geqrf`,
:math:`Q = H_1 \cdots H_k` with :math:`H_i = I - \tau_i v_i v_i^H`; the result is :math:`op(Q)\,C` (``left``) or
:math:`C\,op(Q)` for ``other`` :math:`C` of shape :math:`(*, m, n)`, :math:`op(Q) = Q^H` when ``transpose``.
LAPACK's ``ormqr`` / ``unmqr``. Differentiable in all three inputs.

Args:
    input (Tensor): the Householder vectors below the diagonal, :math:`(*, mn, k)`; :math:`mn` is :math:`m` when
        ``left``, else :math:`n`.
    tau (Tensor): the reflectors' scalars, :math:`(*, \min(mn, k))`.
    other (Tensor): the matrix :math:`C`, :math:`(*, m, n)`.
    left (bool, optional): multiply from the left. Default: ``True``.
    transpose (bool, optional): use :math:`Q^H`. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> A = ember.tensor([[3., 1.], [4., 2.], [0., 5.]])
    >>> a, tau = ember.geqrf(A)
    >>> ember.allclose(ember.ormqr(a, tau, ember.eye(3))[:, :2], ember.linalg.qr(A).Q, atol=1e-6)
    True
)";

const char* kGeqrfDoc = R"(
Computes a QR decomposition in LAPACK's compact form (``geqrf``).

Returns the namedtuple ``(a, tau)``: :math:`R` on and above the diagonal of ``a``, and below it the Householder
vectors whose reflections, with the factors ``tau``, make up :math:`Q` (:func:`ember.linalg.householder_product`
forms it). For ``input`` of shape :math:`(*, m, n)`, ``tau`` has shape :math:`(*, \min(m, n))`. float32 or
float64. Not differentiable (as in PyTorch); :func:`ember.linalg.qr` is.

Args:
    input (Tensor): the matrices, :math:`(*, m, n)`.

Keyword args:
    out (tuple, optional): two tensors ``(a, tau)`` of the results' shapes and dtypes to write into.

Example::

    >>> a, tau = ember.geqrf(ember.tensor([[3., 1.], [4., 2.], [0., 5.]]))
    >>> a[:2].triu().abs()
    tensor([[5.0000, 2.2000],
            [0.0000, 5.0160]])
)";

const char* kTorchCholeskyDoc = R"(
Computes the Cholesky decomposition of a symmetric positive-definite matrix.

The older form of :func:`ember.linalg.cholesky`: returns the lower-triangular :math:`L` with :math:`A = L L^{H}`,
or with ``upper=True`` the upper-triangular :math:`U` with :math:`A = U^{T} U`. PyTorch 2 has removed this
function; ember keeps it. Raises
:class:`ember.linalg.LinAlgError` for a matrix that is not positive-definite.

Args:
    input (Tensor): the matrices, :math:`(*, n, n)`, float32, float64, complex64 or complex128.
    upper (bool, optional): return the upper-triangular factor. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.
)";

const char* kTorchSvdDoc = R"(
Computes the singular value decomposition of a matrix, returning ``V`` rather than ``Vh``.

The older form of :func:`ember.linalg.svd`: returns the namedtuple ``(U, S, V)`` with
:math:`A = U \operatorname{diag}(S) V^{T}`. Unlike :func:`ember.linalg.svd` the reduced factors are the default (``some=True``:
``U`` :math:`(*, m, k)`, ``V`` :math:`(*, n, k)`, :math:`k = \min(m, n)`); with ``compute_uv=False`` only ``S`` is
computed and ``U`` and ``V`` are zero-filled matrices of the full shapes. float32, float64, complex64 or complex128; differentiable.

Args:
    input (Tensor): the matrices, :math:`(*, m, n)`.
    some (bool, optional): return the reduced factors rather than the full ones. Default: ``True``.
    compute_uv (bool, optional): compute ``U`` and ``V``. Default: ``True``.

Keyword args:
    out (tuple, optional): three tensors ``(U, S, V)`` of the results' shapes and dtypes to write into.

Example::

    >>> U, S, V = ember.svd(ember.tensor([[3., 0.], [0., -2.], [0., 0.]]))
    >>> S, V.shape
    (tensor([3., 2.]), ember.Size([2, 2]))
)";

const char* kTorchQrDoc = R"(
Computes the QR decomposition of a matrix (the older form of :func:`ember.linalg.qr`).

Returns the namedtuple ``(Q, R)``: the reduced factors with ``some=True`` (mode ``'reduced'`` of
:func:`ember.linalg.qr`), the complete ones with ``some=False``. PyTorch 2 has removed this function; ember keeps
it.

Args:
    input (Tensor): the matrices, :math:`(*, m, n)`, float32, float64, complex64 or complex128.
    some (bool, optional): return the reduced factors. Default: ``True``.

Keyword args:
    out (tuple, optional): two tensors ``(Q, R)`` of the results' shapes and dtypes to write into.
)";

void init_linalg_ns(nb::module_& la) {
  def_aliased(
      la, "cholesky", "A", "input", kCholeskyDoc, ", *, upper: bool = False, out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, bool upper, nb::handle out) {
        return finish_out(linalg_cholesky(A, upper), out, "linalg.cholesky");
      },
      nb::kw_only(), arg("upper") = false, arg("out") = nb::none());
  def_aliased(
      la, "cholesky_ex", "A", "input", kCholeskyExDoc,
      ", *, upper: bool = False, check_errors: bool = False, out: tuple[Tensor, Tensor] | None = None) -> "
      "tuple[Tensor, Tensor]",
      [](const Tensor& A, bool upper, bool check_errors, nb::handle out) {
        auto [L, info] = linalg_cholesky_ex(A, upper, check_errors);
        return results(g_types.cholesky_ex, {L, info}, out, "linalg.cholesky_ex");
      },
      nb::kw_only(), arg("upper") = false, arg("check_errors") = false, arg("out") = nb::none());
  la.def(
      "qr",
      [](const Tensor& A, const std::string& mode, nb::handle out) {
        auto [Q, R] = linalg_qr(A, mode);
        return results(g_types.qr, {Q, R}, out, "linalg.qr");
      },
      arg("A"), arg("mode") = "reduced", nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def qr(A: Tensor, mode: str = 'reduced', *, out: tuple[Tensor, Tensor] | None = None) -> "
              "tuple[Tensor, Tensor]"),
      kQrDoc);
  la.def(
      "svd",
      [](const Tensor& A, bool full_matrices, nb::handle, nb::handle out) {
        auto [U, S, Vh] = linalg_svd(A, full_matrices);
        return results(g_types.svd, {U, S, Vh}, out, "linalg.svd");
      },
      arg("A"), arg("full_matrices") = true, nb::kw_only(), arg("driver") = nb::none(), arg("out") = nb::none(),
      nb::sig("def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None, "
              "out: tuple[Tensor, Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor, Tensor]"),
      kSvdDoc);
  la.def(
      "svdvals",
      [](const Tensor& A, nb::handle, nb::handle out) { return finish_out(linalg_svdvals(A), out, "linalg.svdvals"); },
      arg("A"), nb::kw_only(), arg("driver") = nb::none(), arg("out") = nb::none(),
      nb::sig("def svdvals(A: Tensor, *, driver: str | None = None, out: Tensor | None = None) -> Tensor"),
      kSvdvalsDoc);
  def_aliased(
      la, "eigh", "A", "input", kEighDoc,
      ", UPLO: str = 'L', *, out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]",
      [](const Tensor& A, const std::string& uplo, nb::handle out) {
        auto [L, V] = linalg_eigh(A, uplo);
        return results(g_types.eigh, {L, V}, out, "linalg.eigh");
      },
      arg("UPLO") = "L", nb::kw_only(), arg("out") = nb::none());
  def_aliased(
      la, "eig", "input", "A", kEigDoc, ", *, out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]",
      [](const Tensor& A, nb::handle out) {
        auto [L, V] = linalg_eig(A);
        return results(g_types.eig, {L, V}, out, "linalg.eig");
      },
      nb::kw_only(), arg("out") = nb::none());
  def_aliased(
      la, "eigvals", "input", "A", kEigvalsDoc, ", *, out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, nb::handle out) { return finish_out(linalg_eigvals(A), out, "linalg.eigvals"); },
      nb::kw_only(), arg("out") = nb::none());
  la.def(
      "polar",
      [](const Tensor& A, nb::handle out) {
        auto [U, H] = linalg_polar(A);
        return results(g_types.polar, {U, H}, out, "linalg.polar");
      },
      arg("A"), nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def polar(A: Tensor, *, out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]"), kPolarDoc);
  def_aliased(la, "matrix_sqrth", "A", "input", kMatrixSqrthDoc, ") -> Tensor", &linalg_matrix_sqrth);
  def_aliased(
      la, "eigvalsh", "A", "input", kEigvalshDoc, ", UPLO: str = 'L', *, out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, const std::string& uplo, nb::handle out) {
        return finish_out(linalg_eigvalsh(A, uplo), out, "linalg.eigvalsh");
      },
      arg("UPLO") = "L", nb::kw_only(), arg("out") = nb::none());
  la.def(
      "lu_factor",
      [](const Tensor& A, bool pivot, nb::handle out) {
        auto [LU, piv] = linalg_lu_factor(A, pivot);
        return results(g_types.lu_factor, {LU, piv}, out, "linalg.lu_factor");
      },
      arg("A"), nb::kw_only(), arg("pivot") = true, arg("out") = nb::none(),
      nb::sig("def lu_factor(A: Tensor, *, pivot: bool = True, out: tuple[Tensor, Tensor] | None = None) -> "
              "tuple[Tensor, Tensor]"),
      kLuFactorDoc);
  la.def(
      "lu_factor_ex",
      [](const Tensor& A, bool pivot, bool check_errors, nb::handle out) {
        auto [LU, piv, info] = linalg_lu_factor_ex(A, pivot, check_errors);
        return results(g_types.lu_factor_ex, {LU, piv, info}, out, "linalg.lu_factor_ex");
      },
      arg("A"), nb::kw_only(), arg("pivot") = true, arg("check_errors") = false, arg("out") = nb::none(),
      nb::sig("def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, "
              "out: tuple[Tensor, Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor, Tensor]"),
      kLuFactorExDoc);
  la.def(
      "lu",
      [](const Tensor& A, bool pivot, nb::handle out) {
        auto [P, L, U] = linalg_lu(A, pivot);
        return results(g_types.lu, {P, L, U}, out, "linalg.lu");
      },
      arg("A"), nb::kw_only(), arg("pivot") = true, arg("out") = nb::none(),
      nb::sig("def lu(A: Tensor, *, pivot: bool = True, out: tuple[Tensor, Tensor, Tensor] | None = None) -> "
              "tuple[Tensor, Tensor, Tensor]"),
      kLuDoc);
  def_aliased(
      la, "ldl_factor", "A", "input", kLdlFactorDoc,
      ", *, hermitian: bool = False, out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]",
      [](const Tensor& A, bool hermitian, nb::handle out) {
        auto [LD, piv] = linalg_ldl_factor(A, hermitian);
        return results(g_types.ldl_factor, {LD, piv}, out, "linalg.ldl_factor");
      },
      nb::kw_only(), arg("hermitian") = false, arg("out") = nb::none());
  def_aliased(
      la, "ldl_factor_ex", "A", "input", kLdlFactorExDoc,
      ", *, hermitian: bool = False, check_errors: bool = False, "
      "out: tuple[Tensor, Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor, Tensor]",
      [](const Tensor& A, bool hermitian, bool check_errors, nb::handle out) {
        auto [LD, piv, info] = linalg_ldl_factor_ex(A, hermitian, check_errors);
        return results(g_types.ldl_factor_ex, {LD, piv, info}, out, "linalg.ldl_factor_ex");
      },
      nb::kw_only(), arg("hermitian") = false, arg("check_errors") = false, arg("out") = nb::none());
  def_aliased(
      la, "householder_product", "A", "input", kHouseholderProductDoc,
      ", tau: Tensor, *, out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, const Tensor& tau, nb::handle out) {
        return finish_out(linalg_householder_product(A, tau), out, "linalg.householder_product");
      },
      arg("tau"), nb::kw_only(), arg("out") = nb::none());
}

// The older top-level names (torch.*) and their Tensor methods.
void init_top(nb::module_& m, nb::handle cls) {
  auto chol = [](const Tensor& a, bool upper) { return linalg_cholesky(a, upper); };
  m.def(
      "cholesky",
      [chol](const Tensor& a, bool upper, nb::handle out) { return finish_out(chol(a, upper), out, "cholesky"); },
      arg("input"), arg("upper") = false, nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def cholesky(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor"),
      kTorchCholeskyDoc);
  cls.attr("cholesky") = nb::cpp_function(chol, nb::is_method(), nb::scope(cls), nb::name("cholesky"),
                                          arg("upper") = false, method_doc(kTorchCholeskyDoc, "cholesky").c_str());

  // torch.svd: V rather than Vh, reduced unless some=False; without compute_uv, U and V are zeros.
  auto svd = [](const Tensor& a, bool some, bool compute_uv, nb::handle out) {
    if (!compute_uv) {
      const Tensor s = linalg_svdvals(a);
      const int64_t m = a.sizes()[a.dim() - 2], n = a.sizes()[a.dim() - 1];
      DimVector us(a.sizes()), vs(a.sizes());
      us[us.size() - 1] = m;
      vs[vs.size() - 2] = n;
      const TensorOptions o = TensorOptions(a.dtype()).device(a.device());
      return results(g_types.legacy_svd, {zeros(us, o), s, zeros(vs, o)}, out, "svd");
    }
    auto [U, S, Vh] = linalg_svd(a, !some);
    return results(g_types.legacy_svd, {U, S, transpose(Vh, -2, -1)}, out, "svd");
  };
  m.def("svd", svd, arg("input"), arg("some") = true, arg("compute_uv") = true, nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, "
                "out: tuple[Tensor, Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor, Tensor]"),
        kTorchSvdDoc);
  cls.attr("svd") = nb::cpp_function(
      [svd](const Tensor& a, bool some, bool compute_uv) { return svd(a, some, compute_uv, nb::handle()); },
      nb::is_method(), nb::scope(cls), nb::name("svd"), arg("some") = true, arg("compute_uv") = true,
      nb::sig("def svd(self, some: bool = True, compute_uv: bool = True) -> tuple[Tensor, Tensor, Tensor]"),
      method_doc(kTorchSvdDoc, "svd").c_str());

  auto qr = [](const Tensor& a, bool some, nb::handle out) {
    auto [Q, R] = linalg_qr(a, some ? "reduced" : "complete");
    return results(g_types.legacy_qr, {Q, R}, out, "qr");
  };
  m.def("qr", qr, arg("input"), arg("some") = true, nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def qr(input: Tensor, some: bool = True, *, out: tuple[Tensor, Tensor] | None = None) -> "
                "tuple[Tensor, Tensor]"),
        kTorchQrDoc);
  cls.attr("qr") = nb::cpp_function([qr](const Tensor& a, bool some) { return qr(a, some, nb::handle()); },
                                    nb::is_method(), nb::scope(cls), nb::name("qr"), arg("some") = true,
                                    nb::sig("def qr(self, some: bool = True) -> tuple[Tensor, Tensor]"),
                                    method_doc(kTorchQrDoc, "qr").c_str());

  // torch.lu (deprecated): never raises for a singular U; get_infos adds the info tensor.
  auto lu = [](const Tensor& A, bool pivot, bool get_infos, nb::handle out) -> nb::object {
    auto [LU, piv, info] = lu_with_info(A, pivot);
    if (get_infos) return results(g_types.lu_with_info, {LU, piv, info}, out, "lu");
    return results(nb::handle(reinterpret_cast<PyObject*>(&PyTuple_Type)), {LU, piv}, out, "lu");
  };
  m.def("lu", lu, arg("A"), arg("pivot") = true, arg("get_infos") = false, arg("out") = nb::none(),
        nb::sig("def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, "
                "out: tuple[Tensor, ...] | None = None) -> tuple[Tensor, ...]"),
        kTorchLuDoc);
  cls.attr("lu") = nb::cpp_function(
      [lu](const Tensor& A, bool pivot, bool get_infos) { return lu(A, pivot, get_infos, nb::handle()); },
      nb::is_method(), nb::scope(cls), nb::name("lu"), arg("pivot") = true, arg("get_infos") = false,
      nb::sig("def lu(self, pivot: bool = True, get_infos: bool = False) -> tuple[Tensor, ...]"),
      method_doc(kTorchLuDoc, "lu").c_str());

  m.def(
      "lu_unpack",
      [](const Tensor& LU, const Tensor& piv, bool data, bool pivots, nb::handle out) {
        auto [P, L, U] = lu_unpack(LU, piv, data, pivots);
        return results(g_types.lu_unpack, {P, L, U}, out, "lu_unpack");
      },
      arg("LU_data"), arg("LU_pivots"), arg("unpack_data") = true, arg("unpack_pivots") = true, nb::kw_only(),
      arg("out") = nb::none(),
      nb::sig("def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, "
              "unpack_pivots: bool = True, *, out: tuple[Tensor, Tensor, Tensor] | None = None) -> "
              "tuple[Tensor, Tensor, Tensor]"),
      kLuUnpackDoc);

  auto geqrf_ = [](const Tensor& A, nb::handle out) {
    auto [a, tau] = geqrf(A);
    return results(g_types.geqrf, {a, tau}, out, "geqrf");
  };
  m.def("geqrf", geqrf_, arg("input"), nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def geqrf(input: Tensor, *, out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]"),
        kGeqrfDoc);
  cls.attr("geqrf") = nb::cpp_function(
      [geqrf_](const Tensor& A) { return geqrf_(A, {}); }, nb::is_method(), nb::scope(cls), nb::name("geqrf"),
      nb::sig("def geqrf(self) -> tuple[Tensor, Tensor]"), method_doc(kGeqrfDoc, "geqrf").c_str());

  // torch.orgqr(input, tau) as documented; PyTorch's parser calls tau input2.
  auto orgqr = [](const Tensor& A, const Tensor& tau, nb::handle out) {
    return finish_out(linalg_householder_product(A, tau), out, "orgqr");
  };
  m.def("orgqr", orgqr, arg("input"), arg("tau"), nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def orgqr(input: Tensor, tau: Tensor, *, out: Tensor | None = None) -> Tensor"), kOrgqrDoc);
  m.def("orgqr", orgqr, arg("input"), arg("input2"), nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def orgqr(input: Tensor, input2: Tensor, *, out: Tensor | None = None) -> Tensor"),
        parsed_names_doc("``input2`` for ``tau``").c_str());
  auto ormqr_ = [](const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose, nb::handle out) {
    return finish_out(ormqr(A, tau, C, left, transpose), out, "ormqr");
  };
  m.def("ormqr", ormqr_, arg("input"), arg("tau"), arg("other"), arg("left") = true, arg("transpose") = false,
        nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False, *, "
                "out: Tensor | None = None) -> Tensor"),
        kOrmqrDoc);
  m.def("ormqr", ormqr_, arg("input"), arg("input2"), arg("input3"), arg("left") = true, arg("transpose") = false,
        nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False, "
                "*, out: Tensor | None = None) -> Tensor"),
        parsed_names_doc("``input2`` for ``tau``, ``input3`` for ``other``").c_str());
  cls.attr("ormqr") = nb::cpp_function([](const Tensor& A, const Tensor& tau, const Tensor& C, bool left,
                                          bool transpose) { return ormqr(A, tau, C, left, transpose); },
                                       nb::is_method(), nb::scope(cls), nb::name("ormqr"), arg("input2"), arg("input3"),
                                       arg("left") = true, arg("transpose") = false,
                                       method_doc(kOrmqrDoc, "ormqr").c_str());
  cls.attr("orgqr") = nb::cpp_function(&linalg_householder_product, nb::is_method(), nb::scope(cls), nb::name("orgqr"),
                                       arg("input2"), method_doc(kOrgqrDoc, "orgqr").c_str());
}

}  // namespace

void init_linalg_decompositions(nb::module_& m) {
  nb::module_ la = linalg_module(m);
  g_types.qr = return_type(la, "linalg_qr", {"Q", "R"});
  g_types.svd = return_type(la, "linalg_svd", {"U", "S", "Vh"});
  g_types.eigh = return_type(la, "linalg_eigh", {"eigenvalues", "eigenvectors"});
  g_types.eig = return_type(la, "linalg_eig", {"eigenvalues", "eigenvectors"});
  g_types.polar = return_type(la, "linalg_polar", {"U", "H"});
  g_types.lu_factor = return_type(la, "linalg_lu_factor", {"LU", "pivots"});
  g_types.lu_factor_ex = return_type(la, "linalg_lu_factor_ex", {"LU", "pivots", "info"});
  g_types.lu = return_type(la, "linalg_lu", {"P", "L", "U"});
  g_types.lu_unpack = return_type(la, "lu_unpack", {"P", "L", "U"});
  g_types.cholesky_ex = return_type(la, "linalg_cholesky_ex", {"L", "info"});
  g_types.ldl_factor = return_type(la, "linalg_ldl_factor", {"LD", "pivots"});
  g_types.ldl_factor_ex = return_type(la, "linalg_ldl_factor_ex", {"LD", "pivots", "info"});
  g_types.lu_with_info = return_type(la, "_lu_with_info", {"LU", "pivots", "info"});
  g_types.geqrf = return_type(la, "geqrf", {"a", "tau"});
  g_types.legacy_qr = return_type(la, "qr", {"Q", "R"});
  g_types.legacy_svd = return_type(la, "svd", {"U", "S", "V"});
  init_linalg_ns(la);
  init_top(m, nb::type<Tensor>());
  publish_linalg(la);
}

}  // namespace ember::py
