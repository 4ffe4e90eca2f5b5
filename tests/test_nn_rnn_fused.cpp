// The fused RNN path of ember::rnn (Note [Fused RNNs] in ember/nn/functional/rnn.cpp) without a GPU: a stand-in fused
// kernel registered for the CPU computes with the time loop, so that the host side (the arguments the kernels get, the
// autograd node, which gradient reaches which input, packed / batch_first / unbatched handling, the double-backward
// error) is checked against the plain loop on the same inputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"
#include "ember/backend/kernels/nn/rnn.h"
#include "ember/nn/functional/rnn.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

using namespace ember;

namespace {

constexpr int kCpu = static_cast<int>(DeviceType::CPU);

struct Seen {
  int forwards = 0, backwards = 0;
  RNNFusedArgs args;
  std::vector<Tensor> params;         // the stand-in's backward recomputes from them (cuDNN uses its flat copy)
  bool weights_hold_params = false;   // io.weights had every piece at the layout's offset
  bool weights_alias_params = false;  // io.weights was the parameters' own storage (flattened)
} seen;

// The stand-in's weight layouts (Note [Flat RNN weights]): Scattered puts the pieces in reverse order with gaps, so
// no parameter is one run; Grouped keeps each parameter's pieces together, parameters in reverse order with gaps.
enum class Layout { Scattered, Grouped } layout_kind = Layout::Scattered;

void fake_layout(const RNNFusedArgs& a, ScalarType, Device, RNNWeightLayout& out) {
  const std::vector<RNNParamChunk> chunks = rnn_param_chunks(a);
  out.offsets.assign(chunks.size(), 0);
  int64_t at = 3;  // a leading gap
  if (layout_kind == Layout::Scattered) {
    for (size_t i = chunks.size(); i-- > 0;) {
      out.offsets[i] = at;
      at += chunks[i].numel() + 2;
    }
  } else {
    for (int64_t p = chunks.back().param; p >= 0; --p) {
      for (size_t i = 0; i < chunks.size(); ++i)
        if (chunks[i].param == p) {
          out.offsets[i] = at;
          at += chunks[i].numel();
        }
      at += 2;
    }
  }
  out.numel = at;
}

bool same(const Tensor& a, const Tensor& b) {
  return std::ranges::equal(a.sizes(), b.sizes()) && (a.numel() == 0 || max(abs(sub(a, b))).item<double>() == 0);
}

bool weights_hold(const RNNFusedArgs& a, const Tensor& w, const std::vector<Tensor>& params) {
  RNNWeightLayout l;
  fake_layout(a, w.dtype(), w.device(), l);
  if (w.numel() != l.numel) return false;
  const std::vector<RNNParamChunk> chunks = rnn_param_chunks(a);
  for (size_t i = 0; i < chunks.size(); ++i) {
    const RNNParamChunk& c = chunks[i];
    Tensor want = reshape(narrow(params[static_cast<size_t>(c.param)], 0, c.row0, c.rows), {{-1}});
    if (!same(narrow(w, 0, l.offsets[i], c.numel()), want)) return false;
  }
  return true;
}

RNNOptions loop_options(const RNNFusedArgs& a) {
  RNNOptions o;
  o.mode = a.mode;
  o.num_layers = a.num_layers;
  o.bias = a.bias;
  o.bidirectional = a.bidirectional;
  return o;
}

Tensor batch_sizes_of(const RNNFusedArgs& a) {
  if (a.seq_lengths.empty()) return {};
  std::vector<int64_t> bs;
  for (int64_t t = 0; t < a.steps; ++t) {
    int64_t n = 0;
    for (int32_t l : a.seq_lengths) n += l > t;
    bs.push_back(n);
  }
  return from_blob_copy(bs.data(), ScalarType::Int64, {{static_cast<int64_t>(bs.size())}}, {});
}

// Runs the loop with the stand-in unregistered (the loop must not call itself).
std::tuple<Tensor, Tensor, Tensor> loop(const RNNFusedArgs& a, const Tensor& x, const Tensor& hx, const Tensor& cx,
                                        const std::vector<Tensor>& params) {
  auto* f = rnn_fused_forward_kernel.fn[kCpu];
  rnn_fused_forward_kernel.fn[kCpu] = nullptr;
  std::vector<Tensor> h{hx};
  if (a.mode == RNNMode::LSTM) h.push_back(cx);
  auto r = rnn(x, h, params, loop_options(a), batch_sizes_of(a));
  rnn_fused_forward_kernel.fn[kCpu] = f;
  return r;
}

void fake_forward(const RNNFusedArgs& a, RNNFusedForward& io) {
  ++seen.forwards;
  seen.args = a;
  seen.params = io.params;
  EXPECT_FALSE(autograd::is_grad_enabled());
  EXPECT_TRUE(io.x.is_contiguous());
  seen.weights_hold_params = weights_hold(a, io.weights, io.params);
  seen.weights_alias_params = io.weights.impl()->storage().get() == io.params[0].impl()->storage().get();
  auto [y, hy, cy] = loop(a, io.x, io.hx, io.cx, io.params);
  copy_into(io.y, y);
  copy_into(io.hy, hy);
  if (io.cy.defined()) copy_into(io.cy, cy);
  io.reserve = a.training ? empty({{0}}, TensorOptions(ScalarType::UInt8)) : Tensor();
}

void fake_backward(const RNNFusedArgs& a, RNNFusedBackward& io) {
  ++seen.backwards;
  EXPECT_TRUE(a.training);
  EXPECT_TRUE(io.reserve.defined());
  autograd::GradModeGuard on(true);
  auto leaf = [](const Tensor& t) { return t.defined() ? t.detach().set_requires_grad(true) : Tensor(); };
  Tensor x = leaf(io.x), hx = leaf(io.hx), cx = leaf(io.cx);
  std::vector<Tensor> ps;
  for (const Tensor& p : seen.params) ps.push_back(leaf(p));
  auto [y, hy, cy] = loop(a, x, hx, cx, ps);
  Tensor loss = sum(mul(y, io.dy));
  if (io.dhy.defined()) loss = add(loss, sum(mul(hy, io.dhy)));
  if (io.dcy.defined()) loss = add(loss, sum(mul(cy, io.dcy)));
  autograd::TensorList inputs{x};
  if (hx.defined()) inputs.push_back(hx);
  if (cx.defined()) inputs.push_back(cx);
  for (const Tensor& p : ps) inputs.push_back(p);
  autograd::TensorList g = autograd::grad({loss}, inputs, {}, {}, false, true);
  size_t k = 0;
  io.dx = g[k++];
  if (hx.defined()) io.dhx = g[k++];
  if (cx.defined()) io.dcx = g[k++];
  io.dparams.clear();
  if (io.need_weights)
    for (size_t i = 0; i < ps.size(); ++i) io.dparams.push_back(g[k + i].defined() ? g[k + i] : zeros_like(ps[i]));
}

struct StandIn {
  StandIn() {
    seen = Seen{};
    layout_kind = Layout::Scattered;
    rnn_fused_forward_kernel.fn[kCpu] = fake_forward;
    rnn_fused_backward_kernel.fn[kCpu] = fake_backward;
    rnn_fused_layout_kernel.fn[kCpu] = fake_layout;
  }
  ~StandIn() {
    rnn_fused_forward_kernel.fn[kCpu] = nullptr;
    rnn_fused_backward_kernel.fn[kCpu] = nullptr;
    rnn_fused_layout_kernel.fn[kCpu] = nullptr;
  }
};

double max_diff(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined() ? 0.0 : 1e9;
  EXPECT_EQ(DimVector(a.sizes()), DimVector(b.sizes()));
  return a.numel() ? max(abs(sub(a, b))).item<double>() : 0.0;
}

struct Config {
  RNNMode mode;
  int64_t input, hidden, proj, layers;
  bool bidir, bias, batch_first, unbatched, with_h0;
  std::vector<int64_t> batch_sizes;  // packed when not empty
};

// Outputs and every gradient (input, h0, c0, parameters) with the stand-in fused path and with the plain loop.
void check_against_loop(const Config& c) {
  const int64_t gates = c.mode == RNNMode::LSTM ? 4 : c.mode == RNNMode::GRU ? 3 : 1, dirs = c.bidir ? 2 : 1;
  const int64_t P = c.proj ? c.proj : c.hidden, T = 5, B = 3;
  manual_seed(7);
  std::vector<Tensor> params;
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t in = l == 0 ? c.input : dirs * P;
      params.push_back(randn({{gates * c.hidden, in}}));
      params.push_back(randn({{gates * c.hidden, P}}));
      if (c.bias) {
        params.push_back(randn({{gates * c.hidden}}));
        params.push_back(randn({{gates * c.hidden}}));
      }
      if (c.proj) params.push_back(randn({{P, c.hidden}}));
    }
  const bool packed = !c.batch_sizes.empty();
  int64_t rows = 0;
  for (int64_t b : c.batch_sizes) rows += b;
  const int64_t batch = packed ? c.batch_sizes[0] : c.unbatched ? 1 : B;
  Tensor x = packed          ? randn({{rows, c.input}})
             : c.unbatched   ? randn({{T, c.input}})
             : c.batch_first ? randn({{B, T, c.input}})
                             : randn({{T, B, c.input}});
  Tensor bs = packed ? from_blob_copy(c.batch_sizes.data(), ScalarType::Int64,
                                      {{static_cast<int64_t>(c.batch_sizes.size())}}, {})
                     : Tensor();
  std::vector<Tensor> h0;
  if (c.with_h0) {
    const DimVector hs = c.unbatched ? DimVector{c.layers * dirs, P} : DimVector{c.layers * dirs, batch, P};
    const DimVector cs = c.unbatched ? DimVector{c.layers * dirs, c.hidden}
                                     : DimVector{c.layers * dirs, batch, c.hidden};
    h0.push_back(randn(hs));
    if (c.mode == RNNMode::LSTM) h0.push_back(randn(cs));
  }
  RNNOptions o;
  o.mode = c.mode;
  o.num_layers = c.layers;
  o.bias = c.bias;
  o.bidirectional = c.bidir;
  o.batch_first = c.batch_first;

