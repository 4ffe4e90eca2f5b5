// Recurrent layers: RNN, LSTM, GRU over sequences (the time loop of ember/nn/functional/rnn.h) and the cells RNNCell,
// LSTMCell, GRUCell (one step).
#pragma once

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/nn/functional/rnn.h"
#include "ember/nn/modules/module.h"

namespace ember::nn {

// What LSTM, GRU and RNN share (torch.nn.RNNBase): parameters weight_ih_l{k}[_reverse], weight_hh_l{k}[_reverse],
// bias_ih_l{k}[_reverse], bias_hh_l{k}[_reverse] (and, for an LSTM with proj_size > 0, weight_hr_l{k}[_reverse]
// [proj_size, hidden_size], which projects h to proj_size features), all U(-1/sqrt(hidden), 1/sqrt(hidden)).
// forward returns the output; forward_with_state returns (output, h_n, c_n), c_n undefined unless LSTM.
struct RNNLayerOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0;
  bool bidirectional = false;
  int64_t proj_size = 0;  // LSTM only: 0 < proj_size < hidden_size
};

class RNNBase : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::tuple<Tensor, Tensor, Tensor> forward_with_state(const Tensor& x, const std::vector<Tensor>& hx = {});
  std::string extra_repr() const override;
  RNNOptions options;
  int64_t input_size, hidden_size, proj_size = 0;

 protected:
  RNNBase(std::string name, RNNMode mode, int64_t input_size, int64_t hidden_size, const RNNLayerOptions& o);
};

class LSTM : public RNNBase {
 public:
  LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool batch_first = false)
      : LSTM(input_size, hidden_size, RNNLayerOptions{num_layers, true, batch_first}) {}
  LSTM(int64_t input_size, int64_t hidden_size, const RNNLayerOptions& o)
      : RNNBase("LSTM", RNNMode::LSTM, input_size, hidden_size, o) {}
};

class GRU : public RNNBase {
 public:
  GRU(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool batch_first = false)
      : GRU(input_size, hidden_size, RNNLayerOptions{num_layers, true, batch_first}) {}
  GRU(int64_t input_size, int64_t hidden_size, const RNNLayerOptions& o)
      : RNNBase("GRU", RNNMode::GRU, input_size, hidden_size, o) {}
};

// nonlinearity: "tanh" or "relu".
class RNN : public RNNBase {
 public:
  RNN(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1, bool batch_first = false,
      const std::string& nonlinearity = "tanh")
      : RNN(input_size, hidden_size, RNNLayerOptions{num_layers, true, batch_first}, nonlinearity) {}
  RNN(int64_t input_size, int64_t hidden_size, const RNNLayerOptions& o, const std::string& nonlinearity = "tanh");
};

// One step (torch.nn.RNNCellBase): parameters weight_ih, weight_hh[, bias_ih, bias_hh]. Input [B, I] or [I].
class RNNCellBase : public Module {
 public:
  std::string extra_repr() const override;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
  int64_t input_size, hidden_size;

 protected:
  RNNCellBase(std::string name, RNNMode mode, int64_t input_size, int64_t hidden_size, bool bias);
  RNNMode mode_;
};

class LSTMCell : public RNNCellBase {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true)
      : RNNCellBase("LSTMCell", RNNMode::LSTM, input_size, hidden_size, bias) {}
  // h' from zero states.
  Tensor forward(const Tensor& x) override;
  // (h', c'); h and c undefined: zeros.
  std::pair<Tensor, Tensor> forward(const Tensor& x, const Tensor& h, const Tensor& c);
};

class GRUCell : public RNNCellBase {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true)
      : RNNCellBase("GRUCell", RNNMode::GRU, input_size, hidden_size, bias) {}
  Tensor forward(const Tensor& x) override;
  Tensor forward(const Tensor& x, const Tensor& h);
};

// nonlinearity: "tanh" or "relu".
class RNNCell : public RNNCellBase {
 public:
  RNNCell(int64_t input_size, int64_t hidden_size, bool bias = true, const std::string& nonlinearity = "tanh");
  Tensor forward(const Tensor& x) override;
  Tensor forward(const Tensor& x, const Tensor& h);
  std::string extra_repr() const override;
};

}  // namespace ember::nn
