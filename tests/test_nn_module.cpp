// The C++ frontend (ember/nn/module.h, modules.h): registration and PyTorch's state_dict names, load_state_dict
// and its errors, train/eval, dtype conversion, and one training step that lowers the loss.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/nn/loss.h"
#include "ember/nn/modules.h"
#include "ember/ops.h"

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

std::vector<std::string> keys(const nn::NamedTensors& v) {
  std::vector<std::string> r;
  for (auto& [k, t] : v) r.push_back(k);
  return r;
}

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
}

TEST(NnModule, TrainEvalAndDtype) {
  auto m = small_cnn();
  m->eval();
  for (auto& c : m->children()) EXPECT_FALSE(c->is_training());
  m->train();
  EXPECT_TRUE(m->children()[1]->is_training());
  Tensor w = m->parameters()[0];
  m->to(ScalarType::Float64);
  EXPECT_EQ(w.dtype(), ScalarType::Float64);  // the same tensor, converted in place
  EXPECT_EQ(m->state_dict()[6].second.dtype(), ScalarType::Int64);  // num_batches_tracked stays an integer
}

TEST(NnModule, TrainingStepsLowerTheLoss) {
  manual_seed(0);
  auto m = small_cnn();
  Tensor x = randn(DimVector{8, 1, 5, 5});
  Tensor y = randint(0, 3, DimVector{8});
  double first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    Tensor loss = cross_entropy(m->forward(x), y);
    m->zero_grad();
    loss.backward();
    autograd::NoGradGuard no_grad;
    for (Tensor& p : m->parameters()) binary_op(BinaryOp::Sub, p, p.grad() * 0.1, p);
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first * 0.5);
}
