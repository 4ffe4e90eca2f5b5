// Bindings of the functions of a matrix (ember/ops/linalg.h, lu.h, matrix_functions.h): determinants, norms, condition
// number, rank, integer powers and the exponential, and the Vandermonde matrix; in ember._C._linalg (ember.linalg), and
// the top-level names (torch.det, logdet, slogdet, matrix_power, matrix_exp) with their Tensor methods.
#include <cmath>
#include <optional>
#include <string>

#include "ember/ops/sort.h"  // linalg_vector_norm
#include "linalg_common.h"

namespace ember::py {

namespace {

using nb::arg;

struct ReturnTypes {
  nb::handle slogdet, legacy_slogdet;
} g_types;

// A matrix norm's ord: a number or 'fro' / 'nuc'.
template <class F>
Tensor with_ord(nb::handle ord, F&& f) {
  if (PyUnicode_Check(ord.ptr())) return f(std::string_view(utf8(ord)));
  return f(to_scalar(ord, "linalg.norm").to_double());
}

std::optional<DimVector> opt_dims(nb::handle h, const char* fn) {
  if (h.is_none()) return std::nullopt;
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) return to_int_list(h, fn, "dim");
  return DimVector{to_int(h, fn, "dim")};
}

// A tolerance given as None, a number or a tensor.
Tensor tol_of(nb::handle h, const char* fn) {
  if (h.is_none()) return {};
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  return full({}, to_scalar(h, fn), TensorOptions(ScalarType::Float64));
}

const char* kDetDoc = R"(
Computes the determinant of a square matrix.

``A`` has shape :math:`(*, n, n)`; the result has the batch shape. Computed from an LU decomposition (a singular
matrix gives 0, not an error). float32, float64, complex64 or complex128; differentiable. :func:`ember.linalg.slogdet` is more accurate
when the determinant is very large or very small.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.det(ember.tensor([[3., 1.], [1., 2.]]))
    tensor(5.)
)";

const char* kSlogdetDoc = R"(
Computes the sign and the natural logarithm of the absolute value of the determinant of a square matrix.

Returns the namedtuple ``(sign, logabsdet)`` with :math:`\det A = \text{sign} \cdot e^{\text{logabsdet}}`:
``sign`` is -1, 0 or 1, and ``logabsdet`` is :math:`-\infty` for a singular matrix. Unlike
:func:`ember.linalg.det` it neither overflows nor underflows for large matrices. float32, float64, complex64 or complex128, batched over
leading dims; differentiable in ``logabsdet``.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.

Keyword args:
    out (tuple, optional): two tensors ``(sign, logabsdet)`` of the results' shapes and dtypes to write into.

Example::

    >>> ember.linalg.slogdet(ember.tensor([[1., 2.], [3., 4.]]))
    linalg_slogdet(sign=tensor(-1.), logabsdet=tensor(0.6931))
)";

const char* kLogdetDoc = R"(
Computes the natural logarithm of the determinant of a square matrix.

The result is NaN for a negative determinant and :math:`-\infty` for a zero one (see :func:`ember.linalg.slogdet`
for the sign and the logarithm of the absolute value). float32, float64, complex64 or complex128, batched over leading dims;
differentiable.

Args:
    input (Tensor): the matrices, :math:`(*, n, n)`.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.logdet(ember.tensor([[2., 0.], [0., 3.]]))
    tensor(1.7918)
)";

const char* kTorchDetDoc = R"(
Computes the determinant of a square matrix (an alias of :func:`ember.linalg.det`).

Args:
    input (Tensor): the matrices, :math:`(*, n, n)`, float32, float64, complex64 or complex128.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.det(ember.tensor([[3., 1.], [1., 2.]]))
    tensor(5.)
)";

const char* kTorchSlogdetDoc = R"(
Computes the sign and the natural logarithm of the absolute value of the determinant of a square matrix.

An alias of :func:`ember.linalg.slogdet`: returns the namedtuple ``(sign, logabsdet)``.

Args:
    input (Tensor): the matrices, :math:`(*, n, n)`, float32, float64, complex64 or complex128.

Keyword args:
    out (tuple, optional): two tensors ``(sign, logabsdet)`` of the results' shapes and dtypes to write into.
)";

const char* kNormDoc = R"(
Computes a vector or matrix norm.

Which one depends on ``ord`` and ``dim``:

