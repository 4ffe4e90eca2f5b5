#include "ember/nn/modules.h"

#include <cmath>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/activation.h"
#include "ember/nn/conv.h"
#include "ember/nn/dropout.h"
#include "ember/nn/embedding.h"
#include "ember/nn/modules_internal.h"
#include "ember/nn/normalization.h"
#include "ember/nn/pooling.h"
#include "ember/ops.h"
#include "ember/ops/linalg.h"

namespace ember::nn {

using detail::default_init;
using detail::bool_str;

Linear::Linear(int64_t in, int64_t out, bool with_bias) : Module("Linear"), in_features(in), out_features(out) {
  weight = register_parameter("weight", empty(DimVector{out, in}));
  if (with_bias) bias = register_parameter("bias", empty(DimVector{out}));
  default_init(weight, bias, in);
}

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + (bias.defined() ? "True" : "False");
}

template <size_t D>
ConvNd<D>::ConvNd(const ConvOptions<D>& o) : Module("Conv" + std::to_string(D) + "d"), options(o) {
  detail::check_conv(name().c_str(), o);
  DimVector shape{o.out_channels, o.in_channels / o.groups_};
  for (int64_t k : o.kernel_size) shape.push_back(k);
  weight = register_parameter("weight", empty(shape));
  if (o.bias_) bias = register_parameter("bias", empty(DimVector{o.out_channels}));
  default_init(weight, bias, o.in_channels / o.groups_ * detail::prod(o.kernel_size));
}

template <size_t D>
Tensor ConvNd<D>::forward(const Tensor& x) {
  const auto& o = options;
  if constexpr (D == 1) return conv1d(x, weight, bias, o.stride_, o.padding_, o.dilation_, o.groups_);
  if constexpr (D == 2) return conv2d(x, weight, bias, o.stride_, o.padding_, o.dilation_, o.groups_);
  if constexpr (D == 3) return conv3d(x, weight, bias, o.stride_, o.padding_, o.dilation_, o.groups_);
}

template <size_t D>
std::string ConvNd<D>::extra_repr() const {
  return detail::conv_repr(options, bias.defined());
}

template class ConvNd<1>;
template class ConvNd<2>;
template class ConvNd<3>;

BatchNormNd::BatchNormNd(const char* name, DimVector ranks, int64_t n, double eps, double momentum, bool affine,
                         bool track)
    : Module(name), num_features(n), eps(eps), momentum(momentum), ranks_(ranks) {
  if (affine) {
    weight = register_parameter("weight", ones(DimVector{n}));
    bias = register_parameter("bias", zeros(DimVector{n}));
  }
  if (track) {
    running_mean = register_buffer("running_mean", zeros(DimVector{n}));
    running_var = register_buffer("running_var", ones(DimVector{n}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros(DimVector{}, ScalarType::Int64));
  }
}

Tensor BatchNormNd::forward(const Tensor& x) {
  if (std::ranges::find(ranks_, x.dim()) == ranks_.end()) {
    std::string expected;
    for (size_t i = 0; i < ranks_.size(); ++i) expected += (i ? " or " : "") + std::to_string(ranks_[i]) + "D";
    fail<ValueError>(name(), ": expected ", expected, " input (got ", x.dim(), "D input)");
  }
  if (is_training() && num_batches_tracked.defined()) {
    autograd::NoGradGuard no_grad;
    binary_op(BinaryOp::Add, num_batches_tracked, 1, num_batches_tracked);
  }
  return batch_norm(x, running_mean, running_var, weight, bias, is_training() || !running_mean.defined(), momentum,
                    eps);
}

std::string BatchNormNd::extra_repr() const {
  std::ostringstream s;
  s << num_features << ", eps=" << eps << ", momentum=" << momentum << ", affine=" << bool_str(weight.defined())
    << ", track_running_stats=" << bool_str(running_mean.defined());
  return s.str();
}

LayerNorm::LayerNorm(DimVector shape, double eps, bool affine) : Module("LayerNorm"), normalized_shape(shape), eps(eps) {
  if (affine) {
    weight = register_parameter("weight", ones(shape));
    bias = register_parameter("bias", zeros(shape));
  }
}

Tensor LayerNorm::forward(const Tensor& x) { return layer_norm(x, normalized_shape, weight, bias, eps); }

Tensor Dropout::forward(const Tensor& x) { return dropout(x, p, is_training()); }

std::string Dropout::extra_repr() const {
  std::ostringstream s;
  s << "p=" << p << ", inplace=False";
  return s.str();
}

Embedding::Embedding(int64_t n, int64_t d) : Module("Embedding") {
  weight = register_parameter("weight", empty(DimVector{n, d}));
  autograd::NoGradGuard no_grad;
  normal_(weight);
}

Tensor Embedding::forward(const Tensor& indices) { return embedding(weight, indices); }

Tensor ReLU::forward(const Tensor& x) { return ember::relu(x); }
Tensor Tanh::forward(const Tensor& x) { return ember::tanh(x); }
Tensor Flatten::forward(const Tensor& x) { return x.flatten(start_dim, end_dim); }
Tensor MaxPool2d::forward(const Tensor& x) {
  return max_pool2d(x, DimVector{kernel_size, kernel_size}, DimVector{stride, stride}, DimVector{padding, padding});
}

LSTM::LSTM(int64_t input, int64_t hidden, int64_t layers, bool batch_first)
    : Module("LSTM"), input_size(input), hidden_size(hidden) {
  options.mode = RNNMode::LSTM;
  options.num_layers = layers;
  options.batch_first = batch_first;
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  autograd::NoGradGuard no_grad;
  for (int64_t l = 0; l < layers; ++l) {
    const std::string k = std::to_string(l);
    const int64_t in = l == 0 ? input : hidden;
    for (auto [name, shape] : {std::pair{"weight_ih_l", DimVector{4 * hidden, in}},
                               std::pair{"weight_hh_l", DimVector{4 * hidden, hidden}},
                               std::pair{"bias_ih_l", DimVector{4 * hidden}}, std::pair{"bias_hh_l", DimVector{4 * hidden}}})
      uniform_(register_parameter(name + k, empty(shape)), -bound, bound);
  }
}

std::tuple<Tensor, Tensor, Tensor> LSTM::forward_with_state(const Tensor& x, const std::vector<Tensor>& hx) {
  RNNOptions o = options;
  o.train = is_training();
  return rnn(x, hx, parameters(false), o);
}

Tensor LSTM::forward(const Tensor& x) { return std::get<0>(forward_with_state(x)); }

std::string LSTM::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (options.num_layers != 1) s += ", num_layers=" + std::to_string(options.num_layers);
  if (options.batch_first) s += ", batch_first=True";
  return s;
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (auto& m : children()) y = m->forward(y);
  return y;
}

}  // namespace ember::nn
