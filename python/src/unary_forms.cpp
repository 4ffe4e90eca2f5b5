// Bindings of unary ops written through others: positive (unary plus), with PyTorch's signature and docstring
// (clamp_min and clamp_max are clamp with one bound: python/src/unary.cpp).
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kPositiveDoc = R"(
Returns ``input`` itself (unary plus); bool tensors raise ``RuntimeError``, as in PyTorch.

Args:
    input (Tensor): the input tensor.

Example::

    >>> ember.positive(ember.tensor([-1, 2]))
    tensor([-1,  2])
)";

}  // namespace

void init_unary_forms(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  def_both(
      m, cls, "positive",
      [](nb::handle t) -> nb::typed<nb::object, Tensor> {
        EMBER_CHECK(nb::cast<const Tensor&>(t).dtype() != ScalarType::Bool,
                    "The `+` operator, on a bool tensor is not supported.");
        return nb::borrow(t);
      },
      kPositiveDoc);
}

}  // namespace ember::py
