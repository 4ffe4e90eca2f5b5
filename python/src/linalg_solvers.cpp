// Bindings of the linear solvers and inverses (ember/ops/linalg.h, lu.h, matrix_functions.h): solve, solve_triangular,
// lstsq, the solves from LU and LDL^T factors, inv, pinv, tensorinv and tensorsolve with their *_ex forms, in
// ember._C._linalg (ember.linalg); the older top-level names (torch.inverse, pinverse, lu_solve, cholesky_solve,
// cholesky_inverse, triangular_solve) with their Tensor methods; and ember.linalg.LinAlgError.
#include <optional>
#include <string>

#include "linalg_common.h"

namespace ember::py {

namespace {

using nb::arg;

struct ReturnTypes {
  nb::handle lstsq, inv_ex, solve_ex, triangular_solve;
} g_types;

// A tolerance given as None, a number or a one-element tensor.
std::optional<double> opt_number(nb::handle h, const char* fn) {
  if (!h.is_valid() || h.is_none()) return std::nullopt;
  return to_scalar(h, fn).to_double();
}

const char* kLinAlgErrorDoc = R"(
The error ember.linalg raises when the numbers of its input make the result impossible.

A matrix that is singular (:func:`ember.linalg.inv`, :func:`ember.linalg.solve`) or not positive-definite
(:func:`ember.linalg.cholesky`), or a decomposition that did not converge. It is a RuntimeError, so code that
catches RuntimeError catches it too; the ``*_ex`` functions (:func:`ember.linalg.inv_ex`, ...) report these cases
in an ``info`` tensor instead of raising. Bad arguments (shapes, dtypes) raise the usual RuntimeError or TypeError.

Example::

    >>> try:
    ...     ember.linalg.inv(ember.zeros(2, 2))
    ... except ember.linalg.LinAlgError as e:
    ...     print("singular")
    singular
)";

const char* kSolveDoc = R"(
Computes the solution of a square system of linear equations with a unique solution.

Returns :math:`X` with

.. math::
    A X = B \quad(\texttt{left=True}) \qquad\text{or}\qquad X A = B \quad(\texttt{left=False}).

``A`` has shape :math:`(*, n, n)`. ``B`` is a batch of matrices :math:`(*, n, k)` (:math:`(*, k, n)` for
``left=False``), or a batch of vectors when it is 1-D or has ``A``'s shape without the last dimension; the batch
dims of ``A`` and ``B`` broadcast. Solved by an LU decomposition with partial pivoting, faster and more accurate
than multiplying by :func:`ember.linalg.inv`. float32, float64, complex64 or complex128; differentiable.

Raises :class:`ember.linalg.LinAlgError` when ``A`` is singular; :func:`ember.linalg.solve_ex` reports it in
``info`` instead.

Args:
    A (Tensor): the coefficient matrices, :math:`(*, n, n)`.
    B (Tensor): the right-hand sides.

Keyword args:
    left (bool, optional): solve :math:`AX = B` rather than :math:`XA = B`. Default: ``True``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> A = ember.tensor([[3., 1.], [1., 2.]])
    >>> ember.linalg.solve(A, ember.tensor([9., 8.]))
    tensor([2., 3.])
)";

const char* kSolveExDoc = R"(
Computes the solution of a square system of linear equations, reporting a singular matrix in ``info``.

Returns the namedtuple ``(result, info)``: the solution as :func:`ember.linalg.solve` computes it, and ``info``
(int32, the batch shape) holding LAPACK's code for each matrix: 0, or :math:`i > 0` when :math:`U_{ii}` of the LU
decomposition (1-based) is exactly zero, in which case that solution is not meaningful. Nothing is raised unless
``check_errors=True``.

Args:
    A (Tensor): the coefficient matrices, :math:`(*, n, n)`, float32, float64, complex64 or complex128.
    B (Tensor): the right-hand sides.

Keyword args:
    left (bool, optional): solve :math:`AX = B` rather than :math:`XA = B`. Default: ``True``.
    check_errors (bool, optional): raise :class:`ember.linalg.LinAlgError` for a singular matrix.
        Default: ``False``.
    out (tuple, optional): two tensors ``(result, info)`` of the results' shapes and dtypes to write into.

Example::

    >>> ember.linalg.solve_ex(ember.tensor([[3., 1.], [1., 2.]]), ember.tensor([9., 8.]))
    linalg_solve_ex(result=tensor([2., 3.]), info=tensor(0, dtype=ember.int32))
)";

