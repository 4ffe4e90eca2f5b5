// Counting: bincount and histc (the per-element work in the kernels of backend/kernels/histogram.h).
#include "ember/ops/histogram.h"

#include <algorithm>
#include <cmath>

#include "ember/backend/kernels/histogram.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

TensorOptions like(const Tensor& x, ScalarType dtype) { return TensorOptions(dtype).device(x.device()); }

}  // namespace

Tensor bincount(const Tensor& x, const Tensor& weights, int64_t minlength) {
  const char* domain = "bincount only supports 1-d non-negative integral inputs.";
  EMBER_CHECK(x.dim() == 1 && is_integral(x.dtype(), false), domain);
  EMBER_CHECK(minlength >= 0, "bincount(): minlength should be >= 0, but got ", minlength);
  check_has_data(x, "bincount");
  if (weights.defined()) {
    EMBER_CHECK(weights.dim() == 1 && weights.numel() == x.numel(),
                "bincount(): weights should be 1-d and have "
                "the same length as input (input shape ",
                shape_str(x.sizes()), ", weights shape ", shape_str(weights.sizes()), ")");
    EMBER_CHECK(weights.device() == x.device(), "bincount(): weights are on ", weights.device(), " but input is on ",
                x.device());
  }
  int64_t len = minlength;
  if (x.numel()) {
    EMBER_CHECK(item(amin(x)).to_int() >= 0, domain);
    len = std::max(len, item(amax(x)).to_int() + 1);
  }
  const ScalarType out_t = !weights.defined()                       ? ScalarType::Int64
                           : weights.dtype() == ScalarType::Float32 ? ScalarType::Float32
                                                                    : ScalarType::Float64;
  const Tensor w = weights.defined() ? to(weights, out_t) : weights;
  Tensor out = empty({{len}}, like(x, out_t));
  bincount_kernel[x.device()](out, x, w);
  return out;
}

Tensor histc(const Tensor& x, int64_t bins, double min, double max) {
  EMBER_CHECK(is_floating(x.dtype()), "histc(): expected a floating point input, but got ", x.dtype());
  EMBER_CHECK(bins > 0, "histc(): bins must be > 0, but got ", bins);
  if (min == max && x.numel()) {  // the data's range
    min = item(amin(x)).to_double();
    max = item(amax(x)).to_double();
  }
  if (min == max) {
    min -= 1;
    max += 1;
  }
  EMBER_CHECK(std::isfinite(min) && std::isfinite(max), "histc(): range of [", min, ", ", max, "] is not finite");
  EMBER_CHECK(min < max, "histc(): max must be larger than min (min = ", min, ", max = ", max, ")");
  Tensor out = empty({{bins}}, like(x, x.dtype()));
  histc_kernel[x.device()](out, x, min, max);
  return out;
}

}  // namespace ember
