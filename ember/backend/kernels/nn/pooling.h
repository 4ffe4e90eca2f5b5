// The pooling kernels (nn/functional/pooling.cpp): oneDNN and loops on the CPU, cuDNN and kernels on CUDA.
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// Pooling windows over the last in.size() dims: regular (kernel, stride, padding, dilation, PyTorch's window and
// divisor rules) or, when kernel is empty, adaptive (output i of n pools [floor(i * in / n), ceil((i + 1) * in / n))).
struct PoolGeometry {
  DimVector in, out;
  DimVector kernel, stride, padding, dilation;
  bool count_include_pad = true;  // average pooling: padding counts in the divisor
  int64_t divisor_override = 0;   // average pooling: 0 = the window's size
  // The tensors are [N, C, *in] / [N, C, *out] (2 or 3 spatial dims) in the dense channels-last layout (memory
  // N, *spatial, C) rather than row-major. Only the CPU kernels accept it; pooling.cpp sets it for CPU tensors only.
  bool channels_last = false;
  bool adaptive() const { return kernel.empty(); }
};

// Kernels see contiguous tensors [*planes, *in] / [*planes, *out] of one floating dtype (channels-last ones when
// g.channels_last).
// indices: int64, the flat position of each maximum within its plane's input (PyTorch's return_indices); undefined
// when only the values are wanted.
EMBER_DECLARE_KERNEL(max_pool, const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g)
EMBER_DECLARE_KERNEL(avg_pool, const Tensor& out, const Tensor& input, const PoolGeometry& g)
// grad_input = the adjoint of avg_pool applied to grad_out (grad_input is overwritten).
EMBER_DECLARE_KERNEL(avg_pool_backward, const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g)

}  // namespace ember