const char* kSolveTriangularDoc = R"(
Computes the solution of a triangular system of linear equations.

Returns :math:`X` with :math:`AX = B` (``left=True``) or :math:`XA = B` (``left=False``), where ``A`` is upper
(``upper=True``) or lower triangular; only that triangle of ``A`` is read. ``A`` has shape :math:`(*, n, n)` and
``B`` :math:`(*, n, k)` (:math:`(*, k, n)` for ``left=False``); their batch dims broadcast. Nothing is checked for
singularity: a zero on the diagonal gives infinities or NaNs. float32, float64, complex64 or complex128; differentiable.

Args:
    A (Tensor): the triangular matrices, :math:`(*, n, n)`.
    B (Tensor): the right-hand sides.

Keyword args:
    upper (bool): whether ``A`` is upper (rather than lower) triangular. Required.
    left (bool, optional): solve :math:`AX = B` rather than :math:`XA = B`. Default: ``True``.
    unitriangular (bool, optional): take ``A``'s diagonal to be all ones, without reading it. Default: ``False``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> A = ember.tensor([[2., 1.], [0., 4.]])
    >>> ember.linalg.solve_triangular(A, ember.tensor([[4.], [8.]]), upper=True)
    tensor([[1.],
            [2.]])
)";

const char* kLstsqDoc = R"(
Computes a solution to the least squares problem of a system of linear equations.

Returns :math:`X` minimizing :math:`\|AX - B\|_F`, for ``A`` of shape :math:`(*, m, n)` and ``B`` of shape
:math:`(*, m, k)` (batch dims broadcast). The result is the namedtuple ``(solution, residuals, rank,
singular_values)``:

- ``solution``: :math:`(*, n, k)`.
- ``residuals``: the squared residual norm of each column, :math:`(*, k)`, when :math:`m > n` and every matrix
  has full rank (not for ``'gelsy'`` when the rank is deficient); an empty tensor otherwise.
- ``rank``: the effective rank of each matrix (int64), except for ``'gels'`` (empty).
- ``singular_values``: :math:`(*, \min(m, n))` for ``'gelsd'`` and ``'gelss'``; empty otherwise.

``driver`` picks LAPACK's routine: ``'gelsy'`` (the default on the CPU; QR with column pivoting),
``'gels'`` (QR; full-rank matrices only, the only one and the default on CUDA), ``'gelsd'`` (divide-and-conquer
SVD) or ``'gelss'`` (SVD). float32, float64, complex64 or complex128; differentiable in ``solution``.

Args:
    A (Tensor): the coefficient matrices, :math:`(*, m, n)`.
    B (Tensor): the right-hand sides, :math:`(*, m, k)`.
    rcond (float, optional): singular values (or the diagonal of the pivoted R for ``'gelsy'``) below ``rcond``
        times the largest count as zero when the rank is determined. Default: machine epsilon of the dtype times
        :math:`\max(m, n)`.

Keyword args:
    driver (str, optional): ``'gelsy'``, ``'gels'``, ``'gelsd'`` or ``'gelss'``. Default: ``None`` (see above).

Example::

    >>> A = ember.tensor([[1., 0.], [1., 1.], [1., 2.]])
    >>> ember.linalg.lstsq(A, ember.tensor([[1.], [2.], [4.]])).solution
    tensor([[0.8333],
            [1.5000]])
)";

const char* kLuSolveDoc = R"(
Computes the solution of a square system of linear equations from an LU decomposition.

With ``LU`` and ``pivots`` from :func:`ember.linalg.lu_factor` of :math:`A`, returns :math:`X` with

.. math::
    AX = B \quad(\texttt{left=True}) \qquad\text{or}\qquad XA = B \quad(\texttt{left=False}),

using :math:`A^{T}` in place of :math:`A` when ``adjoint=True``. ``B`` has shape :math:`(*, n, k)`
(:math:`(*, k, n)` for ``left=False``); batch dims broadcast. Factoring once and solving many times is cheaper
than calling :func:`ember.linalg.solve` each time. float32, float64, complex64 or complex128; differentiable.

Args:
    LU (Tensor): the packed factors, :math:`(*, n, n)`.
    pivots (Tensor): the pivots (int32), :math:`(*, n)`.
    B (Tensor): the right-hand sides.

