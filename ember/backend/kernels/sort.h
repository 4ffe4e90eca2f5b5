// The kernels of sorting, selection and unique (ops/sort.cpp). Orderings put NaN above every number.
#pragma once

#include <cstdint>

#include "ember/backend/kernels.h"

namespace ember {

enum class SelectOp : uint8_t { Kth, Median, NanMedian, Mode };

constexpr const char* select_op_name(SelectOp op) {
  switch (op) {
    case SelectOp::Kth: return "kthvalue";
    case SelectOp::Median: return "median";
    case SelectOp::NanMedian: return "nanmedian";
    case SelectOp::Mode: return "mode";
  }
  return "?";
}

// A stable sort of each slice along dim; values and int64 indices have in's shape (in.dim() >= 1).
EMBER_DECLARE_KERNEL(sort, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending)
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

}  // namespace ember
