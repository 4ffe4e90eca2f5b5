// The C++ frontend's LSTM with proj_size (ember/nn/modules/rnn.h): PyTorch's parameter names and shapes, repr,
// the forward against a step-by-step reference written with ember ops, and the constructor's errors.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ember/nn/modules/rnn.h"
#include "ember/ops.h"

using namespace ember;

namespace {

double max_diff(const Tensor& a, const Tensor& b) { return max(abs(sub(a, b))).item<double>(); }

}  // namespace

TEST(NnLstmProj, ParametersAndReprAreTorchs) {
  nn::LSTM m(3, 5, nn::RNNLayerOptions{.num_layers = 2, .bidirectional = true, .proj_size = 2});
  // torch.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2).state_dict() in PyTorch 1.13
  const std::vector<std::pair<std::string, DimVector>> torch_keys = {{"weight_ih_l0", {20, 3}},
                                                                     {"weight_hh_l0", {20, 2}},
                                                                     {"bias_ih_l0", {20}},
                                                                     {"bias_hh_l0", {20}},
                                                                     {"weight_hr_l0", {2, 5}},
                                                                     {"weight_ih_l0_reverse", {20, 3}},
                                                                     {"weight_hh_l0_reverse", {20, 2}},
                                                                     {"bias_ih_l0_reverse", {20}},
                                                                     {"bias_hh_l0_reverse", {20}},
                                                                     {"weight_hr_l0_reverse", {2, 5}},
                                                                     {"weight_ih_l1", {20, 4}},
                                                                     {"weight_hh_l1", {20, 2}},
                                                                     {"bias_ih_l1", {20}},
                                                                     {"bias_hh_l1", {20}},
                                                                     {"weight_hr_l1", {2, 5}},
                                                                     {"weight_ih_l1_reverse", {20, 4}},
                                                                     {"weight_hh_l1_reverse", {20, 2}},
                                                                     {"bias_ih_l1_reverse", {20}},
                                                                     {"bias_hh_l1_reverse", {20}},
                                                                     {"weight_hr_l1_reverse", {2, 5}}};
  std::vector<std::pair<std::string, DimVector>> got;
  for (auto& [k, t] : m.state_dict()) got.emplace_back(k, DimVector(t.sizes()));
  EXPECT_EQ(got, torch_keys);
  EXPECT_EQ(m.repr(), "LSTM(3, 5, proj_size=2, num_layers=2, bidirectional=True)");
  auto [out, h, c] = m.forward_with_state(randn(DimVector{4, 2, 3}));
  EXPECT_EQ(DimVector(out.sizes()), (DimVector{4, 2, 4}));
  EXPECT_EQ(DimVector(h.sizes()), (DimVector{4, 2, 2}));
  EXPECT_EQ(DimVector(c.sizes()), (DimVector{4, 2, 5}));
}

TEST(NnLstmProj, ForwardMatchesAStepByStepReference) {
  manual_seed(3);
  nn::LSTM m(3, 5, nn::RNNLayerOptions{.proj_size = 2});
  m.to(ScalarType::Float64);
  Tensor x = randn(DimVector{4, 2, 3}, nullptr, ScalarType::Float64);
  Tensor h = randn(DimVector{1, 2, 2}, nullptr, ScalarType::Float64);
  Tensor c = randn(DimVector{1, 2, 5}, nullptr, ScalarType::Float64);
  auto [out, hn, cn] = m.forward_with_state(x, {h, c});
  auto p = m.named_parameters();
  auto w = [&](const std::string& name) {
    for (auto& [k, t] : p)
      if (k == name) return t.detach();
    return Tensor();
  };
  // torch.nn.LSTM's documented step: gates i, f, g, o; c' = f c + i g; h' = (o tanh(c')) W_hr^T
  Tensor hs = h.select(0, 0), cs = c.select(0, 0);
  for (int64_t t = 0; t < 4; ++t) {
    Tensor gates = add(add(matmul(x.select(0, t), w("weight_ih_l0").t()), w("bias_ih_l0")),
                       add(matmul(hs, w("weight_hh_l0").t()), w("bias_hh_l0")));
    std::vector<Tensor> q = chunk(gates, 4, 1);
    cs = add(mul(sigmoid(q[1]), cs), mul(sigmoid(q[0]), tanh(q[2])));
    hs = matmul(mul(sigmoid(q[3]), tanh(cs)), w("weight_hr_l0").t());
    EXPECT_LT(max_diff(out.select(0, t), hs), 1e-12) << "step " << t;
  }
  EXPECT_LT(max_diff(hn.select(0, 0), hs), 1e-12);
  EXPECT_LT(max_diff(cn.select(0, 0), cs), 1e-12);
}

TEST(NnLstmProj, ConstructorErrorsAreTorchs) {
  EXPECT_THROW(nn::LSTM(3, 4, nn::RNNLayerOptions{.proj_size = 4}), ValueError);
  EXPECT_THROW(nn::LSTM(3, 4, nn::RNNLayerOptions{.proj_size = -1}), ValueError);
  try {
    nn::GRU(3, 4, nn::RNNLayerOptions{.proj_size = 2});
    FAIL() << "GRU accepted proj_size";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("proj_size argument is only supported for LSTM, not RNN or GRU"),
              std::string::npos);
  }
}