  struct Result {
    std::vector<Tensor> outs, grads;
  };
  auto run = [&](bool fused) {
    StandIn* s = fused ? new StandIn() : nullptr;
    auto leaf = [](const Tensor& t) { return t.detach().set_requires_grad(true); };
    Tensor xl = leaf(x);
    std::vector<Tensor> hl, pl;
    for (const Tensor& t : h0) hl.push_back(leaf(t));
    for (const Tensor& t : params) pl.push_back(leaf(t));
    auto [y, hn, cn] = rnn(xl, hl, pl, o, bs);
    Tensor loss = sum(mul(y, y));
    loss = add(loss, sum(mul(hn, full_like(hn, 0.5))));
    if (cn.defined()) loss = add(loss, sum(mul(cn, cn)));
    autograd::backward({loss});
    Result r{{y, hn, cn}, {xl.grad()}};
    for (const Tensor& t : hl) r.grads.push_back(t.grad());
    for (const Tensor& t : pl) r.grads.push_back(t.grad());
    if (s) {
      EXPECT_EQ(seen.forwards, 1);
      EXPECT_EQ(seen.backwards, 1);
      EXPECT_TRUE(seen.args.training);
      EXPECT_EQ(seen.args.batch, batch);
      EXPECT_EQ(seen.args.proj_size, c.proj);
      EXPECT_EQ(seen.args.seq_lengths.empty(), !packed);
      EXPECT_TRUE(seen.weights_hold_params);  // packed into the layout
      EXPECT_FALSE(seen.weights_alias_params);
      delete s;
    }
    return r;
  };
  const Result fused = run(true), plain = run(false);
  for (size_t i = 0; i < fused.outs.size(); ++i)
    EXPECT_LT(max_diff(fused.outs[i], plain.outs[i]), 1e-5) << "output " << i;
  ASSERT_EQ(fused.grads.size(), plain.grads.size());
  for (size_t i = 0; i < fused.grads.size(); ++i)
    EXPECT_LT(max_diff(fused.grads[i], plain.grads[i]), 1e-4) << "gradient " << i;
}

