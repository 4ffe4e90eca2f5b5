// Statistics (ops/stats.cpp): covariance, correlation coefficients and quantiles. Medians and modes are in
// ops/sort.h, means, variances and standard deviations in ops/reduce.h.
#pragma once

#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

Tensor cov(const Tensor& t, int64_t correction = 1, const Tensor& fweights = {}, const Tensor& aweights = {});
Tensor corrcoef(const Tensor& t);
// q: a 0-d or 1-d tensor of probabilities in [0, 1] (a 1-d q adds a leading dim to the result). dim nullopt:
// over all elements. interpolation: linear, lower, higher, midpoint or nearest. nan: nanquantile (ignore NaNs).
Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim = {}, bool keepdim = false,
                std::string_view interpolation = "linear", bool ignore_nan = false);

}  // namespace ember
