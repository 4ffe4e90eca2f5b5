// Convolutions (torch.nn.functional.conv*d, conv_transpose*d) with gradients of any order, and the device
// kernels behind them. Note [Convolution as three maps] in conv.cpp says how every op and gradient reduces to the
// two kernels declared here.
#pragma once

#include <array>
#include <string_view>

#include "ember/backend/kernels.h"
#include "ember/tensor.h"

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

// Kernels see contiguous operands of one floating dtype, with no zero-size dims (the ops handle those), and
// geometry without crop.
// out = the convolution of input with weight, plus bias when defined.
EMBER_DECLARE_KERNEL(conv_forward, const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const ConvGeometry& g)
// The gradients of conv_forward given grad_out, written into those of grad_input (which needs weight),
// grad_weight (which needs input) and grad_bias (only together with grad_weight) that are defined. One call for
// both lets a backend prepare grad_out once.
EMBER_DECLARE_KERNEL(conv_backward, const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                     const Tensor& grad_out, const Tensor& input, const Tensor& weight, const ConvGeometry& g)

// ---- the public ops. Size arguments take one value per spatial dim, or one value for all of them; empty means
// the default (stride 1, padding 0, dilation 1, output_padding 0). Unbatched input ([C, *in]) gives unbatched
// output, as in PyTorch. float16 and bfloat16 compute in float32.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
              IntArrayRef padding = {}, IntArrayRef dilation = {}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
              IntArrayRef padding = {}, IntArrayRef dilation = {}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
              IntArrayRef padding = {}, IntArrayRef dilation = {}, int64_t groups = 1);
// padding "same" (stride 1 only; even kernels pad one more at the end, as PyTorch) or "valid" (no padding).
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation = {}, int64_t groups = 1);
// weight [C_in, C_out / groups, *k].
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
                        IntArrayRef padding = {}, IntArrayRef output_padding = {}, int64_t groups = 1,
                        IntArrayRef dilation = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
                        IntArrayRef padding = {}, IntArrayRef output_padding = {}, int64_t groups = 1,
                        IntArrayRef dilation = {});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {},
                        IntArrayRef padding = {}, IntArrayRef output_padding = {}, int64_t groups = 1,
                        IntArrayRef dilation = {});

// ---- the differentiable primitives (Note [Convolution as three maps]). Operands may have any layout; `g` may
// carry crop.
Tensor conv_forward(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvGeometry& g);
struct ConvGrads {
  Tensor input, weight, bias;
};
// The gradients of conv_forward(input, weight, bias) for grad_out, those asked for by `need` (input, weight, bias);
// input is read only for the weight's gradient, weight only for the input's. The result records one node
// (`node` names it), so that derivatives of every order follow.
ConvGrads conv_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight, IntArrayRef input_sizes,
                        IntArrayRef weight_sizes, const ConvGeometry& g, std::array<bool, 3> need,
                        const char* node = "ConvolutionBackwardBackward0");
// Its parts: the input gradient (the transposed convolution of grad_out; input_sizes [N, C, *in]) and the weight
// gradient (weight_sizes [O, C / groups, *k]).
Tensor conv_input_grad(const Tensor& grad_out, const Tensor& weight, IntArrayRef input_sizes, const ConvGeometry& g,
                       const char* node = "ConvolutionBackwardBackward0");
Tensor conv_weight_grad(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_sizes,
                        const ConvGeometry& g);

}  // namespace ember