TEST(NnRnnFused, LstmTwoLayersBidirectionalWithStates) {
  check_against_loop({RNNMode::LSTM, 4, 6, 0, 2, true, true, false, false, true, {}});
}
TEST(NnRnnFused, LstmProjectionBatchFirst) {
  check_against_loop({RNNMode::LSTM, 4, 6, 3, 2, true, true, true, false, true, {}});
}
TEST(NnRnnFused, GruNoBiasWithoutStates) {
  check_against_loop({RNNMode::GRU, 3, 5, 0, 2, false, false, false, false, false, {}});
}
TEST(NnRnnFused, RnnTanhUnbatched) {
  check_against_loop({RNNMode::Tanh, 3, 4, 0, 1, true, true, false, true, true, {}});
}
TEST(NnRnnFused, PackedSequences) {
  check_against_loop({RNNMode::LSTM, 3, 4, 0, 2, true, true, false, false, true, {3, 3, 2, 1, 1}});
  check_against_loop({RNNMode::Relu, 3, 4, 0, 1, false, true, false, false, false, {2, 1}});
}

TEST(NnRnnFused, NoGraphMeansInferenceAndDropoutOnlyInTraining) {
  StandIn s;
  RNNOptions o;
  o.mode = RNNMode::GRU;
  o.num_layers = 2;
  o.dropout = 0.5;
  o.train = false;
  std::vector<Tensor> ps{randn({{9, 2}}), randn({{9, 3}}), randn({{9}}), randn({{9}}),
                         randn({{9, 3}}), randn({{9, 3}}), randn({{9}}), randn({{9}})};
  rnn(randn({{4, 2, 2}}), {}, ps, o);
  EXPECT_FALSE(seen.args.training);  // nothing requires grad, eval mode: cuDNN's inference mode
  EXPECT_EQ(seen.args.dropout, 0.0);
  o.train = true;
  rnn(randn({{4, 2, 2}}), {}, ps, o);
  EXPECT_TRUE(seen.args.training);  // dropout needs the training mode
  EXPECT_EQ(seen.args.dropout, 0.5);
}