- ``dim`` an int: the vector norm :func:`ember.linalg.vector_norm` over that dim.
- ``dim`` a pair of ints: the matrix norm :func:`ember.linalg.matrix_norm` over those dims.
- ``dim`` None and ``ord`` None: the 2-norm of ``input`` flattened.
- ``dim`` None and ``ord`` given: ``input`` must be 1-D (vector norm) or 2-D (matrix norm).

Vector norms take any real ``ord`` (``inf``, ``-inf`` and 0 included); matrix norms ``'fro'``, ``'nuc'``,
``inf``, ``-inf``, 1, -1, 2 and -2. float32, float64, complex64 or complex128 (or ``dtype``); differentiable.

Args:
    input (Tensor): the input tensor.
    ord (int, float, inf, -inf, 'fro' or 'nuc', optional): the order of the norm. Default: ``None``.
    dim (int or tuple of two ints, optional): the dims to reduce. Default: ``None``.
    keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.
    dtype (dtype, optional): compute in (and return) this floating dtype. Default: ``None``.

Example::

    >>> A = ember.tensor([[1., 2.], [3., 4.]])
    >>> ember.linalg.norm(A)
    tensor(5.4772)
    >>> ember.linalg.norm(A, dim=1)
    tensor([2.2361, 5.0000])
    >>> ember.linalg.norm(A, ord=1)
    tensor(6.)
)";

const char* kVectorNormDoc = R"(
Computes a vector norm.

.. math::
    \|x\|_{p} = \Big(\sum_i |x_i|^{p}\Big)^{1/p}

over the dims ``dim`` (all of them by default, treating ``x`` as one flat vector). ``ord`` is any real
:math:`p`: ``inf`` gives :math:`\max_i |x_i|`, ``-inf`` :math:`\min_i |x_i|`, and 0 the number of nonzero
elements. Floating dtypes only (``dtype`` converts first); differentiable.

Args:
    x (Tensor): the input tensor.
    ord (int, float, inf or -inf, optional): the order :math:`p`. Default: 2.
    dim (int or tuple of ints, optional): the dims to reduce; ``None`` for all. Default: ``None``.
    keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.

Keyword args:
    dtype (dtype, optional): compute in (and return) this floating dtype. Default: ``None``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> x = ember.tensor([3., -4.])
    >>> ember.linalg.vector_norm(x)
    tensor(5.)
    >>> ember.linalg.vector_norm(x, ord=1)
    tensor(7.)
    >>> ember.linalg.vector_norm(x, ord=float("inf"))
    tensor(4.)
)";

const char* kMatrixNormDoc = R"(
Computes a matrix norm.

``ord`` chooses the norm of the matrices formed by the two dims ``dim``:

- ``'fro'``: the Frobenius norm, :math:`\sqrt{\sum_{ij} a_{ij}^{2}}`.
- ``'nuc'``: the nuclear norm, the sum of the singular values.
- ``inf`` / ``-inf``: the largest / smallest sum of absolute values over a row.
- 1 / -1: the largest / smallest sum of absolute values over a column.
- 2 / -2: the largest / smallest singular value.

float32, float64, complex64 or complex128 (or ``dtype``), batched over the other dims; differentiable.

Args:
    A (Tensor): the input tensor, at least 2-D.
    ord (int, inf, -inf, 'fro' or 'nuc', optional): the norm. Default: ``'fro'``.
    dim (tuple of two ints, optional): the dims of the matrices. Default: ``(-2, -1)``.
    keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.

Keyword args:
    dtype (dtype, optional): compute in (and return) this floating dtype. Default: ``None``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> A = ember.tensor([[1., 2.], [3., 4.]])
    >>> ember.linalg.matrix_norm(A, ord=1)
    tensor(6.)
    >>> ember.linalg.matrix_norm(A, ord=float("inf"))
    tensor(7.)
)";

const char* kCondDoc = R"(
Computes the condition number of a matrix in the norm ``p``.

.. math::
    \kappa_p(A) = \|A\|_p \, \|A^{-1}\|_p

For ``p`` 2 or -2 (and ``None``, meaning 2) it is the ratio of the largest to the smallest singular value (or
its inverse), computed from the singular values and defined for any :math:`(*, m, n)`; the other norms (``'fro'``,
``'nuc'``, ``inf``, ``-inf``, 1, -1) use :func:`ember.linalg.inv` and need square matrices. A singular matrix
gives ``inf``. float32, float64, complex64 or complex128; differentiable.

