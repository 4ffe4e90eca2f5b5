// The softmax kernel (nn/functional/activation.cpp: softmax, log_softmax).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// out = (log_)softmax of in along the middle dim of in viewed as [outer, n, inner]; in and out are contiguous
// float32 or float64 tensors of one dtype, n >= 1.
EMBER_DECLARE_KERNEL(softmax, const Tensor& out, const Tensor& in, int64_t outer, int64_t n, int64_t inner, bool log)

}  // namespace ember