TEST(NnRnnFused, BfloatAndEmptyBatchesTakeTheLoop) {
  StandIn s;
  RNNOptions o;
  o.mode = RNNMode::Tanh;
  std::vector<Tensor> ps{randn({{4, 2}}), randn({{4, 4}}), randn({{4}}), randn({{4}})};
  std::vector<Tensor> pb;
  for (const Tensor& p : ps) pb.push_back(to(p, ScalarType::BFloat16));
  rnn(to(randn({{3, 2, 2}}), ScalarType::BFloat16), {}, pb, o);
  rnn(randn({{3, 0, 2}}), {}, ps, o);
  EXPECT_EQ(seen.forwards, 0);
  rnn(randn({{3, 1, 2}}), {}, ps, o);
  EXPECT_EQ(seen.forwards, 1);
}

// flatten_parameters' C++ half: the parameters become views of one buffer in the layout, a call then passes that
// buffer without a copy, results and gradients stay the loop's, and an in-place update between forward and backward
// is caught through the shared version counter.
TEST(NnRnnFused, FlattenedWeightsAreUsedInPlace) {
  StandIn s;
  layout_kind = Layout::Grouped;
  RNNOptions o;
  o.mode = RNNMode::LSTM;
  o.num_layers = 2;
  o.bidirectional = true;
  manual_seed(3);
  std::vector<Tensor> ps;
  for (int64_t l = 0; l < 2; ++l)
    for (int64_t d = 0; d < 2; ++d)
      for (const DimVector& shape : {DimVector{12, l == 0 ? 2 : 6}, DimVector{12, 3}, DimVector{12}, DimVector{12}})
        ps.push_back(randn(shape));
  std::vector<Tensor> loop_ps;
  for (const Tensor& p : ps) loop_ps.push_back(clone(p).set_requires_grad(true));
  const std::vector<Tensor> views = rnn_flatten_weights(ps, o);
  ASSERT_EQ(views.size(), ps.size());
  for (size_t i = 0; i < ps.size(); ++i) {
    EXPECT_TRUE(same(views[i], ps[i])) << i;
    EXPECT_EQ(views[i].impl()->storage().get(), views[0].impl()->storage().get());
    ps[i].impl()->set_data(*views[i].impl());  // what Python's `param.data = view` does
    ps[i].set_requires_grad(true);
  }
  EXPECT_TRUE(rnn_flatten_weights(ps, o).empty());  // already flat

  Tensor x = randn({{4, 2, 2}});
  auto [y, h, c] = rnn(x, {}, ps, o);
  EXPECT_TRUE(seen.weights_alias_params);
  EXPECT_TRUE(seen.weights_hold_params);
  autograd::backward({add(sum(mul(y, y)), sum(c))});
  auto [y2, h2, c2] = loop(seen.args, x, {}, {}, loop_ps);
  autograd::backward({add(sum(mul(y2, y2)), sum(c2))});
  EXPECT_LT(max_diff(y, y2), 1e-5);
  for (size_t i = 0; i < ps.size(); ++i) EXPECT_LT(max_diff(ps[i].grad(), loop_ps[i].grad()), 1e-4) << i;

  auto [y3, h3, c3] = rnn(x, {}, ps, o);
  {
    autograd::NoGradGuard no_grad;
    ps[5].fill_(1.0);  // one parameter, but the whole buffer's version moves
  }
  EXPECT_THROW(autograd::backward({sum(y3)}), Error);

  // A parameter that is not one run of the layout cannot become a view: nothing is flattened.
  layout_kind = Layout::Scattered;
  std::vector<Tensor> fresh;
  for (const Tensor& p : ps) fresh.push_back(clone(p));
  EXPECT_TRUE(rnn_flatten_weights(fresh, o).empty());
}

