// The fused dropout kernels (nn/functional/dropout.cpp).
#pragma once

#include "ember/backend/kernels.h"
#include "ember/generator.h"

namespace ember {

// Fused dropout (Note [Fused dropout] in ember/backend/math/dropout.h). x, out (floating, one dtype) and mask (bool,
// or undefined: not written) are contiguous with one shape; out may be x. Element i is kept when words 2i, 2i+1 of
// `s` give u64 < q; out = x * (keep ? scale : 0), mask = keep.
EMBER_DECLARE_KERNEL(dropout, const Tensor& out, const Tensor& mask, const Tensor& x, double q, double scale,
                     PhiloxState s)
// Its gradient: out = g * (mask ? scale : 0) over contiguous tensors of one shape (g, out floating; mask bool).
EMBER_DECLARE_KERNEL(dropout_backward, const Tensor& out, const Tensor& g, const Tensor& mask, double scale)

}  // namespace ember
