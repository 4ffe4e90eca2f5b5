// Bindings of the diagonal and triangular ops (ember/ops/diagonal.h, ember/ops/shape.h): diag, diag_embed,
// diagflat, trace, fill_diagonal_, tril/triu and their index forms, with PyTorch's signatures and docstrings.
#include "common.h"
#include "ember/ops.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

Scalar number(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK(t.numel() == 1, fn, ": expected a number or a one-element tensor, got shape ", shape_str(t.sizes()));
    return item(t);
  }
  return to_scalar(h, fn);
}

constexpr const char* kDiagDoc = R"(
Returns a square matrix with the 1-d ``input`` on a diagonal, or the diagonal of the 2-d ``input`` as a 1-d tensor.

``diagonal`` picks the diagonal: 0 the main one, positive ones above it, negative ones below. For a 1-d ``input``
of size n the matrix is ``(n + |diagonal|)`` square, zero off that diagonal.

Args:
    input (Tensor): a 1-d or 2-d tensor.
    diagonal (int): which diagonal. Default: ``0``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.diag(ember.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
    >>> ember.diag(ember.tensor([[1, 2], [3, 4]]), 1)
    tensor([2])
)";

constexpr const char* kDiagEmbedDoc = R"(
Returns a tensor whose diagonals (in the planes of ``dim1`` and ``dim2``) hold the last dim of ``input``.

The result has one more dim than ``input``: the last dim of ``input`` becomes the diagonal ``offset`` of 2-d
planes spanned by ``dim1`` and ``dim2`` (counted in the result), and every other element is zero. The inverse of
:func:`ember.diagonal` with the same arguments.

Args:
    input (Tensor): the input tensor (at least 1-d).
    offset (int): which diagonal: 0 the main one, positive above, negative below. Default: ``0``.
    dim1 (int): the first dim of the planes. Default: ``-2``.
    dim2 (int): the second dim of the planes. Default: ``-1``.

Example::

    >>> ember.diag_embed(ember.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
)";

constexpr const char* kDiagflatDoc = R"(
Returns a square matrix with the flattened ``input`` on the diagonal ``offset``.

Args:
    input (Tensor): the input tensor, of any shape.
    offset (int): which diagonal: 0 the main one, positive above, negative below. Default: ``0``.

Example::

    >>> ember.diagflat(ember.tensor([[1, 2], [3, 4]]))
    tensor([[1, 0, 0, 0],
            [0, 2, 0, 0],
            [0, 0, 3, 0],
            [0, 0, 0, 4]])
)";

constexpr const char* kTraceDoc = R"(
Returns the sum of the elements on the main diagonal of the 2-d ``input``.

The matrix need not be square. Bool and integer inputs sum in ``int64``.

Args:
    input (Tensor): a 2-d tensor.

Example::

    >>> ember.trace(ember.tensor([[1, 2], [3, 4]]))
    tensor(5)
)";

constexpr const char* kTrilDoc = R"(
Returns the lower triangle of the matrices in ``input``: the elements on and below the diagonal ``diagonal``.

The other elements are zero. ``input`` is a matrix or a batch of matrices (the last two dims); ``diagonal`` 0 is the
main diagonal, positive values include diagonals above it, negative values exclude those below it.

Args:
    input (Tensor): a tensor of at least 2 dims.
    diagonal (int): the diagonal to keep up to. Default: ``0``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.tril(ember.ones(3, 3))
    tensor([[1., 0., 0.],
            [1., 1., 0.],
            [1., 1., 1.]])
)";

constexpr const char* kTriuDoc = R"(
Returns the upper triangle of the matrices in ``input``: the elements on and above the diagonal ``diagonal``.

The other elements are zero. ``input`` is a matrix or a batch of matrices (the last two dims); ``diagonal`` 0 is the
main diagonal, positive values exclude diagonals above it, negative values include those below it.

Args:
    input (Tensor): a tensor of at least 2 dims.
    diagonal (int): the diagonal to keep from. Default: ``0``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.triu(ember.ones(3, 3), diagonal=1)
    tensor([[0., 1., 1.],
            [0., 0., 1.],
            [0., 0., 0.]])
)";

constexpr const char* kTrilIndicesDoc = R"(
Returns the coordinates of the lower triangle of a ``row`` x ``col`` matrix, as a ``2 x N`` tensor.

Row 0 holds the row indices and row 1 the column indices of the elements on and below the diagonal ``offset``,
in row-major order: ``m[tuple(ember.tril_indices(row, col))]`` are the elements :func:`ember.tril` keeps.

Args:
    row (int): the number of rows.
    col (int): the number of columns.
    offset (int): the diagonal, as in :func:`ember.tril`. Default: ``0``.

Keyword args:
    dtype (ember.dtype): the result's integer dtype. Default: ``ember.int64``.
    device (ember.device): the result's device. Default: the default device (``'cpu'`` unless
        :func:`ember.set_default_device` chose another).
    layout (ember.layout): only ``ember.strided``.

Example::

    >>> ember.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
)";

constexpr const char* kTriuIndicesDoc = R"(
Returns the coordinates of the upper triangle of a ``row`` x ``col`` matrix, as a ``2 x N`` tensor.

Row 0 holds the row indices and row 1 the column indices of the elements on and above the diagonal ``offset``,
in row-major order: ``m[tuple(ember.triu_indices(row, col))]`` are the elements :func:`ember.triu` keeps.

