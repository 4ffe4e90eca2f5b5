// Autograd from C++ (ember/autograd/): backward and grad, second derivatives, hooks, grad mode, custom
// functions (Function<T>), in-place checks, and the errors. Values against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/autograd/function.h"
#include "ember/ops.h"
#include "test_values.h"

using namespace ember;
using autograd::TensorList;

namespace {

Tensor vec(std::vector<double> v, bool requires_grad = true) {
  Tensor t = from_blob_copy(v.data(), ScalarType::Float64, DimVector{static_cast<int64_t>(v.size())},
                            TensorOptions(ScalarType::Float64));
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

using ember::testing::values;

Tensor ones_of(const Tensor& t) { return ones_like(t); }

struct Cube : autograd::Function<Cube> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double scale) {
    ctx->save_for_backward({x});
    ctx->saved_data["scale"] = scale;
    return x * x * x * scale;
  }
  static TensorList backward(autograd::AutogradContext* ctx, TensorList g) {
    Tensor x = ctx->get_saved_variables()[0];
    const double scale = std::any_cast<double>(ctx->saved_data["scale"]);
    return {g[0] * x * x * (3 * scale), Tensor()};
  }
};

}  // namespace

TEST(Autograd, BackwardAccumulatesIntoLeaves) {
  Tensor x = vec({1, 2, 3});
  Tensor y = exp(x * x);
  y.backward(ones_of(y), /*retain_graph=*/true);
  y.backward(ones_of(y));
  const auto g = values(x.grad());
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(g[i], 2 * 2 * (i + 1) * std::exp((i + 1.0) * (i + 1)), 1e-9 * g[i]);
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "ExpBackward0");
}

TEST(Autograd, GradAndSecondDerivative) {
  Tensor x = vec({0.5, -1.5});
  Tensor y = x * x * x;
  TensorList g1 = autograd::grad({y}, {x}, {ones_of(y)}, {}, /*create_graph=*/true);
  TensorList g2 = autograd::grad({g1[0]}, {x}, {ones_of(y)});
  EXPECT_EQ(values(g1[0]), (std::vector<double>{0.75, 6.75}));
  EXPECT_EQ(values(g2[0]), (std::vector<double>{3.0, -9.0}));
  EXPECT_FALSE(x.grad().defined());
}

TEST(Autograd, BroadcastGradientIsReduced) {
  Tensor a = ones(DimVector{3, 1}, TensorOptions(ScalarType::Float64).requires_grad(true));
  Tensor b = vec({1, 2, 3, 4}).view(DimVector{1, 4});
  Tensor y = a * b;
  y.backward(ones_of(y));
  EXPECT_EQ(values(a.grad()), (std::vector<double>{10, 10, 10}));
}

TEST(Autograd, NoGradGuardAndThreads) {
  Tensor x = vec({1});
  {
    autograd::NoGradGuard guard;
    EXPECT_FALSE((x * 2).requires_grad());
    bool other = false;
    std::thread([&] { other = autograd::is_grad_enabled(); }).join();
    EXPECT_TRUE(other);  // thread-local: a new thread starts with grad mode on
  }
  EXPECT_TRUE((x * 2).requires_grad());
}

TEST(Autograd, HooksReplaceGradients) {
  Tensor x = vec({1, 2});
  Tensor h = x * 3.0;
  std::vector<double> seen;
  autograd::register_hook(h, [&](const Tensor& g) { return g * 10.0; });
  autograd::register_hook(h, [&](const Tensor& g) {
    seen = values(g);
    return Tensor();
  });
  auto remove = autograd::register_hook(x, [](const Tensor& g) { return g + 1.0; });
  h.backward(ones_of(h), true);
  EXPECT_EQ(seen, (std::vector<double>{10, 10}));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{31, 31}));
  remove();
  h.backward(ones_of(h));
  EXPECT_EQ(values(x.grad()), (std::vector<double>{61, 61}));
}

TEST(Autograd, CustomFunction) {
  Tensor x = vec({1, -2});
  Tensor y = Cube::apply(x, 2.0);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "CubeBackward");
  TensorList g = autograd::grad({y}, {x}, {ones_of(y)}, {}, true);
  EXPECT_EQ(values(g[0]), (std::vector<double>{6, 24}));
  TensorList gg = autograd::grad({g[0]}, {x}, {ones_of(y)});  // backward was recorded: differentiable again
  EXPECT_EQ(values(gg[0]), (std::vector<double>{12, -24}));
  autograd::NoGradGuard off;
  EXPECT_FALSE(Cube::apply(x, 1.0).requires_grad());
}

TEST(Autograd, FiniteDifferencesAgreeForAChain) {
  auto f = [](const Tensor& x) { return sigmoid(sin(x) * x + exp(x) / (x * x + 1.0)); };
  Tensor x = vec({0.3, -0.7, 1.9});
  Tensor y = f(x);
  y.backward(ones_of(y));
  const auto g = values(x.grad());
  const double eps = 1e-6;
  for (int i = 0; i < 3; ++i) {
    std::vector<double> p = values(x), m = values(x);
    p[i] += eps;
    m[i] -= eps;
    autograd::NoGradGuard off;
    const double num = (values(f(vec(p, false)))[i] - values(f(vec(m, false)))[i]) / (2 * eps);
    EXPECT_NEAR(g[i], num, 1e-7);
  }
}

// The message of the Error f throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Autograd, Errors) {
  Tensor x = vec({1, 2});
  EXPECT_NE(error_of([&] { binary_op(BinaryOp::Mul, x, 2.0, x); }).find("a leaf Variable that requires grad"),
            std::string::npos);
  Tensor y = exp(x);
  y.backward(ones_of(y));
  EXPECT_NE(error_of([&] { y.backward(ones_of(y)); }).find("backward through the graph a second time"),
            std::string::npos);
  Tensor z = exp(x), w = z * 2.0;
  binary_op(BinaryOp::Add, z, 1.0, z);  // ExpBackward0 saved z
  const std::string msg = error_of([&] { w.backward(ones_of(w)); });
  EXPECT_NE(msg.find("output 0 of ExpBackward0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is at version 1; expected version 0"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { (x * 2.0).backward(); }).find("grad can be implicitly created only for scalar outputs"),
            std::string::npos);
}
