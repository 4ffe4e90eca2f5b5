// The sort op family: scans along a dim (ops/scan.cpp); sorting, selection, counting and vector norms
// (ops/sort.cpp). Orderings put NaN above every number, as PyTorch does.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include "ember/tensor.h"

namespace ember {

// ---- scans (ops/scan.cpp). dtype: the output dtype (the input is cast first); integers and bool give int64.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
const Tensor& cumsum_(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
const Tensor& cumprod_(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);  // (values, indices)
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);
Tensor logcumsumexp(const Tensor& x, int64_t dim);

// ---- sorting and selection (ops/sort.cpp). Sorting is always stable; `stable` is accepted for the API.
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
// int64 counts; with weights, sums of weights (float32 for float32 weights, else float64).
Tensor bincount(const Tensor& x, const Tensor& weights = {}, int64_t minlength = 0);
// min == max means the data's range; values outside [min, max] (and NaNs) are ignored.
Tensor histc(const Tensor& x, int64_t bins = 100, double min = 0, double max = 0);
// (min, max) over all elements, or along dim.
std::pair<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);

// ---- vector norms (ops/sort.cpp); dims empty = all dims.
// torch.linalg.vector_norm: ord 0 counts non-zeros, +-inf is the max/min of |x|, else sum(|x|^ord)^(1/ord).
Tensor linalg_vector_norm(const Tensor& x, double ord = 2, IntArrayRef dims = {}, bool keepdim = false,
                          std::optional<ScalarType> dtype = {});
// torch.norm with a number p (the legacy op: integer inputs need dtype, empty reductions give 0).
Tensor norm(const Tensor& x, double p, IntArrayRef dims = {}, bool keepdim = false,
            std::optional<ScalarType> dtype = {});
// torch.norm with p = "fro" (at most 2 dims); "nuc" raises NotImplementedError.
Tensor norm(const Tensor& x, std::string_view p = "fro", IntArrayRef dims = {}, bool keepdim = false);

}  // namespace ember
