// Host-side planning of cuDNN's RNN calls: where each of PyTorch's parameters goes in cuDNN's flat weight space, the
// descriptor settings, and the cache key. Plain C++ (no CUDA headers), so that tests/test_cuda_rnn_glue.cpp checks it
// on machines without a GPU; backend/cuda/rnn.cpp checks that the enum values used here are cuDNN's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ember/nn/rnn_fused.h"

namespace ember::cuda {

// Note [cuDNN RNN weights]
// cuDNN keeps all weights and biases in one flat buffer and tells where each matrix and bias vector of pseudo-layer
// p (layer * dirs + direction) and linear layer `id` lives (cudnnGetRNNWeightParams). Its linear layers, per cell:
// - RNN (tanh/relu): 0 = the input matrix W, 1 = the recurrent matrix R.
// - LSTM: 0..3 = W for the input, forget, cell (new memory) and output gates; 4..7 = R for the same gates;
//   8 = the projection matrix (projSize < hiddenSize only; it has no bias).
// - GRU: 0..2 = W for the reset, update and new (h') gates; 3..5 = R for the same gates. cuDNN's new gate is
//   h' = tanh(W_h x + b_Wh + r * (R_h h + b_Rh)), which is PyTorch's n (the reset gate multiplies the recurrent term
//   and its bias).
// Each linear layer has two biases in CUDNN_RNN_DOUBLE_BIAS mode: the one returned for id g < gates is W's (b_ih),
// for id gates + g R's (b_hh). PyTorch stacks the gates of one kind in its own order, LSTM (i, f, g, o) and GRU
// (r, z, n), which is cuDNN's order, so gate g of w_ih is linear layer g and gate g of w_hh is linear layer
// gates + g; the rows of gate g are [g * hidden, (g + 1) * hidden) of w_ih, w_hh, b_ih and b_hh. w_ih is
// [gates * hidden, layer input], w_hh [gates * hidden, P], w_hr [P, hidden]: row-major, as cuDNN stores its
// matrices.

enum class CellMode : int { Relu = 0, Tanh = 1, LSTM = 2, GRU = 3 };  // cudnnRNNMode_t
enum class MathType : int { Default = 0, TensorOp = 1, TensorOpAllowConversion = 2, Fma = 3 };  // cudnnMathType_t

inline CellMode cell_mode(RNNMode m) {
  switch (m) {
    case RNNMode::Tanh: return CellMode::Tanh;
    case RNNMode::Relu: return CellMode::Relu;
    case RNNMode::LSTM: return CellMode::LSTM;
    case RNNMode::GRU: return CellMode::GRU;
  }
  return CellMode::Tanh;
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

// The pieces of every parameter (Note [cuDNN RNN weights]), in parameter order, gates ascending.
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

// What the RNN descriptor says about precision: compute in float (double for float64 data; float16 data computes
// in float32, as ember's CPU path does); tensor cores for float16, TF32 for float32 only when
// ember.backends.cudnn.allow_tf32 says so (CUDNN_FMA_MATH rules it out), none for float64.
struct RNNMath {
  ScalarType compute = ScalarType::Float32;
  MathType math = MathType::Default;
};
inline RNNMath rnn_math(ScalarType data, bool allow_tf32) {
  switch (data) {
    case ScalarType::Float64: return {ScalarType::Float64, MathType::Default};
    case ScalarType::Float16: return {ScalarType::Float32, MathType::TensorOp};
    default: return {ScalarType::Float32, allow_tf32 ? MathType::Default : MathType::Fma};
  }
}

// The key of the weight layout cache (the offsets of every chunk): everything the layout depends on (not the batch,
// the lengths or dropout).
inline std::vector<int64_t> rnn_weight_key(const RNNFusedArgs& a, ScalarType data, MathType math, int device) {
  return {static_cast<int64_t>(cell_mode(a.mode)), a.input_size, a.hidden, a.proj_size, a.num_layers,
          a.bidirectional ? 1 : 0, a.bias ? 1 : 0, static_cast<int64_t>(data), static_cast<int64_t>(math), device};
}

// cuDNN's data descriptors for packed (SEQ_MAJOR_PACKED) data: the batch, one length per entry (all `steps` for
// padded data, which then has the same memory layout).
inline std::vector<int> rnn_data_lengths(const RNNFusedArgs& a) {
  if (!a.seq_lengths.empty()) return std::vector<int>(a.seq_lengths.begin(), a.seq_lengths.end());
  return std::vector<int>(static_cast<size_t>(a.batch), static_cast<int>(a.steps));
}

}  // namespace ember::cuda
