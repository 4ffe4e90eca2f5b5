// Bindings of the ops driven by masks and non-zero elements (ember/ops/shape.h): masked_select, masked_scatter,
// masked_fill, nonzero and argwhere, with PyTorch's signatures and docstrings (ember.where: ternary.cpp).
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

// A value that PyTorch accepts as a number or a 0-d tensor (masked_fill).
Scalar value_of(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK(t.dim() == 0, fn, " only supports a 0-dimensional value tensor, but got tensor with ", t.dim(),
                " dimension(s).");
    return item(t);
  }
  return to_scalar(h, fn);
}

constexpr const char* kMaskedSelectDoc = R"(
Returns the elements of ``input`` where the bool tensor ``mask`` is true, as a 1-d tensor.

``mask`` and ``input`` broadcast together; the elements come in row-major order.

Args:
    input (Tensor): the input tensor.
    mask (Tensor): a bool tensor.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> t = ember.tensor([[1, 2], [3, 4]])
    >>> ember.masked_select(t, t > 2)
    tensor([3, 4])
)";

constexpr const char* kMaskedScatterDoc = R"(
Returns a copy of ``input`` with the positions where ``mask`` is true filled, in row-major order, from ``source``.

``mask`` (bool) broadcasts to ``input``'s shape; ``source`` holds at least as many elements as ``mask`` has true
ones, and they are taken from its start.

Args:
    input (Tensor): the tensor to copy.
    mask (Tensor): a bool tensor.
    source (Tensor): the values, used in order (``tensor`` in PyTorch's documentation of the method; both names are
        accepted).

Example::

    >>> mask = ember.tensor([[True, False], [False, True]])
    >>> ember.zeros(2, 2).masked_scatter(mask, ember.tensor([5., 6., 7., 8.]))
    tensor([[5., 0.],
            [0., 6.]])
)";

constexpr const char* kMaskedFillDoc = R"(
Returns a copy of ``input`` with ``value`` wherever the bool tensor ``mask`` is true.

``mask`` broadcasts to ``input``'s shape. ``value`` is a number or a 0-d tensor (then differentiable with respect to
it).

Args:
    input (Tensor): the tensor to copy.
    mask (Tensor): a bool tensor.
    value (float or Tensor): the fill value.

Example::

    >>> t = ember.tensor([[1, 2], [3, 4]])
    >>> t.masked_fill(t > 2, 0)
    tensor([[1, 2],
            [0, 0]])
)";

constexpr const char* kNonzeroDoc = R"(
Returns the indices of the non-zero elements of ``input``.

By default, an ``int64`` tensor of shape ``(count, input.dim())``, one row of coordinates per non-zero element, in
row-major order. With ``as_tuple=True``, a tuple of ``input.dim()`` 1-d tensors, one per dim (a 0-d ``input``
counts as 1-d), which can index ``input`` directly: ``input[ember.nonzero(input, as_tuple=True)]``.

Args:
    input (Tensor): the input tensor.

Keyword args:
    out (Tensor, optional): the output tensor (without ``as_tuple``).
    as_tuple (bool): return one tensor per dim. Default: ``False``.

Example::

    >>> ember.nonzero(ember.tensor([[0, 1], [2, 0]]))
    tensor([[0, 1],
            [1, 0]])
    >>> ember.nonzero(ember.tensor([[0, 1], [2, 0]]), as_tuple=True)
    (tensor([0, 1]), tensor([1, 0]))
)";

constexpr const char* kArgwhereDoc = R"(
Returns the coordinates of the non-zero elements of ``input``, one row per element: ``ember.nonzero(input)``.

Args:
    input (Tensor): the input tensor.

Example::

    >>> ember.argwhere(ember.tensor([0, 3, 0, 4]))
    tensor([[1],
            [3]])
)";

}  // namespace

void init_masked(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  def_fn(
      m, "masked_select",
      [](const Tensor& t, const Tensor& mask, nb::handle out) {
        return finish_out(masked_select(t, mask), out, "masked_select");
      },
      nb::sig("def masked_select(input: Tensor, mask: Tensor, *, out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("mask"), nb::kw_only(), nb::arg("out") = nb::none(), kMaskedSelectDoc);
  def_method(
      cls, "masked_select", [](const Tensor& t, const Tensor& mask) { return masked_select(t, mask); }, nb::arg("mask"),
      method_doc(kMaskedSelectDoc, "masked_select").c_str());

  // masked_scatter: the method's source is `tensor` in PyTorch's documentation and `source` in its binding: both
  // work (an overload).
  auto masked_scatter_fn = [](const Tensor& t, const Tensor& mask, const Tensor& source) {
    return masked_scatter(t, mask, source);
  };
  def_both(m, cls, "masked_scatter", masked_scatter_fn, kMaskedScatterDoc, nb::arg("mask"), nb::arg("source"));
  nb::cpp_function_def(masked_scatter_fn, nb::scope(cls), nb::name("masked_scatter"), nb::is_method(), nb::arg("mask"),
                       nb::arg("tensor"), method_doc(kMaskedScatterDoc, "masked_scatter").c_str());
  def_inplace<const Tensor&, const Tensor&>(cls, "masked_scatter_", &masked_scatter_, nb::arg("mask"),
                                            nb::arg("source"));

  const Sig fill_sig{"mask: Tensor, value: Tensor | float"};
  def_both(
      m, cls, "masked_fill", fill_sig,
      [](const Tensor& t, const Tensor& mask, nb::handle value) {
        if (nb::isinstance<Tensor>(value)) return masked_fill(t, mask, nb::cast<const Tensor&>(value));
        return masked_fill(t, mask, value_of(value, "masked_fill"));
      },
      kMaskedFillDoc, nb::arg("mask"), nb::arg("value"));
  def_inplace<const Tensor&, nb::handle>(
      cls, "masked_fill_", fill_sig,
      [](const Tensor& t, const Tensor& mask, nb::handle value) {
        if (nb::isinstance<Tensor>(value))
          masked_fill_(t, mask, nb::cast<const Tensor&>(value));
        else
          masked_fill_(t, mask, value_of(value, "masked_fill_"));
      },
      nb::arg("mask"), nb::arg("value"));

  auto nonzero_fn = [](const Tensor& t, nb::handle out, bool as_tuple) -> nb::object {
    if (as_tuple) return to_tuple(nonzero_tuple(t));
    return finish_out(nonzero(t), out, "nonzero");
  };
  def_fn(m, "nonzero", nonzero_fn,
         nb::sig("def nonzero(input: Tensor, *, out: Tensor | None = None, as_tuple: bool = "
                 "False) -> Tensor | tuple[Tensor, ...]"),
         nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none(), nb::arg("as_tuple") = false, kNonzeroDoc);
  def_method(
      cls, "nonzero", [nonzero_fn](const Tensor& t, bool as_tuple) { return nonzero_fn(t, nb::none(), as_tuple); },
      nb::sig("def nonzero(self, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]"), nb::kw_only(),
      nb::arg("as_tuple") = false, method_doc(kNonzeroDoc, "nonzero").c_str());
  def_both(
      m, cls, "argwhere", [](const Tensor& t) { return argwhere(t); }, kArgwhereDoc);
}

}  // namespace ember::py
