// torch.gradient, composed of slices with PyTorch's formulas and order of operations (uniform spacing: (f[i+1] -
// f[i-1]) / h / 2; sample coordinates: the second-order formula for uneven steps), and PyTorch's checks.
#include "ember/ops/gradient.h"

#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

// PyTorch's checks; the dims to differentiate along (wrapped).
DimVector checked_dims(const Tensor& x, size_t spacing, const std::optional<DimVector>& dim, int64_t edge_order) {
  EMBER_CHECK(x.dtype() != ScalarType::UInt8, "torch.gradient does not support uint8 input.");
  const int64_t n = dim ? static_cast<int64_t>(dim->size()) : x.dim();
  if (!dim)
    EMBER_CHECK(static_cast<int64_t>(spacing) == x.dim(),
                "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to 'self.dim() "
                "= ",
                x.dim(), "', since dim argument was not given, but got a list of length ", spacing);
  else
    EMBER_CHECK(static_cast<int64_t>(spacing) == n,
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have "
                "the same length, but got a spacing argument of length ",
                spacing, " and a dim argument of length ", n, ".");
  EMBER_CHECK(edge_order == 1 || edge_order == 2, "torch.gradient only supports edge_order=1 and edge_order=2.");
  DimVector dims;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = dim ? wrap_dim((*dim)[i], x.dim(), "gradient") : i;
    for (int64_t e : dims) EMBER_CHECK(e != d, "dim ", d, " appears multiple times in the list of dims");
    EMBER_CHECK(x.size(d) >= edge_order + 1, "torch.gradient expected each dimension size to be at least edge_order+1");
    dims.push_back(d);
  }
  return dims;
}

Tensor part(const Tensor& x, int64_t d, std::optional<int64_t> start, std::optional<int64_t> end) {
  return slice(x, d, start, end);
}

}  // namespace

std::vector<Tensor> gradient(const Tensor& x, const std::vector<Scalar>& spacing, const std::optional<DimVector>& dim,
                             int64_t edge_order) {
  const DimVector dims = checked_dims(x, spacing.size(), dim, edge_order);
  std::vector<Tensor> out;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    const Scalar& h = spacing[i];
    const Tensor center = div(sub(part(x, d, 2, {}), part(x, d, 0, -2)), h);
    Tensor prepend, append;
    if (edge_order == 1) {
      prepend = div(sub(part(x, d, 1, 2), part(x, d, 0, 1)), h);
      append = div(sub(part(x, d, -1, {}), part(x, d, -2, -1)), h);
    } else {
      prepend = div(sub(add(mul(-1.5, part(x, d, 0, 1)), mul(2, part(x, d, 1, 2))), mul(0.5, part(x, d, 2, 3))), h);
      append = div(add(sub(mul(0.5, part(x, d, -3, -2)), mul(2, part(x, d, -2, -1))), mul(1.5, part(x, d, -1, {}))), h);
    }
    out.push_back(cat({prepend, div(center, 2), append}, d));
  }
  return out;
}

std::vector<Tensor> gradient(const Tensor& x, const std::vector<Tensor>& coordinates,
                             const std::optional<DimVector>& dim, int64_t edge_order) {
  const DimVector dims = checked_dims(x, coordinates.size(), dim, edge_order);
  for (const Tensor& c : coordinates)
    EMBER_CHECK(c.device() == x.device(),
                "torch.gradient expected each tensor to be on the same device, but got devices ", x.device(), " and ",
                c.device(), "!");
  std::vector<Tensor> out;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    const Tensor& c = coordinates[i];
    EMBER_CHECK(c.dim() == 1, "torch.gradient expected each element of spacing to have one dimension, but got an ",
                "element with ", c.dim(), " dimensions!");
    EMBER_CHECK(c.size(0) == x.size(d), "torch.gradient expected the coordinates of dim ", d, " to have ", x.size(d),
                " elements (the size of the dim), but got ", c.size(0));
    DimVector shape(x.dim(), 1);
    shape[d] = -1;
    const Tensor dx = diff(c, 1, 0), dx1 = slice(dx, 0, 0, -1), dx2 = slice(dx, 0, 1, {});
    const Tensor a = reshape(div(neg(dx2), mul(dx1, add(dx1, dx2))), shape);
    const Tensor b = reshape(div(sub(dx2, dx1), mul(dx1, dx2)), shape);
    const Tensor cc = reshape(div(dx1, mul(dx2, add(dx1, dx2))), shape);
    const Tensor center = add(add(mul(a, part(x, d, 0, -2)), mul(b, part(x, d, 1, -1))), mul(cc, part(x, d, 2, {})));
    const Tensor h0 = select(dx, 0, 0), hl = select(dx, 0, -1);
    Tensor prepend, append;
    if (edge_order == 1) {
      prepend = div(sub(part(x, d, 1, 2), part(x, d, 0, 1)), h0);
      append = div(sub(part(x, d, -1, {}), part(x, d, -2, -1)), hl);
    } else {
      const Tensor h1 = select(dx, 0, 1), hm = select(dx, 0, -2);
      const Tensor pa = div(neg(add(mul(h0, 2.0), h1)), mul(h0, add(h0, h1)));
      const Tensor pb = div(add(h0, h1), mul(h0, h1));
      const Tensor pc = div(neg(h0), mul(h1, add(h0, h1)));
      prepend = add(add(mul(pa, part(x, d, 0, 1)), mul(pb, part(x, d, 1, 2))), mul(pc, part(x, d, 2, 3)));
      const Tensor qa = div(hl, mul(hm, add(hl, hm)));
      const Tensor qb = div(neg(add(hl, hm)), mul(hl, hm));
      const Tensor qc = div(add(mul(hl, 2), hm), mul(hl, add(hl, hm)));
      append = add(add(mul(qa, part(x, d, -3, -2)), mul(qb, part(x, d, -2, -1))), mul(qc, part(x, d, -1, {})));
    }
    out.push_back(cat({prepend, center, append}, d));
  }
  return out;
}

}  // namespace ember
