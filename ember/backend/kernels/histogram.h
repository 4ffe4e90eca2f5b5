// The counting kernels of bincount and histc (ops/histogram.cpp).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// out[v] counts (or sums the weights of) the elements of 1-d integral `in` equal to v; in's values are in range.
// weights is undefined or 1-d of out's dtype.
EMBER_DECLARE_KERNEL(bincount, const Tensor& out, const Tensor& in, const Tensor& weights)
// out (in's floating dtype, 1-d) counts the elements of in in each of out.numel() equal bins of [min, max].
EMBER_DECLARE_KERNEL(histc, const Tensor& out, const Tensor& in, double min, double max)

}  // namespace ember
