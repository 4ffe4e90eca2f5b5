// Host-side planning of cuDNN's RNN calls: where each of PyTorch's parameters goes in cuDNN's flat weight space, the
// descriptor settings, and the cache key. Plain C++ (no CUDA headers), so that tests/test_cuda_rnn_glue.cpp checks it
// on machines without a GPU; backend/cuda/rnn.cpp checks that the enum values used here are cuDNN's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ember/backend/kernels/nn/rnn.h"

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

enum class CellMode : int { Relu = 0, Tanh = 1, LSTM = 2, GRU = 3 };                            // cudnnRNNMode_t
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
  return {static_cast<int64_t>(cell_mode(a.mode)),
          a.input_size,
          a.hidden,
          a.proj_size,
          a.num_layers,
          a.bidirectional ? 1 : 0,
          a.bias ? 1 : 0,
          static_cast<int64_t>(data),
          static_cast<int64_t>(math),
          device};
}

// cuDNN's data descriptors for packed (SEQ_MAJOR_PACKED) data: the batch, one length per entry (all `steps` for
// padded data, which then has the same memory layout).
inline std::vector<int> rnn_data_lengths(const RNNFusedArgs& a) {
  if (!a.seq_lengths.empty()) return std::vector<int>(a.seq_lengths.begin(), a.seq_lengths.end());
  return std::vector<int>(static_cast<size_t>(a.batch), static_cast<int>(a.steps));
}

}  // namespace ember::cuda
