// Bindings of the reductions (ember/ops/reduce.h): sums, means, extrema and their indices, moments, logsumexp,
// aminmax and sum_to_size, with PyTorch's signatures and docstrings (the ternary ops are in ternary.cpp).
#include <tuple>

#include "common.h"
#include "ember/ops.h"
#include "ember/ops/sort.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

nb::handle g_max_type, g_min_type, g_aminmax_type;  // torch.return_types, owned by the module (_return_types)

// dim=None, an int, or a sequence of ints.
DimVector dims_of(nb::handle h, const char* fn) {
  if (!h.is_valid() || h.is_none()) return {};
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    DimVector d = to_int_list(h, fn, "dim");
    EMBER_CHECK(!d.empty(), fn, "(): dim=() reduces nothing in ember; pass dim=None to reduce all dims");
    return d;
  }
  return {to_int(h, fn, "dim")};
}

using DimsFn = Tensor (*)(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
using DimsFnNoDtype = Tensor (*)(const Tensor&, IntArrayRef, bool);

constexpr const char* kDimArg = "dim: int | Sequence[int] | None = None, keepdim: bool = False";

// ember.name(input, dim=None, keepdim=False, *, dtype=None, out=None) and Tensor.name(...)
void def_dims_reduction(nb::module_& m, nb::handle cls, const char* name, DimsFn f, const char* doc) {
  auto impl = [f, name](const Tensor& x, nb::handle dim, bool keepdim, nb::handle dtype, nb::handle out) {
    return finish_out(f(x, dims_of(dim, name), keepdim, dtype.is_none() ? std::nullopt : to_dtype(dtype)), out, name);
  };
  const std::string params = std::string(kDimArg) + ", *, dtype: dtype | None = None";
  const std::string fsig = Sig{(params + ", out: Tensor | None = None").c_str()}.text(name, "input: Tensor");
  def_fn(m, name, impl, nb::sig(fsig.c_str()), nb::arg("input"), nb::arg("dim") = nb::none(),
         nb::arg("keepdim") = false, nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none(), doc);
  def_method(
      cls, name,
      [impl](const Tensor& x, nb::handle dim, bool keepdim, nb::handle dtype) {
        return impl(x, dim, keepdim, dtype, {});
      },
      nb::sig(Sig{params.c_str()}.text(name, "self").c_str()), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      nb::kw_only(), nb::arg("dtype") = nb::none(), method_doc(doc, name).c_str());
}

void def_dims_reduction(nb::module_& m, nb::handle cls, const char* name, DimsFnNoDtype f, const char* doc) {
  auto impl = [f, name](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
    return finish_out(f(x, dims_of(dim, name), keepdim), out, name);
  };
  const std::string fsig = Sig{(std::string(kDimArg) + ", *, out: Tensor | None = None").c_str()}.text(name,
                                                                                                       "input: Tensor");
  def_fn(m, name, impl, nb::sig(fsig.c_str()), nb::arg("input"), nb::arg("dim") = nb::none(),
         nb::arg("keepdim") = false, nb::kw_only(), nb::arg("out") = nb::none(), doc);
  def_method(
      cls, name, [impl](const Tensor& x, nb::handle dim, bool keepdim) { return impl(x, dim, keepdim, {}); },
      nb::sig(Sig{kDimArg}.text(name, "self").c_str()), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      method_doc(doc, name).c_str());
}

// max(input) / max(input, dim, keepdim=False) -> (values, indices) / max(input, other) -> maximum
nb::object max_min(bool is_max, const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
  const char* name = is_max ? "max" : "min";
  if (!dim.is_valid() || dim.is_none()) {
    EMBER_CHECK_TYPE(!keepdim, name, "(): keepdim=True needs a dim (", name, "(input, dim, keepdim=True))");
    return finish_out(is_max ? max(x) : min(x), out, name);
  }
  if (nb::isinstance<Tensor>(dim)) {
    const Tensor& o = nb::cast<const Tensor&>(dim);
    return finish_out(is_max ? maximum(x, o) : minimum(x, o), out, name);
  }
  const int64_t d = to_int(dim, name, "dim");
  return pair_result(is_max ? g_max_type : g_min_type, name, is_max ? max(x, d, keepdim) : min(x, d, keepdim), out);
}

// var/std accept (dim, unbiased, keepdim) positionally, or correction= as a keyword (not both, as in PyTorch).
double correction_of(const char* fn, nb::handle unbiased, nb::handle correction) {
  const bool has_unbiased = unbiased.is_valid() && !unbiased.is_none();
  if (correction.is_valid() && !correction.is_none()) {
    EMBER_CHECK_TYPE(!has_unbiased, fn, "(): pass either unbiased or correction, not both");
    return to_scalar(correction, fn).to_double();
  }
  if (has_unbiased) return truthy(unbiased) ? 1.0 : 0.0;
  return 1.0;
}

template <class F>
void def_var_like(nb::module_& m, nb::handle cls, const char* name, const char* ret, F f, const char* doc) {
  auto impl = [f, name](const Tensor& x, nb::handle dim, nb::handle unbiased, bool keepdim, nb::handle correction,
                        nb::handle out) {
    // var(x, True) means unbiased=True in PyTorch's old signature.
    if (dim.is_valid() && PyBool_Check(dim.ptr()))
      return f(name, x, DimVector{}, correction_of(name, dim, correction), keepdim, out);
    return f(name, x, dims_of(dim, name), correction_of(name, unbiased, correction), keepdim, out);
  };
  // correction=None (the C++ default) means 1 unless unbiased is given: the signature shows PyTorch's default.
  const std::string params = std::string(
      "dim: int | Sequence[int] | None = None, unbiased: bool | None = None, "
      "keepdim: bool = False, *, correction: float | None = 1");
  const std::string out_param = std::string(", out: ") + (*ret == 't' ? "tuple[Tensor, Tensor]" : "Tensor") +
                                " | None = None";
  def_fn(m, name, impl, nb::sig(Sig{(params + out_param).c_str(), ret}.text(name, "input: Tensor").c_str()),
         nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("unbiased") = nb::none(), nb::arg("keepdim") = false,
         nb::kw_only(), nb::arg("correction") = nb::none(), nb::arg("out") = nb::none(), doc);
  def_fn(
      cls, name,
      [impl](const Tensor& x, nb::handle dim, nb::handle unbiased, bool keepdim, nb::handle correction) {
        return impl(x, dim, unbiased, keepdim, correction, nb::none());
      },
      nb::sig(Sig{params.c_str(), ret}.text(name, "self").c_str()), nb::is_method(), nb::arg("dim") = nb::none(),
      nb::arg("unbiased") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(), nb::arg("correction") = nb::none(),
      method_doc(doc, name).c_str());
}

constexpr const char* kSumDoc = R"(
Returns the sum of the elements of ``input``, over all of them or over the dims ``dim``.

Without ``dim`` the result is a 0-d tensor. With ``dim``, each reduced dim is removed from the result, or kept with
size 1 when ``keepdim`` is true. Bool and integer inputs sum in ``int64``; 16-bit floats accumulate in ``float32``.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    dtype (ember.dtype, optional): the dtype of the result; ``input`` is cast to it first (which avoids overflow).
    out (Tensor, optional): the output tensor.

Example::

    >>> x = ember.tensor([[1., 2.], [3., 4.]])
    >>> ember.sum(x)
    tensor(10.)
    >>> ember.sum(x, 1, keepdim=True)
    tensor([[3.],
            [7.]])
)";