Keyword args:
    left (bool, optional): solve :math:`AX = B` rather than :math:`XA = B`. Default: ``True``.
    adjoint (bool, optional): solve with the (conjugate) transpose of :math:`A`. Default: ``False``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> LU, pivots = ember.linalg.lu_factor(ember.tensor([[3., 1.], [1., 2.]]))
    >>> ember.linalg.lu_solve(LU, pivots, ember.tensor([[9.], [8.]]))
    tensor([[2.],
            [3.]])
)";

const char* kLdlSolveDoc = R"(
Computes the solution of a symmetric system of linear equations from an LDL decomposition.

With ``LD`` and ``pivots`` from :func:`ember.linalg.ldl_factor` of :math:`A`, returns :math:`X` with
:math:`AX = B`, for ``B`` of shape :math:`(*, n, k)`. float32, float64, complex64 or complex128. Not differentiable.

Args:
    LD (Tensor): the packed factors, :math:`(*, n, n)`.
    pivots (Tensor): the pivots (int32), :math:`(*, n)`.
    B (Tensor): the right-hand sides, :math:`(*, n, k)`.

Keyword args:
    hermitian (bool, optional): as the ``hermitian`` of :func:`ember.linalg.ldl_factor` that made ``LD``. Default: ``False``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> LD, pivots = ember.linalg.ldl_factor(ember.tensor([[3., 1.], [1., 2.]]))
    >>> ember.linalg.ldl_solve(LD, pivots, ember.tensor([[9.], [8.]]))
    tensor([[2.],
            [3.]])
)";

const char* kInvDoc = R"(
Computes the inverse of a square matrix.

Returns :math:`A^{-1}` with :math:`A A^{-1} = A^{-1} A = I`, for ``A`` of shape :math:`(*, n, n)`. To solve
:math:`AX = B`, :func:`ember.linalg.solve` is faster and more accurate than multiplying by the inverse. float32
or float64; differentiable.

Raises :class:`ember.linalg.LinAlgError` when a matrix is singular; :func:`ember.linalg.inv_ex` reports it in
``info`` instead.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.inv(ember.tensor([[3., 1.], [1., 2.]]))
    tensor([[ 0.4000, -0.2000],
            [-0.2000,  0.6000]])
)";

const char* kInvExDoc = R"(
Computes the inverse of a square matrix, reporting a singular matrix in ``info``.

Returns the namedtuple ``(inverse, info)``: the inverse as :func:`ember.linalg.inv` computes it, and ``info``
(int32, the batch shape) holding LAPACK's code for each matrix: 0, or :math:`i > 0` when :math:`U_{ii}` of the LU
decomposition (1-based) is exactly zero, in which case that inverse is not meaningful. Nothing is raised unless
``check_errors=True``.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`, float32, float64, complex64 or complex128.

Keyword args:
    check_errors (bool, optional): raise :class:`ember.linalg.LinAlgError` for a singular matrix.
        Default: ``False``.
    out (tuple, optional): two tensors ``(inverse, info)`` of the results' shapes and dtypes to write into.

Example::

    >>> ember.linalg.inv_ex(ember.zeros(2, 2)).info
    tensor(1, dtype=ember.int32)
)";

const char* kPinvDoc = R"(
Computes the pseudoinverse (Moore-Penrose inverse) of a matrix.

Through the singular value decomposition :math:`A = U \operatorname{diag}(S) V^{H}` (the eigendecomposition when
``hermitian=True``), the pseudoinverse is :math:`V \operatorname{diag}(S^{+}) U^{H}`, where :math:`S^{+}` inverts
the singular values above the tolerance :math:`\max(\text{atol}, \text{rtol} \cdot \sigma_1)` (:math:`\sigma_1`
the largest) and sets the others to zero. ``A`` has shape :math:`(*, m, n)`, the result :math:`(*, n, m)`.
float32, float64, complex64 or complex128; differentiable.

PyTorch's older form ``pinv(input, rcond, hermitian=False)`` is accepted too: ``rcond`` is ``rtol`` with
``atol`` 0.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`.

