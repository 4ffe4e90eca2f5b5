// Bindings of the ops that make a tensor from another's dtype, device or shape: type_as, new_empty_strided and
// fill, with PyTorch's signatures and docstrings.
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kTypeAsDoc = R"(
Returns ``self`` converted to the dtype of ``other`` (``self`` itself when it has that dtype already).

``self.type_as(other)`` is ``self.to(other.dtype)``.

Args:
    other (Tensor): the tensor whose dtype to take (``tensor`` in PyTorch's documentation; both names are accepted).

Example::

    >>> ember.ones(2).type_as(ember.tensor([1]))
    tensor([1, 1])
)";

constexpr const char* kNewEmptyStridedDoc = R"(
Returns a new uninitialized tensor of shape ``size`` and strides ``stride``, by default of ``self``'s dtype and device.

Args:
    size (sequence of ints): the shape.
    stride (sequence of ints): the strides, in elements.

Keyword args:
    dtype (ember.dtype, optional): the dtype. Default: ``self``'s.
    device (ember.device, optional): the device. Default: ``self``'s.
    requires_grad (bool): whether autograd records operations on the result. Default: ``False``.
    layout (ember.layout): only ``ember.strided``.
    pin_memory (bool): allocate in pinned (page-locked) host memory. Default: ``False``.

Example::

    >>> ember.zeros(2).new_empty_strided((2, 2), (1, 2)).stride()
    (1, 2)
)";

constexpr const char* kFillDoc = R"(
Returns a new tensor of ``input``'s shape, dtype and device with every element equal to ``value``.

``value`` is a number or a 0-d tensor; with a tensor, the result is differentiable with respect to it.

Args:
    input (Tensor): the tensor whose shape, dtype and device to take.
    value (float or Tensor): the fill value.

Example::

    >>> ember.fill(ember.zeros(2), 3)
    tensor([3., 3.])
)";

}  // namespace

void init_like(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  // type_as: PyTorch's binding names the argument other, its documentation tensor: both work (an overload).
  auto type_as = [](const Tensor& t, const Tensor& o) { return to(t, o.dtype()); };
  def_method(cls, "type_as", type_as, nb::arg("other"), kTypeAsDoc);
  nb::cpp_function_def(type_as, nb::scope(cls), nb::name("type_as"), nb::is_method(), nb::arg("tensor"), kTypeAsDoc);

  // dtype, device, requires_grad, layout and pin_memory are parsed from **kwargs as the factory functions do.
  def_method(
      cls, "new_empty_strided",
      [](const Tensor& t, nb::handle size, nb::handle stride, nb::kwargs kw) {
        FactoryArgs a;
        parse_factory_kwargs(kw, "new_empty_strided", kDtype | kDevice | kRequiresGrad | kLayout, a);
        const TensorOptions o = TensorOptions(a.dtype.value_or(t.dtype()))
                                    .device(a.device.value_or(t.device()))
                                    .requires_grad(a.requires_grad);
        return a.pinned(empty_strided(to_int_list(size, "new_empty_strided", "size"),
                                      to_int_list(stride, "new_empty_strided", "stride"), o));
      },
      nb::sig("def new_empty_strided(self, size: Sequence[int], stride: Sequence[int], *, dtype: dtype | None = None, "
              "device: device | None = None, requires_grad: bool = False, layout: layout = ember.strided, "
              "pin_memory: bool = False) -> Tensor"),
      nb::arg("size"), nb::arg("stride"), nb::arg("kwargs"), kNewEmptyStridedDoc);

  // torch.fill: a new tensor of input's shape and dtype holding value (a number or a 0-d tensor, differentiable).
  def_fn(
      m, "fill",
      [](const Tensor& t, nb::handle value) {
        if (nb::isinstance<Tensor>(value)) {
          const Tensor& v = nb::cast<const Tensor&>(value);
          EMBER_CHECK(v.dim() == 0, "fill only supports 0-dimension value tensor but got tensor with ", v.dim(),
                      " dimensions.");
          return contiguous(expand(to(v.device() == t.device() ? v : to(v, t.device()), t.dtype()), t.sizes()));
        }
        return full_like(t, to_scalar(value, "fill"));
      },
      nb::sig("def fill(input: Tensor, value: Tensor | float) -> Tensor"), nb::arg("input"), nb::arg("value"),
      kFillDoc);
}

}  // namespace ember::py
