// The copy and fill kernels (ops/copy.cpp, ops/creation.cpp) and the triangle copy (ops/shape.cpp).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// dst and src have the same shape and device; dtypes may differ (the copy casts).
EMBER_DECLARE_KERNEL(copy, const Tensor& dst, const Tensor& src)
EMBER_DECLARE_KERNEL(fill, const Tensor& dst, const Scalar& value)
// tril and triu: dst (contiguous, src's shape and dtype; it may be src itself) takes src's elements (i, j) of each
// matrix of the last two dims where j - i <= diagonal (lower) or j - i >= diagonal (upper), and zeros elsewhere.
// diagonal lies in [-rows, cols], so no index arithmetic overflows.
EMBER_DECLARE_KERNEL(triangle, const Tensor& dst, const Tensor& src, int64_t diagonal, bool lower)

}  // namespace ember
