// The softmax kernel (nn/functional/activation.cpp: softmax, log_softmax).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// out = (log_)softmax of in along the middle dim of in viewed as [outer, n, inner]; in and out are contiguous
// float32 or float64 tensors of one dtype, n >= 1.
EMBER_DECLARE_KERNEL(softmax, const Tensor& out, const Tensor& in, int64_t outer, int64_t n, int64_t inner, bool log)
// softmax under a causal mask (scaled_dot_product_attention's is_causal, nn/functional/attention.cpp): in viewed as
// rows of n scores whose row r is query position r % l, each row's softmax over its first min(n, r % l + 1) entries
// and 0 past them, as masking those with -inf first would give. Contiguous float32 or float64, l >= 1. A device
// without it masks and then runs softmax.
EMBER_DECLARE_KERNEL(causal_softmax, const Tensor& out, const Tensor& in, int64_t rows, int64_t n, int64_t l)
// The gradient of softmax for grad_out, from its result out: grad_in = out * (grad_out - sum(grad_out * out)), or for
// log_softmax grad_out - exp(out) * sum(grad_out), the sums along the same dim; all contiguous, of out's dtype. A
// device without it runs the formula as ember ops (nn/functional/activation.cpp).
EMBER_DECLARE_KERNEL(softmax_backward, const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t outer,
                     int64_t n, int64_t inner, bool log)

}  // namespace ember
