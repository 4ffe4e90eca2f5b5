// Finite differences (diff) and trapezoidal integration (trapezoid, cumulative_trapezoid), composed of existing
// ops: their gradients come from those.
#include "ember/ops/calculus.h"

#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

// x[1:] - x[:-1] along dim (bool: x[1:] != x[:-1]).
Tensor diff_once(const Tensor& x, int64_t dim) {
  const int64_t n = x.sizes()[dim];
  if (n == 0) return x;
  const Tensor hi = narrow(x, dim, 1, n - 1), lo = narrow(x, dim, 0, n - 1);
  return x.dtype() == ScalarType::Bool ? logical_xor(hi, lo) : sub(hi, lo);
}

// y's dtype for the integration ops: integers integrate in the default floating dtype.
Tensor as_floating(const Tensor& y) { return is_floating(y.dtype()) ? y : to(y, default_dtype()); }

// The spacings along dim of sample points x for samples y, PyTorch's way: a 1-d x lies along dim, a shorter x gets
// leading dims of size 1; the spacings then broadcast with y's differences.
Tensor spacings(const Tensor& y, const Tensor& x, int64_t dim, const char* op) {
  check_same_device(op, {&y, &x});
  Tensor xv = x;
  if (x.dim() == 1) {
    EMBER_CHECK(x.numel() == y.sizes()[dim], op, ": There must be one `x` value for each sample point (x has ",
                x.numel(), " values, y has ", y.sizes()[dim], " samples along dim ", dim, ")");
    DimVector shape(y.dim(), 1);
    shape[dim] = x.numel();
    xv = reshape(x, shape);
  } else if (x.dim() < y.dim()) {
    DimVector shape(y.dim() - x.dim(), 1);
    for (int64_t s : x.sizes()) shape.push_back(s);
    xv = reshape(x, shape);
  }
  return sub(slice(xv, dim, 1, std::nullopt), slice(xv, dim, 0, -1));
}

// y[1:] + y[:-1] along dim.
Tensor pair_sums(const Tensor& y, int64_t dim) { return add(slice(y, dim, 1, std::nullopt), slice(y, dim, 0, -1)); }

int64_t trapezoid_dim(const Tensor& y, int64_t dim) {
  EMBER_CHECK_INDEX(y.dim() > 0, "trapezoid: Dimension specified as ", dim, " but tensor has no dimensions");
  return wrap_dim(dim, y.dim(), "trapezoid");
}

}  // namespace

Tensor diff(const Tensor& t, int64_t n, int64_t dim, const Tensor& prepend, const Tensor& append) {
  EMBER_CHECK(t.dim() >= 1, "diff expects input to be at least one-dimensional");
  dim = wrap_dim(dim, t.dim(), "diff");
  for (const Tensor* p : {&prepend, &append})
    EMBER_CHECK(!p->defined() || p->dim() == t.dim(),
                "diff expects prepend or append to be the same dimension as "
                "input (input shape ",
                shape_str(t.sizes()), ", got ", p->defined() ? shape_str(p->sizes()) : "", ")");
  if (n == 0) return t;  // PyTorch ignores prepend and append then
  Tensor x = t;
  if (prepend.defined() || append.defined()) {
    std::vector<Tensor> parts;
    if (prepend.defined()) parts.push_back(prepend);
    parts.push_back(t);
    if (append.defined()) parts.push_back(append);
    x = cat(parts, dim);
  }
  for (int64_t i = 0; i < n && x.sizes()[dim] > 0; ++i) x = diff_once(x, dim);
  return x;
}

Tensor trapezoid(const Tensor& y_in, const Scalar& dx, int64_t dim) {
  dim = trapezoid_dim(y_in, dim);
  const Tensor y = as_floating(y_in);
  const int64_t n = y.sizes()[dim];
  if (n == 0) return sum(y, {{dim}});
  // (sum - (first + last) / 2) * dx, PyTorch's formula for equal spacing.
  const Tensor ends = mul(add(select(y, dim, 0), select(y, dim, n - 1)), 0.5);
  return mul(sub(sum(y, {{dim}}), ends), dx);
}

Tensor trapezoid(const Tensor& y_in, const Tensor& x, int64_t dim) {
  dim = trapezoid_dim(y_in, dim);
  const Tensor y = as_floating(y_in);
  if (y.sizes()[dim] == 0) return sum(y, {{dim}});
  return div(sum(mul(spacings(y, x, dim, "trapezoid"), pair_sums(y, dim)), {{dim}}), 2.0);
}

Tensor cumulative_trapezoid(const Tensor& y_in, const Scalar& dx, int64_t dim) {
  dim = trapezoid_dim(y_in, dim);
  const Tensor y = as_floating(y_in);
  return cumsum(mul(pair_sums(y, dim), dx.to<double>() / 2), dim);
}

Tensor cumulative_trapezoid(const Tensor& y_in, const Tensor& x, int64_t dim) {
  dim = trapezoid_dim(y_in, dim);
  const Tensor y = as_floating(y_in);
  return div(cumsum(mul(pair_sums(y, dim), spacings(y, x, dim, "cumulative_trapezoid")), dim), 2.0);
}

}  // namespace ember