Keyword args:
    atol (float, optional): the absolute tolerance. Default: ``None`` (zero).
    rtol (float, optional): the tolerance relative to :math:`\sigma_1`. Default: ``None``: machine epsilon of the
        dtype times :math:`\max(m, n)` when ``atol`` is not given, zero when it is.
    hermitian (bool, optional): ``A`` is symmetric; only its lower triangle is read. Default: ``False``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.pinv(ember.tensor([[1., 2.], [2., 4.]]))
    tensor([[0.0400, 0.0800],
            [0.0800, 0.1600]])
)";

const char* kTensorinvDoc = R"(
Computes the inverse of a tensor with respect to :func:`ember.tensordot`.

For ``A`` whose first ``ind`` dims have the same number of elements as the others, returns ``X`` of shape
``A.shape[ind:] + A.shape[:ind]`` with ``ember.tensordot(A, X, ind)`` the identity of that product (for ``ind=1``
and a 2-D ``A``, ``X`` is :func:`ember.linalg.inv` of ``A``). Computed as the inverse of ``A`` reshaped into a
square matrix. float32, float64, complex64 or complex128; differentiable.

Args:
    A (Tensor): the tensor to invert.
    ind (int, optional): the number of leading dims that index the result's rows. Default: 2.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> A = ember.eye(4).reshape(4, 2, 2)
    >>> ember.linalg.tensorinv(A, ind=1).shape
    ember.Size([2, 2, 4])
)";

const char* kTensorsolveDoc = R"(
Computes the solution ``X`` of ``ember.tensordot(A, X, X.ndim) = B``.

``X`` has shape ``A.shape[B.ndim:]``, and the number of elements of ``B`` must equal that of ``X``. With ``dims``
given, those dims of ``A`` are first moved to the end. Computed by :func:`ember.linalg.solve` on ``A`` reshaped
into a square matrix. float32, float64, complex64 or complex128; differentiable.

Args:
    A (Tensor): the coefficient tensor.
    B (Tensor): the right-hand side; its shape is the leading part of ``A``'s.
    dims (sequence of int, optional): dims of ``A`` to move to the end first. Default: ``None``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> A = ember.eye(6).reshape(2, 3, 6)
    >>> ember.linalg.tensorsolve(A, ember.ones(2, 3)).shape
    ember.Size([6])
)";

const char* kInverseDoc = R"(
Computes the inverse of a square matrix (an alias of :func:`ember.linalg.inv`).

Args:
    input (Tensor): the matrices, :math:`(*, n, n)`, float32, float64, complex64 or complex128.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.inverse(ember.tensor([[2., 0.], [0., 4.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
)";

const char* kPinverseDoc = R"(
Computes the pseudoinverse (Moore-Penrose inverse) of a matrix (the older form of :func:`ember.linalg.pinv`).

Singular values at most ``rcond`` times the largest count as zero. The default suits float64: for float32, a
cutoff below its precision (about 1e-7) keeps the rounding noise of a rank-deficient matrix and inverts it;
:func:`ember.linalg.pinv`'s default tolerance follows the dtype.

Args:
    input (Tensor): the matrices, :math:`(*, m, n)`, float32, float64, complex64 or complex128.
    rcond (float, optional): the cutoff relative to the largest singular value. Default: 1e-15.

Example::

    >>> ember.pinverse(ember.tensor([[1., 0.], [0., 2.], [0., 0.]]))
    tensor([[1.0000, 0.0000, 0.0000],
            [0.0000, 0.5000, 0.0000]])
)";

const char* kTorchLuSolveDoc = R"(
Computes the solution of a square system of linear equations from an LU decomposition.

The older form of :func:`ember.linalg.lu_solve`, with the right-hand side first: returns :math:`X` with
:math:`AX = b`, where ``LU_data`` and ``LU_pivots`` are :func:`ember.lu` (or :func:`ember.linalg.lu_factor`) of
:math:`A`. ``b`` has shape :math:`(*, n, k)`; batch dims broadcast.

Args:
    b (Tensor): the right-hand sides, :math:`(*, n, k)`.
    LU_data (Tensor): the packed factors, :math:`(*, n, n)`.
    LU_pivots (Tensor): the pivots (int32), :math:`(*, n)`.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.
)";

const char* kCholeskySolveDoc = R"(
Computes the solution of a symmetric positive-definite system of linear equations from its Cholesky factor.

With ``L`` the Cholesky factor of :math:`A` (lower triangular with :math:`A = L L^{H}`, or upper triangular with
:math:`A = U^{T} U` when ``upper=True``, as :func:`ember.linalg.cholesky` returns it), returns :math:`X` with
:math:`AX = B`. ``B`` has shape :math:`(*, n, k)`; batch dims broadcast. float32, float64, complex64 or complex128; differentiable.

Args:
    B (Tensor): the right-hand sides, :math:`(*, n, k)`.
    L (Tensor): the Cholesky factors, :math:`(*, n, n)`.
    upper (bool, optional): ``L`` is the upper-triangular factor. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> L = ember.linalg.cholesky(ember.tensor([[3., 1.], [1., 2.]]))
    >>> ember.cholesky_solve(ember.tensor([[9.], [8.]]), L)
    tensor([[2.0000],
            [3.0000]])
)";