constexpr const char* kNansumDoc = R"(
Returns the sum of the elements of ``input``, treating NaNs as zero.

Like :func:`ember.sum`, over all elements or over the dims ``dim``.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    dtype (ember.dtype, optional): the dtype of the result; ``input`` is cast to it first.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.nansum(ember.tensor([1., float('nan'), 2.]))
    tensor(3.)
)";

constexpr const char* kProdDoc = R"(
Returns the product of the elements of ``input``, over all of them or over the dims ``dim``.

Bool and integer inputs multiply in ``int64``. With ``dim``, each reduced dim is removed from the result, or kept
with size 1 when ``keepdim`` is true.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    dtype (ember.dtype, optional): the dtype of the result; ``input`` is cast to it first.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.prod(ember.tensor([[1., 2.], [3., 4.]]), 1)
    tensor([ 2., 12.])
)";

constexpr const char* kMeanDoc = R"(
Returns the mean of the elements of ``input``, over all of them or over the dims ``dim``.

``input`` (or ``dtype``, when given) must be a floating-point type. With ``dim``, each reduced dim is removed from
the result, or kept with size 1 when ``keepdim`` is true.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    dtype (ember.dtype, optional): the dtype of the result; ``input`` is cast to it first.
    out (Tensor, optional): the output tensor.

