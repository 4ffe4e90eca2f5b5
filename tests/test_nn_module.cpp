// The C++ frontend (ember/nn/modules/module.h, ember/nn/modules.h): registration and PyTorch's state_dict names,
// load_state_dict and its errors, train/eval, dtype conversion, and one training step that lowers the loss.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/pooling.h"
#include "ember/nn/functional/rnn.h"
#include "ember/nn/modules.h"
#include "ember/ops.h"
#include "ember/optim/optimizer.h"

using namespace ember;

namespace {

std::shared_ptr<nn::Sequential> small_cnn() {
  auto m = std::make_shared<nn::Sequential>();
  m->push_back(std::make_shared<nn::Conv2d>(nn::Conv2dOptions(1, 4, 3).padding(1)));
  m->push_back(std::make_shared<nn::BatchNorm2d>(4));
  m->push_back(std::make_shared<nn::ReLU>());
  m->push_back(std::make_shared<nn::Flatten>());
  m->push_back(std::make_shared<nn::Linear>(4 * 5 * 5, 3));
  return m;
}

// The first and last loss of `steps` plain SGD steps (lr 0.1) on one batch.
template <class M, class Loss>
std::pair<double, double> sgd_losses(M& m, Loss&& loss_fn, const Tensor& x, const Tensor& y, int steps = 20) {
  optim::SGD opt(m.parameters(), optim::SGDOptions(0.1));
  double first = 0, last = 0;
  for (int step = 0; step < steps; ++step) {
    Tensor loss = loss_fn(m.forward(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  return {first, last};
}

std::vector<std::string> keys(const nn::NamedTensors& v) {
  std::vector<std::string> r;
  for (auto& [k, t] : v) r.push_back(k);
  return r;
}

std::vector<DimVector> shapes(const nn::NamedTensors& v) {
  std::vector<DimVector> r;
  for (auto& [k, t] : v) r.emplace_back(t.sizes());
  return r;
}

bool same(const Tensor& a, const Tensor& b) {
  return DimVector(a.sizes()) == DimVector(b.sizes()) && all(eq(a, b)).item<bool>();
}

using Keys = std::vector<std::string>;
const Keys kRnnL0 = {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"};
const Keys kRnnL01 = {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                      "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"};
const Keys kCell = {"weight_ih", "weight_hh", "bias_ih", "bias_hh"};
const Keys kBn = {"weight", "bias", "running_mean", "running_var", "num_batches_tracked"};

}  // namespace

TEST(NnModule, StateDictNamesAreTorchs) {
  auto m = small_cnn();
  // What torch.nn.Sequential(Conv2d(1, 4, 3, padding=1), BatchNorm2d(4), ReLU(), Flatten(), Linear(100, 3)) has.
  EXPECT_EQ(keys(m->state_dict()),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                                      "1.num_batches_tracked", "4.weight", "4.bias"}));
  EXPECT_EQ(keys(m->named_parameters()),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "4.weight", "4.bias"}));
  auto lstm = std::make_shared<nn::LSTM>(3, 5, 2);
  EXPECT_EQ(keys(lstm->state_dict()),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l1",
                                      "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"}));
  EXPECT_EQ(m->state_dict()[0].second.sizes()[0], 4);
  EXPECT_EQ(std::string(nn::Linear(3, 4).repr()), "Linear(in_features=3, out_features=4, bias=True)");
}

TEST(NnModule, LoadStateDictCopiesValuesAndReportsErrors) {
  auto a = small_cnn(), b = small_cnn();
  b->load_state_dict(a->state_dict());
  for (size_t i = 0; i < a->parameters().size(); ++i)
    EXPECT_TRUE(all(eq(a->parameters()[i], b->parameters()[i])).item<bool>());
  auto sd = a->state_dict();
  sd.pop_back();
  try {
    b->load_state_dict(sd);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Missing key(s) in state_dict: \"4.bias\""), std::string::npos) << e.what();
  }
  b->load_state_dict(sd, /*strict=*/false);
  // A bad entry fails the whole load before anything is copied.
  auto c = small_cnn();
  const Tensor before = c->parameters()[0].clone();
  auto bad = a->state_dict();
  bad.back().second = zeros(DimVector{7});
  EXPECT_THROW(c->load_state_dict(bad), Error);
  EXPECT_TRUE(all(eq(c->parameters()[0], before)).item<bool>());
  EXPECT_FALSE(all(eq(a->parameters()[0], before)).item<bool>());
}

