// Bindings of unary ops written through others: clamp_min and clamp_max (clamp with one bound, which takes numbers
// and tensors) and positive, with PyTorch's signatures and docstrings.
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kClampMinDoc = R"(
Clamps the elements of ``input`` from below: ``max(input, min)``, elementwise.

``clamp_min(input, min)`` is ``ember.clamp(input, min=min)``: ``min`` is a number or a tensor that broadcasts with
``input``; a NaN stays NaN.

Args:
    input (Tensor): the input tensor.
    min (float or Tensor): the lower bound.

Example::

    >>> ember.clamp_min(ember.tensor([-1., 2.]), 0)
    tensor([0., 2.])
)";

constexpr const char* kClampMaxDoc = R"(
Clamps the elements of ``input`` from above: ``min(input, max)``, elementwise.

``clamp_max(input, max)`` is ``ember.clamp(input, max=max)``: ``max`` is a number or a tensor that broadcasts with
``input``; a NaN stays NaN.

Args:
    input (Tensor): the input tensor.
    max (float or Tensor): the upper bound.

Example::

    >>> ember.clamp_max(ember.tensor([-1., 2.]), 0.5)
    tensor([-1.0000,  0.5000])
)";

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
  // clamp_min/clamp_max (+ in place) through clamp, which takes numbers and tensors: they replace unary.cpp's,
  // which take numbers only.
  nb::object clamp_fn = m.attr("clamp"), clamp_m = cls.attr("clamp"), clamp_i = cls.attr("clamp_");
  for (bool lower : {true, false}) {
    const char* name = lower ? "clamp_min" : "clamp_max";
    const char* bound = lower ? "min" : "max";
    const char* doc = lower ? kClampMinDoc : kClampMaxDoc;
    auto bounds = [lower](nb::handle v) {
      using Bounds = std::pair<nb::handle, nb::handle>;
      return lower ? Bounds{v, nb::none()} : Bounds{nb::none(), v};
    };
    const std::string param = std::string(bound) + ": Tensor | float";
    def_fn(m, name, [clamp_fn, bounds](nb::handle t, nb::handle v) -> nb::typed<nb::object, Tensor> {
      auto [lo, hi] = bounds(v);
      return clamp_fn(t, lo, hi);
    }, nb::sig(Sig{param.c_str()}.text(name, "input: Tensor").c_str()), nb::arg("input"), nb::arg(bound), doc);
    def_method(cls, name, [clamp_m, bounds](nb::handle t, nb::handle v) -> nb::typed<nb::object, Tensor> {
      auto [lo, hi] = bounds(v);
      return clamp_m(t, lo, hi);
    }, nb::sig(Sig{param.c_str()}.text(name, "self").c_str()), nb::arg(bound), method_doc(doc, name).c_str());
    const std::string inplace = std::string(name) + "_";
    def_method(cls, inplace.c_str(), [clamp_i, bounds](nb::handle t, nb::handle v) -> nb::typed<nb::object, Tensor> {
      auto [lo, hi] = bounds(v);
      return clamp_i(t, lo, hi);
    }, nb::sig(Sig{param.c_str()}.text(inplace.c_str(), "self").c_str()), nb::arg(bound), inplace_doc(name).c_str());
  }
  def_both(m, cls, "positive", [](nb::handle t) -> nb::typed<nb::object, Tensor> {
    EMBER_CHECK(nb::cast<const Tensor&>(t).dtype() != ScalarType::Bool,
                "The `+` operator, on a bool tensor is not supported.");
    return nb::borrow(t);
  }, kPositiveDoc);
}

}  // namespace ember::py