Example::

    >>> x = ember.tensor([[1., 2.], [3., 4.]])
    >>> ember.mean(x)
    tensor(2.5000)
    >>> ember.mean(x, 0)
    tensor([2., 3.])
)";

constexpr const char* kNanmeanDoc = R"(
Returns the mean of the non-NaN elements of ``input``, over all of them or over the dims ``dim``.

A slice of NaNs only has mean NaN. ``input`` must be a floating-point type.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    dtype (ember.dtype, optional): the dtype of the result; ``input`` is cast to it first.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.nanmean(ember.tensor([1., float('nan'), 3.]))
    tensor(2.)
)";

constexpr const char* kAmaxDoc = R"(
Returns the largest element of ``input``, over all of them or over the dims ``dim``.

Unlike :func:`ember.max` with a ``dim``, it reduces several dims at once and returns no indices; NaN propagates.
The gradient is shared evenly between equal maxima.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.amax(ember.tensor([[1., 2.], [3., 4.]]), 0)
    tensor([3., 4.])
)";

constexpr const char* kAminDoc = R"(
Returns the smallest element of ``input``, over all of them or over the dims ``dim``.

Unlike :func:`ember.min` with a ``dim``, it reduces several dims at once and returns no indices; NaN propagates.
The gradient is shared evenly between equal minima.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.amin(ember.tensor([[1., 2.], [3., 4.]]), 1)
    tensor([1., 3.])
)";

constexpr const char* kAllDoc = R"(
Tests whether all elements of ``input`` are true (non-zero), over all of them or over the dims ``dim``.

The result is ``bool`` (``uint8`` for a ``uint8`` input).

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.all(ember.tensor([[True, False], [True, True]]), dim=1)
    tensor([False,  True])
)";

constexpr const char* kAnyDoc = R"(
Tests whether any element of ``input`` is true (non-zero), over all of them or over the dims ``dim``.

The result is ``bool`` (``uint8`` for a ``uint8`` input).

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.any(ember.tensor([[True, False], [False, False]]), dim=1)
    tensor([ True, False])
)";

constexpr const char* kCountNonzeroDoc = R"(
Counts the non-zero elements of ``input``, over all of them or over the dims ``dim``.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to count along. Default: all of them.

Returns:
    Tensor: ``int64`` counts, without the reduced dims.

Example::

    >>> ember.count_nonzero(ember.tensor([[0, 1], [2, 3]]), dim=0)
    tensor([1, 2])
)";

constexpr const char* kMaxDoc = R"(
Returns the largest element of ``input``, the largest along a dim with its index, or the elementwise maximum.

``max(input)`` returns a 0-d tensor holding the largest element (an error for an empty ``input``).

``max(input, dim, keepdim=False)`` returns a named tuple ``(values, indices)``: the largest value of each slice
along ``dim`` and its position in the slice (the first one on ties; a NaN counts as the largest). ``dim`` is removed
from both results unless ``keepdim`` is true. The gradient flows to the selected elements.

