// Binding of gradient (ember/ops/gradient.h) with PyTorch's signature and docstring: spacing as a number, a list of
// numbers or a list of coordinate tensors; dim as None, an int or a list of ints.
#include "common.h"
#include "ember/ops/gradient.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kGradientDoc = R"(
Estimates the gradient of a function sampled in ``input`` along one or more dims, by central differences.

In the interior each derivative is :math:`(f_{i+1} - f_{i-1}) / 2h` for samples ``h`` apart (for uneven sample
coordinates the second-order formula for unequal steps); at the edges it is a one-sided difference of first
(``edge_order=1``) or second order.

Args:
    input (Tensor): the sampled values.

Keyword args:
    spacing (number, list of numbers or list of Tensors, optional): the distance between samples, one for every
        dim or one per dim; or per dim the 1-d tensor of the sample coordinates. Default: 1.
    dim (int or list of ints, optional): the dims to differentiate along. Default: all of them.
    edge_order (int, optional): 1 or 2, the order of the edges' differences. Default: 1.

Returns:
    tuple of Tensors: one derivative per dim, each of ``input``'s shape.

Example::

    >>> ember.gradient(ember.tensor([1., 4., 9., 16.]))
    (tensor([3., 4., 6., 7.]),)
)";

bool is_sequence(nb::handle h) { return PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()); }

}  // namespace

void init_gradient(nb::module_& m) {
  def_fn(
      m, "gradient",
      [](const Tensor& x, nb::handle spacing, nb::handle dim, int64_t edge_order) {
        std::optional<DimVector> dims;
        if (!dim.is_none())
          dims = is_sequence(dim) ? to_int_list(dim, "gradient", "dim") : DimVector{to_int(dim, "gradient", "dim")};
        const size_t count = dims ? dims->size() : static_cast<size_t>(x.dim());
        std::vector<Tensor> r;
        if (is_sequence(spacing) && nb::len(spacing) > 0 && nb::isinstance<Tensor>(spacing[0])) {
          std::vector<Tensor> coords;
          for (nb::handle c : nb::iter(spacing)) {
            EMBER_CHECK_TYPE(nb::isinstance<Tensor>(c), "gradient(): spacing mixes tensors and numbers");
            coords.push_back(nb::cast<Tensor>(c));
          }
          r = gradient(x, coords, dims, edge_order);
        } else if (is_sequence(spacing)) {
          std::vector<Scalar> h;
          for (nb::handle c : nb::iter(spacing)) h.push_back(to_scalar(c, "gradient"));
          r = gradient(x, h, dims, edge_order);
        } else {
          EMBER_CHECK_TYPE(
              !nb::isinstance<Tensor>(spacing),
              "gradient(): spacing must be a number, a list of numbers or a list of tensors, not a Tensor");
          r = gradient(x, std::vector<Scalar>(count, to_scalar(spacing, "gradient")), dims, edge_order);
        }
        nb::list out;
        for (const Tensor& t : r) out.append(nb::cast(t));
        return nb::tuple(out);
      },
      nb::sig("def gradient(input: Tensor, *, spacing: Number | Sequence[Number] | Sequence[Tensor] = 1, dim: int | "
              "Sequence[int] | None = None, edge_order: int = 1) -> tuple[Tensor, ...]"),
      nb::arg("input"), nb::kw_only(), nb::arg("spacing") = 1, nb::arg("dim") = nb::none(), nb::arg("edge_order") = 1,
      kGradientDoc);
}

}  // namespace ember::py
