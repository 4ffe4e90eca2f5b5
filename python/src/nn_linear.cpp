// Bindings of torch.nn.functional's linear maps (ops/linalg.h): linear and bilinear, in ember._C._nn.
#include "common.h"

namespace ember::py {

namespace {

using nb::arg;

Tensor opt_bias(nb::handle h, const char* fn) {
  if (!h.is_valid() || h.is_none()) return {};
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(h), fn, "(): argument 'bias' must be Tensor, not ", nb::inst_name(h).c_str());
  return nb::cast<Tensor>(h);
}

const char* kLinearDoc = R"(
Applies an affine map to the last dimension of the input: :math:`y = x A^{T} + b`.

``input`` has shape :math:`(*, \text{in\_features})` with any number of leading dims (or is 1-D),
``weight`` :math:`(\text{out\_features}, \text{in\_features})` (or 1-D, giving no output feature dim), and
``bias``, when given, :math:`(\text{out\_features})` or anything that broadcasts to the result
:math:`(*, \text{out\_features})`. All must have the same dtype. Differentiable; this is the computation of
:class:`ember.nn.Linear`.

Args:
    input (Tensor): the input, :math:`(*, \text{in\_features})`.
    weight (Tensor): the weight, :math:`(\text{out\_features}, \text{in\_features})`.
    bias (Tensor, optional): the bias, :math:`(\text{out\_features})`. Default: ``None``.

Example::

    >>> weight = ember.tensor([[1., 0.], [0., 1.], [1., 1.]])
    >>> ember.nn.functional.linear(ember.tensor([1., 2.]), weight, ember.tensor([0., 0., 10.]))
    tensor([ 1.,  2., 13.])
)";

const char* kBilinearDoc = R"(
Applies a bilinear map to the last dimensions of two inputs: :math:`y = x_1^{T} A x_2 + b`.

For each output feature :math:`k`,

.. math::
    y_k = \sum_{i,j} x_{1,i} \, A_{kij} \, x_{2,j} + b_k

``input1`` has shape :math:`(*, \text{in1\_features})` and ``input2`` :math:`(*, \text{in2\_features})` with the
same leading dims; ``weight`` is :math:`(\text{out\_features}, \text{in1\_features}, \text{in2\_features})` and
``bias``, when given, :math:`(\text{out\_features})`. The result is :math:`(*, \text{out\_features})`. All must
have the same dtype. Differentiable; this is the computation of :class:`ember.nn.Bilinear`.

Args:
    input1 (Tensor): the first input, :math:`(*, \text{in1\_features})`.
    input2 (Tensor): the second input, :math:`(*, \text{in2\_features})`.
    weight (Tensor): the weight, :math:`(\text{out\_features}, \text{in1\_features}, \text{in2\_features})`.
    bias (Tensor, optional): the bias, :math:`(\text{out\_features})`. Default: ``None``.

Example::

    >>> x1, x2 = ember.tensor([[1., 2.]]), ember.tensor([[3., 4., 5.]])
    >>> ember.nn.functional.bilinear(x1, x2, ember.ones(2, 2, 3))
    tensor([[36., 36.]])
)";

}  // namespace

void init_nn_linear(nb::module_&, nb::module_& nn) {
  nn.def(
      "linear",
      [](const Tensor& input, const Tensor& weight, nb::handle bias) {
        return linear(input, weight, opt_bias(bias, "linear"));
      },
      arg("input"), arg("weight"), arg("bias") = nb::none(),
      nb::sig("def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor"), kLinearDoc);
  nn.def(
      "bilinear",
      [](const Tensor& x1, const Tensor& x2, const Tensor& weight, nb::handle bias) {
        return bilinear(x1, x2, weight, opt_bias(bias, "bilinear"));
      },
      arg("input1"), arg("input2"), arg("weight"), arg("bias") = nb::none(),
      nb::sig("def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> "
              "Tensor"),
      kBilinearDoc);
}

}  // namespace ember::py