``max(input, other)`` is :func:`ember.maximum`.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to reduce.
    keepdim (bool): whether ``dim`` stays in the results with size 1. Default: ``False``.
    other (Tensor): the second operand of the elementwise maximum.

Keyword args:
    out (Tensor or tuple of two Tensors, optional): the output tensor, or ``(values, indices)`` with ``dim``.

Example::

    >>> x = ember.tensor([[1., 5.], [4., 2.]])
    >>> ember.max(x)
    tensor(5.)
    >>> ember.max(x, 1)
    max(values=tensor([5., 4.]), indices=tensor([1, 0]))
)";

constexpr const char* kMinDoc = R"(
Returns the smallest element of ``input``, the smallest along a dim with its index, or the elementwise minimum.

``min(input)`` returns a 0-d tensor holding the smallest element (an error for an empty ``input``).

``min(input, dim, keepdim=False)`` returns a named tuple ``(values, indices)``: the smallest value of each slice
along ``dim`` and its position in the slice (the first one on ties; a NaN counts as the smallest). ``dim`` is removed
from both results unless ``keepdim`` is true. The gradient flows to the selected elements.

``min(input, other)`` is :func:`ember.minimum`.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to reduce.
    keepdim (bool): whether ``dim`` stays in the results with size 1. Default: ``False``.
    other (Tensor): the second operand of the elementwise minimum.

Keyword args:
    out (Tensor or tuple of two Tensors, optional): the output tensor, or ``(values, indices)`` with ``dim``.

Example::

    >>> x = ember.tensor([[1., 5.], [4., 2.]])
    >>> ember.min(x)
    tensor(1.)
    >>> ember.min(x, 0)
    min(values=tensor([1., 2.]), indices=tensor([0, 1]))
)";

constexpr const char* kArgmaxDoc = R"(
Returns the index of the largest element of ``input``, or of each slice along ``dim``.

Without ``dim`` the index is into the flattened ``input``. On ties the first position wins; a NaN counts as the
largest. The result is ``int64``.

Args:
    input (Tensor): the input tensor.
    dim (int, optional): the dim to reduce. Default: the flattened ``input``.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Example::

    >>> ember.argmax(ember.tensor([[1., 5.], [4., 2.]]), dim=1)
    tensor([1, 0])
)";

constexpr const char* kArgminDoc = R"(
Returns the index of the smallest element of ``input``, or of each slice along ``dim``.

Without ``dim`` the index is into the flattened ``input``. On ties the first position wins; a NaN counts as the
smallest. The result is ``int64``.

Args:
    input (Tensor): the input tensor.
    dim (int, optional): the dim to reduce. Default: the flattened ``input``.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Example::

    >>> ember.argmin(ember.tensor([[1., 5.], [4., 2.]]), dim=0)
    tensor([0, 1])
)";

constexpr const char* kVarDoc = R"(
Returns the variance of the elements of ``input``, over all of them or over the dims ``dim``.

.. math::
    \sigma^2 = \frac{1}{\max(0, N - \delta N)} \sum_{i=0}^{N-1} (x_i - \bar{x})^2

where :math:`N` is the number of elements reduced, :math:`\bar{x}` their mean and :math:`\delta N` the
``correction`` (1 gives the unbiased sample variance, 0 the population variance). ``input`` must be a
floating-point type. PyTorch's older form ``var(input, dim, unbiased, keepdim)`` works too: ``unbiased=False`` is
``correction=0``.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    unbiased (bool, optional): the older spelling of ``correction`` (``True``: 1, ``False``: 0).
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    correction (int or float): the difference between the number of elements and the divisor. Default: ``1``.
    out (Tensor, optional): the output tensor.

Example::

    >>> x = ember.tensor([[1., 2.], [3., 4.]])
    >>> ember.var(x, 1)
    tensor([0.5000, 0.5000])
    >>> ember.var(x, correction=0)
    tensor(1.2500)
)";

