#include "ember/nn/modules_extra.h"

#include <cmath>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/activation.h"
#include "ember/nn/conv.h"
#include "ember/nn/dropout.h"
#include "ember/nn/loss.h"
#include "ember/nn/modules_internal.h"
#include "ember/nn/normalization.h"
#include "ember/nn/pooling.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::bool_str;
using detail::default_init;
using detail::float_str;
using detail::tuple_str;

// ---- activations

Tensor Sigmoid::forward(const Tensor& x) { return ember::sigmoid(x); }

GELU::GELU(std::string approximate) : Module("GELU"), approximate(std::move(approximate)) {
  EMBER_CHECK(this->approximate == "none" || this->approximate == "tanh",
              "GELU: approximate must be 'none' or 'tanh', got '", this->approximate, "'");
}
Tensor GELU::forward(const Tensor& x) { return ember::gelu(x, approximate == "tanh"); }
std::string GELU::extra_repr() const { return "approximate='" + approximate + "'"; }

Tensor SiLU::forward(const Tensor& x) { return ember::silu(x); }

Tensor LeakyReLU::forward(const Tensor& x) { return leaky_relu(x, negative_slope); }
std::string LeakyReLU::extra_repr() const { return "negative_slope=" + float_str(negative_slope); }

Tensor ELU::forward(const Tensor& x) { return elu(x, alpha); }
std::string ELU::extra_repr() const { return "alpha=" + float_str(alpha); }

namespace {
std::string dim_str(const std::optional<int64_t>& dim) { return "dim=" + (dim ? std::to_string(*dim) : "None"); }
}  // namespace

Tensor Softmax::forward(const Tensor& x) { return softmax(x, dim.value_or(softmax_default_dim(x.dim()))); }
std::string Softmax::extra_repr() const { return dim_str(dim); }

Tensor LogSoftmax::forward(const Tensor& x) { return log_softmax(x, dim.value_or(softmax_default_dim(x.dim()))); }
std::string LogSoftmax::extra_repr() const { return dim_str(dim); }

// ---- convolutions

using detail::check_conv;
using detail::conv_repr;
using detail::prod;

ConvTranspose2d::ConvTranspose2d(const ConvTranspose2dOptions& o) : Module("ConvTranspose2d"), options(o) {
  check_conv("ConvTranspose2d", o);
  weight = register_parameter(
      "weight", empty(DimVector{o.in_channels, o.out_channels / o.groups_, o.kernel_size[0], o.kernel_size[1]}));
  if (o.bias_) bias = register_parameter("bias", empty(DimVector{o.out_channels}));
  // PyTorch's fan_in is computed from the weight's dim 1: out_channels / groups times the kernel's size.
  default_init(weight, bias, o.out_channels / o.groups_ * prod(o.kernel_size));
}

Tensor ConvTranspose2d::forward(const Tensor& x) {
  return conv_transpose2d(x, weight, bias, options.stride_, options.padding_, options.output_padding_,
                          options.groups_, options.dilation_);
}

std::string ConvTranspose2d::extra_repr() const { return conv_repr(options, bias.defined()); }

// ---- normalization

GroupNorm::GroupNorm(int64_t groups, int64_t channels, double eps, bool affine)
    : Module("GroupNorm"), num_groups(groups), num_channels(channels), eps(eps) {
  EMBER_CHECK(groups > 0 && channels % groups == 0, "GroupNorm: num_channels (", channels,
              ") must be divisible by num_groups (", groups, ")");
  if (affine) {
    weight = register_parameter("weight", ones(DimVector{channels}));
    bias = register_parameter("bias", zeros(DimVector{channels}));
  }
}

Tensor GroupNorm::forward(const Tensor& x) { return group_norm(x, num_groups, weight, bias, eps); }

std::string GroupNorm::extra_repr() const {
  std::ostringstream s;
  s << num_groups << ", " << num_channels << ", eps=" << eps << ", affine=" << bool_str(weight.defined());
  return s.str();
}

