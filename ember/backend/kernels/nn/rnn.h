// A whole recurrent layer stack in one library call: the kernels behind the fused path of ember::rnn
// (nn/functional/rnn.cpp) on devices that have one (CUDA: cuDNN's RNN API, backend/cuda/rnn.cpp). Note [Fused RNNs]
// in nn/functional/rnn.cpp says when it is taken and what it records for autograd.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "ember/backend/kernels.h"
#include "ember/nn/functional/rnn.h"

namespace ember {

// The configuration of one fused call. P = proj_size when an LSTM projects (0 < proj_size < hidden), else hidden.
struct RNNFusedArgs {
  RNNMode mode = RNNMode::LSTM;
  int64_t input_size = 0, hidden = 0, proj_size = 0, num_layers = 1;
  bool bidirectional = false, bias = true;
  // Time-major data: [steps, batch, features], or packed ([sum(batch_sizes), features]) with seq_lengths (one per
  // batch entry, non-increasing, seq_lengths[0] == steps) from batch_sizes; seq_lengths is empty when not packed.
  int64_t steps = 0, batch = 0;
  std::vector<int32_t> seq_lengths;
  // Dropout between layers (0: none), and where the call stands in the device generator's stream (one draw taken
  // from it): the device's dropout state follows that stream (Note [cuDNN dropout state] in backend/cuda/rnn.cpp).
  double dropout = 0;
  uint64_t dropout_seed = 0, dropout_offset = 0;
  bool training = false;  // a backward will follow: keep what it needs (cuDNN's reserve space)

