// Bindings of the scans along a dim (ember/ops/sort.h, ops/scan.cpp): cumsum, cumprod, cummax, cummin and
// logcumsumexp, with PyTorch's signatures and docstrings.
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

nb::handle g_cummax_t, g_cummin_t;

// The accumulation dtype of cumsum/cumprod: dtype=, else out='s (PyTorch computes in the out tensor's dtype).
std::optional<ScalarType> cum_dtype(nb::handle dtype, nb::handle out) {
  if (!dtype.is_none()) return to_dtype(dtype);
  if (out.is_valid() && nb::isinstance<Tensor>(out)) return nb::cast<const Tensor&>(out).dtype();
  return std::nullopt;
}

constexpr const char* kCumsumDoc = R"(
Returns the cumulative sums of the elements of ``input`` along ``dim``.

.. math::
    y_i = x_1 + x_2 + \cdots + x_i

The result has ``input``'s shape; bool and integer inputs give ``int64``.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to accumulate along.

Keyword args:
    dtype (ember.dtype, optional): the dtype of the result; ``input`` is cast to it first (which avoids overflow).
    out (Tensor, optional): the output tensor; its dtype is the accumulation dtype when ``dtype`` is not given.

Example::

    >>> ember.cumsum(ember.tensor([1, 2, 3, 4]), dim=0)
    tensor([ 1,  3,  6, 10])
)";

constexpr const char* kCumprodDoc = R"(
Returns the cumulative products of the elements of ``input`` along ``dim``.

.. math::
    y_i = x_1 \times x_2 \times \cdots \times x_i

The result has ``input``'s shape; bool and integer inputs give ``int64``.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to accumulate along.

Keyword args:
    dtype (ember.dtype, optional): the dtype of the result; ``input`` is cast to it first (which avoids overflow).
    out (Tensor, optional): the output tensor; its dtype is the accumulation dtype when ``dtype`` is not given.

Example::

    >>> ember.cumprod(ember.tensor([1., 2., 3.]), dim=0)
    tensor([1., 2., 6.])
)";

constexpr const char* kCummaxDoc = R"(
Returns the running maximum of the elements of ``input`` along ``dim``, with its positions.

A named tuple ``(values, indices)`` of ``input``'s shape: ``values[i]`` is the largest of the first ``i + 1``
elements and ``indices[i]`` the position of that maximum (the latest one on ties; a NaN, once met, stays).

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to scan along.

Keyword args:
    out (tuple of two Tensors, optional): the output tensors ``(values, indices)``.

Example::

    >>> ember.cummax(ember.tensor([1., 3., 2., 5.]), dim=0)
    cummax(values=tensor([1., 3., 3., 5.]), indices=tensor([0, 1, 1, 3]))
)";

constexpr const char* kCumminDoc = R"(
Returns the running minimum of the elements of ``input`` along ``dim``, with its positions.

A named tuple ``(values, indices)`` of ``input``'s shape: ``values[i]`` is the smallest of the first ``i + 1``
elements and ``indices[i]`` the position of that minimum (the latest one on ties; a NaN, once met, stays).

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to scan along.

Keyword args:
    out (tuple of two Tensors, optional): the output tensors ``(values, indices)``.

Example::

    >>> ember.cummin(ember.tensor([3., 1., 2.]), dim=0)
    cummin(values=tensor([3., 1., 1.]), indices=tensor([0, 1, 1]))
)";

constexpr const char* kLogcumsumexpDoc = R"(
Returns the log of the cumulative sums of the exponentials of ``input`` along ``dim``, computed stably.

.. math::
    y_i = \log \sum_{j \le i} \exp(x_j)

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to accumulate along.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.logcumsumexp(ember.tensor([0., 0., 0.]), dim=0)
    tensor([0.0000, 0.6931, 1.0986])
)";

using CumFn = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);
using CumInplaceFn = const Tensor& (*)(const Tensor&, int64_t, std::optional<ScalarType>);