// ---- pooling

Tensor AvgPool2d::forward(const Tensor& x) {
  return avg_pool2d(x, DimVector{kernel_size, kernel_size}, DimVector{stride, stride}, DimVector{padding, padding},
                    ceil_mode, count_include_pad);
}

std::string AvgPool2d::extra_repr() const {
  return "kernel_size=" + std::to_string(kernel_size) + ", stride=" + std::to_string(stride) +
         ", padding=" + std::to_string(padding);
}

Tensor AdaptiveAvgPool2d::forward(const Tensor& x) { return adaptive_avg_pool2d(x, output_size); }

std::string AdaptiveAvgPool2d::extra_repr() const {
  return "output_size=" + (output_size.size() == 1 ? std::to_string(output_size[0]) : tuple_str(output_size));
}

// ---- dropout

Tensor Dropout2d::forward(const Tensor& x) { return feature_dropout(x, p, is_training()); }

std::string Dropout2d::extra_repr() const {
  std::ostringstream s;
  s << "p=" << p << ", inplace=False";
  return s.str();
}

// ---- recurrent layers

namespace {

int64_t gate_count(RNNMode mode) { return mode == RNNMode::LSTM ? 4 : mode == RNNMode::GRU ? 3 : 1; }

RNNMode nonlinearity_mode(const std::string& name, const char* layer) {
  EMBER_CHECK(name == "tanh" || name == "relu", layer, ": Unknown nonlinearity '", name,
              "'. Select from 'tanh' or 'relu'.");
  return name == "tanh" ? RNNMode::Tanh : RNNMode::Relu;
}

}  // namespace

RNNBase::RNNBase(std::string name, RNNMode mode, int64_t input, int64_t hidden, const RNNLayerOptions& o)
    : Module(std::move(name)), input_size(input), hidden_size(hidden) {
  EMBER_CHECK(o.num_layers >= 1, this->name(), ": num_layers must be at least 1");
  options.mode = mode;
  options.num_layers = o.num_layers;
  options.bias = o.bias;
  options.batch_first = o.batch_first;
  options.dropout = o.dropout;
  options.bidirectional = o.bidirectional;
  const int64_t gates = gate_count(mode) * hidden, dirs = o.bidirectional ? 2 : 1;
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  autograd::NoGradGuard no_grad;
  for (int64_t l = 0; l < o.num_layers; ++l) {
    const int64_t in = l == 0 ? input : hidden * dirs;
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string k = std::to_string(l) + (d ? "_reverse" : "");
      uniform_(register_parameter("weight_ih_l" + k, empty(DimVector{gates, in})), -bound, bound);
      uniform_(register_parameter("weight_hh_l" + k, empty(DimVector{gates, hidden})), -bound, bound);
      if (o.bias) {
        uniform_(register_parameter("bias_ih_l" + k, empty(DimVector{gates})), -bound, bound);
        uniform_(register_parameter("bias_hh_l" + k, empty(DimVector{gates})), -bound, bound);
      }
    }
  }
}

std::tuple<Tensor, Tensor, Tensor> RNNBase::forward_with_state(const Tensor& x, const std::vector<Tensor>& hx) {
  RNNOptions o = options;
  o.train = is_training();
  return rnn(x, hx, parameters(false), o);
}

Tensor RNNBase::forward(const Tensor& x) { return std::get<0>(forward_with_state(x)); }

// torch.nn.RNNBase.extra_repr (which leaves out RNN's nonlinearity).
std::string RNNBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (options.num_layers != 1) s += ", num_layers=" + std::to_string(options.num_layers);
  if (!options.bias) s += ", bias=False";
  if (options.batch_first) s += ", batch_first=True";
  if (options.dropout != 0) s += ", dropout=" + float_str(options.dropout);
  if (options.bidirectional) s += ", bidirectional=True";
  return s;
}