Args:
    A (Tensor): the matrices.
    p (int, inf, -inf, 'fro' or 'nuc', optional): the norm. Default: ``None`` (2).

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.cond(ember.tensor([[2., 0.], [0., 0.5]]))
    tensor(4.)
)";

const char* kMatrixRankDoc = R"(
Computes the numerical rank of a matrix.

The number of singular values (absolute eigenvalues when ``hermitian=True``) above the tolerance
:math:`\max(\text{atol}, \text{rtol} \cdot \sigma_1)`, :math:`\sigma_1` being the largest. The result is int64 with
the batch shape. float32, float64, complex64 or complex128 input.

PyTorch's older form ``matrix_rank(input, tol, hermitian=False)`` is accepted too: ``tol`` is ``atol`` with
``rtol`` 0.

Args:
    A (Tensor): the matrices, :math:`(*, m, n)`.

Keyword args:
    atol (float or Tensor, optional): the absolute tolerance. Default: ``None`` (zero).
    rtol (float or Tensor, optional): the tolerance relative to :math:`\sigma_1`. Default: ``None``: machine
        epsilon of the dtype times :math:`\max(m, n)` when ``atol`` is not given or is zero, zero otherwise.
    hermitian (bool, optional): ``A`` is symmetric; only its lower triangle is read. Default: ``False``.
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.matrix_rank(ember.tensor([[1., 2.], [2., 4.]]))
    tensor(1)
)";

const char* kMatrixPowerDoc = R"(
Computes the ``n``-th power of a square matrix, for an integer ``n``.

``n`` 0 gives the identity; a negative ``n`` the power of :func:`ember.linalg.inv` of ``A`` (float32, float64, complex64 or complex128,
raising :class:`ember.linalg.LinAlgError` for a singular matrix). A positive power is computed by repeated
squaring and works for integer dtypes too. Batched over leading dims; differentiable.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.
    n (int): the exponent.

Keyword args:
    out (Tensor, optional): the output tensor; it must already have the result's shape and dtype.

