// The copy and fill kernels (ops/copy.cpp, ops/creation.cpp).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// dst and src have the same shape and device; dtypes may differ (the copy casts).
EMBER_DECLARE_KERNEL(copy, const Tensor& dst, const Tensor& src)
EMBER_DECLARE_KERNEL(fill, const Tensor& dst, const Scalar& value)

}  // namespace ember