RNN::RNN(int64_t input, int64_t hidden, const RNNLayerOptions& o, const std::string& nonlinearity)
    : RNNBase("RNN", nonlinearity_mode(nonlinearity, "RNN"), input, hidden, o) {}

RNNCellBase::RNNCellBase(std::string name, RNNMode mode, int64_t input, int64_t hidden, bool bias)
    : Module(std::move(name)), input_size(input), hidden_size(hidden), mode_(mode) {
  const int64_t gates = gate_count(mode) * hidden;
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  autograd::NoGradGuard no_grad;
  weight_ih = register_parameter("weight_ih", empty(DimVector{gates, input}));
  weight_hh = register_parameter("weight_hh", empty(DimVector{gates, hidden}));
  if (bias) {
    bias_ih = register_parameter("bias_ih", empty(DimVector{gates}));
    bias_hh = register_parameter("bias_hh", empty(DimVector{gates}));
  }
  for (Tensor& p : std::vector<Tensor>{weight_ih, weight_hh, bias_ih, bias_hh})
    if (p.defined()) uniform_(p, -bound, bound);
}

std::string RNNCellBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (!bias_ih.defined()) s += ", bias=False";
  return s;
}

std::pair<Tensor, Tensor> LSTMCell::forward(const Tensor& x, const Tensor& h, const Tensor& c) {
  return rnn_cell(mode_, x, h, c, weight_ih, weight_hh, bias_ih, bias_hh);
}
Tensor LSTMCell::forward(const Tensor& x) { return forward(x, Tensor(), Tensor()).first; }

Tensor GRUCell::forward(const Tensor& x, const Tensor& h) {
  return rnn_cell(mode_, x, h, Tensor(), weight_ih, weight_hh, bias_ih, bias_hh).first;
}
Tensor GRUCell::forward(const Tensor& x) { return forward(x, Tensor()); }

RNNCell::RNNCell(int64_t input, int64_t hidden, bool bias, const std::string& nonlinearity)
    : RNNCellBase("RNNCell", nonlinearity_mode(nonlinearity, "RNNCell"), input, hidden, bias) {}
Tensor RNNCell::forward(const Tensor& x, const Tensor& h) {
  return rnn_cell(mode_, x, h, Tensor(), weight_ih, weight_hh, bias_ih, bias_hh).first;
}
Tensor RNNCell::forward(const Tensor& x) { return forward(x, Tensor()); }

// torch.nn.RNNCell.extra_repr prints a non-default nonlinearity unquoted.
std::string RNNCell::extra_repr() const {
  std::string s = RNNCellBase::extra_repr();
  if (mode_ == RNNMode::Relu) s += ", nonlinearity=relu";
  return s;
}

// ---- losses

CrossEntropyLoss::CrossEntropyLoss(Tensor w, int64_t ignore_index, Reduction reduction, double label_smoothing)
    : LossModule("CrossEntropyLoss", reduction), ignore_index(ignore_index), label_smoothing(label_smoothing) {
  if (w.defined()) weight = register_buffer("weight", w);
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing);
}

NLLLoss::NLLLoss(Tensor w, int64_t ignore_index, Reduction reduction)
    : LossModule("NLLLoss", reduction), ignore_index(ignore_index) {
  if (w.defined()) weight = register_buffer("weight", w);
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return nll_loss(input, target, weight, ignore_index, reduction);
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) { return mse_loss(input, target, reduction); }

Tensor L1Loss::forward(const Tensor& input, const Tensor& target) { return l1_loss(input, target, reduction); }

BCEWithLogitsLoss::BCEWithLogitsLoss(Tensor w, Reduction reduction, Tensor pw)
    : LossModule("BCEWithLogitsLoss", reduction) {
  if (w.defined()) weight = register_buffer("weight", w);
  if (pw.defined()) pos_weight = register_buffer("pos_weight", pw);
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  return binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight);
}

}  // namespace ember::nn
