// Counting (ops/histogram.cpp): bincount and histc.
#pragma once

#include "ember/tensor.h"

namespace ember {

// int64 counts; with weights, sums of weights (float32 for float32 weights, else float64).
Tensor bincount(const Tensor& x, const Tensor& weights = {}, int64_t minlength = 0);
// min == max means the data's range; values outside [min, max] (and NaNs) are ignored.
Tensor histc(const Tensor& x, int64_t bins = 100, double min = 0, double max = 0);

}  // namespace ember