const char* kCholeskyInverseDoc = R"(
Computes the inverse of a symmetric positive-definite matrix from its Cholesky factor.

With ``L`` the Cholesky factor of :math:`A` (lower triangular, or upper triangular when ``upper=True``), returns
:math:`A^{-1} = (L L^{H})^{-1}`. float32, float64, complex64 or complex128, batched over leading dims; differentiable.

Args:
    L (Tensor): the Cholesky factors, :math:`(*, n, n)`.
    upper (bool, optional): ``L`` is the upper-triangular factor. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.cholesky_inverse(ember.linalg.cholesky(ember.tensor([[3., 1.], [1., 2.]])))
    tensor([[ 0.4000, -0.2000],
            [-0.2000,  0.6000]])
)";

const char* kTriangularSolveDoc = R"(
Computes the solution of a triangular system of linear equations.

The older form of :func:`ember.linalg.solve_triangular`, with the right-hand side first: returns the namedtuple
``(solution, cloned_coefficient)``: :math:`X` with :math:`\operatorname{op}(A) X = b`, where
:math:`\operatorname{op}(A)` is :math:`A` or, with ``transpose=True``, :math:`A^{T}`, and a copy of ``A`` broadcast
to the batch. Only the triangle of ``A`` named by ``upper`` is read.

Args:
    b (Tensor): the right-hand sides, :math:`(*, m, k)`.
    A (Tensor): the triangular matrices, :math:`(*, m, m)`.
    upper (bool, optional): ``A`` is upper (rather than lower) triangular. Default: ``True``.
    transpose (bool, optional): solve with :math:`A^{T}`. Default: ``False``.
    unitriangular (bool, optional): take ``A``'s diagonal to be all ones. Default: ``False``.

Keyword args:
    out (tuple, optional): two tensors ``(solution, cloned_coefficient)`` to write into.

Example::

    >>> ember.triangular_solve(ember.tensor([[4.], [8.]]), ember.tensor([[2., 1.], [0., 4.]])).solution
    tensor([[1.],
            [2.]])
)";

