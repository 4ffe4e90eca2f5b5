// Activation functions and softmax (torch.nn.functional's names). The elementwise ones with scalar parameters are
// UnaryOp cases (ops/unary.h): one fused kernel each, their gradients in autograd/elementwise_grad.cpp. `inplace`
// writes the result into x (through autograd::inplace_with_grad when recording) and returns x.
#pragma once

#include <optional>

#include "ember/generator.h"
#include "ember/ops/unary.h"
#include "ember/tensor.h"

namespace ember {

Tensor relu(const Tensor& x, bool inplace);
Tensor relu6(const Tensor& x, bool inplace = false);
Tensor hardtanh(const Tensor& x, double min_val = -1, double max_val = 1, bool inplace = false);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01, bool inplace = false);
// scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1)); selu and celu are special cases.
Tensor elu(const Tensor& x, double alpha = 1, double scale = 1, double input_scale = 1, bool inplace = false);
Tensor selu(const Tensor& x, bool inplace = false);
Tensor celu(const Tensor& x, double alpha = 1, bool inplace = false);
Tensor hardswish(const Tensor& x, bool inplace = false);
Tensor hardsigmoid(const Tensor& x, bool inplace = false);
Tensor silu(const Tensor& x, bool inplace);
Tensor mish(const Tensor& x, bool inplace);  // mish(x): ember::mish, the unary op
Tensor softsign(const Tensor& x);
Tensor tanhshrink(const Tensor& x);
// x > threshold ? x : value
Tensor threshold(const Tensor& x, double threshold, double value, bool inplace = false);
Tensor logsigmoid(const Tensor& x);
Tensor hardshrink(const Tensor& x, double lambd = 0.5);
Tensor softshrink(const Tensor& x, double lambd = 0.5);
// max(0, x) + weight * min(0, x), weight of 1 element or one per channel (dim 1).
Tensor prelu(const Tensor& x, const Tensor& weight);
// Training: negative inputs times a slope drawn uniformly from [lower, upper] per element; eval: the mean slope.
Tensor rrelu(const Tensor& x, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
             bool inplace = false, Generator* gen = nullptr);
// a * sigmoid(b) for the two halves a, b of x along dim.
Tensor glu(const Tensor& x, int64_t dim = -1);

// Numerically stable (the max is subtracted first); dtype: the input is cast to it first.
Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor softmin(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
// Samples from the Gumbel-softmax distribution (Jang et al., 2016); hard: one-hot of the argmax, with the soft
// sample's gradient (straight-through).
Tensor gumbel_softmax(const Tensor& logits, double tau = 1, bool hard = false, double eps = 1e-10, int64_t dim = -1,
                      Generator* gen = nullptr);
// PyTorch's legacy choice of dim when none is given: 0 for 0-, 1- and 3-d inputs, else 1.
int64_t softmax_default_dim(int64_t ndim);

}  // namespace ember
