#include "ember/nn/modules/rnn.h"

#include <cmath>

#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::float_str;

namespace {

int64_t gate_count(RNNMode mode) { return mode == RNNMode::LSTM ? 4 : mode == RNNMode::GRU ? 3 : 1; }

RNNMode nonlinearity_mode(const std::string& name, const char* layer) {
  EMBER_CHECK(name == "tanh" || name == "relu", layer, ": Unknown nonlinearity '", name,
              "'. Select from 'tanh' or 'relu'.");
  return name == "tanh" ? RNNMode::Tanh : RNNMode::Relu;
}

}  // namespace

RNNBase::RNNBase(std::string name, RNNMode mode, int64_t input, int64_t hidden, const RNNLayerOptions& o)
    : Module(std::move(name)), input_size(input), hidden_size(hidden), proj_size(o.proj_size) {
  EMBER_CHECK(o.num_layers >= 1, this->name(), ": num_layers must be at least 1");
  // torch.nn.RNNBase's checks and messages
  if (o.proj_size < 0) fail<ValueError>("proj_size should be a positive integer or zero to disable projections");
  if (o.proj_size >= hidden) fail<ValueError>("proj_size has to be smaller than hidden_size");
  if (o.proj_size > 0 && mode != RNNMode::LSTM)
    fail<ValueError>("proj_size argument is only supported for LSTM, not RNN or GRU");
  options.mode = mode;
  options.num_layers = o.num_layers;
  options.bias = o.bias;
  options.batch_first = o.batch_first;
  options.dropout = o.dropout;
  options.bidirectional = o.bidirectional;
  const int64_t gates = gate_count(mode) * hidden, dirs = o.bidirectional ? 2 : 1;
  const int64_t out = o.proj_size > 0 ? o.proj_size : hidden;  // the size of h
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  autograd::NoGradGuard no_grad;
  for (int64_t l = 0; l < o.num_layers; ++l) {
    const int64_t in = l == 0 ? input : out * dirs;
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string k = std::to_string(l) + (d ? "_reverse" : "");
      uniform_(register_parameter("weight_ih_l" + k, empty(DimVector{gates, in})), -bound, bound);
      uniform_(register_parameter("weight_hh_l" + k, empty(DimVector{gates, out})), -bound, bound);
      if (o.bias) {
        uniform_(register_parameter("bias_ih_l" + k, empty(DimVector{gates})), -bound, bound);
        uniform_(register_parameter("bias_hh_l" + k, empty(DimVector{gates})), -bound, bound);
      }
      if (o.proj_size > 0)
        uniform_(register_parameter("weight_hr_l" + k, empty(DimVector{o.proj_size, hidden})), -bound, bound);
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
  if (proj_size != 0) s += ", proj_size=" + std::to_string(proj_size);
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

}  // namespace ember::nn