void init_linalg_ns(nb::module_& la) {
  la.def(
      "solve",
      [](const Tensor& A, const Tensor& B, bool left, nb::handle out) {
        return finish_out(linalg_solve(A, B, left), out, "linalg.solve");
      },
      arg("A"), arg("B"), nb::kw_only(), arg("left") = true, arg("out") = nb::none(),
      nb::sig("def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Tensor | None = None) -> Tensor"), kSolveDoc);
  la.def(
      "solve_ex",
      [](const Tensor& A, const Tensor& B, bool left, bool check_errors, nb::handle out) {
        auto [X, info] = linalg_solve_ex(A, B, left, check_errors);
        return results(g_types.solve_ex, {X, info}, out, "linalg.solve_ex");
      },
      arg("A"), arg("B"), nb::kw_only(), arg("left") = true, arg("check_errors") = false, arg("out") = nb::none(),
      nb::sig("def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, "
              "out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]"),
      kSolveExDoc);
  def_aliased(
      la, "solve_triangular", "A", "input", kSolveTriangularDoc,
      ", B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False, "
      "out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular, nb::handle out) {
        return finish_out(linalg_solve_triangular(A, B, upper, left, unitriangular), out, "linalg.solve_triangular");
      },
      arg("B"), nb::kw_only(), arg("upper"), arg("left") = true, arg("unitriangular") = false, arg("out") = nb::none());

  auto lstsq = [](const Tensor& A, const Tensor& B, nb::handle rcond, nb::handle driver) {
    std::optional<std::string> d;
    if (!driver.is_none()) {
      EMBER_CHECK_TYPE(PyUnicode_Check(driver.ptr()), "torch.linalg.lstsq: parameter `driver` should be a str");
      d = utf8(driver);
    }
    LstsqResult r = linalg_lstsq(A, B, opt_number(rcond, "linalg.lstsq"),
                                 d ? std::optional<std::string_view>(*d) : std::nullopt);
    return tuple_of(g_types.lstsq, {r.solution, r.residuals, r.rank, r.singular_values});
  };
  // Documented as lstsq(A, B, ...); PyTorch's parser calls them input and b.
  la.def("lstsq", lstsq, arg("A"), arg("B"), arg("rcond") = nb::none(), nb::kw_only(), arg("driver") = nb::none(),
         nb::sig("def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> "
                 "tuple[Tensor, Tensor, Tensor, Tensor]"),
         kLstsqDoc);
  la.def("lstsq", lstsq, arg("input"), arg("b"), arg("rcond") = nb::none(), nb::kw_only(), arg("driver") = nb::none(),
         nb::sig("def lstsq(input: Tensor, b: Tensor, rcond: float | None = None, *, driver: str | None = None) -> "
                 "tuple[Tensor, Tensor, Tensor, Tensor]"),
         parsed_names_doc("``input`` for ``A``, ``b`` for ``B``").c_str());

  la.def(
      "lu_solve",
      [](const Tensor& LU, const Tensor& piv, const Tensor& B, bool left, bool adjoint, nb::handle out) {
        return finish_out(linalg_lu_solve(LU, piv, B, left, adjoint), out, "linalg.lu_solve");
      },
      arg("LU"), arg("pivots"), arg("B"), nb::kw_only(), arg("left") = true, arg("adjoint") = false,
      arg("out") = nb::none(),
      nb::sig("def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False, "
              "out: Tensor | None = None) -> Tensor"),
      kLuSolveDoc);
  la.def(
      "ldl_solve",
      [](const Tensor& LD, const Tensor& piv, const Tensor& B, bool hermitian, nb::handle out) {
        return finish_out(linalg_ldl_solve(LD, piv, B, hermitian), out, "linalg.ldl_solve");
      },
      arg("LD"), arg("pivots"), arg("B"), nb::kw_only(), arg("hermitian") = false, arg("out") = nb::none(),
      nb::sig("def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, "
              "out: Tensor | None = None) -> Tensor"),
      kLdlSolveDoc);
  la.def(
      "inv", [](const Tensor& A, nb::handle out) { return finish_out(linalg_inv(A), out, "linalg.inv"); }, arg("A"),
      nb::kw_only(), arg("out") = nb::none(), nb::sig("def inv(A: Tensor, *, out: Tensor | None = None) -> Tensor"),
      kInvDoc);
  la.def(
      "inv_ex",
      [](const Tensor& A, bool check_errors, nb::handle out) {
        auto [X, info] = linalg_inv_ex(A, check_errors);
        return results(g_types.inv_ex, {X, info}, out, "linalg.inv_ex");
      },
      arg("A"), nb::kw_only(), arg("check_errors") = false, arg("out") = nb::none(),
      nb::sig("def inv_ex(A: Tensor, *, check_errors: bool = False, out: tuple[Tensor, Tensor] | None = None) -> "
              "tuple[Tensor, Tensor]"),
      kInvExDoc);

  // pinv(A, *, atol, rtol, hermitian, out) as documented, the same with PyTorch's parser's name input, and the older
  // pinv(input, rcond, hermitian=False, *, out) (rcond is rtol with atol 0).
  auto pinv = [](const Tensor& A, nb::handle atol, nb::handle rtol, bool hermitian, nb::handle out) {
    const char* fn = "linalg.pinv";
    return finish_out(linalg_pinv(A, opt_number(atol, fn), opt_number(rtol, fn), hermitian), out, fn);
  };
  def_aliased(la, "pinv", "A", "input", kPinvDoc,
              ", *, atol: float | None = None, rtol: float | None = None, hermitian: bool = False, "
              "out: Tensor | None = None) -> Tensor",
              pinv, nb::kw_only(), arg("atol") = nb::none(), arg("rtol") = nb::none(), arg("hermitian") = false,
              arg("out") = nb::none());
  la.def(
      "pinv",
      [](const Tensor& A, nb::handle rcond, bool hermitian, nb::handle out) {
        const char* fn = "linalg.pinv";
        return finish_out(linalg_pinv(A, 0.0, opt_number(rcond, fn), hermitian), out, fn);
      },
      arg("input"), arg("rcond"), arg("hermitian") = false, nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def pinv(input: Tensor, rcond: float, hermitian: bool = False, *, out: Tensor | None = None) -> "
              "Tensor"),
      "PyTorch's older form: ``rcond`` is ``rtol``, with ``atol`` 0.");

  def_aliased(
      la, "tensorinv", "A", "input", kTensorinvDoc, ", ind: int = 2, *, out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, int64_t ind, nb::handle out) {
        return finish_out(linalg_tensorinv(A, ind), out, "linalg.tensorinv");
      },
      arg("ind") = 2, nb::kw_only(), arg("out") = nb::none());
  // Documented as tensorsolve(A, B, ...); PyTorch's parser calls them input and other.
  auto tensorsolve = [](const Tensor& A, const Tensor& B, nb::handle dims, nb::handle out) {
    std::optional<DimVector> d;
    if (!dims.is_none()) d = to_int_list(dims, "linalg.tensorsolve", "dims");
    return finish_out(linalg_tensorsolve(A, B, d), out, "linalg.tensorsolve");
  };
  la.def("tensorsolve", tensorsolve, arg("A"), arg("B"), arg("dims") = nb::none(), nb::kw_only(),
         arg("out") = nb::none(),
         nb::sig("def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None, *, "
                 "out: Tensor | None = None) -> Tensor"),
         kTensorsolveDoc);
  la.def("tensorsolve", tensorsolve, arg("input"), arg("other"), arg("dims") = nb::none(), nb::kw_only(),
         arg("out") = nb::none(),
         nb::sig("def tensorsolve(input: Tensor, other: Tensor, dims: Sequence[int] | None = None, *, "
                 "out: Tensor | None = None) -> Tensor"),
         parsed_names_doc("``input`` for ``A``, ``other`` for ``B``").c_str());
}