  int64_t dirs() const { return bidirectional ? 2 : 1; }
  int64_t out_size() const { return proj_size > 0 ? proj_size : hidden; }  // P, the size of h
};

// Forward: x (contiguous), hx [layers * dirs, batch, P] and cx [layers * dirs, batch, hidden] (contiguous, or
// undefined for zeros), weights (the parameters in the device's flat layout, rnn_fused_layout: Note [Flat RNN
// weights] in rnn.cpp). Writes y ([steps, batch, dirs * P], or packed [rows, dirs * P]), hy and cy (cy: LSTM only),
// all allocated contiguous by the caller, and, when training, sets reserve (what the backward needs); the backward
// takes weights and reserve back. params (PyTorch's order and shapes) are there for kernels that want them.
struct RNNFusedForward {
  Tensor x, hx, cx;
  std::vector<Tensor> params;
  Tensor weights;
  Tensor y, hy, cy;
  Tensor reserve;
};
EMBER_DECLARE_KERNEL(rnn_fused_forward, const RNNFusedArgs& a, RNNFusedForward& io)

// The device's flat weight layout for a configuration of `dtype` parameters (steps, batch, lengths and dropout do not
// matter): its size in elements and the element offset of each piece of rnn_param_chunks(a), in that order.
struct RNNWeightLayout {
  int64_t numel = 0;
  std::vector<int64_t> offsets;
};
EMBER_DECLARE_KERNEL(rnn_fused_layout, const RNNFusedArgs& a, ScalarType dtype, Device device, RNNWeightLayout& out)

// Backward of a training forward: x, y, hx, cx, weights and reserve as the forward had them, dy (contiguous, of
// y's shape), dhy, dcy (contiguous, or undefined for zeros). Sets dx and, where hx / cx are defined, dhx / dcx;
// with need_weights, dparams: one gradient per parameter, in params' order and shapes.
struct RNNFusedBackward {
  Tensor x, y, hx, cx, weights, reserve;
  Tensor dy, dhy, dcy;
  bool need_weights = true;
  Tensor dx, dhx, dcx;
  std::vector<Tensor> dparams;
};
EMBER_DECLARE_KERNEL(rnn_fused_backward, const RNNFusedArgs& a, RNNFusedBackward& io)

// One step of an LSTM layer's elementwise part over a batch of B rows, for the fused CPU layer (Note [Fused CPU LSTM]
// in nn/functional/rnn_layer.cpp). All operands are contiguous. Forward: gates [B, 4H] holds the pre-activations of
// the gates i, f, g, o (the input and recurrent terms, summed by the caller's GEMM) and is overwritten by their
// activations (sigmoid, sigmoid, tanh, sigmoid); c = f * c_prev + i * g and h = o * tanh(c), each [B, H].
EMBER_DECLARE_KERNEL(lstm_cell_forward, const Tensor& gates, const Tensor& c_prev, const Tensor& c, const Tensor& h)
// Backward of one step: from the activations `acts` [B, 4H], c_prev and c, the gradient reaching h (dh_out, the
// step's output, plus dh_rec from the next step, if defined) and dc, the one reaching c (replaced by the gradient of
// c_prev), writes dgates [B, 4H], the gradient of the pre-activations.
EMBER_DECLARE_KERNEL(lstm_cell_backward, const Tensor& acts, const Tensor& c_prev, const Tensor& c,
                     const Tensor& dh_out, const Tensor& dh_rec, const Tensor& dc, const Tensor& dgates)

// One step of a GRU layer's elementwise part, for the fused CPU layer (Note [Fused CPU GRU] in
// nn/functional/rnn_layer.cpp). All operands contiguous. gi [B, 3H]: the input term of the gates r, z, n (with b_ih);
// gh [B, 3H]: the recurrent term h_prev W_hh^T + b_hh. Writes acts [B, 4H] = (r, z, n, gh's n part) and
// h = (1 - z) * n + z * h_prev, with r = sigmoid(gi_r + gh_r), z = sigmoid(gi_z + gh_z), n = tanh(gi_n + r * gh_n).
EMBER_DECLARE_KERNEL(gru_cell_forward, const Tensor& gi, const Tensor& gh, const Tensor& h_prev, const Tensor& acts,
                     const Tensor& h)
// Backward of one step: from acts and h_prev, and the gradient reaching h (dh_out plus dh_rec if defined), writes the
// gradients of the pre-activations' input terms dgi [B, 3H] and recurrent terms dgh [B, 3H], and dh_prev [B, H], the
// part of h_prev's gradient that does not pass through W_hh (z * dh).
EMBER_DECLARE_KERNEL(gru_cell_backward, const Tensor& acts, const Tensor& h_prev, const Tensor& dh_out,
                     const Tensor& dh_rec, const Tensor& dgi, const Tensor& dgh, const Tensor& dh_prev)

inline int64_t rnn_gates(RNNMode m) { return m == RNNMode::LSTM ? 4 : m == RNNMode::GRU ? 3 : 1; }

// Parameters per layer and direction, in PyTorch's order: w_ih, w_hh[, b_ih, b_hh][, w_hr].
inline int64_t rnn_params_per_group(const RNNFusedArgs& a) { return 2 + (a.bias ? 2 : 0) + (a.proj_size > 0); }

// The shape of each parameter, in PyTorch's order.
inline std::vector<DimVector> rnn_param_shapes(const RNNFusedArgs& a) {
  const int64_t gates = rnn_gates(a.mode), H = a.hidden, P = a.out_size();
  std::vector<DimVector> s;
  for (int64_t layer = 0; layer < a.num_layers; ++layer)
    for (int64_t d = 0; d < a.dirs(); ++d) {
      const int64_t in = layer == 0 ? a.input_size : a.dirs() * P;
      s.push_back({gates * H, in});
      s.push_back({gates * H, P});
      if (a.bias) {
        s.push_back({gates * H});
        s.push_back({gates * H});
      }
      if (a.proj_size > 0) s.push_back({P, H});
    }
  return s;
}

// Whether a fused kernel takes this configuration of `dtype` data; `why` says what rules it out. Device-neutral
// limits (cuDNN's: float32, float16 and float64 data; sizes, lengths and batch within int32; no empty dims).
inline bool rnn_fused_supported(const RNNFusedArgs& a, ScalarType dtype, std::string* why = nullptr) {
  auto no = [&](const char* w) {
    if (why) *why = w;
    return false;
  };
  // bfloat16: cuDNN's RNN descriptors are documented for half, float and double data only.
  if (dtype != ScalarType::Float32 && dtype != ScalarType::Float16 && dtype != ScalarType::Float64)
    return no("dtype other than float32, float16 or float64");
  if (a.steps <= 0 || a.batch <= 0 || a.hidden <= 0 || a.input_size <= 0 || a.num_layers <= 0)
    return no("an empty dimension");
  if (a.proj_size < 0 || (a.proj_size > 0 && (a.mode != RNNMode::LSTM || a.proj_size >= a.hidden)))
    return no("proj_size must be 0, or less than hidden_size for an LSTM");
  const int64_t gates = rnn_gates(a.mode);
  for (int64_t v : {a.steps, a.batch, gates * a.hidden, a.input_size, a.num_layers * a.dirs(), a.dirs() * a.out_size()})
    if (v > INT_MAX) return no("a size beyond int32");
  // The state tensors' descriptors take int strides; the data stays within int32 elements as well.
  const int64_t width = std::max({a.input_size, a.dirs() * a.out_size(), a.hidden});
  if (a.num_layers * a.dirs() * a.batch * std::max(a.hidden, a.out_size()) > INT_MAX ||
      a.steps * a.batch * width > INT_MAX)
    return no("more than INT_MAX elements in one operand");
  if (!a.seq_lengths.empty() && static_cast<int64_t>(a.seq_lengths.size()) != a.batch)
    return no("seq_lengths does not have one entry per batch entry");
  if (a.dropout < 0 || a.dropout >= 1) return no("dropout outside [0, 1)");
  return true;
}

// One piece of one parameter: `rows` rows of `cols` elements from row `row0` (a bias is one column), found in
// cuDNN's weight space as the matrix (or the bias) of linear layer `lin_id` of pseudo-layer `pseudo_layer`.
struct RNNParamChunk {
  int64_t param = 0;  // index into the parameter list
  int64_t row0 = 0, rows = 0, cols = 1;
  int pseudo_layer = 0, lin_id = 0;
  bool bias = false;
  int64_t numel() const { return rows * cols; }
};

// The pieces of every parameter, in parameter order, gates ascending: each gate's rows of a matrix or bias are one
// piece, as cuDNN addresses them (Note [cuDNN RNN weights] in backend/cuda/rnn_glue.h gives the linear-layer IDs).
inline std::vector<RNNParamChunk> rnn_param_chunks(const RNNFusedArgs& a) {
  const int64_t gates = rnn_gates(a.mode), H = a.hidden, P = a.out_size(), per = rnn_params_per_group(a);
  std::vector<RNNParamChunk> out;
  for (int64_t layer = 0; layer < a.num_layers; ++layer)
    for (int64_t d = 0; d < a.dirs(); ++d) {
      const int pseudo = static_cast<int>(layer * a.dirs() + d);
      const int64_t base = (layer * a.dirs() + d) * per, in = layer == 0 ? a.input_size : a.dirs() * P;
      for (int64_t g = 0; g < gates; ++g) out.push_back({base, g * H, H, in, pseudo, static_cast<int>(g), false});
      for (int64_t g = 0; g < gates; ++g)
        out.push_back({base + 1, g * H, H, P, pseudo, static_cast<int>(gates + g), false});
      if (a.bias) {
        for (int64_t g = 0; g < gates; ++g) out.push_back({base + 2, g * H, H, 1, pseudo, static_cast<int>(g), true});
        for (int64_t g = 0; g < gates; ++g)
          out.push_back({base + 3, g * H, H, 1, pseudo, static_cast<int>(gates + g), true});
      }
      if (a.proj_size > 0) out.push_back({base + per - 1, 0, P, H, pseudo, 8, false});
    }
  return out;
}

// A run of elements copied between a parameter (contiguous, from element `src`) and the flat weight space (from
// element `dst`): chunks merged where both sides continue.
struct RNNCopySpan {
  int64_t param = 0, src = 0, dst = 0, numel = 0;
};

// chunks: rnn_param_chunks; offsets: each chunk's element offset in the weight space (cuDNN's answer).
inline std::vector<RNNCopySpan> rnn_copy_spans(const std::vector<RNNParamChunk>& chunks,
                                               const std::vector<int64_t>& offsets) {
  std::vector<RNNCopySpan> spans;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const RNNParamChunk& c = chunks[i];
    const int64_t src = c.row0 * c.cols;
    if (!spans.empty()) {
      RNNCopySpan& s = spans.back();
      if (s.param == c.param && s.src + s.numel == src && s.dst + s.numel == offsets[i]) {
        s.numel += c.numel();
        continue;
      }
    }
    spans.push_back({c.param, src, offsets[i], c.numel()});
  }
  return spans;
}

// The length of each of the packed batch's sequences, from the batch size of each step (positive, non-increasing):
// entry b is the number of steps whose batch holds b. Empty when batch_sizes is not valid that way.
inline std::vector<int32_t> seq_lengths_from_batch_sizes(const std::vector<int64_t>& batch_sizes) {
  if (batch_sizes.empty() || batch_sizes[0] <= 0 || batch_sizes[0] > INT_MAX ||
      static_cast<int64_t>(batch_sizes.size()) > INT_MAX)
    return {};
  for (size_t t = 1; t < batch_sizes.size(); ++t)
    if (batch_sizes[t] <= 0 || batch_sizes[t] > batch_sizes[t - 1]) return {};
  std::vector<int32_t> lengths(static_cast<size_t>(batch_sizes[0]), 0);
  // The steps are non-increasing, so each sequence runs from step 0 to the last step whose batch holds it.
  for (size_t t = 0; t < batch_sizes.size(); ++t)
    for (int64_t b = batch_sizes.size() - 1 == t ? 0 : batch_sizes[t + 1]; b < batch_sizes[t]; ++b)
      lengths[static_cast<size_t>(b)] = static_cast<int32_t>(t + 1);
  return lengths;
}

}  // namespace ember
