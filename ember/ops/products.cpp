// Products and combinations composed of existing ops: cross, kron, cartesian_prod, combinations and the
// Vandermonde matrices (columns of powers). Their gradients come from the ops they are made of.
#include "ember/ops/products.h"

#include <algorithm>
#include <vector>

#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

int64_t first_dim_of_size3(IntArrayRef shape) {
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 3) return static_cast<int64_t>(i);
  fail<Error>("cross: no dimension of size 3 in input (shape ", shape_str(shape), ")");
}

Tensor cross_along(const Tensor& a_in, const Tensor& b_in, int64_t dim, const char* op) {
  check_same_device(op, {&a_in, &b_in});
  auto ab = broadcast_tensors({a_in, b_in});
  const Tensor &a = ab[0], &b = ab[1];
  auto c = [&](const Tensor& x, int64_t i) { return select(x, dim, i); };
  Tensor x = sub(mul(c(a, 1), c(b, 2)), mul(c(a, 2), c(b, 1)));
  Tensor y = sub(mul(c(a, 2), c(b, 0)), mul(c(a, 0), c(b, 2)));
  Tensor z = sub(mul(c(a, 0), c(b, 1)), mul(c(a, 1), c(b, 0)));
  return stack({x, y, z}, dim);
}

}  // namespace

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  EMBER_CHECK(a.dtype() == b.dtype(), "cross: expected both inputs to have the same dtype, got ", a.dtype(), " and ",
              b.dtype());
  EMBER_CHECK(a.dim() == b.dim(), "linalg.cross: inputs must have the same number of dimensions (got shapes ",
              shape_str(a.sizes()), " and ", shape_str(b.sizes()), ")");
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), "cross");
  const int64_t d = dim ? wrap_dim(*dim, a.dim(), "cross") : first_dim_of_size3(shape);
  EMBER_CHECK(a.sizes()[d] == 3 && b.sizes()[d] == 3, "linalg.cross: inputs dimension ", dim ? *dim : d,
              " must have length 3. Got ", a.sizes()[d], " and ", b.sizes()[d]);
  return cross_along(a, b, d, "cross");
}

Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim) { return cross(a, b, dim); }

Tensor kron(const Tensor& a, const Tensor& b) {
  check_same_device("kron", {&a, &b});
  const int64_t n = std::max(a.dim(), b.dim());
  DimVector as(n, 1), bs(n, 1), ai, bi, out;
  for (int64_t i = 0; i < a.dim(); ++i) as[n - a.dim() + i] = a.sizes()[i];
  for (int64_t i = 0; i < b.dim(); ++i) bs[n - b.dim() + i] = b.sizes()[i];
  for (int64_t i = 0; i < n; ++i) {
    ai.push_back(as[i]), ai.push_back(1);
    bi.push_back(1), bi.push_back(bs[i]);
    out.push_back(as[i] * bs[i]);
  }
  return reshape(mul(reshape(a, ai), reshape(b, bi)), out);
}

Tensor cartesian_prod(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "cartesian_prod: expected at least one tensor");
  for (const Tensor& t : tensors)
    EMBER_CHECK(t.dim() == 1, "cartesian_prod: Expect a 1D vector, but got shape ", shape_str(t.sizes()));
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = reshape(g, {{-1}});
  return stack(grids, 1);
}

Tensor combinations(const Tensor& t, int64_t r, bool with_replacement) {
  EMBER_CHECK(t.dim() == 1, "combinations: Expect a 1D vector, but got shape ", shape_str(t.sizes()));
  EMBER_CHECK(r >= 0, "combinations: Expect a non-negative number, but got ", r);
  if (r == 0) return empty({{0}}, TensorOptions(t.dtype()).device(t.device()));
  const int64_t n = t.numel();
  // The index tuples in lexicographic order: increasing (non-decreasing with replacement) positions.
  std::vector<int64_t> idx;
  DimVector cur(r, 0);
  if (!with_replacement)
    for (int64_t i = 0; i < r; ++i) cur[i] = i;
  auto valid = [&] { return r == 0 || cur[r - 1] < n; };
  int64_t count = 0;
  while (valid()) {
    idx.insert(idx.end(), cur.begin(), cur.end());
    ++count;
    int64_t i = r - 1;  // the last position that can still move
    while (i >= 0 && cur[i] >= n - (with_replacement ? 1 : r - i)) --i;
    if (i < 0) break;
    ++cur[i];
    for (int64_t j = i + 1; j < r; ++j) cur[j] = with_replacement ? cur[i] : cur[j - 1] + 1;
  }
  const Tensor index = from_blob_copy(idx.data(), ScalarType::Int64, {{count * r}},
                                      TensorOptions(ScalarType::Int64).device(t.device()));
  return reshape(index_select(t, 0, index), {{count, r}});
}

Tensor linalg_vander(const Tensor& x, std::optional<int64_t> n) {
  EMBER_CHECK(x.dtype() != ScalarType::Bool,
              "linalg.vander supports floating point, complex, and integer tensors, "
              "but got ",
              x.dtype());
  const int64_t count = n ? *n : (x.dim() ? x.sizes().back() : 1);
  EMBER_CHECK(count > 1, "linalg.vander: N must be greater than 1 (got ", count, ")");
  EMBER_CHECK(x.dim() >= 1, "linalg.vander: x must have at least one dimension");
  // [1, x, x^2, ...]: a cumulative product of x repeated (PyTorch's formulation, exact for integers).
  const Tensor xs = to(x, promote_types(x.dtype(), ScalarType::Int64));
  DimVector shape(x.sizes());
  shape.push_back(count - 1);
  const Tensor reps = expand(unsqueeze(xs, -1), shape);
  shape.back() = 1;
  return cat({ones(shape, TensorOptions(xs.dtype()).device(x.device())), cumprod(reps, -1)}, -1);
}

Tensor vander(const Tensor& x, std::optional<int64_t> n, bool increasing) {
  EMBER_CHECK(x.dim() == 1, "vander: x must be a one-dimensional tensor (got shape ", shape_str(x.sizes()), ")");
  const int64_t count = n ? *n : x.numel();
  EMBER_CHECK(count >= 0, "vander: N must be non-negative (got ", count, ")");
  const ScalarType dtype = promote_types(x.dtype(), ScalarType::Int64);
  const TensorOptions o = TensorOptions(dtype).device(x.device());
  Tensor r;
  if (count == 0) {
    r = empty({{x.numel(), 0}}, o);
  } else if (count == 1) {
    r = ones({{x.numel(), 1}}, o);
  } else {
    const Tensor xs = to(x, dtype);
    r = cat({ones({{x.numel(), 1}}, o), cumprod(expand(unsqueeze(xs, 1), {{x.numel(), count - 1}}), 1)}, 1);
  }
  return increasing ? r : flip(r, {{1}});
}

}  // namespace ember
