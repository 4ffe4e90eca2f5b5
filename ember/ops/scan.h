// Scans along a dim (ops/scan.cpp): cumsum, cumprod, cummax, cummin, logcumsumexp.
#pragma once

#include <optional>
#include <utility>

#include "ember/tensor.h"

namespace ember {

// dtype: the output dtype (the input is cast first); integers and bool give int64.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
const Tensor& cumsum_(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
const Tensor& cumprod_(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);  // (values, indices)
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);
Tensor logcumsumexp(const Tensor& x, int64_t dim);

}  // namespace ember