Example::

    >>> ember.linalg.matrix_power(ember.tensor([[1., 1.], [0., 1.]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
)";

const char* kMatrixExpDoc = R"(
Computes the exponential of a square matrix.

.. math::
    \exp(A) = \sum_{k=0}^{\infty} \frac{A^{k}}{k!}

Computed by scaling and squaring with a degree-13 Padé approximant (Higham 2005), written with ember ops.
float32, float64, complex64 or complex128, batched over leading dims; differentiable.

Args:
    A (Tensor): the matrices, :math:`(*, n, n)`.

Example::

    >>> ember.linalg.matrix_exp(ember.tensor([[0., 1.], [0., 0.]]))
    tensor([[1., 1.],
            [0., 1.]])
)";

const char* kVanderDoc = R"(
Returns the Vandermonde matrix of the vector ``x``: the powers of ``x`` in increasing order.

.. math::
    \text{out}_{ij} = x_i^{\,j}, \qquad j = 0, \dots, N - 1

``x`` may have batch dims, :math:`(*, n)`; the result is :math:`(*, n, N)`. Unlike :func:`ember.vander`, the
powers increase along the row. Differentiable.

Args:
    x (Tensor): the vectors, :math:`(*, n)`.

Keyword args:
    N (int, optional): the number of columns. Default: ``None`` (:math:`n`).

Example::

    >>> ember.linalg.vander(ember.tensor([1., 2., 3.]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
)";

Tensor matrix_rank_of(const Tensor& A, nb::handle atol, nb::handle rtol, bool hermitian) {
  const char* fn = "linalg.matrix_rank";
  return linalg_matrix_rank(A, tol_of(atol, fn), tol_of(rtol, fn), hermitian);
}

void init_linalg_ns(nb::module_& la) {
  la.def(
      "det", [](const Tensor& A, nb::handle out) { return finish_out(linalg_det(A), out, "linalg.det"); }, arg("A"),
      nb::kw_only(), arg("out") = nb::none(), nb::sig("def det(A: Tensor, *, out: Tensor | None = None) -> Tensor"),
      kDetDoc);
  la.def(
      "slogdet",
      [](const Tensor& A, nb::handle out) {
        auto [s, l] = linalg_slogdet(A);
        return results(g_types.slogdet, {s, l}, out, "linalg.slogdet");
      },
      arg("A"), nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def slogdet(A: Tensor, *, out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]"),
      kSlogdetDoc);
  la.def(
      "norm",
      [](const Tensor& A, nb::handle ord, nb::handle dim, bool keepdim, nb::handle out, nb::handle dtype) {
        const auto d = opt_dims(dim, "linalg.norm");
        const auto dt = to_dtype(dtype);
        Tensor r = ord.is_none() ? linalg_norm(A, std::optional<double>(), d, keepdim, dt)
                                 : with_ord(ord, [&](auto o) { return linalg_norm(A, o, d, keepdim, dt); });
        return finish_out(r, out, "linalg.norm");
      },
      arg("input"), arg("ord") = nb::none(), arg("dim") = nb::none(), arg("keepdim") = false, nb::kw_only(),
      arg("out") = nb::none(), arg("dtype") = nb::none(),
      nb::sig("def norm(input: Tensor, ord: float | str | None = None, dim: int | Sequence[int] | None = None, "
              "keepdim: bool = False, *, out: Tensor | None = None, dtype: dtype | None = None) -> Tensor"),
      kNormDoc);
  def_aliased(
      la, "vector_norm", "x", "input", kVectorNormDoc,
      ", ord: float = 2, dim: int | Sequence[int] | None = None, keepdim: bool = False, *, "
      "dtype: dtype | None = None, out: Tensor | None = None) -> Tensor",
      [](const Tensor& x, double ord, nb::handle dim, bool keepdim, nb::handle dtype, nb::handle out) {
        const char* fn = "linalg.vector_norm";
        const DimVector d = opt_dims(dim, fn).value_or(DimVector{});
        return finish_out(linalg_vector_norm(x, ord, d, keepdim, to_dtype(dtype)), out, fn);
      },
      arg("ord") = 2.0, arg("dim") = nb::none(), arg("keepdim") = false, nb::kw_only(), arg("dtype") = nb::none(),
      arg("out") = nb::none());
  def_aliased(
      la, "matrix_norm", "A", "input", kMatrixNormDoc,
      ", ord: float | str = 'fro', dim: Sequence[int] = (-2, -1), keepdim: bool = False, *, "
      "dtype: dtype | None = None, out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, nb::handle ord, nb::handle dim, bool keepdim, nb::handle dtype, nb::handle out) {
        const DimVector d = to_int_list(dim, "linalg.matrix_norm", "dim");
        const auto dt = to_dtype(dtype);
        return finish_out(with_ord(ord, [&](auto o) { return linalg_matrix_norm(A, o, d, keepdim, dt); }), out,
                          "linalg.matrix_norm");
      },
      arg("ord") = "fro", arg("dim") = nb::make_tuple(-2, -1), arg("keepdim") = false, nb::kw_only(),
      arg("dtype") = nb::none(), arg("out") = nb::none());
  def_aliased(
      la, "cond", "A", "input", kCondDoc, ", p: float | str | None = None, *, out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, nb::handle p, nb::handle out) {
        Tensor r;
        if (p.is_none())
          r = linalg_cond(A);
        else if (PyUnicode_Check(p.ptr()))
          r = linalg_cond(A, std::string_view(utf8(p)));
        else
          r = linalg_cond(A, to_scalar(p, "linalg.cond").to_double());
        return finish_out(r, out, "linalg.cond");
      },
      arg("p") = nb::none(), nb::kw_only(), arg("out") = nb::none());

  // matrix_rank(A, *, atol, rtol, hermitian, out) as documented, the same with PyTorch's parser's name input, and
  // the older matrix_rank(input, tol, hermitian=False, *, out) (tol is atol with rtol 0).
  def_aliased(
      la, "matrix_rank", "A", "input", kMatrixRankDoc,
      ", *, atol: float | Tensor | None = None, rtol: float | Tensor | None = None, hermitian: bool = False, "
      "out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, nb::handle atol, nb::handle rtol, bool hermitian, nb::handle out) {
        return finish_out(matrix_rank_of(A, atol, rtol, hermitian), out, "linalg.matrix_rank");
      },
      nb::kw_only(), arg("atol") = nb::none(), arg("rtol") = nb::none(), arg("hermitian") = false,
      arg("out") = nb::none());
  la.def(
      "matrix_rank",
      [](const Tensor& A, nb::handle tol, bool hermitian, nb::handle out) {
        const nb::object rtol = tol.is_none() ? nb::none() : nb::cast(0.0);
        return finish_out(matrix_rank_of(A, tol, rtol, hermitian), out, "linalg.matrix_rank");
      },
      arg("input"), arg("tol"), arg("hermitian") = false, nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def matrix_rank(input: Tensor, tol: float | Tensor, hermitian: bool = False, *, "
              "out: Tensor | None = None) -> Tensor"),
      "PyTorch's older form: ``tol`` is ``atol``, with ``rtol`` 0.");

  def_aliased(
      la, "matrix_power", "A", "input", kMatrixPowerDoc, ", n: int, *, out: Tensor | None = None) -> Tensor",
      [](const Tensor& A, int64_t n, nb::handle out) {
        return finish_out(linalg_matrix_power(A, n), out, "linalg.matrix_power");
      },
      arg("n"), nb::kw_only(), arg("out") = nb::none());
  def_aliased(la, "matrix_exp", "A", "input", kMatrixExpDoc, ") -> Tensor",
              [](const Tensor& A) { return linalg_matrix_exp(A); });
  la.def(
      "vander", [](const Tensor& x, std::optional<int64_t> n) { return linalg_vander(x, n); }, arg("x"), nb::kw_only(),
      arg("N").none() = nb::none(), nb::sig("def vander(x: Tensor, *, N: int | None = None) -> Tensor"), kVanderDoc);
}

