// The convolution kernels (nn/functional/conv.cpp, Note [Convolution as three maps]): oneDNN and im2col + GEMM on
// the CPU (backend/cpu/conv.cpp, dnnl.cpp), cuDNN on CUDA (backend/cuda/conv.cpp).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// A convolution's geometry in its own terms: input [N, C, *in], weight [O, C / groups, *k], output [N, O, *out]
// with out = (in + pad_l + pad_r - dilation * (k - 1) - 1) / stride + 1. One entry per spatial dim. Pads are
// never negative: a transposed convolution's output_padding that reaches past pad_r crops the input instead
// (`crop` trailing elements of each spatial dim that no output reads).
struct ConvGeometry {
  DimVector stride, pad_l, pad_r, dilation, crop;
  int64_t groups = 1;
  size_t dims() const { return stride.size(); }
};

// Kernels see contiguous operands of one floating dtype (on the CPU, also channels-last dense ones: the op keeps a
// channels-last input's layout; and a weight and weight gradient narrowed along the spatial dims, a view of a dense
// one: Note [Taps that see only padding]), with no zero-size dims (the ops handle those), and geometry without crop.
// out = the convolution of input with weight, plus bias when defined.
EMBER_DECLARE_KERNEL(conv_forward, const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const ConvGeometry& g)
// The gradients of conv_forward given grad_out, written into those of grad_input (which needs weight),
// grad_weight (which needs input) and grad_bias (only together with grad_weight) that are defined. One call for
// both lets a backend prepare grad_out once.
EMBER_DECLARE_KERNEL(conv_backward, const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                     const Tensor& grad_out, const Tensor& input, const Tensor& weight, const ConvGeometry& g)

}  // namespace ember