void def_cum(nb::module_& m, nb::handle cls, const char* name, CumFn f, CumInplaceFn f_, const char* doc) {
  auto impl = [f, name](const Tensor& x, int64_t dim, nb::handle dtype, nb::handle out) {
    return finish_out(f(x, dim, cum_dtype(dtype, out)), out, name);
  };
  def_fn(m, name, impl,
         nb::sig(Sig{"dim: int, *, dtype: dtype | None = None, out: Tensor | None = None"}
                     .text(name, "input: Tensor")
                     .c_str()),
         nb::arg("input"), nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none(),
         doc);
  def_method(
      cls, name, [impl](const Tensor& x, int64_t dim, nb::handle dtype) { return impl(x, dim, dtype, {}); },
      nb::sig(Sig{"dim: int, *, dtype: dtype | None = None"}.text(name, "self").c_str()), nb::arg("dim"), nb::kw_only(),
      nb::arg("dtype") = nb::none(), method_doc(doc, name).c_str());
  const std::string inplace = std::string(name) + "_";
  def_inplace<int64_t, nb::handle>(
      cls, inplace.c_str(), Sig{"dim: int, *, dtype: dtype | None = None"},
      [f_](const Tensor& x, int64_t dim, nb::handle dtype) { f_(x, dim, to_dtype(dtype)); }, nb::arg("dim"),
      nb::kw_only(), nb::arg("dtype") = nb::none());
}

using PairDimFn = std::pair<Tensor, Tensor> (*)(const Tensor&, int64_t);

void def_cum_extremum(nb::module_& m, nb::handle cls, const char* name, nb::handle type, PairDimFn f, const char* doc) {
  auto impl = [f, name, type](const Tensor& x, int64_t dim, nb::handle out) {
    return pair_result(type, name, f(x, dim), out);
  };
  const std::string ret = std::string("return_types.") + name;
  def_fn(m, name, impl,
         nb::sig(Sig{"dim: int, *, out: tuple[Tensor, Tensor] | None = None", ret.c_str()}
                     .text(name, "input: Tensor")
                     .c_str()),
         nb::arg("input"), nb::arg("dim"), nb::kw_only(), nb::arg("out") = nb::none(), doc);
  def_method(
      cls, name, [impl](const Tensor& x, int64_t dim) { return impl(x, dim, {}); },
      nb::sig(Sig{"dim: int", ret.c_str()}.text(name, "self").c_str()), nb::arg("dim"), method_doc(doc, name).c_str());
}

}  // namespace

void init_scan(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  g_cummax_t = return_type(m, "_sort_return_types", "cummax");
  g_cummin_t = return_type(m, "_sort_return_types", "cummin");
  def_cum(m, cls, "cumsum", &cumsum, &cumsum_, kCumsumDoc);
  def_cum(m, cls, "cumprod", &cumprod, &cumprod_, kCumprodDoc);
  def_cum_extremum(m, cls, "cummax", g_cummax_t, &cummax, kCummaxDoc);
  def_cum_extremum(m, cls, "cummin", g_cummin_t, &cummin, kCumminDoc);
  def_fn(
      m, "logcumsumexp",
      [](const Tensor& x, int64_t dim, nb::handle out) {
        return finish_out(logcumsumexp(x, dim), out, "logcumsumexp");
      },
      nb::sig("def logcumsumexp(input: Tensor, dim: int, *, out: Tensor | None = None) -> Tensor"), nb::arg("input"),
      nb::arg("dim"), nb::kw_only(), nb::arg("out") = nb::none(), kLogcumsumexpDoc);
  def_method(
      cls, "logcumsumexp", [](const Tensor& x, int64_t dim) { return logcumsumexp(x, dim); }, nb::arg("dim"),
      method_doc(kLogcumsumexpDoc, "logcumsumexp").c_str());
}

}  // namespace ember::py