// The top-level names (torch.*) and their Tensor methods.
void init_top(nb::module_& m, nb::handle cls) {
  auto def1 = [&](const char* name, Tensor (*f)(const Tensor&), const char* doc) {
    const std::string sig = std::string("def ") + name + "(input: Tensor, *, out: Tensor | None = None) -> Tensor";
    m.def(
        name, [f, name](const Tensor& a, nb::handle out) { return finish_out(f(a), out, name); }, arg("input"),
        nb::kw_only(), arg("out") = nb::none(), nb::sig(sig.c_str()), doc);
    cls.attr(name) = nb::cpp_function([f](const Tensor& a) { return f(a); }, nb::is_method(), nb::scope(cls),
                                      nb::name(name), method_doc(doc, name).c_str());
  };
  def1("det", &linalg_det, kTorchDetDoc);
  def1("logdet", &logdet, kLogdetDoc);

  auto slog = [](const Tensor& a, nb::handle out) {
    auto [s, l] = linalg_slogdet(a);
    return results(g_types.legacy_slogdet, {s, l}, out, "slogdet");
  };
  m.def("slogdet", slog, arg("input"), nb::kw_only(), arg("out") = nb::none(),
        nb::sig("def slogdet(input: Tensor, *, out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]"),
        kTorchSlogdetDoc);
  cls.attr("slogdet") = nb::cpp_function(
      [slog](const Tensor& a) { return slog(a, nb::handle()); }, nb::is_method(), nb::scope(cls), nb::name("slogdet"),
      nb::sig("def slogdet(self) -> tuple[Tensor, Tensor]"), method_doc(kTorchSlogdetDoc, "slogdet").c_str());

  m.def(
      "matrix_power",
      [](const Tensor& a, int64_t n, nb::handle out) {
        return finish_out(linalg_matrix_power(a, n), out, "matrix_power");
      },
      arg("input"), arg("n"), nb::kw_only(), arg("out") = nb::none(),
      nb::sig("def matrix_power(input: Tensor, n: int, *, out: Tensor | None = None) -> Tensor"), kMatrixPowerDoc);
  cls.attr("matrix_power") = nb::cpp_function([](const Tensor& a, int64_t n) { return linalg_matrix_power(a, n); },
                                              nb::is_method(), nb::scope(cls), nb::name("matrix_power"), arg("n"),
                                              method_doc(kMatrixPowerDoc, "matrix_power").c_str());

  def_aliased(m, "matrix_exp", "A", "input", kMatrixExpDoc, ") -> Tensor",
              [](const Tensor& A) { return linalg_matrix_exp(A); });
  cls.attr("matrix_exp") = nb::cpp_function(&linalg_matrix_exp, nb::is_method(), nb::scope(cls), nb::name("matrix_exp"),
                                            method_doc(kMatrixExpDoc, "matrix_exp").c_str());
}

}  // namespace

void init_linalg_functions(nb::module_& m) {
  nb::module_ la = linalg_module(m);
  g_types.slogdet = return_type(la, "linalg_slogdet", {"sign", "logabsdet"});
  g_types.legacy_slogdet = return_type(la, "slogdet", {"sign", "logabsdet"});
  init_linalg_ns(la);
  init_top(m, nb::type<Tensor>());
  publish_linalg(la);
}

}  // namespace ember::py