constexpr const char* kStdDoc = R"(
Returns the standard deviation of the elements of ``input``, over all of them or over the dims ``dim``.

.. math::
    \sigma = \sqrt{\frac{1}{\max(0, N - \delta N)} \sum_{i=0}^{N-1} (x_i - \bar{x})^2}

where :math:`N` is the number of elements reduced, :math:`\bar{x}` their mean and :math:`\delta N` the
``correction`` (1: Bessel's correction, 0: the population statistic). ``input`` must be a floating-point type.
PyTorch's older form ``std(input, dim, unbiased, keepdim)`` works too: ``unbiased=False`` is ``correction=0``.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    unbiased (bool, optional): the older spelling of ``correction`` (``True``: 1, ``False``: 0).
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    correction (int or float): the difference between the number of elements and the divisor. Default: ``1``.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.std(ember.tensor([1., 2., 3., 4.]))
    tensor(1.2910)
)";

constexpr const char* kVarMeanDoc = R"(
Returns the variance and the mean of the elements of ``input``, over all of them or over the dims ``dim``.

The variance is that of :func:`ember.var` with the same arguments; both are computed in one pass over ``input``.

Args:
    input (Tensor): the input tensor (floating point).
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    unbiased (bool, optional): the older spelling of ``correction`` (``True``: 1, ``False``: 0).
    keepdim (bool): whether the reduced dims stay in the results with size 1. Default: ``False``.

Keyword args:
    correction (int or float): the difference between the number of elements and the divisor. Default: ``1``.
    out (tuple of two Tensors, optional): the output tensors ``(var, mean)``.

Returns:
    tuple: ``(var, mean)``.

Example::

    >>> ember.var_mean(ember.tensor([[1., 2.], [3., 4.]]), 1)
    (tensor([0.5000, 0.5000]), tensor([1.5000, 3.5000]))
)";

constexpr const char* kStdMeanDoc = R"(
Returns the standard deviation and the mean of the elements of ``input``, over all of them or over the dims ``dim``.

The standard deviation is that of :func:`ember.std` with the same arguments; both are computed in one pass.

Args:
    input (Tensor): the input tensor (floating point).
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    unbiased (bool, optional): the older spelling of ``correction`` (``True``: 1, ``False``: 0).
    keepdim (bool): whether the reduced dims stay in the results with size 1. Default: ``False``.

Keyword args:
    correction (int or float): the difference between the number of elements and the divisor. Default: ``1``.
    out (tuple of two Tensors, optional): the output tensors ``(std, mean)``.

Returns:
    tuple: ``(std, mean)``.

Example::

    >>> ember.std_mean(ember.tensor([1., 3.]))
    (tensor(1.4142), tensor(2.))
)";

constexpr const char* kLogsumexpDoc = R"(
Returns the log of the summed exponentials of ``input`` over the dims ``dim``, computed stably.

.. math::
    \text{logsumexp}(x)_i = \log \sum_j \exp(x_{ij})

The largest element is subtracted before exponentiating, so large inputs do not overflow. Integer inputs give a
floating-point result.

Args:
    input (Tensor): the input tensor.
    dim (int or tuple of ints): the dims to reduce.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.logsumexp(ember.tensor([0., 0.]), 0)
    tensor(0.6931)
)";

constexpr const char* kAminmaxDoc = R"(
Returns the smallest and the largest element of ``input``, over all of them or along ``dim``.

A named tuple ``(min, max)``; NaN propagates to both. Without ``dim`` the results are 0-d (``keepdim`` keeps every
dim with size 1). Not differentiable.

Args:
    input (Tensor): the input tensor.

Keyword args:
    dim (int, optional): the dim to reduce. Default: all elements.
    keepdim (bool): whether the reduced dims stay in the results with size 1. Default: ``False``.
    out (tuple of two Tensors, optional): the output tensors ``(min, max)``.

