// The softmax kernel (nn/functional/activation.cpp: softmax, log_softmax).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// out = (log_)softmax of in along the middle dim of in viewed as [outer, n, inner]; in and out are contiguous
// float32 or float64 tensors of one dtype, n >= 1.
EMBER_DECLARE_KERNEL(softmax, const Tensor& out, const Tensor& in, int64_t outer, int64_t n, int64_t inner, bool log)
// The gradient of that op for grad_out, from its result out: grad_in = out * (grad_out - sum(grad_out * out)), or for
// log_softmax grad_out - exp(out) * sum(grad_out), the sums along the same dim; all contiguous, of out's dtype. A
// device without it runs the formula as ember ops (nn/functional/activation.cpp).
EMBER_DECLARE_KERNEL(softmax_backward, const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t outer,
                     int64_t n, int64_t inner, bool log)

}  // namespace ember