TEST(NnModule, TrainEvalAndDtype) {
  auto m = small_cnn();
  m->eval();
  for (auto& c : m->children()) EXPECT_FALSE(c->is_training());
  m->train();
  EXPECT_TRUE(m->children()[1]->is_training());
  Tensor w = m->parameters()[0];
  m->to(ScalarType::Float64);
  EXPECT_EQ(w.dtype(), ScalarType::Float64);                        // the same tensor, converted in place
  EXPECT_EQ(m->state_dict()[6].second.dtype(), ScalarType::Int64);  // num_batches_tracked stays an integer
}

TEST(NnModule, TrainingStepsLowerTheLoss) {
  manual_seed(0);
  auto m = small_cnn();
  Tensor x = randn(DimVector{8, 1, 5, 5});
  Tensor y = randint(0, 3, DimVector{8});
  auto [first, last] = sgd_losses(
      *m, [](const Tensor& o, const Tensor& t) { return cross_entropy(o, t); }, x, y);
  EXPECT_LT(last, first * 0.5);
}

// Expected keys, shapes and reprs are what Debian's torch 2.x prints for the same torch.nn layers.
TEST(NnModuleExtra, StateDictNamesAndShapesAreTorchs) {
  EXPECT_EQ(keys(nn::Conv1d(nn::Conv1dOptions(2, 4, 3)).state_dict()), (Keys{"weight", "bias"}));
  EXPECT_EQ(shapes(nn::Conv1d(nn::Conv1dOptions(2, 4, 3)).state_dict()), (std::vector<DimVector>{{4, 2, 3}, {4}}));
  EXPECT_EQ(shapes(nn::Conv1d(nn::Conv1dOptions(2, 4, 3).groups(2).bias(false)).state_dict()),
            (std::vector<DimVector>{{4, 1, 3}}));
  EXPECT_EQ(keys(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, 3)).state_dict()), (Keys{"weight", "bias"}));
  EXPECT_EQ(shapes(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, 3)).state_dict()),
            (std::vector<DimVector>{{4, 6, 3, 3}, {6}}));
  EXPECT_EQ(shapes(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, 3).groups(2).bias(false)).state_dict()),
            (std::vector<DimVector>{{4, 3, 3, 3}}));
  EXPECT_EQ(keys(nn::BatchNorm1d(5).state_dict()), kBn);
  EXPECT_EQ(shapes(nn::BatchNorm1d(5).state_dict()), (std::vector<DimVector>{{5}, {5}, {5}, {5}, {}}));
  EXPECT_TRUE(nn::BatchNorm1d(5, 1e-5, 0.1, false, false).state_dict().empty());
  EXPECT_EQ(keys(nn::GroupNorm(2, 6).state_dict()), (Keys{"weight", "bias"}));
  EXPECT_TRUE(nn::GroupNorm(2, 6, 1e-5, false).state_dict().empty());

  EXPECT_EQ(keys(nn::GRU(3, 4).state_dict()), kRnnL0);
  EXPECT_EQ(shapes(nn::GRU(3, 4).state_dict()), (std::vector<DimVector>{{12, 3}, {12, 4}, {12}, {12}}));
  EXPECT_EQ(keys(nn::GRU(3, 4, 2, true).state_dict()), kRnnL01);
  EXPECT_EQ(shapes(nn::GRU(3, 4, 2, true).state_dict())[4], (DimVector{12, 4}));
  nn::RNNLayerOptions bi;
  bi.bidirectional = true;
  EXPECT_EQ(keys(nn::GRU(3, 4, bi).state_dict()),
            (Keys{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
                  "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"}));
  EXPECT_EQ(keys(nn::RNN(3, 4).state_dict()), kRnnL0);
  EXPECT_EQ(shapes(nn::RNN(3, 4).state_dict()), (std::vector<DimVector>{{4, 3}, {4, 4}, {4}, {4}}));
  EXPECT_EQ(keys(nn::RNN(3, 4, 2, false, "relu").state_dict()), kRnnL01);
  EXPECT_EQ(keys(nn::LSTMCell(3, 4).state_dict()), kCell);
  EXPECT_EQ(shapes(nn::LSTMCell(3, 4).state_dict()), (std::vector<DimVector>{{16, 3}, {16, 4}, {16}, {16}}));
  EXPECT_EQ(keys(nn::LSTMCell(3, 4, false).state_dict()), (Keys{"weight_ih", "weight_hh"}));
  EXPECT_EQ(keys(nn::GRUCell(3, 4).state_dict()), kCell);
  EXPECT_EQ(shapes(nn::GRUCell(3, 4).state_dict()), (std::vector<DimVector>{{12, 3}, {12, 4}, {12}, {12}}));
  EXPECT_EQ(keys(nn::RNNCell(3, 4).state_dict()), kCell);

  // Parameter-free layers have empty state_dicts; loss weights are buffers, as torch.nn's.
  EXPECT_TRUE(nn::Sigmoid().state_dict().empty());
  EXPECT_TRUE(nn::AvgPool2d(2).state_dict().empty());
  EXPECT_TRUE(nn::AdaptiveAvgPool2d(1).state_dict().empty());
  EXPECT_TRUE(nn::Dropout2d().state_dict().empty());
  EXPECT_TRUE(nn::CrossEntropyLoss().state_dict().empty());
  EXPECT_EQ(keys(nn::CrossEntropyLoss(ones(DimVector{3})).state_dict()), (Keys{"weight"}));
  EXPECT_EQ(keys(nn::NLLLoss(ones(DimVector{3})).state_dict()), (Keys{"weight"}));
  EXPECT_EQ(keys(nn::BCEWithLogitsLoss(ones(DimVector{3}), Reduction::Mean, ones(DimVector{3})).state_dict()),
            (Keys{"weight", "pos_weight"}));
  EXPECT_TRUE(nn::BCEWithLogitsLoss(ones(DimVector{3})).named_parameters().empty());

  // Nested in a Sequential, the keys are prefixed as torch.nn.Sequential's.
  auto seq = std::make_shared<nn::Sequential>();
  seq->push_back(std::make_shared<nn::Conv1d>(nn::Conv1dOptions(2, 4, 3)));
  seq->push_back(std::make_shared<nn::BatchNorm1d>(4));
  seq->push_back(std::make_shared<nn::GELU>());
  seq->push_back(std::make_shared<nn::Identity>());
  EXPECT_EQ(keys(seq->state_dict()), (Keys{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                           "1.running_var", "1.num_batches_tracked"}));
}

