// Numeric helpers composed of existing ops (declared in ops/shape_more.h): differences, renorm, dist, covariance,
// Vandermonde matrices, trapezoidal integration and quantiles. Their gradients come from the ops they are made of.
#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops.h"
#include "ember/ops/diagonal.h"
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
    EMBER_CHECK(!p->defined() || p->dim() == t.dim(), "diff expects prepend or append to be the same dimension as "
                "input (input shape ", shape_str(t.sizes()), ", got ", p->defined() ? shape_str(p->sizes()) : "", ")");
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

Tensor renorm(const Tensor& t, double p, int64_t dim, double maxnorm) {
  EMBER_CHECK(p > 0, "renorm: non-positive-norm not supported (p = ", p, ")");
  EMBER_CHECK(maxnorm >= 0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm);
  EMBER_CHECK(t.dim() > 1, "renorm: input needs at least 2 dimensions, got ", t.dim(), " dimensions");
  EMBER_CHECK(is_floating(t.dtype()), "renorm: expected a floating point tensor, got ", t.dtype());
  dim = wrap_dim(dim, t.dim(), "renorm");
  DimVector others;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != dim) others.push_back(d);
  // PyTorch's factor: maxnorm / (norm + 1e-7) for the slices whose norm exceeds maxnorm.
  const Tensor norm = linalg_vector_norm(t, p, others, /*keepdim=*/true);
  const Tensor factor = where(gt(norm, maxnorm), div(Scalar(maxnorm), add(norm, 1e-7)), Scalar(1.0));
  return mul(t, to(factor, t.dtype()));
}

Tensor dist(const Tensor& a, const Tensor& b, double p) {
  check_same_device("dist", {&a, &b});
  const Tensor d = sub(a, b);
  return linalg_vector_norm(is_floating(d.dtype()) ? d : to(d, default_dtype()), p);
}

Tensor cov(const Tensor& t, int64_t correction, const Tensor& fweights, const Tensor& aweights) {
  EMBER_CHECK(t.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ", t.dim(),
              " dimensions");
  check_same_device("cov", {&t, &fweights, &aweights});
  const Tensor x = t.dim() < 2 ? reshape(t, {{1, -1}}) : t;
  const int64_t observations = x.sizes()[1];
  Tensor w;
  if (fweights.defined()) {
    EMBER_CHECK(fweights.dim() <= 1, "cov(): expected fweights to have one or fewer dimensions but got fweights with ",
                fweights.dim(), " dimensions");
    EMBER_CHECK(is_integral(fweights.dtype(), false), "cov(): expected fweights to have integral dtype but got "
                "fweights with ", fweights.dtype(), " dtype");
    EMBER_CHECK(fweights.numel() == observations, "cov(): expected fweights to have the same numel as there are "
                "observations in the input but got ", fweights.numel(), " != ", observations);
    EMBER_CHECK(observations == 0 || item(amin(fweights)).to<int64_t>() >= 0, "cov(): fweights cannot be negative");
    w = fweights;
  }
  if (aweights.defined()) {
    EMBER_CHECK(aweights.dim() <= 1, "cov(): expected aweights to have one or fewer dimensions but got aweights with ",
                aweights.dim(), " dimensions");
    EMBER_CHECK(is_floating(aweights.dtype()), "cov(): expected aweights to have floating point dtype but got "
                "aweights with ", aweights.dtype(), " dtype");
    EMBER_CHECK(aweights.numel() == observations, "cov(): expected aweights to have the same numel as there are "
                "observations in the input but got ", aweights.numel(), " != ", observations);
    EMBER_CHECK(observations == 0 || item(amin(aweights)).to<double>() >= 0, "cov(): aweights cannot be negative");
    w = w.defined() ? mul(w, aweights) : aweights;
  }
  const int64_t obs_dim[] = {1};
  const Tensor w_sum = w.defined() ? sum(w) : full({}, observations, TensorOptions(ScalarType::Int64).device(t.device()));
  const Tensor avg = div(sum(w.defined() ? mul(x, w) : x, obs_dim), w_sum);
  Tensor norm_factor;
  if (w.defined() && correction != 0)
    norm_factor = sub(w_sum, aweights.defined() ? mul(div(sum(mul(w, aweights)), w_sum), Scalar(correction))
                                                : full({}, correction, TensorOptions(w_sum.dtype()).device(t.device())));
  else
    norm_factor = sub(w_sum, Scalar(correction));
  // Degrees of freedom <= 0 give a zero factor (inf/NaN results), as PyTorch (which also warns).
  norm_factor = where(le(norm_factor, 0), Scalar(0), norm_factor);
  const Tensor centered = sub(x, unsqueeze(avg, 1));
  const Tensor c = mm(centered, transpose(w.defined() ? mul(centered, w) : centered, 0, 1));
  return squeeze(div(c, norm_factor));
}


