// softmax under a causal mask, for scaled_dot_product_attention (nn/functional/attention.cpp).
#pragma once

#include "ember/tensor.h"

namespace ember {

// Whether causal_softmax runs as one kernel for scores like these (float32 or float64 on a device with the kernel).
bool causal_softmax_fused(const Tensor& scores);
// softmax(scores.masked_fill(j > i, -inf), -1) for scores [..., L, S] (query i, key j), as one op whose gradient is
// softmax's (SoftmaxBackward0); needs causal_softmax_fused(scores).
Tensor causal_softmax(const Tensor& scores);

}  // namespace ember