TEST(NnModuleExtra, ReprsAreTorchs) {
  EXPECT_EQ(nn::Sigmoid().repr(), "Sigmoid()");
  EXPECT_EQ(nn::GELU().repr(), "GELU(approximate='none')");
  EXPECT_EQ(nn::GELU("tanh").repr(), "GELU(approximate='tanh')");
  EXPECT_EQ(nn::SiLU().repr(), "SiLU()");
  EXPECT_EQ(nn::LeakyReLU().repr(), "LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(nn::LeakyReLU(0.2).repr(), "LeakyReLU(negative_slope=0.2)");
  EXPECT_EQ(nn::ELU().repr(), "ELU(alpha=1.0)");
  EXPECT_EQ(nn::ELU(0.5).repr(), "ELU(alpha=0.5)");
  EXPECT_EQ(nn::Softmax(1).repr(), "Softmax(dim=1)");
  EXPECT_EQ(nn::Softmax().repr(), "Softmax(dim=None)");
  EXPECT_EQ(nn::LogSoftmax(-1).repr(), "LogSoftmax(dim=-1)");
  EXPECT_EQ(nn::Identity().repr(), "Identity()");
  EXPECT_EQ(nn::Conv1d(nn::Conv1dOptions(2, 4, 3)).repr(), "Conv1d(2, 4, kernel_size=(3,), stride=(1,))");
  EXPECT_EQ(nn::Conv1d(nn::Conv1dOptions(2, 4, 3).stride(2).padding(1).dilation(2).groups(2).bias(false)).repr(),
            "Conv1d(2, 4, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), groups=2, bias=False)");
  EXPECT_EQ(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, 3)).repr(),
            "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(1, 1))");
  EXPECT_EQ(nn::ConvTranspose2d(
                nn::ConvTranspose2dOptions(4, 6, 3).stride(2).padding(1).output_padding(1).groups(2).bias(false))
                .repr(),
            "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1), groups=2, "
            "bias=False)");
  EXPECT_EQ(nn::BatchNorm1d(5).repr(),
            "BatchNorm1d(5, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
  EXPECT_EQ(nn::GroupNorm(2, 6).repr(), "GroupNorm(2, 6, eps=1e-05, affine=True)");
  EXPECT_EQ(nn::GroupNorm(2, 6, 1e-5, false).repr(), "GroupNorm(2, 6, eps=1e-05, affine=False)");
  EXPECT_EQ(nn::AvgPool2d(2).repr(), "AvgPool2d(kernel_size=2, stride=2, padding=0)");
  EXPECT_EQ(nn::AvgPool2d(3, 1, 1).repr(), "AvgPool2d(kernel_size=3, stride=1, padding=1)");
  EXPECT_EQ(nn::AdaptiveAvgPool2d(1).repr(), "AdaptiveAvgPool2d(output_size=1)");
  EXPECT_EQ(nn::AdaptiveAvgPool2d(DimVector{2, 3}).repr(), "AdaptiveAvgPool2d(output_size=(2, 3))");
  EXPECT_EQ(nn::GRU(3, 4).repr(), "GRU(3, 4)");
  EXPECT_EQ(nn::GRU(3, 4, 2, true).repr(), "GRU(3, 4, num_layers=2, batch_first=True)");
  nn::RNNLayerOptions o;
  o.bias = false;
  o.dropout = 0.5;
  o.bidirectional = true;
  EXPECT_EQ(nn::GRU(3, 4, o).repr(), "GRU(3, 4, bias=False, dropout=0.5, bidirectional=True)");
  EXPECT_EQ(nn::RNN(3, 4).repr(), "RNN(3, 4)");
  EXPECT_EQ(nn::RNN(3, 4, 2, false, "relu").repr(), "RNN(3, 4, num_layers=2)");
  EXPECT_EQ(nn::LSTMCell(3, 4).repr(), "LSTMCell(3, 4)");
  EXPECT_EQ(nn::LSTMCell(3, 4, false).repr(), "LSTMCell(3, 4, bias=False)");
  EXPECT_EQ(nn::GRUCell(3, 4, false).repr(), "GRUCell(3, 4, bias=False)");
  EXPECT_EQ(nn::RNNCell(3, 4, true, "relu").repr(), "RNNCell(3, 4, nonlinearity=relu)");
  EXPECT_EQ(nn::CrossEntropyLoss().repr(), "CrossEntropyLoss()");
  EXPECT_EQ(nn::MSELoss().repr(), "MSELoss()");
  EXPECT_EQ(nn::NLLLoss().repr(), "NLLLoss()");
  EXPECT_EQ(nn::L1Loss().repr(), "L1Loss()");
  EXPECT_EQ(nn::BCEWithLogitsLoss().repr(), "BCEWithLogitsLoss()");
  EXPECT_EQ(nn::Dropout2d().repr(), "Dropout2d(p=0.5, inplace=False)");
  EXPECT_EQ(nn::Dropout2d(0.3).repr(), "Dropout2d(p=0.3, inplace=False)");
  EXPECT_THROW(nn::GELU("exact"), Error);
  EXPECT_THROW(nn::RNN(3, 4, 1, false, "sigmoid"), Error);
  EXPECT_THROW(nn::GroupNorm(4, 6), Error);
}

