// Autograd hardening (issue 19): threads that mutate autograd metadata while the engine runs (Note [Autograd and
// threads] in ember/autograd/node.h), and the checks of what hooks return (Note [Hook results]). Values against
// closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/autograd/functions.h"
#include "ember/ops.h"
#include "test_values.h"

using namespace ember;
using ember::testing::values;

namespace {

Tensor leaf(std::vector<double> v) {
  Tensor t = from_blob_copy(v.data(), ScalarType::Float64, DimVector{static_cast<int64_t>(v.size())},
                            TensorOptions(ScalarType::Float64));
  t.set_requires_grad(true);
  return t;
}

template <class... F>
void run_threads(F&&... fns) {
  std::vector<std::thread> threads;
  (threads.emplace_back(std::forward<F>(fns)), ...);
  for (auto& t : threads) t.join();
}

}  // namespace

TEST(AutogradThreads, ConcurrentBackwardOnIndependentGraphsSumsExactlyIntoASharedLeaf) {
  Tensor w = leaf({1, 2, 3, 4});
  constexpr int kIter = 200;
  auto worker = [&](double c) {
    return [&w, c] {
      for (int i = 0; i < kIter; ++i) sum(w * c).backward();
    };
  };
  run_threads(worker(1), worker(2), worker(3), worker(4));
  for (double g : values(w.grad())) EXPECT_EQ(g, (1 + 2 + 3 + 4) * kIter);
}

TEST(AutogradThreads, GradSettersHooksAndRetainGradRaceWithTheEngine) {
  Tensor w = leaf({1, 2, 3});
  constexpr int kIter = 300;
  run_threads(
      [&] {
        for (int i = 0; i < kIter; ++i) sum(exp(w) * 2).backward();
      },
      [&] {
        for (int i = 0; i < kIter; ++i) {
          w.set_grad(Tensor());
          Tensor g = w.grad();
          if (g.defined()) EXPECT_EQ(g.numel(), 3);
          w.set_grad(zeros_like(w));
        }
      },
      [&] {
        for (int i = 0; i < kIter; ++i) {
          auto remove = autograd::register_hook(w, [](const Tensor& g) { return g * 1.0; });
          // The setter thread may clear .grad between the accumulation and this hook, so only its shape is checked.
          auto remove_post = autograd::register_post_accumulate_grad_hook(w, [](const Tensor& v) {
            Tensor g = v.grad();
            if (g.defined()) EXPECT_EQ(g.numel(), 3);
          });
          Tensor y = w * 3;
          y.retain_grad();
          auto remove_node = autograd::register_node_hook(*y.grad_fn(),
                                                          [](autograd::TensorList&, const autograd::TensorList&) {});
          remove();
          remove_post();
          remove_node();
        }
      });
  w.set_grad(Tensor());
  sum(exp(w) * 2).backward();
  const auto g = values(w.grad());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_DOUBLE_EQ(g[i], 2 * std::exp(static_cast<double>(i + 1)));
}

TEST(AutogradThreads, AccumulatorNeverRevivesADeadLeaf) {
  Tensor y;
  std::shared_ptr<autograd::Node> acc;
  {
    Tensor w = leaf({1, 2});
    y = sum(w * w);
    acc = y.grad_fn()->next_edges[0].fn->next_edges[0].fn;  // MulBackward0 -> AccumulateGrad
    ASSERT_TRUE(acc->is_accumulate_grad());
    EXPECT_TRUE(static_cast<autograd::AccumulateGrad&>(*acc).variable().is_same(w));
  }
  EXPECT_FALSE(static_cast<autograd::AccumulateGrad&>(*acc).variable().defined());
  y.backward();  // the gradient of a dead leaf is dropped
}

TEST(AutogradThreads, TryRetainFailsOnceTheCountReachedZero) {
  struct Counted : RefCounted {};
  Counted dying;  // a count of zero: what a tensor's destructor runs with
  EXPECT_FALSE(dying.try_retain());
  EXPECT_EQ(dying.use_count(), 0u);
  Tensor t = zeros(DimVector{2});
  TensorImpl* p = t.impl();
  ASSERT_TRUE(p->try_retain());
  EXPECT_EQ(p->use_count(), 2u);
  Tensor again(IntrusivePtr<TensorImpl>::adopt(p));
  EXPECT_TRUE(again.is_same(t));
}

// ---- what hooks return (Note [Hook results])

TEST(AutogradHooks, TensorHookResultOfAnotherSizeOrDtypeRaisesNamingTheHook) {
  Tensor x = leaf({1, 2, 3});
  auto remove = autograd::register_hook(
      x, [](const Tensor&) { return ones(DimVector{5}, ScalarType::Float64); }, "widen");
  try {
    sum(x).backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "hook 'widen' has changed the size of value");
  }
  remove();
  Tensor y = x * 2;
  autograd::register_hook(y, [](const Tensor&) { return ones(DimVector{3}, ScalarType::Float32); });
  try {
    sum(y).backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "hook 'hook' has changed the type of value (was ember.DoubleTensor got ember.FloatTensor)");
  }
  EXPECT_FALSE(x.grad().defined());
}

TEST(AutogradHooks, NodeHookResultsAreCheckedForCountAndNone) {
  Tensor x = leaf({1, 2});
  Tensor c = ones(DimVector{2}, ScalarType::Float64);
  Tensor y = x * c;
  ASSERT_EQ(y.grad_fn()->next_edges.size(), 2u);
  autograd::register_node_hook(*y.grad_fn(),
                               [](autograd::TensorList& gin, const autograd::TensorList&) { gin.pop_back(); });
  EXPECT_THROW(
      {
        try {
          sum(y).backward();
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "hook 'hook' has returned an incorrect number of values (got 1, but expected 2)");
          throw;
        }
      },
      Error);
  Tensor z = x * c;
  autograd::register_node_hook(*z.grad_fn(), [](autograd::TensorList& gin, const autograd::TensorList&) {
    gin[1] = ones(DimVector{2}, ScalarType::Float64);  // c needs no gradient
  });
  EXPECT_THROW(sum(z).backward(), Error);
  Tensor v = x * c;
  autograd::register_node_hook(*v.grad_fn(), [](autograd::TensorList& gin, const autograd::TensorList&) {
    gin[0] = gin[0] * 5;  // a valid replacement
  });
  sum(v).backward();
  for (double g : values(x.grad())) EXPECT_EQ(g, 5.0);
}
