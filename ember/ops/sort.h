// The sort op family: scans along a dim (ops/scan.cpp); sorting, selection, counting and vector norms
// (ops/sort.cpp). Orderings put NaN above every number, as PyTorch does.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include "ember/backend/kernels.h"
#include "ember/tensor.h"

namespace ember {

enum class ScanOp : uint8_t { Sum, Prod, Max, Min, LogSumExp };
enum class SelectOp : uint8_t { Kth, Median, NanMedian, Mode };

// out and in have one shape and dtype, in.dim() >= 1. Sum and Prod accumulate as PyTorch's CPU kernels do (int64
// for integers and bool, double for float32, float for 16-bit floats); Max and Min also write int64 indices (the
// latest position of the running extremum; a NaN sticks), the other ops get an undefined `indices`.
EMBER_DECLARE_KERNEL(scan, ScanOp op, const Tensor& out, const Tensor& indices, const Tensor& in, int64_t dim)
// A stable sort of each slice along dim; values and int64 indices have in's shape (in.dim() >= 1).
EMBER_DECLARE_KERNEL(sort, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                     bool descending)
// The k largest (smallest) of each slice, ties by position; values and indices have size k along dim.
EMBER_DECLARE_KERNEL(topk, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, int64_t dim,
                     bool largest, bool sorted)
// One element per slice along dim, in keepdim form: the k-th smallest (0-based; ties by position), the lower
// median (NaN if the slice has one), the lower median of the non-NaN elements, or the most frequent value
// (the smallest on ties, with the index of its last occurrence).
EMBER_DECLARE_KERNEL(slice_select, SelectOp op, const Tensor& values, const Tensor& indices, const Tensor& in,
                     int64_t dim, int64_t k)
// Runs of equal elements (NaN equals nothing) of a 1-d contiguous `in`: allocates `values` (the first element of
// each run) and int64 `counts`, because their size depends on the data. When `inverse` is defined it gets each
// element's run, at position perm[i] when perm is defined (in is then a sorted copy and perm its source positions).
EMBER_DECLARE_KERNEL(unique_runs, const Tensor& in, const Tensor& perm, const Tensor& inverse, Tensor& values,
                     Tensor& counts)
// out[v] counts (or sums the weights of) the elements of 1-d integral `in` equal to v; in's values are in range.
// weights is undefined or 1-d of out's dtype.
EMBER_DECLARE_KERNEL(bincount, const Tensor& out, const Tensor& in, const Tensor& weights)
// out (in's floating dtype, 1-d) counts the elements of in in each of out.numel() equal bins of [min, max].
EMBER_DECLARE_KERNEL(histc, const Tensor& out, const Tensor& in, double min, double max)

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