TEST(NnModuleExtra, DefaultInitIsTorchs) {
  manual_seed(0);
  // Conv: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in from the weight's dim 1 (out / groups for a transposed
  // conv), the bias with the same bound; recurrent layers: U(-1/sqrt(hidden), 1/sqrt(hidden)); norms: ones, zeros.
  auto within = [](const Tensor& t, double bound) {
    return max(abs(t)).item<double>() <= bound && max(abs(t)).item<double>() > bound * 0.5;
  };
  nn::Conv1d c1(nn::Conv1dOptions(2, 4, 3));
  EXPECT_TRUE(within(c1.weight, 1 / std::sqrt(6.0)));
  nn::ConvTranspose2d ct(nn::ConvTranspose2dOptions(8, 6, 3).groups(2));
  EXPECT_TRUE(within(ct.weight, 1 / std::sqrt(27.0)));
  EXPECT_LE(max(abs(ct.bias)).item<double>(), 1 / std::sqrt(27.0));
  nn::GRU gru(3, 16);
  for (auto& p : gru.parameters()) EXPECT_TRUE(within(p, 0.25));
  nn::LSTMCell cell(3, 16);
  for (auto& p : cell.parameters()) EXPECT_TRUE(within(p, 0.25));
  nn::GroupNorm gn(2, 6);
  EXPECT_TRUE(same(gn.weight, ones(DimVector{6})));
  EXPECT_TRUE(same(gn.bias, zeros(DimVector{6})));
}

