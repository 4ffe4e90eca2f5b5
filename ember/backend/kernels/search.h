// The binary-search kernel of searchsorted and bucketize (ops/search.cpp).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// Note [searchsorted kernel]
// boundaries: contiguous [rows, n]; values: contiguous [rows or 1, m] of boundaries' dtype (rows == 1: one sequence
// for all values, which are then [1, total]); sorter: undefined, or contiguous int64 [rows, n] with entries checked in
// [0, n). out: contiguous int32 or int64 of values' numel. out[r, j] is the first position p in row r with
// !(seq[p] < v) (right: !(seq[p] <= v)), PyTorch's comparisons: a NaN in the sequence compares below everything, a
// NaN value lands at n. 16-bit floats compare as float (exactly).
EMBER_DECLARE_KERNEL(searchsorted, const Tensor& out, const Tensor& boundaries, const Tensor& values,
                     const Tensor& sorter, bool right)

}  // namespace ember