Tensor corrcoef(const Tensor& t) {
  EMBER_CHECK(t.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
              t.dim(), " dimensions");
  const Tensor c = cov(t);
  if (c.dim() == 0) return div(c, c);
  const Tensor d = sqrt(diagonal(c));
  const Tensor r = div(div(c, unsqueeze(d, 1)), unsqueeze(d, 0));
  return clamp(r, Scalar(-1), Scalar(1));
}

Tensor linalg_vander(const Tensor& x, std::optional<int64_t> n) {
  EMBER_CHECK(x.dtype() != ScalarType::Bool, "linalg.vander supports floating point, complex, and integer tensors, "
              "but got ", x.dtype());
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

Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation, bool ignore_nan) {
  const char* op = ignore_nan ? "nanquantile()" : "quantile()";
  check_same_device(op, {&t, &q});
  EMBER_CHECK(t.numel() > 0, op, " input tensor must be non-empty");
  EMBER_CHECK(q.dim() <= 1, op, " q must be a scalar or 1D tensor (got shape ", shape_str(q.sizes()), ")");
  EMBER_CHECK(t.dtype() == ScalarType::Float32 || t.dtype() == ScalarType::Float64, op,
              " input tensor must be either float or double dtype (got ", t.dtype(), ")");
  EMBER_CHECK(q.dtype() == t.dtype(), op, " q tensor must be same dtype as the input tensor (input ", t.dtype(),
              ", q ", q.dtype(), ")");
  EMBER_CHECK(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                  interpolation == "midpoint" || interpolation == "nearest",
              op, " interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
              interpolation);
  if (q.numel()) {
    auto [lo, hi] = host_extrema(q);
    EMBER_CHECK(lo.to<double>() >= 0 && hi.to<double>() <= 1, op, " q values must be in the range [0, 1]");
  }
  // The output's shape; the reduced elements go last in `sorted`, viewed as (out dims..., n).
  DimVector out_shape;
  Tensor sorted;
  if (dim) {
    const int64_t d = wrap_dim(*dim, t.dim(), op);
    if (t.dim() > 0) {
      out_shape = DimVector(t.sizes());
      if (keepdim)
        out_shape[d] = 1;
      else
        out_shape.erase(static_cast<size_t>(d));
    }
    sorted = sort(transpose(unsqueeze(t, -1), d, -1), -1).first;
  } else {
    if (keepdim) out_shape = DimVector(t.dim(), 1);
    sorted = sort(reshape(t, {{-1}}), -1).first;
  }
  const int64_t n = sorted.sizes().back();
  DimVector in_shape(out_shape);
  in_shape.push_back(n);
  sorted = reshape(sorted, in_shape);
  const Tensor qv = reshape(q, {{-1}});  // (k,)
  const int64_t last[] = {-1};
  Tensor ranks;
  if (ignore_nan) {
    // Ranks among the non-NaN values; all NaN gives rank 0 (a NaN result).
    const Tensor valid = sub(sum(logical_not(isnan(sorted)), last, /*keepdim=*/true), Scalar(1));
    ranks = mul(qv, to(valid, t.dtype()));
    ranks = where(lt(ranks, 0), Scalar(0), ranks);
  } else {
    // A NaN in the slice puts the rank at the last element (a NaN result).
    ranks = where(any(isnan(sorted), last, /*keepdim=*/true), Scalar(static_cast<double>(n - 1)),
                  mul(qv, Scalar(static_cast<double>(n - 1))));
  }
  if (interpolation == "lower")
    ranks = floor(ranks);
  else if (interpolation == "higher")
    ranks = ceil(ranks);
  else if (interpolation == "nearest")
    ranks = round(ranks);
  const Tensor below = to(ranks, ScalarType::Int64);
  Tensor values = gather(sorted, -1, below);
  if (interpolation == "linear" || interpolation == "midpoint") {
    const Tensor weights = interpolation == "midpoint" ? full_like(ranks, 0.5) : sub(ranks, to(below, t.dtype()));
    const Tensor above = to(ceil(ranks), ScalarType::Int64);
    values = lerp(values, gather(sorted, -1, above), weights);
  }
  // values: (out dims..., k) -> (k, out dims...) for a 1-d q, (out dims...) for a 0-d one.
  if (q.dim() == 0) return squeeze(values, -1);
  return movedim(values, {{-1}}, {{0}});
}

}  // namespace ember