TEST(NnModuleExtra, ForwardsCallTheFunctionalOps) {
  manual_seed(0);
  Tensor x = randn(DimVector{2, 6, 5, 5});
  EXPECT_TRUE(same(nn::Sigmoid()(x), sigmoid(x)));
  EXPECT_TRUE(same(nn::GELU()(x), gelu(x)));
  EXPECT_TRUE(same(nn::GELU("tanh")(x), gelu(x, true)));
  EXPECT_TRUE(same(nn::SiLU()(x), silu(x)));
  EXPECT_TRUE(same(nn::LeakyReLU(0.2)(x), leaky_relu(x, 0.2)));
  EXPECT_TRUE(same(nn::ELU(0.5)(x), elu(x, 0.5)));
  EXPECT_TRUE(same(nn::Softmax(1)(x), softmax(x, 1)));
  EXPECT_TRUE(same(nn::Softmax()(x), softmax(x, 1)));  // implicit dim of a 4-d input: 1
  EXPECT_TRUE(same(nn::LogSoftmax(-1)(x), log_softmax(x, -1)));
  EXPECT_TRUE(same(nn::Identity()(x), x));

  nn::GroupNorm gn(3, 6);
  EXPECT_TRUE(same(gn(x), group_norm(x, 3, gn.weight, gn.bias)));
  nn::AvgPool2d ap(3, 1, 1);
  EXPECT_TRUE(same(ap(x), avg_pool2d(x, DimVector{3}, DimVector{1}, DimVector{1})));
  EXPECT_EQ(DimVector(nn::AvgPool2d(2)(x).sizes()), (DimVector{2, 6, 2, 2}));
  EXPECT_TRUE(same(nn::AdaptiveAvgPool2d(DimVector{2, 3})(x), adaptive_avg_pool2d(x, DimVector{2, 3})));
  EXPECT_EQ(DimVector(nn::AdaptiveAvgPool2d(1)(x).sizes()), (DimVector{2, 6, 1, 1}));

  nn::ConvTranspose2d ct(nn::ConvTranspose2dOptions(6, 4, 3).stride(2).padding(1).output_padding(1).groups(2));
  Tensor yt = ct(x);
  EXPECT_EQ(DimVector(yt.sizes()), (DimVector{2, 4, 10, 10}));
  EXPECT_TRUE(same(yt, conv_transpose2d(x, ct.weight, ct.bias, DimVector{2}, DimVector{1}, DimVector{1}, 2)));

  Tensor s = randn(DimVector{2, 2, 7});
  nn::Conv1d c1(nn::Conv1dOptions(2, 4, 3).padding(1));
  EXPECT_EQ(DimVector(c1(s).sizes()), (DimVector{2, 4, 7}));
  EXPECT_TRUE(same(c1(s), conv1d(s, c1.weight, c1.bias, DimVector{1}, DimVector{1})));

  // BatchNorm1d: training updates the running stats and the counter; eval uses the running stats.
  nn::BatchNorm1d bn(4);
  Tensor f = randn(DimVector{8, 4});
  Tensor rm = zeros(DimVector{4}), rv = ones(DimVector{4});
  EXPECT_TRUE(same(bn(f), batch_norm(f, rm, rv, bn.weight, bn.bias, true)));
  EXPECT_TRUE(same(bn.running_mean, rm));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);
  bn.eval();
  EXPECT_TRUE(same(bn(f), batch_norm(f, rm, rv, bn.weight, bn.bias, false)));
  EXPECT_EQ(DimVector(bn(randn(DimVector{2, 4, 5})).sizes()), (DimVector{2, 4, 5}));
  EXPECT_THROW(bn(x), Error);

  // Dropout2d: whole channels are zeroed or scaled by 1 / (1 - p); eval: the input.
  nn::Dropout2d d2;
  Tensor dy = d2(x);
  Tensor per_channel = amax(abs(dy - x * 2), DimVector{2, 3}) * amax(abs(dy), DimVector{2, 3});
  EXPECT_EQ(max(per_channel).item<double>(), 0.0);
  const double kept = sum(ne(amax(abs(dy), DimVector{2, 3}), 0)).item<double>();
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 12);
  d2.eval();
  EXPECT_TRUE(same(d2(x), x));
}

