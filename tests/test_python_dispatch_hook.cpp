// The C++ side of __torch_dispatch__ (Note [Python dispatch] in ember/dispatch_hook.h): which ops offer their calls,
// under which ATen names and with which arguments, a hook's result replacing the op's, and the backward's ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "test_values.h"

using namespace ember;
using ember::testing::values;

namespace {

struct Seen {
  std::string op;
  size_t nargs;
};
std::vector<Seen> g_seen;
std::string g_replace;  // the op whose result the hook replaces with a tensor of 42s

std::optional<std::vector<Tensor>> recording_hook(const char* op, std::vector<dispatch::Value>& args) {
  g_seen.push_back({op, args.size()});
  if (g_replace == op) {
    const Tensor& first = std::get<Tensor>(args[0]);
    return std::vector<Tensor>{full_like(zeros({first.numel()}), 42.0)};
  }
  return std::nullopt;  // not taken: the op runs
}

// Installs the recording hook and turns the check on for one test.
class PythonDispatchHook : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = dispatch::g_hook;
    g_seen.clear();
    g_replace.clear();
    dispatch::g_hook = recording_hook;
    dispatch::g_enabled.fetch_add(1);
  }
  void TearDown() override {
    dispatch::g_enabled.fetch_sub(1);
    dispatch::g_hook = saved_;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> r;
    for (const auto& s : g_seen) r.push_back(s.op);
    return r;
  }
  dispatch::Hook saved_ = nullptr;
};

TEST(PythonDispatchOff, NothingIsOfferedWhileTheCounterIsZero) {
  ASSERT_EQ(dispatch::g_enabled.load(), 0);
  g_seen.clear();
  dispatch::Hook saved = dispatch::g_hook;
  dispatch::g_hook = recording_hook;
  Tensor r = add(ones({2}), ones({2}));
  dispatch::g_hook = saved;
  EXPECT_TRUE(g_seen.empty());
  EXPECT_EQ(values(r), (std::vector<double>{2.0, 2.0}));
}

TEST_F(PythonDispatchHook, ForwardOpsUnderAtenNames) {
  Tensor a = ones({2, 3}), b = ones({3, 2});
  Tensor y = sum(relu(mm(a, b)));
  std::vector<std::string> want = {"aten.mm.default", "aten.relu.default", "aten.sum.default"};
  EXPECT_EQ(names(), want);
  EXPECT_EQ(g_seen[0].nargs, 2u);                   // self, mat2
  EXPECT_EQ(values(y), std::vector<double>{12.0});  // reading the values converts them: aten._to_copy
  g_seen.clear();
  add(a, 2.0);
  gt(a, 0.0);
  mul(a, a);
  want = {"aten.add.Tensor", "aten.gt.Scalar", "aten.mul.Tensor"};
  EXPECT_EQ(names(), want);
  EXPECT_EQ(g_seen[0].nargs, 3u);  // self, other, alpha
}

TEST_F(PythonDispatchHook, AHookResultReplacesTheOp) {
  g_replace = "aten.exp.default";
  Tensor r = exp(zeros({3}));
  EXPECT_EQ(values(r), (std::vector<double>{42.0, 42.0, 42.0}));
}

TEST_F(PythonDispatchHook, TheBackwardsOpsAreOfferedToo) {
  Tensor w = ones({3, 2}).set_requires_grad(true);
  Tensor loss = sum(relu(mm(ones({4, 3}), w)));
  g_seen.clear();
  autograd::backward({loss});
  const std::vector<std::string> seen = names();
  auto count = [&](const std::string& n) { return std::count(seen.begin(), seen.end(), n); };
  EXPECT_EQ(count("aten.threshold_backward.default"), 1);
  EXPECT_GE(count("aten.mm.default"), 1);
  // d/dw sum(relu(1 w)) = 1^T 1 = 4 everywhere (all positive)
  EXPECT_EQ(values(w.grad()), std::vector<double>(6, 4.0));
}

// Note [Wrapper subclass safety]: a meta tensor whose storage has a token (a wrapper subclass's) is refused by the
// meta kernels of ops that are not offered, unless its autograd node is being recorded; a plain meta tensor is not.
TEST_F(PythonDispatchHook, MetaKernelsRefuseWrapperStorage) {
  Tensor plain = empty({3}, TensorOptions(ScalarType::Float32).device(kMeta));
  Tensor wrapper = empty({3}, TensorOptions(ScalarType::Float32).device(kMeta));
  char* token = new char(0);
  wrapper.impl()->storage()->set_external_data(token, [token] { delete token; });
  EXPECT_EQ(cumprod(plain, 0).sizes()[0], 3);
  try {
    cumprod(wrapper, 0);
    FAIL() << "cumprod of a wrapper's meta tensor ran";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("[scan] a tensor subclass made with _make_wrapper_subclass"),
              std::string::npos)
        << e.what();
  }
  dispatch::t_wrapper_recording = true;  // a wrapper op's autograd recording runs the op on the geometry
  EXPECT_EQ(cumprod(wrapper, 0).sizes()[0], 3);
  dispatch::t_wrapper_recording = false;
  dispatch::g_enabled.fetch_sub(1);  // no dispatch class alive: nothing is checked
  EXPECT_EQ(cumprod(wrapper, 0).sizes()[0], 3);
  dispatch::g_enabled.fetch_add(1);
}

}  // namespace
