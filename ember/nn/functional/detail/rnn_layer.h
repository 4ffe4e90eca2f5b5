// The fused CPU LSTM layer (Note [Fused CPU LSTM] in rnn_layer.cpp), which rnn() (rnn.cpp) runs for each layer and
// direction where it applies, and what the fused RNN paths' backwards share.
#pragma once

#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// Whether lstm_layer runs an LSTM of this configuration: float32 on the CPU, ember.backends.mkldnn.enabled, no Python
// dispatch mode live, and what the step-by-step path has beside it (projections, packed sequences) absent.
bool lstm_layer_applies(const Tensor& x, bool proj, bool packed);

// One direction of one LSTM layer over x [T, B, I] (contiguous or not), from h0 and c0 [B, H]: returns (y [T, B, H],
// h_T, c_T). reverse: the steps run from T - 1 down (the backward direction of a bidirectional layer). b_ih and b_hh
// may be undefined (no bias). Records one autograd node, MkldnnRnnLayerBackward0 (PyTorch's name for its own).
std::tuple<Tensor, Tensor, Tensor> lstm_layer(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                                              const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool reverse);

// Whether gru_layer runs a GRU over x: float32 on the CPU, ember.backends.mkldnn.enabled, not packed, no Python
// dispatch mode live.
bool gru_layer_applies(const Tensor& x, bool packed);

// One direction of one GRU layer over x [T, B, I] from h0 [B, H]: returns (y [T, B, H], h_T). As lstm_layer; records
// one node, GruLayerBackward0 (Note [Fused CPU GRU]).
std::tuple<Tensor, Tensor> gru_layer(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
                                     const Tensor& b_ih, const Tensor& b_hh, bool reverse);

// The same layer as ember ops, step by step, with derivatives of every order (rnn.cpp's time loop for one layer and
// direction, unpacked): what gru_layer's backward differentiates when a graph of the gradient is asked for.
std::tuple<Tensor, Tensor> gru_layer_as_ops(const Tensor& x, const Tensor& h0, const Tensor& w_ih, const Tensor& w_hh,
                                            const Tensor& b_ih, const Tensor& b_hh, bool reverse);

// A fused RNN backward's second derivative, which it has not: with create_graph, the gradients `grads` (undefined ones
// skipped) become outputs of a node that raises NotImplementedError naming `op` when a gradient reaches it; `read` are
// the tensors the backward read (undefined ones skipped).
void record_no_double_backward(const char* op, const std::vector<Tensor>& read, const std::vector<Tensor>& grads);

}  // namespace ember