TEST(NnModuleExtra, RecurrentForwardsCallRnn) {
  manual_seed(0);
  Tensor x = randn(DimVector{5, 2, 3});  // [T, B, I]
  nn::GRU gru(3, 4, 2);
  auto [y, h, c] = gru.forward_with_state(x);
  EXPECT_EQ(DimVector(y.sizes()), (DimVector{5, 2, 4}));
  EXPECT_EQ(DimVector(h.sizes()), (DimVector{2, 2, 4}));
  EXPECT_FALSE(c.defined());
  RNNOptions o;
  o.mode = RNNMode::GRU;
  o.num_layers = 2;
  EXPECT_TRUE(same(y, std::get<0>(rnn(x, {}, gru.parameters(), o))));
  EXPECT_TRUE(same(gru(x), y));

  nn::RNNLayerOptions bo;
  bo.bidirectional = true;
  bo.batch_first = true;
  nn::RNN birnn(3, 4, bo, "relu");
  EXPECT_EQ(DimVector(birnn(x).sizes()), (DimVector{5, 2, 8}));
  RNNOptions ro;
  ro.mode = RNNMode::Relu;
  ro.bidirectional = true;
  ro.batch_first = true;
  EXPECT_TRUE(same(birnn(x), std::get<0>(rnn(x, {}, birnn.parameters(), ro))));

  Tensor xb = randn(DimVector{2, 3});
  nn::LSTMCell lc(3, 4);
  Tensor h0 = randn(DimVector{2, 4}), c0 = randn(DimVector{2, 4});
  auto [h1, c1] = lc.forward(xb, h0, c0);
  auto [eh, ec] = rnn_cell(RNNMode::LSTM, xb, h0, c0, lc.weight_ih, lc.weight_hh, lc.bias_ih, lc.bias_hh);
  EXPECT_TRUE(same(h1, eh));
  EXPECT_TRUE(same(c1, ec));
  EXPECT_EQ(DimVector(lc(xb).sizes()), (DimVector{2, 4}));
  nn::GRUCell gc(3, 4);
  EXPECT_TRUE(same(gc.forward(xb, h0),
                   rnn_cell(RNNMode::GRU, xb, h0, {}, gc.weight_ih, gc.weight_hh, gc.bias_ih, gc.bias_hh).first));
  EXPECT_EQ(DimVector(gc(randn(DimVector{3})).sizes()), (DimVector{4}));  // unbatched
}

