// The differentiable primitives that conv.cpp's ops and gradients are built from (Note [Convolution as three maps]).
#pragma once

#include <array>

#include "ember/backend/kernels/nn/conv.h"
#include "ember/tensor.h"

namespace ember {

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
Tensor conv_weight_grad(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_sizes, const ConvGeometry& g);

}  // namespace ember
