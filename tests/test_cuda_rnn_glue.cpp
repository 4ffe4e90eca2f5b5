// The host-side logic of the fused RNN path, checked without a GPU: which of cuDNN's linear layers each piece of
// PyTorch's parameters maps to (Note [cuDNN RNN weights] in rnn_glue.h), the copy spans, packed-sequence lengths,
// the descriptor's math settings, the support predicate and the layout cache key.
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <vector>

#include "ember/backend/cuda/rnn_glue.h"
#include "ember/backend/kernels/nn/rnn.h"

using namespace ember;
using namespace ember::cuda;

namespace {

RNNFusedArgs args(RNNMode mode, int64_t input, int64_t hidden, int64_t layers = 1, bool bidir = false, bool bias = true,
                  int64_t proj = 0) {
  return RNNFusedArgs{.mode = mode,
                      .input_size = input,
                      .hidden = hidden,
                      .proj_size = proj,
                      .num_layers = layers,
                      .bidirectional = bidir,
                      .bias = bias,
                      .steps = 5,
                      .batch = 3};
}

// (param, row0, rows, cols, pseudo_layer, lin_id, bias)
using C = std::tuple<int64_t, int64_t, int64_t, int64_t, int, int, bool>;
std::vector<C> flat(const std::vector<RNNParamChunk>& cs) {
  std::vector<C> r;
  for (const auto& c : cs) r.emplace_back(c.param, c.row0, c.rows, c.cols, c.pseudo_layer, c.lin_id, c.bias);
  return r;
}

TEST(CudaRnnGlue, LstmGatesMapToCudnnLinearLayersInOrder) {
  // PyTorch's LSTM rows (i, f, g, o) are cuDNN's linear layers 0..3 (W) and 4..7 (R), biases likewise.
  const auto got = flat(rnn_param_chunks(args(RNNMode::LSTM, 10, 6)));
  const std::vector<C> want = {
      {0, 0, 6, 10, 0, 0, false}, {0, 6, 6, 10, 0, 1, false}, {0, 12, 6, 10, 0, 2, false}, {0, 18, 6, 10, 0, 3, false},
      {1, 0, 6, 6, 0, 4, false},  {1, 6, 6, 6, 0, 5, false},  {1, 12, 6, 6, 0, 6, false},  {1, 18, 6, 6, 0, 7, false},
      {2, 0, 6, 1, 0, 0, true},   {2, 6, 6, 1, 0, 1, true},   {2, 12, 6, 1, 0, 2, true},   {2, 18, 6, 1, 0, 3, true},
      {3, 0, 6, 1, 0, 4, true},   {3, 6, 6, 1, 0, 5, true},   {3, 12, 6, 1, 0, 6, true},   {3, 18, 6, 1, 0, 7, true},
  };
  EXPECT_EQ(got, want);
}

TEST(CudaRnnGlue, GruGatesMapToCudnnLinearLayersInOrder) {
  // PyTorch's GRU rows (r, z, n) are cuDNN's (reset, update, new): W 0..2, R 3..5.
  const auto got = flat(rnn_param_chunks(args(RNNMode::GRU, 4, 5)));
  // One row per parameter (w_ih, w_hh, b_ih, b_hh), one column per gate.
  // clang-format off
  const std::vector<C> want = {
      {0, 0, 5, 4, 0, 0, false}, {0, 5, 5, 4, 0, 1, false}, {0, 10, 5, 4, 0, 2, false},
      {1, 0, 5, 5, 0, 3, false}, {1, 5, 5, 5, 0, 4, false}, {1, 10, 5, 5, 0, 5, false},
      {2, 0, 5, 1, 0, 0, true},  {2, 5, 5, 1, 0, 1, true},  {2, 10, 5, 1, 0, 2, true},
      {3, 0, 5, 1, 0, 3, true},  {3, 5, 5, 1, 0, 4, true},  {3, 10, 5, 1, 0, 5, true},
  };
  // clang-format on
  EXPECT_EQ(got, want);
}

TEST(CudaRnnGlue, PlainRnnHasOneGateAndCellModesAreCudnns) {
  for (RNNMode m : {RNNMode::Tanh, RNNMode::Relu}) {
    const auto got = flat(rnn_param_chunks(args(m, 3, 7, 1, false, false)));
    const std::vector<C> want = {{0, 0, 7, 3, 0, 0, false}, {1, 0, 7, 7, 0, 1, false}};
    EXPECT_EQ(got, want);
  }
  EXPECT_EQ(cell_mode(RNNMode::Relu), CellMode::Relu);
  EXPECT_EQ(cell_mode(RNNMode::Tanh), CellMode::Tanh);
  EXPECT_EQ(cell_mode(RNNMode::LSTM), CellMode::LSTM);
  EXPECT_EQ(cell_mode(RNNMode::GRU), CellMode::GRU);
  // cudnnRNNMode_t: CUDNN_RNN_RELU 0, CUDNN_RNN_TANH 1, CUDNN_LSTM 2, CUDNN_GRU 3 (static_asserts in rnn.cpp too).
  EXPECT_EQ(static_cast<int>(CellMode::Relu), 0);
  EXPECT_EQ(static_cast<int>(CellMode::GRU), 3);
}

TEST(CudaRnnGlue, BidirectionalLayersUsePseudoLayersAndWiderInputs) {
  const RNNFusedArgs a = args(RNNMode::Tanh, 3, 4, 2, true);
  const auto cs = rnn_param_chunks(a);
  ASSERT_EQ(cs.size(), 4u * 4u);  // 4 groups x (W, R, b_ih, b_hh)
  for (size_t g = 0; g < 4; ++g) {
    const auto& w = cs[g * 4];
    EXPECT_EQ(w.param, static_cast<int64_t>(g * 4));
    EXPECT_EQ(w.pseudo_layer, static_cast<int>(g));  // layer * 2 + direction
    EXPECT_EQ(w.cols, g < 2 ? 3 : 8);                // layer 1 reads both directions' outputs
    EXPECT_EQ(cs[g * 4 + 1].lin_id, 1);
    EXPECT_TRUE(cs[g * 4 + 2].bias);
    EXPECT_EQ(cs[g * 4 + 3].lin_id, 1);
  }
}

TEST(CudaRnnGlue, LstmProjectionIsLinearLayerEightWithoutBias) {
  const RNNFusedArgs a = args(RNNMode::LSTM, 5, 8, 2, true, true, 3);
  EXPECT_EQ(rnn_params_per_group(a), 5);
  const auto cs = rnn_param_chunks(a);
  ASSERT_EQ(cs.size(), 4u * 17u);
  for (size_t g = 0; g < 4; ++g) {
    const auto& w_hh = cs[g * 17 + 4];
    EXPECT_EQ(w_hh.cols, 3);  // the recurrent matrices read the projected h
    const auto& hr = cs[g * 17 + 16];
    EXPECT_EQ(hr.param, static_cast<int64_t>(g * 5 + 4));
    EXPECT_EQ(hr.lin_id, 8);
    EXPECT_FALSE(hr.bias);
    EXPECT_EQ(hr.rows, 3);
    EXPECT_EQ(hr.cols, 8);
    EXPECT_EQ(cs[g * 17].cols, g < 2 ? 5 : 6);  // layer 1's input: 2 directions x proj_size
  }
  const std::vector<DimVector> s = rnn_param_shapes(a);
  ASSERT_EQ(s.size(), 20u);
  EXPECT_EQ(s[0], (DimVector{32, 5}));
  EXPECT_EQ(s[1], (DimVector{32, 3}));
  EXPECT_EQ(s[2], (DimVector{32}));
  EXPECT_EQ(s[4], (DimVector{3, 8}));
  EXPECT_EQ(s[10], (DimVector{32, 6}));
}

TEST(CudaRnnGlue, NoBiasMeansTwoParamsPerGroup) {
  const RNNFusedArgs a = args(RNNMode::GRU, 2, 3, 3, false, false);
  EXPECT_EQ(rnn_params_per_group(a), 2);
  EXPECT_EQ(rnn_param_shapes(a).size(), 6u);
  for (const auto& c : rnn_param_chunks(a)) EXPECT_FALSE(c.bias);
}

// A layout of the kind cuDNN uses (per pseudo-layer: the W matrices, the R matrices, then the biases, each block
// aligned to `align` elements), standing in for cudnnGetRNNWeightParams.
std::vector<int64_t> fake_offsets(const std::vector<RNNParamChunk>& cs, int64_t align, int64_t* total) {
  std::map<std::tuple<int, int, bool>, int64_t> where;
  int64_t off = 0;
  auto place = [&](const RNNParamChunk& c) {
    off = (off + align - 1) / align * align;
    where[{c.pseudo_layer, c.lin_id, c.bias}] = off;
    off += c.numel();
  };
  for (bool bias : {false, true})
    for (const auto& c : cs)
      if (c.bias == bias) place(c);
  *total = off;
  std::vector<int64_t> r;
  for (const auto& c : cs) r.push_back(where[{c.pseudo_layer, c.lin_id, c.bias}]);
  return r;
}

TEST(CudaRnnGlue, CopySpansCoverEveryElementOnceAndMergeContiguousGates) {
  for (int64_t align : {1, 4}) {
    const RNNFusedArgs a = args(RNNMode::LSTM, 5, 6, 2, true, true, 2);
    const auto cs = rnn_param_chunks(a);
    int64_t total = 0;
    const auto offsets = fake_offsets(cs, align, &total);
    const auto spans = rnn_copy_spans(cs, offsets);
    const auto shapes = rnn_param_shapes(a);
    // Every element of every parameter is copied once, to a distinct place in the weight space.
    std::vector<int> hit(static_cast<size_t>(total), 0);
    std::vector<int64_t> covered(shapes.size(), 0);
    for (const auto& s : spans) {
      covered[static_cast<size_t>(s.param)] += s.numel;
      for (int64_t i = 0; i < s.numel; ++i) ++hit[static_cast<size_t>(s.dst + i)];
    }
    for (size_t p = 0; p < shapes.size(); ++p) {
      int64_t n = 1;
      for (int64_t d : shapes[p]) n *= d;
      EXPECT_EQ(covered[p], n) << "param " << p;
    }
    for (int h : hit) EXPECT_LE(h, 1);
    // Element (row r, col k) of gate g lands at its gate's offset + (r - g * H) * cols + k.
    const auto& c = cs[2];  // w_ih of layer 0, gate 2
    bool found = false;
    for (const auto& s : spans)
      if (s.param == c.param && s.src <= c.row0 * c.cols && c.row0 * c.cols < s.src + s.numel) {
        EXPECT_EQ(s.dst + (c.row0 * c.cols - s.src), offsets[2]);
        found = true;
      }
    EXPECT_TRUE(found);
    // Unaligned, gates of one matrix are back to back: one span per parameter. Aligned to 4, 6 * 5 = 30-element
    // gates are padded apart and stay separate spans.
    if (align == 1)
      EXPECT_EQ(spans.size(), shapes.size());
    else
      EXPECT_GT(spans.size(), shapes.size());
  }
}

TEST(CudaRnnGlue, SeqLengthsFromBatchSizes) {
  EXPECT_EQ(seq_lengths_from_batch_sizes({3, 3, 2, 1}), (std::vector<int32_t>{4, 3, 2}));
  EXPECT_EQ(seq_lengths_from_batch_sizes({2}), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(seq_lengths_from_batch_sizes({4, 4, 4}), (std::vector<int32_t>{3, 3, 3, 3}));
  EXPECT_EQ(seq_lengths_from_batch_sizes({5, 1, 1}), (std::vector<int32_t>{3, 1, 1, 1, 1}));
  EXPECT_TRUE(seq_lengths_from_batch_sizes({}).empty());
  EXPECT_TRUE(seq_lengths_from_batch_sizes({1, 2}).empty());  // increasing: not a packed batch
  EXPECT_TRUE(seq_lengths_from_batch_sizes({2, 0}).empty());
  // Brute force: length of entry b = the number of steps whose batch holds it.
  const std::vector<int64_t> bs{7, 7, 5, 5, 5, 2, 1};
  const auto len = seq_lengths_from_batch_sizes(bs);
  ASSERT_EQ(len.size(), 7u);
  for (int64_t b = 0; b < 7; ++b) {
    int32_t n = 0;
    for (int64_t s : bs) n += b < s;
    EXPECT_EQ(len[static_cast<size_t>(b)], n);
  }
  RNNFusedArgs a = args(RNNMode::GRU, 2, 2);
  EXPECT_EQ(rnn_data_lengths(a), (std::vector<int>{5, 5, 5}));  // padded: every sequence runs all steps
  a.seq_lengths = {5, 4, 1};
  EXPECT_EQ(rnn_data_lengths(a), (std::vector<int>{5, 4, 1}));
}

TEST(CudaRnnGlue, MathFollowsDtypeAndTf32Flag) {
  EXPECT_EQ(rnn_math(ScalarType::Float32, true).math, MathType::Default);
  EXPECT_EQ(rnn_math(ScalarType::Float32, false).math, MathType::Fma);  // no TF32
  EXPECT_EQ(rnn_math(ScalarType::Float32, false).compute, ScalarType::Float32);
  EXPECT_EQ(rnn_math(ScalarType::Float16, false).math, MathType::TensorOp);
  EXPECT_EQ(rnn_math(ScalarType::Float16, false).compute, ScalarType::Float32);
  EXPECT_EQ(rnn_math(ScalarType::Float64, true).math, MathType::Default);
  EXPECT_EQ(rnn_math(ScalarType::Float64, true).compute, ScalarType::Float64);
  EXPECT_EQ(static_cast<int>(MathType::Fma), 3);  // CUDNN_FMA_MATH
}

TEST(CudaRnnGlue, SupportedConfigurations) {
  std::string why;
  EXPECT_TRUE(rnn_fused_supported(args(RNNMode::LSTM, 4, 8, 2, true, true, 3), ScalarType::Float32, &why)) << why;
  EXPECT_TRUE(rnn_fused_supported(args(RNNMode::GRU, 4, 8), ScalarType::Float64));
  EXPECT_TRUE(rnn_fused_supported(args(RNNMode::Tanh, 4, 8), ScalarType::Float16));
  EXPECT_FALSE(rnn_fused_supported(args(RNNMode::LSTM, 4, 8), ScalarType::BFloat16, &why));
  EXPECT_NE(why.find("dtype"), std::string::npos);
  EXPECT_FALSE(rnn_fused_supported(args(RNNMode::GRU, 4, 8, 1, false, true, 3), ScalarType::Float32));
  EXPECT_FALSE(rnn_fused_supported(args(RNNMode::LSTM, 4, 8, 1, false, true, 8), ScalarType::Float32));
  RNNFusedArgs a = args(RNNMode::LSTM, 4, 8);
  a.batch = 0;
  EXPECT_FALSE(rnn_fused_supported(a, ScalarType::Float32));
  a = args(RNNMode::LSTM, 4, 8);
  a.steps = int64_t{1} << 31;
  EXPECT_FALSE(rnn_fused_supported(a, ScalarType::Float32));
  a = args(RNNMode::LSTM, 4, 8);
  a.steps = 1 << 20;
  a.batch = 1 << 10;  // 2^30 steps x batch, 8 features: past int32
  EXPECT_FALSE(rnn_fused_supported(a, ScalarType::Float32));
  a.batch = 1 << 7;
  EXPECT_TRUE(rnn_fused_supported(a, ScalarType::Float32));
  a = args(RNNMode::LSTM, 4, 8);
  a.seq_lengths = {5, 4};  // batch 3
  EXPECT_FALSE(rnn_fused_supported(a, ScalarType::Float32));
  a = args(RNNMode::LSTM, 4, 8);
  a.dropout = 1.0;
  EXPECT_FALSE(rnn_fused_supported(a, ScalarType::Float32));
}

TEST(CudaRnnGlue, WeightKeyHoldsWhatTheLayoutDependsOn) {
  const RNNFusedArgs a = args(RNNMode::LSTM, 4, 8, 2, true, true, 3);
  const auto k = rnn_weight_key(a, ScalarType::Float32, MathType::Fma, 0);
  RNNFusedArgs b = a;
  b.batch = 17;
  b.steps = 2;
  b.seq_lengths = {2, 1};
  b.dropout = 0.5;
  EXPECT_EQ(rnn_weight_key(b, ScalarType::Float32, MathType::Fma, 0), k);  // not the data or dropout
  EXPECT_NE(rnn_weight_key(a, ScalarType::Float16, MathType::Fma, 0), k);
  EXPECT_NE(rnn_weight_key(a, ScalarType::Float32, MathType::Default, 0), k);
  EXPECT_NE(rnn_weight_key(a, ScalarType::Float32, MathType::Fma, 1), k);
  for (auto change : {+[](RNNFusedArgs& x) { x.proj_size = 2; }, +[](RNNFusedArgs& x) { x.bias = false; },
                      +[](RNNFusedArgs& x) { x.bidirectional = false; }, +[](RNNFusedArgs& x) { x.num_layers = 3; },
                      +[](RNNFusedArgs& x) { x.input_size = 5; }, +[](RNNFusedArgs& x) { x.mode = RNNMode::GRU; }}) {
    RNNFusedArgs c = a;
    change(c);
    EXPECT_NE(rnn_weight_key(c, ScalarType::Float32, MathType::Fma, 0), k);
  }
}

}  // namespace