TEST(NnModuleExtra, LossModules) {
  manual_seed(0);
  Tensor logits = randn(DimVector{6, 3}), cls = randint(0, 3, DimVector{6});
  Tensor w = rand(DimVector{3});
  EXPECT_TRUE(same(nn::CrossEntropyLoss()(logits, cls), cross_entropy(logits, cls)));
  EXPECT_TRUE(same(nn::CrossEntropyLoss(w, -100, Reduction::Sum, 0.1)(logits, cls),
                   cross_entropy(logits, cls, w, -100, Reduction::Sum, 0.1)));
  Tensor lp = log_softmax(logits, 1);
  EXPECT_TRUE(same(nn::NLLLoss(w)(lp, cls), nll_loss(lp, cls, w)));
  Tensor t = randn(DimVector{6, 3});
  EXPECT_TRUE(same(nn::MSELoss()(logits, t), mse_loss(logits, t)));
  EXPECT_EQ(DimVector(nn::MSELoss(Reduction::None)(logits, t).sizes()), (DimVector{6, 3}));
  EXPECT_TRUE(same(nn::L1Loss(Reduction::Sum)(logits, t), l1_loss(logits, t, Reduction::Sum)));
  Tensor bt = rand(DimVector{6, 3});
  EXPECT_TRUE(same(nn::BCEWithLogitsLoss(Tensor(), Reduction::Mean, w)(logits, bt),
                   binary_cross_entropy_with_logits(logits, bt, {}, Reduction::Mean, w)));
  // Through the base class; a loss has no one-input forward.
  std::shared_ptr<nn::LossModule> loss = std::make_shared<nn::CrossEntropyLoss>();
  EXPECT_TRUE(same(loss->forward(logits, cls), cross_entropy(logits, cls)));
  EXPECT_THROW(loss->forward(logits), NotImplementedError);
}

TEST(NnModuleExtra, TrainsAModelBuiltFromTheNewLayers) {
  manual_seed(0);
  auto m = std::make_shared<nn::Sequential>();
  m->push_back(std::make_shared<nn::Conv1d>(nn::Conv1dOptions(2, 8, 3).padding(1)));
  m->push_back(std::make_shared<nn::BatchNorm1d>(8));
  m->push_back(std::make_shared<nn::GELU>());
  m->push_back(std::make_shared<nn::Flatten>());
  m->push_back(std::make_shared<nn::Linear>(8 * 6, 3));
  nn::CrossEntropyLoss crit;
  Tensor x = randn(DimVector{8, 2, 6});
  Tensor y = randint(0, 3, DimVector{8});
  auto [first, last] = sgd_losses(*m, crit, x, y);
  EXPECT_LT(last, first * 0.5);
}

TEST(NnModule, BatchNorm3dChecksItsInputRank) {
  nn::BatchNorm3d bn(2);
  EXPECT_EQ(keys(bn.state_dict()),
            (std::vector<std::string>{"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}));
  EXPECT_THROW(bn.forward(zeros(DimVector{2, 2, 3, 3})), ValueError);
  Tensor x = randn(DimVector{2, 2, 1, 2, 3});
  Tensor y = bn.forward(x);
  // Training mode: each channel normalized over (N, D, H, W): mean 0.
  Tensor m = mean(y, DimVector{0, 2, 3, 4});
  EXPECT_LT(amax(abs(m)).item<double>(), 1e-5);
}

TEST(NnModule, ConvLayersShareOneTemplate) {
  nn::Conv3d c(nn::Conv3dOptions(2, 4, 3).padding(1).bias(false));
  EXPECT_EQ(keys(c.state_dict()), std::vector<std::string>{"weight"});
  EXPECT_EQ(shape_str(c.weight.sizes()), "[4, 2, 3, 3, 3]");
  EXPECT_EQ(c.repr(), "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1), bias=False)");
  Tensor x = randn(DimVector{1, 2, 4, 4, 4});
  EXPECT_TRUE(all(eq(c.forward(x), conv3d(x, c.weight, {}, DimVector{1, 1, 1}, DimVector{1, 1, 1}))).item<bool>());
  nn::Conv1d c1(nn::Conv1dOptions(3, 6, 5).stride(2).groups(3));
  EXPECT_EQ(c1.repr(), "Conv1d(3, 6, kernel_size=(5,), stride=(2,), groups=3)");
}
