// Binding of unravel_index (ember/ops/unravel.h) with PyTorch's signature and docstring.
#include "common.h"
#include "ember/ops/unravel.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kUnravelDoc = R"(
Converts a tensor of flat indices into a tuple of coordinate tensors that index into a tensor of ``shape``.

Each coordinate is ``(indices // stride) % size`` with the row-major strides of ``shape``, so indices past the end
or negative wrap around, as in PyTorch.

Args:
    indices (Tensor): an integer tensor of flat indices.
    shape (int or sequence of ints): the shape of the tensor indexed.

Returns:
    tuple of Tensors: one int64 tensor of ``indices``' shape per dim of ``shape``.

Example::

    >>> ember.unravel_index(ember.tensor([5, 7]), (3, 4))
    (tensor([1, 1]), tensor([1, 3]))
)";

}  // namespace

void init_unravel(nb::module_& m) {
  def_fn(
      m, "unravel_index",
      [](const Tensor& indices, nb::handle shape) {
        DimVector s;
        if (PyLong_Check(shape.ptr())) {
          s.push_back(nb::cast<int64_t>(shape));
        } else {
          EMBER_CHECK_TYPE(PySequence_Check(shape.ptr()) && !PyUnicode_Check(shape.ptr()),
                           "expected 'shape' to be int or sequence of ints, but got ", nb::str(shape.type()).c_str());
          for (nb::handle d : nb::iter(shape)) {
            EMBER_CHECK_TYPE(PyLong_Check(d.ptr()), "expected 'shape' sequence to only contain ints, but got ",
                             nb::str(d.type()).c_str());
            s.push_back(nb::cast<int64_t>(d));
          }
        }
        nb::list out;
        for (const Tensor& t : unravel_index(indices, s)) out.append(nb::cast(t));
        return nb::tuple(out);
      },
      nb::sig("def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]"),
      nb::arg("indices"), nb::arg("shape"), kUnravelDoc);
}

}  // namespace ember::py
