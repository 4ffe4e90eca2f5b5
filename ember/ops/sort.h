// Sorting, selection and unique (ops/sort.cpp). Orderings put NaN above every number, as PyTorch does.
#pragma once

#include <optional>
#include <utility>

#include "ember/tensor.h"

namespace ember {

// Sorting is always stable; `stable` is accepted for the API.
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor msort(const Tensor& x);
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
// k is 1-based, as in PyTorch.
std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim = -1, bool keepdim = false);
Tensor median(const Tensor& x);  // the lower median of all elements; NaN when empty or when any is NaN
std::pair<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& x);
std::pair<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> mode(const Tensor& x, int64_t dim = -1, bool keepdim = false);
// values: 1-d; inverse: x's shape, the position of each element in values; counts: per value.
struct UniqueResult {
  Tensor values, inverse, counts;
};
// The sorted distinct elements (NaNs are all distinct; `sorted` is accepted for the API, the result is sorted).
// inverse is left undefined unless asked for.
UniqueResult unique(const Tensor& x, bool sorted = true, bool return_inverse = false);
// The first element of each run of equal consecutive elements of x flattened.
UniqueResult unique_consecutive(const Tensor& x, bool return_inverse = false);
// (min, max) over all elements, or along dim.
std::pair<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);

}  // namespace ember