// The older top-level names (torch.*) and their Tensor methods.
void init_top(nb::module_& m, nb::handle cls) {
  m.def(
      "inverse", [](const Tensor& a, nb::handle out) { return finish_out(linalg_inv(a), out, "inverse"); },
      arg("input"), nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def inverse(input: Tensor, *, out: Tensor | None = None) -> Tensor"), kInverseDoc);
  cls.attr("inverse") = nb::cpp_function([](const Tensor& a) { return linalg_inv(a); }, nb::is_method(), nb::scope(cls),
                                         nb::name("inverse"), method_doc(kInverseDoc, "inverse").c_str());

  auto pinverse = [](const Tensor& a, double rcond) { return linalg_pinv(a, 0.0, rcond); };
  m.def("pinverse", pinverse, arg("input"), arg("rcond") = 1e-15, kPinverseDoc);
  cls.attr("pinverse") = nb::cpp_function(pinverse, nb::is_method(), nb::scope(cls), nb::name("pinverse"),
                                          arg("rcond") = 1e-15, method_doc(kPinverseDoc, "pinverse").c_str());

  def_aliased(
      m, "lu_solve", "b", "input", kTorchLuSolveDoc,
      ", LU_data: Tensor, LU_pivots: Tensor, *, out: Tensor | None = None) -> Tensor",
      [](const Tensor& b, const Tensor& LU, const Tensor& piv, nb::handle out) {
        return finish_out(ember::lu_solve(b, LU, piv), out, "lu_solve");
      },
      arg("LU_data"), arg("LU_pivots"), nb::kw_only(), arg("out") = nb::none());
  cls.attr("lu_solve") = nb::cpp_function(
      [](const Tensor& b, const Tensor& LU, const Tensor& piv) { return ember::lu_solve(b, LU, piv); }, nb::is_method(),
      nb::scope(cls), nb::name("lu_solve"), arg("LU_data"), arg("LU_pivots"),
      method_doc(kTorchLuSolveDoc, "lu_solve").c_str());

  // cholesky_solve(B, L, ...) as documented; PyTorch's parser calls them input and input2.
  auto chol_solve = [](const Tensor& b, const Tensor& L, bool upper, nb::handle out) {
    return finish_out(cholesky_solve(b, L, upper), out, "cholesky_solve");
  };
  m.def("cholesky_solve", chol_solve, arg("B"), arg("L"), arg("upper") = false, nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *, out: Tensor | None = None) -> "
                "Tensor"),
        kCholeskySolveDoc);
  m.def("cholesky_solve", chol_solve, arg("input"), arg("input2"), arg("upper") = false, nb::kw_only(),
        arg("out") = nb::none(),
        nb::sig("def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, "
                "out: Tensor | None = None) -> Tensor"),
        parsed_names_doc("``input`` for ``B``, ``input2`` for ``L``").c_str());
  cls.attr("cholesky_solve") = nb::cpp_function(
      [](const Tensor& b, const Tensor& L, bool upper) { return cholesky_solve(b, L, upper); }, nb::is_method(),
      nb::scope(cls), nb::name("cholesky_solve"), arg("input2"), arg("upper") = false,
      method_doc(kCholeskySolveDoc, "cholesky_solve").c_str());

  def_aliased(
      m, "cholesky_inverse", "L", "input", kCholeskyInverseDoc,
      ", upper: bool = False, *, out: Tensor | None = None) -> Tensor",
      [](const Tensor& L, bool upper, nb::handle out) {
        return finish_out(cholesky_inverse(L, upper), out, "cholesky_inverse");
      },
      arg("upper") = false, nb::kw_only(), arg("out") = nb::none());
  cls.attr("cholesky_inverse") = nb::cpp_function(
      [](const Tensor& L, bool upper) { return cholesky_inverse(L, upper); }, nb::is_method(), nb::scope(cls),
      nb::name("cholesky_inverse"), arg("upper") = false, method_doc(kCholeskyInverseDoc, "cholesky_inverse").c_str());

  auto tri = [](const Tensor& b, const Tensor& A, bool upper, bool transpose, bool unitriangular, nb::handle out) {
    auto [X, C] = triangular_solve(b, A, upper, transpose, unitriangular);
    return results(g_types.triangular_solve, {X, C}, out, "triangular_solve");
  };
  def_aliased(m, "triangular_solve", "b", "input", kTriangularSolveDoc,
              ", A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False, *, "
              "out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]",
              tri, arg("A"), arg("upper") = true, arg("transpose") = false, arg("unitriangular") = false, nb::kw_only(),
              arg("out") = nb::none());
  cls.attr("triangular_solve") = nb::cpp_function(
      [tri](const Tensor& b, const Tensor& A, bool upper, bool transpose, bool unitriangular) {
        return tri(b, A, upper, transpose, unitriangular, {});
      },
      nb::is_method(), nb::scope(cls), nb::name("triangular_solve"), arg("A"), arg("upper") = true,
      arg("transpose") = false, arg("unitriangular") = false,
      nb::sig("def triangular_solve(self, A: Tensor, upper: bool = True, transpose: bool = False, "
              "unitriangular: bool = False) -> tuple[Tensor, Tensor]"),
      method_doc(kTriangularSolveDoc, "triangular_solve").c_str());
}

}  // namespace

