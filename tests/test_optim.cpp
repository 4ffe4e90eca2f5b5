// The C++ frontend's optimizers and schedulers (ember/optim/optimizer.h, scheduler.h): updates against scalar
// references written from the algorithms' definitions, param groups, state_dict round trips and their errors,
// the schedulers' closed forms, and training a small model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/generator.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/modules.h"
#include "ember/ops.h"
#include "ember/optim/fused.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/scheduler.h"
#include "test_values.h"

using namespace ember;

namespace {

using ember::testing::values;

Tensor vec(const std::vector<double>& v) {
  return from_blob_copy(v.data(), ScalarType::Float64, DimVector{int64_t(v.size())},
                        TensorOptions(ScalarType::Float64));
}

// Runs `steps` updates with the fixed gradient sequence g_k[i] = sin(k + i) and returns the parameter.
template <class Opt, class Options>
std::vector<double> run(Options o, int steps, std::vector<double> init = {0.5, -1.0, 2.0}) {
  Tensor p = vec(init);
  p.set_requires_grad(true);
  Opt opt({p}, o);
  for (int k = 0; k < steps; ++k) {
    std::vector<double> g;
    for (size_t i = 0; i < init.size(); ++i) g.push_back(std::sin(double(k + i)));
    p.set_grad(vec(g));
    opt.step();
  }
  return values(p);
}

double grad_at(int k, size_t i) { return std::sin(double(k + i)); }

}  // namespace

TEST(Optim, SGDMomentumNesterovMatchesTheDefinition) {
  const double lr = 0.1, mu = 0.9, wd = 0.01;
  auto got = run<optim::SGD>(optim::SGDOptions(lr).momentum(mu).nesterov(true).weight_decay(wd), 5);
  std::vector<double> p = {0.5, -1.0, 2.0}, buf(3);
  for (int k = 0; k < 5; ++k)
    for (size_t i = 0; i < 3; ++i) {
      const double g = grad_at(k, i) + wd * p[i];
      buf[i] = k == 0 ? g : mu * buf[i] + g;
      p[i] -= lr * (g + mu * buf[i]);
    }
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], p[i], 1e-12);
}

TEST(Optim, AdamAndAdamWMatchTheDefinition) {
  for (bool decoupled : {false, true}) {
    const double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.1;
    auto got = decoupled ? run<optim::AdamW>(optim::AdamWOptions(lr).weight_decay(wd), 7)
                         : run<optim::Adam>(optim::AdamOptions(lr).weight_decay(wd), 7);
    std::vector<double> p = {0.5, -1.0, 2.0}, m(3), v(3);
    for (int k = 0; k < 7; ++k)
      for (size_t i = 0; i < 3; ++i) {
        double g = grad_at(k, i);
        if (decoupled)
          p[i] *= 1 - lr * wd;
        else
          g += wd * p[i];
        m[i] = b1 * m[i] + (1 - b1) * g;
        v[i] = b2 * v[i] + (1 - b2) * g * g;
        // Kingma & Ba with PyTorch's placement of eps: m_hat / (sqrt(v_hat) + eps).
        const double mh = m[i] / (1 - std::pow(b1, k + 1)), vh = v[i] / (1 - std::pow(b2, k + 1));
        p[i] -= lr * mh / (std::sqrt(vh) + eps);
      }
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], p[i], 1e-12) << decoupled;
  }
}

TEST(Optim, RMSpropCenteredAndAdagradMatchTheDefinition) {
  {
    const double lr = 0.01, a = 0.99, eps = 1e-8, mu = 0.5;
    auto got = run<optim::RMSprop>(optim::RMSpropOptions(lr).centered(true).momentum(mu), 6);
    std::vector<double> p = {0.5, -1.0, 2.0}, sq(3), ga(3), buf(3);
    for (int k = 0; k < 6; ++k)
      for (size_t i = 0; i < 3; ++i) {
        const double g = grad_at(k, i);
        sq[i] = a * sq[i] + (1 - a) * g * g;
        ga[i] = a * ga[i] + (1 - a) * g;
        buf[i] = mu * buf[i] + g / (std::sqrt(sq[i] - ga[i] * ga[i]) + eps);
        p[i] -= lr * buf[i];
      }
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], p[i], 1e-12);
  }
  {
    const double lr = 0.1, decay = 0.01, init = 0.5, eps = 1e-10;
    auto got = run<optim::Adagrad>(optim::AdagradOptions(lr).lr_decay(decay).initial_accumulator_value(init), 6);
    std::vector<double> p = {0.5, -1.0, 2.0}, sum(3, init);
    for (int k = 0; k < 6; ++k)
      for (size_t i = 0; i < 3; ++i) {
        const double g = grad_at(k, i);
        sum[i] += g * g;
        p[i] -= lr / (1 + k * decay) * g / (std::sqrt(sum[i]) + eps);
      }
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], p[i], 1e-12);
  }
}

