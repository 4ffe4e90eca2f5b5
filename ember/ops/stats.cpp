// Statistics composed of existing ops: covariance, correlation coefficients and quantiles. Their gradients come
// from the ops they are made of.
#include "ember/ops/stats.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

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
    EMBER_CHECK(is_integral(fweights.dtype(), false),
                "cov(): expected fweights to have integral dtype but got "
                "fweights with ",
                fweights.dtype(), " dtype");
    EMBER_CHECK(fweights.numel() == observations,
                "cov(): expected fweights to have the same numel as there are "
                "observations in the input but got ",
                fweights.numel(), " != ", observations);
    EMBER_CHECK(observations == 0 || item(amin(fweights)).to<int64_t>() >= 0, "cov(): fweights cannot be negative");
    w = fweights;
  }
  if (aweights.defined()) {
    EMBER_CHECK(aweights.dim() <= 1, "cov(): expected aweights to have one or fewer dimensions but got aweights with ",
                aweights.dim(), " dimensions");
    EMBER_CHECK(is_floating(aweights.dtype()),
                "cov(): expected aweights to have floating point dtype but got "
                "aweights with ",
                aweights.dtype(), " dtype");
    EMBER_CHECK(aweights.numel() == observations,
                "cov(): expected aweights to have the same numel as there are "
                "observations in the input but got ",
                aweights.numel(), " != ", observations);
    EMBER_CHECK(observations == 0 || item(amin(aweights)).to<double>() >= 0, "cov(): aweights cannot be negative");
    w = w.defined() ? mul(w, aweights) : aweights;
  }
  const int64_t obs_dim[] = {1};
  const Tensor w_sum = w.defined() ? sum(w)
                                   : full({}, observations, TensorOptions(ScalarType::Int64).device(t.device()));
  const Tensor avg = div(sum(w.defined() ? mul(x, w) : x, obs_dim), w_sum);
  Tensor norm_factor;
  if (w.defined() && correction != 0)
    norm_factor = sub(w_sum, aweights.defined()
                                 ? mul(div(sum(mul(w, aweights)), w_sum), Scalar(correction))
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

Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation, bool ignore_nan) {
  const char* op = ignore_nan ? "nanquantile()" : "quantile()";
  check_same_device(op, {&t, &q});
  EMBER_CHECK(t.numel() > 0, op, " input tensor must be non-empty");
  EMBER_CHECK(q.dim() <= 1, op, " q must be a scalar or 1D tensor (got shape ", shape_str(q.sizes()), ")");
  EMBER_CHECK(t.dtype() == ScalarType::Float32 || t.dtype() == ScalarType::Float64, op,
              " input tensor must be either float or double dtype (got ", t.dtype(), ")");
  EMBER_CHECK(q.dtype() == t.dtype(), op, " q tensor must be same dtype as the input tensor (input ", t.dtype(), ", q ",
              q.dtype(), ")");
  EMBER_CHECK(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                  interpolation == "midpoint" || interpolation == "nearest",
              op, " interpolation must be one of linear, lower, higher, midpoint or nearest, but got ", interpolation);
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
