// Binary search over sorted sequences (searchsorted, bucketize) and membership (isin), ops/search.cpp.
#pragma once

#include <optional>
#include <string_view>

#include "ember/backend/kernels.h"
#include "ember/tensor.h"

namespace ember {

// Note [searchsorted kernel]
// boundaries: contiguous [rows, n]; values: contiguous [rows or 1, m] of boundaries' dtype (rows == 1: one sequence
// for all values, which are then [1, total]); sorter: undefined, or contiguous int64 [rows, n] with entries checked in
// [0, n). out: contiguous int32 or int64 of values' numel. out[r, j] is the first position p in row r with
// !(seq[p] < v) (right: !(seq[p] <= v)), PyTorch's comparisons: a NaN in the sequence compares below everything, a
// NaN value lands at n. 16-bit floats compare as float (exactly).
EMBER_DECLARE_KERNEL(searchsorted, const Tensor& out, const Tensor& boundaries, const Tensor& values,
                     const Tensor& sorter, bool right)

// side: "left" or "right" (right=True and side="left" contradict: an error). out_int32: int32 result.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = {}, const Tensor& sorter = {});
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = {}, const Tensor& sorter = {});
// boundaries: 1-d.
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& input, const Tensor& boundaries, bool out_int32 = false, bool right = false);
// Bool of elements' shape: whether each element occurs in test_elements (NaN occurs nowhere).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false, bool invert = false);

}  // namespace ember