TEST(NnRnnFused, FlattenIsANoOpWithoutAFusedKernel) {
  RNNOptions o;
  o.mode = RNNMode::GRU;
  std::vector<Tensor> ps{randn({{9, 2}}), randn({{9, 3}}), randn({{9}}), randn({{9}})};
  EXPECT_TRUE(rnn_flatten_weights(ps, o).empty());
  ps.pop_back();
  EXPECT_THROW(rnn_flatten_weights(ps, o), Error);  // wrong parameter count, as rnn() says
}

TEST(NnRnnFused, DoubleBackwardRaisesNamingTheNode) {
  StandIn s;
  RNNOptions o;
  o.mode = RNNMode::LSTM;
  std::vector<Tensor> ps{randn({{8, 2}}), randn({{8, 2}}), randn({{8}}), randn({{8}})};
  for (Tensor& p : ps) p.set_requires_grad(true);
  Tensor x = randn({{3, 1, 2}}).set_requires_grad(true);
  auto [y, h, c] = rnn(x, {}, ps, o);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "CudnnRnnBackward0");
  autograd::TensorList g = autograd::grad({sum(mul(y, y))}, {x}, {}, {}, /*create_graph=*/true);
  ASSERT_TRUE(g[0].requires_grad());
  try {
    autograd::backward({sum(g[0])});
    FAIL() << "expected NotImplementedError";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("CudnnRnnBackward0"), std::string::npos) << e.what();
  }
}

}  // namespace