Example::

    >>> ember.aminmax(ember.tensor([3, 1, 2]))
    aminmax(min=tensor(1), max=tensor(3))
)";

constexpr const char* kSumToSizeDoc = R"(
Sums ``self`` down to the shape ``size``, to which it must broadcast.

The dims that broadcasting would expand are summed (kept with size 1, or removed where ``size`` has fewer dims):
the reverse of :meth:`Tensor.expand`, as autograd reduces a broadcast gradient.

Args:
    size (int...): the target shape, as separate ints or one sequence.

Example::

    >>> ember.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
)";

void def_reductions(nb::module_& m, nb::handle cls) {
  def_dims_reduction(m, cls, "sum", static_cast<DimsFn>(&sum), kSumDoc);
  def_dims_reduction(m, cls, "nansum", static_cast<DimsFn>(&nansum), kNansumDoc);
  def_dims_reduction(m, cls, "prod", static_cast<DimsFn>(&prod), kProdDoc);
  def_dims_reduction(m, cls, "mean", static_cast<DimsFn>(&mean), kMeanDoc);
  def_dims_reduction(m, cls, "nanmean", static_cast<DimsFn>(&nanmean), kNanmeanDoc);
  def_dims_reduction(m, cls, "amax", static_cast<DimsFnNoDtype>(&amax), kAmaxDoc);
  def_dims_reduction(m, cls, "amin", static_cast<DimsFnNoDtype>(&amin), kAminDoc);
  def_dims_reduction(m, cls, "all", static_cast<DimsFnNoDtype>(&all), kAllDoc);
  def_dims_reduction(m, cls, "any", static_cast<DimsFnNoDtype>(&any), kAnyDoc);
  def_both(
      m, cls, "count_nonzero", Sig{"dim: int | Sequence[int] | None = None"},
      [](const Tensor& x, nb::handle dim) { return count_nonzero(x, dims_of(dim, "count_nonzero")); }, kCountNonzeroDoc,
      nb::arg("dim") = nb::none());
  auto lse = [](const Tensor& x, nb::handle dim, bool keepdim) {
    return logsumexp(x, dims_of(dim, "logsumexp"), keepdim);
  };
  def_fn(
      m, "logsumexp",
      [lse](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
        return finish_out(lse(x, dim, keepdim), out, "logsumexp");
      },
      nb::sig("def logsumexp(input: Tensor, dim: int | Sequence[int], keepdim: bool = False, *, "
              "out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("keepdim") = false, nb::kw_only(), nb::arg("out") = nb::none(),
      kLogsumexpDoc);
  def_method(cls, "logsumexp", lse,
             nb::sig("def logsumexp(self, dim: int | Sequence[int], keepdim: bool = False) -> Tensor"), nb::arg("dim"),
             nb::arg("keepdim") = false, method_doc(kLogsumexpDoc, "logsumexp").c_str());

  def_ints_method(
      cls, "sum_to_size", "size", {"size"}, [](const Tensor& t, IntArrayRef size) { return sum_to_size(t, size); },
      kSumToSizeDoc);
}

void def_extrema(nb::module_& m, nb::handle cls) {
  for (bool is_max : {true, false}) {
    const char* name = is_max ? "max" : "min";
    const char* doc = is_max ? kMaxDoc : kMinDoc;
    const std::string ret = std::string("Tensor | return_types.") + name;
    // One binding takes max(input), max(input, dim, keepdim) and the positional max(input, other) (the hot
    // forms); an overload takes other= by keyword.
    def_fn(
        m, name,
        [is_max](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
          return max_min(is_max, x, dim, keepdim, out);
        },
        nb::sig(Sig{"dim: int | None = None, keepdim: bool = False, *, "
                    "out: Tensor | tuple[Tensor, Tensor] | None = None",
                    ret.c_str()}
                    .text(name, "input: Tensor")
                    .c_str()),
        nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
        nb::arg("out") = nb::none(), doc);
    nb::cpp_function_def(
        [is_max](const Tensor& x, const Tensor& other, nb::handle out) {
          return finish_out(is_max ? maximum(x, other) : minimum(x, other), out, is_max ? "max" : "min");
        },
        nb::scope(m), nb::sig(Sig{"other: Tensor, *, out: Tensor | None = None"}.text(name, "input: Tensor").c_str()),
        nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none(), doc);
    const std::string mdoc = method_doc(doc, name);
    def_fn(
        cls, name,
        [is_max](const Tensor& x, nb::handle dim, bool keepdim) {
          return max_min(is_max, x, dim, keepdim, nb::none());
        },
        nb::sig(Sig{"dim: int | None = None, keepdim: bool = False", ret.c_str()}.text(name, "self").c_str()),
        nb::is_method(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, mdoc.c_str());
    nb::cpp_function_def(
        [is_max](const Tensor& x, const Tensor& other) { return is_max ? maximum(x, other) : minimum(x, other); },
        nb::scope(cls), nb::sig(Sig{"other: Tensor"}.text(name, "self").c_str()), nb::is_method(), nb::arg("other"),
        mdoc.c_str());

    auto arg = [is_max](const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
      return is_max ? argmax(x, dim, keepdim) : argmin(x, dim, keepdim);
    };
    def_both(m, cls, is_max ? "argmax" : "argmin", arg, is_max ? kArgmaxDoc : kArgminDoc, nb::arg("dim") = nb::none(),
             nb::arg("keepdim") = false);
  }

  auto aminmax_fn = [](const Tensor& x, std::optional<int64_t> dim, bool keepdim, nb::handle out) {
    return pair_result(g_aminmax_type, "aminmax", aminmax(x, dim, keepdim), out);
  };
  def_fn(m, "aminmax", aminmax_fn,
         nb::sig("def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = "
                 "False, out: tuple[Tensor, Tensor] | None = None) -> return_types.aminmax"),
         nb::arg("input"), nb::kw_only(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
         nb::arg("out") = nb::none(), kAminmaxDoc);
  def_fn(
      cls, "aminmax",
      [aminmax_fn](const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
        return aminmax_fn(x, dim, keepdim, nb::none());
      },
      nb::sig("def aminmax(self, *, dim: int | None = None, keepdim: bool = False) -> return_types.aminmax"),
      nb::is_method(), nb::kw_only(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      method_doc(kAminmaxDoc, "aminmax").c_str());
}

void def_moments(nb::module_& m, nb::handle cls) {
  using Moment = Tensor (*)(const Tensor&, IntArrayRef, double, bool);
  using Moments2 = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef, double, bool);
  for (auto [name, f, doc] :
       {std::tuple<const char*, Moment, const char*>{"var", &var, kVarDoc}, {"std", &std, kStdDoc}})
    def_var_like(
        m, cls, name, "Tensor",
        [f](const char* fn, const Tensor& x, IntArrayRef d, double c, bool k, nb::handle out) {
          return finish_out(f(x, d, c, k), out, fn);
        },
        doc);
  for (auto [name, f, doc] : {std::tuple<const char*, Moments2, const char*>{"var_mean", &var_mean, kVarMeanDoc},
                              {"std_mean", &std_mean, kStdMeanDoc}})
    def_var_like(
        m, cls, name, "tuple[Tensor, Tensor]",
        [f](const char* fn, const Tensor& x, IntArrayRef d, double c, bool k, nb::handle out) {
          return pair_result(nb::handle(), fn, f(x, d, c, k), out);
        },
        doc);
}

}  // namespace

void init_reduce(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  g_max_type = return_type(m, "_return_types", "max");
  g_min_type = return_type(m, "_return_types", "min");
  g_aminmax_type = return_type(m, "_return_types", "aminmax", "min", "max");

  def_reductions(m, cls);
  def_extrema(m, cls);
  def_moments(m, cls);
}

}  // namespace ember::py