TEST(Optim, GroupsHaveTheirOwnOptionsAndParametersWithoutGradsStay) {
  Tensor a = vec({1.0}), b = vec({1.0}), c = vec({1.0});
  for (Tensor* t : {&a, &b, &c}) t->set_requires_grad(true);
  optim::SGD opt({a}, optim::SGDOptions(0.1));
  opt.add_param_group({b}, optim::SGDOptions(1.0));
  opt.add_param_group({c});
  a.set_grad(vec({1.0}));
  b.set_grad(vec({1.0}));
  opt.step();
  EXPECT_NEAR(values(a)[0], 0.9, 1e-15);
  EXPECT_NEAR(values(b)[0], 0.0, 1e-15);
  EXPECT_EQ(values(c)[0], 1.0);
  opt.zero_grad();
  EXPECT_FALSE(a.grad().defined());
  EXPECT_THROW(opt.add_param_group({a}), ValueError);
  EXPECT_THROW(optim::SGD({}, optim::SGDOptions(0.1)), ValueError);
  Tensor nonleaf = mul(a, a);
  EXPECT_THROW(optim::SGD({nonleaf}, optim::SGDOptions(0.1)), ValueError);
}

TEST(Optim, StateDictRoundTripResumesExactly) {
  auto make = [] {
    Tensor p = vec({0.5, -1.0, 2.0});
    p.set_requires_grad(true);
    return p;
  };
  auto steps = [](optim::Optimizer& opt, Tensor& p, int from, int to) {
    for (int k = from; k < to; ++k) {
      p.set_grad(vec({grad_at(k, 0), grad_at(k, 1), grad_at(k, 2)}));
      opt.step();
    }
  };
  Tensor straight = make();
  optim::Adam a1({straight}, optim::AdamOptions(0.01).amsgrad(true));
  steps(a1, straight, 0, 10);

  Tensor first = make();
  optim::Adam a2({first}, optim::AdamOptions(0.01).amsgrad(true));
  steps(a2, first, 0, 5);
  const auto saved = a2.state_dict();
  Tensor resumed = first.detach().clone();
  resumed.set_requires_grad(true);
  optim::Adam a3({resumed}, optim::AdamOptions(0.5).amsgrad(true));
  a3.load_state_dict(saved);
  EXPECT_EQ(a3.lr(0), 0.01);
  steps(a3, resumed, 5, 10);
  EXPECT_EQ(values(straight), values(resumed));

  optim::Adam bad({make()}, optim::AdamOptions(0.01));
  try {
    bad.load_state_dict({{"state.0.exp_avg", zeros(DimVector{5})},
                         {"bogus", zeros(DimVector{1})},
                         {"state.7.exp_avg", zeros(DimVector{3})}});
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'state.0.exp_avg' has shape [5] but parameter 0 has shape [3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("unexpected key 'bogus'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("unexpected key 'state.7.exp_avg'"), std::string::npos) << msg;
  }
  EXPECT_TRUE(bad.state_dict().size() == 1);  // only param_groups.0.lr: nothing was loaded
}

TEST(Optim, SchedulersFollowTheClosedForms) {
  Tensor p = vec({1.0});
  p.set_requires_grad(true);
  optim::SGD opt({p}, optim::SGDOptions(0.1));
  {
    optim::StepLR s(opt, 3, 0.5);
    for (int e = 1; e <= 10; ++e) {
      s.step();
      EXPECT_DOUBLE_EQ(opt.lr(0), 0.1 * std::pow(0.5, e / 3)) << e;
    }
  }
  opt.set_lr(0, 0.1);
  {
    optim::CosineAnnealingLR s(opt, 10, 0.001);
    for (int e = 1; e <= 10; ++e) {
      s.step();
      EXPECT_NEAR(opt.lr(0), 0.001 + (0.1 - 0.001) * (1 + std::cos(std::numbers::pi * e / 10)) / 2, 1e-15);
    }
  }
  opt.set_lr(0, 0.1);
  {
    optim::MultiStepLR s(opt, {2, 5}, 0.1);
    std::vector<double> want = {0.1, 0.01, 0.01, 0.01, 0.001, 0.001};
    for (int e = 1; e <= 6; ++e) {
      s.step();
      EXPECT_NEAR(opt.lr(0), want[e - 1], 1e-15) << e;
    }
  }
  opt.set_lr(0, 0.1);
  {
    optim::LinearLR s(opt, 0.5, 1.0, 4);
    EXPECT_NEAR(opt.lr(0), 0.05, 1e-15);
    for (int e = 1; e <= 6; ++e) s.step();
    EXPECT_NEAR(opt.lr(0), 0.1, 1e-15);
    EXPECT_THROW(optim::LinearLR(opt, 0.0), ValueError);
  }
  opt.set_lr(0, 0.1);
  {
    optim::ReduceLROnPlateau s(opt, optim::ReduceLROnPlateau::Mode::Min, 0.5, /*patience=*/1);
    for (double m : {1.0, 0.9, 0.9, 0.9}) s.step(m);  // two epochs without improvement > patience
    EXPECT_NEAR(opt.lr(0), 0.05, 1e-15);
  }
}

// The closed forms shared with the Python schedulers (ember._C._optim._lr_factor_*), against torch.optim's formulas
// written out here; a fractional epoch (Python's step(epoch)) rounds with Python's floor division.
TEST(Optim, ClosedFormFactorsArePyTorchs) {
  namespace f = optim::lr_factor;
  for (double e : {0.0, 1.0, 5.0, 6.0, 7.5, 29.0}) {
    EXPECT_EQ(f::step(e, 3, 0.5), std::pow(0.5, std::floor(e / 3))) << e;
    EXPECT_EQ(f::exponential(e, 0.9), std::pow(0.9, e)) << e;
    EXPECT_EQ(f::constant(e, 0.25, 6), e >= 6 ? 0.25 + 1.0 * (1 - 0.25) : 0.25) << e;
    EXPECT_EQ(f::linear(e, 0.1, 0.6, 12), 0.1 + (0.6 - 0.1) * std::min(12.0, e) / 12) << e;
    EXPECT_EQ(f::polynomial(e, 25, 2.0), std::pow(1.0 - std::min(25.0, e) / 25, 2.0)) << e;
    EXPECT_EQ(f::cosine(e, 10), (1 + std::cos(std::numbers::pi * e / 10)) / 2) << e;
  }
  EXPECT_EQ(f::step(-1, 3, 0.5), 2.0);       // -1 // 3 == -1
  EXPECT_EQ(f::step(1.0, 0.1, 2.0), 512.0);  // Python: 1 // 0.1 == 9.0 (fmod-based), while floor(1 / 0.1) == 10
  // A repeated milestone counts twice; the epoch equal to a milestone has passed it.
  EXPECT_EQ(f::multi_step(4, {2, 4, 4, 9}, 0.5), 0.125);
  EXPECT_EQ(f::multi_step(3.5, {2, 4, 4, 9}, 0.5), 0.5);
  EXPECT_EQ(f::multi_step(1, {2, 4, 4, 9}, 0.5), 1.0);
}

TEST(Optim, ConstantAndPolynomialSchedulers) {
  Tensor p = vec({1.0});
  p.set_requires_grad(true);
  optim::SGD opt({p}, optim::SGDOptions(0.1));
  {
    optim::ConstantLR s(opt, 0.5, 3);
    std::vector<double> want = {0.05, 0.05, 0.05, 0.1, 0.1};
    EXPECT_EQ(opt.lr(0), want[0]);
    for (size_t e = 1; e < want.size(); ++e) {
      s.step();
      EXPECT_DOUBLE_EQ(opt.lr(0), want[e]) << e;
    }
    EXPECT_THROW(optim::ConstantLR(opt, 1.5), ValueError);
  }
  opt.set_lr(0, 0.1);
  {
    optim::PolynomialLR s(opt, 4, 2.0);
    std::vector<double> want = {0.1, 0.05625, 0.025, 0.00625, 0.0, 0.0};
    EXPECT_EQ(opt.lr(0), want[0]);
    for (size_t e = 1; e < want.size(); ++e) {
      s.step();
      EXPECT_NEAR(opt.lr(0), want[e], 1e-16) << e;
    }
    EXPECT_THROW(optim::PolynomialLR(opt, 0), ValueError);
  }
}

TEST(Optim, TrainingWithAdamAndASchedulerLowersTheLoss) {
  manual_seed(0);
  auto model = std::make_shared<nn::Sequential>();
  model->push_back(std::make_shared<nn::Linear>(4, 16));
  model->push_back(std::make_shared<nn::Tanh>());
  model->push_back(std::make_shared<nn::Linear>(16, 1));
  Tensor x = randn(DimVector{64, 4});
  Tensor y = sum(mul(x, x), DimVector{1}, true);
  optim::Adam opt(model->parameters(), optim::AdamOptions(0.01));
  optim::StepLR sched(opt, 100, 0.5);
  double first = 0, last = 0;
  for (int i = 0; i < 300; ++i) {
    opt.zero_grad();
    Tensor loss = mse_loss(model->forward(x), y);
    autograd::backward({loss});
    opt.step();
    sched.step();
    (i == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first * 0.2);  // 26.8 -> 3.3 with these settings
  EXPECT_NEAR(opt.lr(0), 0.01 * 0.125, 1e-15);
}

// The fused Rprop and ASGD steps (ember.optim.Rprop / ASGD call them), against their definitions.
TEST(Optim, RpropStepMatchesTheDefinition) {
  const std::vector<double> init = {0.5, -1.0, 2.0, 0.0};
  Tensor p = vec(init), prev = vec({0, 0, 0, 0}), step_size = vec({0.1, 0.1, 0.1, 0.1}), steps = full({}, 0.0);
  const auto o = optim::RpropOptions(0.1).etas({0.5, 1.2}).step_sizes({0.01, 0.15});
  std::vector<double> ref = init, rprev(4, 0.0), rstep(4, 0.1);
  for (int k = 0; k < 6; ++k) {
    std::vector<double> g;
    for (size_t i = 0; i < 4; ++i) g.push_back(i == 3 ? 0.0 : std::sin(1.7 * k + double(i)));
    optim::rprop_step({p}, {vec(g)}, {prev}, {step_size}, {steps}, o);
    for (size_t i = 0; i < 4; ++i) {
      const double s = g[i] * rprev[i];
      rstep[i] = std::clamp(rstep[i] * (s > 0 ? 1.2 : s < 0 ? 0.5 : 1.0), 0.01, 0.15);
      const double kept = s < 0 ? 0.0 : g[i];
      ref[i] -= (kept > 0 ? 1.0 : kept < 0 ? -1.0 : 0.0) * rstep[i];
      rprev[i] = kept;
    }
  }
  const auto got = values(p), got_step = values(step_size);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(got[i], ref[i], 1e-12);
    EXPECT_NEAR(got_step[i], rstep[i], 1e-12);
  }
  EXPECT_EQ(item(steps).to<double>(), 6.0);
}

TEST(Optim, ASGDStepMatchesTheDefinitionAndAverages) {
  const double lr = 0.05, lambd = 0.01, alpha = 0.75, t0 = 2, wd = 0.1;
  Tensor p = vec({0.5, -1.0, 2.0}), ax = vec({0, 0, 0}), steps = full({}, 0.0);
  Tensor eta = full({}, Scalar(lr), TensorOptions(ScalarType::Float64));
  Tensor mu = full({}, 1.0, TensorOptions(ScalarType::Float64));
  const auto o = optim::ASGDOptions(lr).lambd(lambd).alpha(alpha).t0(t0).weight_decay(wd);
  std::vector<double> ref = {0.5, -1.0, 2.0}, rax(3, 0.0);
  double reta = lr, rmu = 1;
  for (int k = 0; k < 6; ++k) {
    std::vector<double> g;
    for (size_t i = 0; i < 3; ++i) g.push_back(grad_at(k, i));
    optim::asgd_step({p}, {vec(g)}, {ax}, {mu}, {eta}, {steps}, o);
    for (size_t i = 0; i < 3; ++i) {
      ref[i] = ref[i] * (1 - lambd * reta) - reta * (g[i] + wd * ref[i]);
      rax[i] = rmu == 1 ? ref[i] : rax[i] + (ref[i] - rax[i]) * rmu;
    }
    reta = lr / std::pow(1 + lambd * lr * (k + 1), alpha);
    rmu = 1 / std::max(1.0, k + 1 - t0);
  }
  const auto got = values(p), got_ax = values(ax);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(got[i], ref[i], 1e-12);
    EXPECT_NEAR(got_ax[i], rax[i], 1e-12);
  }
  EXPECT_NEAR(item(eta).to<double>(), reta, 1e-15);
  EXPECT_NEAR(item(mu).to<double>(), rmu, 1e-15);
}