Args:
    row (int): the number of rows.
    col (int): the number of columns.
    offset (int): the diagonal, as in :func:`ember.triu`. Default: ``0``.

Keyword args:
    dtype (ember.dtype): the result's integer dtype. Default: ``ember.int64``.
    device (ember.device): the result's device. Default: the default device (``'cpu'`` unless
        :func:`ember.set_default_device` chose another).
    layout (ember.layout): only ``ember.strided``.

Example::

    >>> ember.triu_indices(2, 3, 1)
    tensor([[0, 0, 1],
            [1, 2, 2]])
)";

constexpr const char* kFillDiagonalDoc = R"(
Fills the main diagonal of ``self`` with ``fill_value``, in place, and returns ``self``.

``self`` has at least 2 dims, all of the same size when it has more than 2. For a tall matrix, ``wrap=True``
continues the diagonal below the first square block, every ``cols + 1`` rows, as NumPy's ``fill_diagonal`` does.

Args:
    fill_value (float): the value (a number or a one-element tensor).
    wrap (bool): whether the diagonal wraps in a tall matrix. Default: ``False``.

Example::

    >>> ember.zeros(3, 3).fill_diagonal_(5.)
    tensor([[5., 0., 0.],
            [0., 5., 0.],
            [0., 0., 5.]])
)";

}  // namespace

void init_diag(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  auto diag_fn = [](const Tensor& t, int64_t d) { return diag(t, d); };
  def_fn(
      m, "diag",
      [diag_fn](const Tensor& t, int64_t d, nb::handle out) { return finish_out(diag_fn(t, d), out, "diag"); },
      nb::sig("def diag(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor"), nb::arg("input"),
      nb::arg("diagonal") = 0, nb::kw_only(), nb::arg("out") = nb::none(), kDiagDoc);
  def_method(cls, "diag", diag_fn, nb::arg("diagonal") = 0, method_doc(kDiagDoc, "diag").c_str());
  def_both(
      m, cls, "diag_embed", [](const Tensor& t, int64_t o, int64_t d1, int64_t d2) { return diag_embed(t, o, d1, d2); },
      kDiagEmbedDoc, nb::arg("offset") = 0, nb::arg("dim1") = -2, nb::arg("dim2") = -1);
  def_both(
      m, cls, "diagflat", [](const Tensor& t, int64_t o) { return diagflat(t, o); }, kDiagflatDoc,
      nb::arg("offset") = 0);
  def_both(
      m, cls, "trace", [](const Tensor& t) { return trace(t); }, kTraceDoc);
  def_method(
      cls, "fill_diagonal_",
      [](nb::handle self, nb::handle v, bool wrap) -> nb::typed<nb::object, Tensor> {
        fill_diagonal_(nb::cast<const Tensor&>(self), number(v, "fill_diagonal_"), wrap);
        return nb::borrow(self);
      },
      nb::sig("def fill_diagonal_(self, fill_value: float, wrap: bool = False) -> Tensor"), nb::arg("fill_value"),
      nb::arg("wrap") = false, kFillDiagonalDoc);

  for (bool lower : {true, false}) {
    const char* name = lower ? "tril" : "triu";
    const char* doc = lower ? kTrilDoc : kTriuDoc;
    auto f = [lower](const Tensor& t, int64_t diagonal) { return lower ? tril(t, diagonal) : triu(t, diagonal); };
    def_fn(
        m, name,
        [f, lower](const Tensor& t, int64_t diagonal, nb::handle out) {
          return finish_out(f(t, diagonal), out, lower ? "tril" : "triu");
        },
        nb::sig(Sig{"diagonal: int = 0, *, out: Tensor | None = None"}.text(name, "input: Tensor").c_str()),
        nb::arg("input"), nb::arg("diagonal") = 0, nb::kw_only(), nb::arg("out") = nb::none(), doc);
    def_method(cls, name, f, nb::arg("diagonal") = 0, method_doc(doc, name).c_str());
    def_inplace<int64_t>(
        cls, lower ? "tril_" : "triu_",
        [lower](const Tensor& t, int64_t diagonal) { lower ? tril_(t, diagonal) : triu_(t, diagonal); },
        nb::arg("diagonal") = 0);

    // dtype, device and layout are parsed from **kwargs as the factory functions do; the signature names them.
    const char* iname = lower ? "tril_indices" : "triu_indices";
    def_fn(
        m, iname,
        [lower, iname](int64_t row, int64_t col, int64_t offset, nb::kwargs kw) {
          FactoryArgs a;
          parse_factory_kwargs(kw, iname, kDtype | kDevice | kLayout, a);
          const TensorOptions o = a.options(ScalarType::Int64);
          return lower ? tril_indices(row, col, offset, o) : triu_indices(row, col, offset, o);
        },
        nb::sig(Sig{"col: int, offset: int = 0, *, dtype: dtype = ember.int64, device: device = 'cpu', "
                    "layout: layout = ember.strided"}
                    .text(iname, "row: int")
                    .c_str()),
        nb::arg("row"), nb::arg("col"), nb::arg("offset") = 0, nb::arg("kwargs"),
        lower ? kTrilIndicesDoc : kTriuIndicesDoc);
  }
}

}  // namespace ember::py
