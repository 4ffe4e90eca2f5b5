// Bindings of the comparisons and tests of whole tensors: equal, isclose, allclose, is_same_size, is_nonzero and
// is_signed, with PyTorch's signatures and docstrings.
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

Tensor isclose_impl(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(a.dtype() == b.dtype(), "isclose: ", a.dtype(), " did not match ", b.dtype());
  Tensor close = eq(a, b);
  if (!is_inexact(a.dtype())) {
    if (rtol == 0 && atol == 0) return close;
    Tensor af = to(a, default_dtype()), bf = to(b, default_dtype());
    return logical_or(close, le(abs(sub(af, bf)), add(mul(abs(bf), rtol), atol)));
  }
  if (equal_nan) close = logical_or(close, logical_and(isnan(a), isnan(b)));
  Tensor finite = logical_and(isfinite(a), isfinite(b));
  Tensor within = le(abs(sub(a, b)), add(mul(abs(b), rtol), atol));
  return logical_or(close, logical_and(finite, within));
}

constexpr const char* kEqualDoc = R"(
Tests whether ``input`` and ``other`` have the same shape and equal elements; returns a Python bool.

The elements are compared after type promotion (so an int tensor can equal a float one); NaN equals nothing.

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor.

Example::

    >>> ember.equal(ember.tensor([1, 2]), ember.tensor([1, 2]))
    True
)";

constexpr const char* kIscloseDoc = R"(
Tests elementwise whether ``input`` is close to ``other``, returning a bool tensor.

.. math::
    |\text{input}_i - \text{other}_i| \le \texttt{atol} + \texttt{rtol} \times |\text{other}_i|

Equal elements (infinities included) are close; NaNs are close to each other only with ``equal_nan=True``.
``input`` and ``other`` broadcast together and must have the same dtype.

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor.
    rtol (float): the relative tolerance. Default: ``1e-05``.
    atol (float): the absolute tolerance. Default: ``1e-08``.
    equal_nan (bool): whether two NaNs are close. Default: ``False``.

Example::

    >>> ember.isclose(ember.tensor([1., float('nan')]), ember.tensor([1. + 1e-9, float('nan')]), equal_nan=True)
    tensor([True, True])
)";

constexpr const char* kAllcloseDoc = R"(
Tests whether all elements of ``input`` are close to those of ``other``; returns a Python bool.

``allclose(input, other, ...)`` is ``bool(ember.isclose(input, other, ...).all())``; see :func:`ember.isclose`.

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor.
    rtol (float): the relative tolerance. Default: ``1e-05``.
    atol (float): the absolute tolerance. Default: ``1e-08``.
    equal_nan (bool): whether two NaNs are close. Default: ``False``.

Example::

    >>> ember.allclose(ember.tensor([1., 2.]), ember.tensor([1., 2.000001]))
    True
)";

constexpr const char* kIsSameSizeDoc = R"(
Tests whether ``input`` and ``other`` have the same shape; returns a Python bool.

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor.

Example::

    >>> ember.is_same_size(ember.zeros(2, 3), ember.ones(2, 3))
    True
)";

constexpr const char* kIsNonzeroDoc = R"(
Tests whether the single element of ``input`` is non-zero; returns a Python bool.

``input`` must hold exactly one element, else ``RuntimeError`` (its truth value would be ambiguous).

Args:
    input (Tensor): a one-element tensor.

Example::

    >>> ember.is_nonzero(ember.tensor([1.5]))
    True
)";

constexpr const char* kIsSignedDoc = R"(
Tests whether the dtype of ``input`` is signed (floating-point and signed integer types; not ``uint8`` or ``bool``).

Returns a Python bool.

Args:
    input (Tensor): the input tensor.

Example::

    >>> ember.is_signed(ember.tensor([1], dtype=ember.uint8))
    False
)";

}  // namespace

void init_predicates(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  def_both(
      m, cls, "equal",
      [](const Tensor& a, const Tensor& b) {
        refuse_complex_half("equal_notnan_cpu", promote_types(a.dtype(), b.dtype()));  // Note [complex32]
        if (!std::ranges::equal(a.sizes(), b.sizes())) return false;
        return item(all(eq(a, b))).to_bool();
      },
      kEqualDoc, nb::arg("other"));
  def_both(m, cls, "isclose", &isclose_impl, kIscloseDoc, nb::arg("other"), nb::arg("rtol") = 1e-5,
           nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  def_both(
      m, cls, "allclose",
      [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
        return item(all(isclose_impl(a, b, rtol, atol, equal_nan))).to_bool();
      },
      kAllcloseDoc, nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  def_both(
      m, cls, "is_same_size", [](const Tensor& a, const Tensor& b) { return std::ranges::equal(a.sizes(), b.sizes()); },
      kIsSameSizeDoc, nb::arg("other"));
  def_both(
      m, cls, "is_nonzero",
      [](const Tensor& t) {
        EMBER_CHECK(t.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
        EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
        const Scalar v = item(t);
        return v.is_floating() ? v.to<double>() != 0 : v.to<int64_t>() != 0;
      },
      kIsNonzeroDoc);
  def_both(
      m, cls, "is_signed", [](const Tensor& t) { return is_signed(t.dtype()); }, kIsSignedDoc);
}

}  // namespace ember::py
