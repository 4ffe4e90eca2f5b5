// Recurrent layers (RNN with tanh or relu, LSTM, GRU): multi-layer, bidirectional, batch_first, dropout between
// layers, initial states, packed sequences. On CUDA with cuDNN, the whole stack runs in one fused call (Note
// [Fused RNNs] in rnn.cpp); a float32 LSTM on the CPU runs each layer and direction as one node (Note [Fused CPU LSTM]
// in rnn_layer.cpp); otherwise the time loop runs here in C++, each step a few ember ops (one GEMM for the recurrent
// term, elementwise gates), so autograd records it like any other computation.
#pragma once

#include <string_view>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

enum class RNNMode : uint8_t { Tanh, Relu, LSTM, GRU };

RNNMode rnn_mode(std::string_view name);  // "RNN_TANH", "RNN_RELU", "LSTM", "GRU"

struct RNNOptions {
  RNNMode mode = RNNMode::LSTM;
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0;
  bool train = true;
  bool bidirectional = false;
};

// input: [T, B, I] ([B, T, I] with batch_first), or [T, I] unbatched; or packed data [sum(batch_sizes), I] when
// batch_sizes (int64, non-increasing) is given. hx: h0 (and c0 for LSTM), h0 [layers * directions, B, P] and c0
// [layers * directions, B, H], or empty for zeros. params: per layer and direction, PyTorch's order w_ih, w_hh[,
// b_ih, b_hh][, w_hr]; an LSTM with w_hr [P, H] projects each step's h to P = proj_size features (torch.nn.LSTM's
// proj_size, told apart by the number of params), P = H otherwise. Returns (output, h_n, c_n) with c_n undefined
// unless LSTM.
std::tuple<Tensor, Tensor, Tensor> rnn(const Tensor& input, const std::vector<Tensor>& hx,
                                       const std::vector<Tensor>& params, const RNNOptions& opts,
                                       const Tensor& batch_sizes = {});

// The parameters (as for rnn) copied into one buffer in the layout of the device's fused kernel, returned as views
// of it in params' order and shapes (Note [Flat RNN weights] in rnn.cpp): a caller that makes its parameters these
// views (nn.RNNBase.flatten_parameters) saves rnn() a copy of the weights per call. Empty when there is nothing to
// do: no fused kernel for the device or this configuration, or the parameters are already laid out so.
std::vector<Tensor> rnn_flatten_weights(const std::vector<Tensor>& params, const RNNOptions& opts);

// ember.backends.mkldnn.enabled, PyTorch's switch for its fused CPU RNN: while on (the default), a float32 LSTM on
// the CPU runs each layer and direction as one node (Note [Fused CPU LSTM] in rnn_layer.cpp), whose backward has no
// derivative of its own; off, step by step, with derivatives of every order.
bool& cpu_fused_rnn_enabled();

// One step of a cell: returns h' (and c' for LSTM; undefined otherwise). b_ih, b_hh may be undefined.
std::pair<Tensor, Tensor> rnn_cell(RNNMode mode, const Tensor& input, const Tensor& h, const Tensor& c,
                                   const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh);

}  // namespace ember