void init_linalg_solvers(nb::module_& m) {
  // torch.linalg.LinAlgError is torch._C._LinAlgError; ember's is ember._C._LinAlgError, also exported by
  // ember._C._linalg under its public name. Registered after the generic translator of ember::Error (main.cpp),
  // so it is tried first.
  nb::exception<LinAlgError> error(m, "_LinAlgError", PyExc_RuntimeError);
  error.attr("__doc__") = kLinAlgErrorDoc + 1;  // without the raw string's first newline
  nb::module_ inspect = nb::module_::import_("inspect");
  nb::object parameter = inspect.attr("Parameter");
  error.attr("__signature__") = inspect.attr("Signature")(
      nb::make_tuple(parameter("args", parameter.attr("VAR_POSITIONAL"))));
  nb::module_ la = linalg_module(m);
  la.attr("LinAlgError") = error;
  g_types.lstsq = return_type(la, "linalg_lstsq", {"solution", "residuals", "rank", "singular_values"});
  g_types.inv_ex = return_type(la, "linalg_inv_ex", {"inverse", "info"});
  g_types.solve_ex = return_type(la, "linalg_solve_ex", {"result", "info"});
  g_types.triangular_solve = return_type(la, "triangular_solve", {"solution", "cloned_coefficient"});
  init_linalg_ns(la);
  init_top(m, nb::type<Tensor>());
  publish_linalg(la);
}

}  // namespace ember::py
