// Autocast from C++ (ember/autocast.h, Note [Autocast]): the thread-local state and guards, the per-device
// policies at the ops' entry points, the cast cache, backward with autocast disabled, and the GradScaler ops.
#include <gtest/gtest.h>

#include <thread>

#include "ember/amp.h"
#include "ember/autocast.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops.h"

using namespace ember;

namespace {

// Enables CPU autocast with a dtype for a scope, as Python's autocast("cpu") does.
struct CpuAutocast {
  explicit CpuAutocast(ScalarType dtype = ScalarType::BFloat16) : prev_dtype(autocast::get_dtype(DeviceType::CPU)) {
    autocast::set_enabled(DeviceType::CPU, true);
    autocast::set_dtype(DeviceType::CPU, dtype);
    autocast::increment_nesting();
  }
  ~CpuAutocast() {
    if (autocast::decrement_nesting() == 0) autocast::clear_cache();
    autocast::set_enabled(DeviceType::CPU, false);
    autocast::set_dtype(DeviceType::CPU, prev_dtype);
  }
  ScalarType prev_dtype;
};

Tensor f32(DimVector shape) { return ones(shape, TensorOptions(ScalarType::Float32)); }

}  // namespace

TEST(Autocast, PoliciesOnCpu) {
  EXPECT_FALSE(autocast::any_active());
  {
    CpuAutocast ac;
    EXPECT_TRUE(autocast::any_active());
    EXPECT_EQ(mm(f32({2, 3}), f32({3, 4})).dtype(),
              ScalarType::BFloat16);  // lower precision
    EXPECT_EQ(matmul(f32({2, 3}), f32({3})).dtype(), ScalarType::BFloat16);
    Tensor h = f32({2, 3}).to(ScalarType::BFloat16);
    EXPECT_EQ(prod(h).dtype(), ScalarType::Float32);  // float32
    EXPECT_EQ(exp(h).dtype(), ScalarType::BFloat16);  // CUDA-only float32 op
    EXPECT_EQ(cat({h, f32({2, 3})}).dtype(),
              ScalarType::Float32);  // widest input
    EXPECT_EQ(cat({h, h}).dtype(), ScalarType::BFloat16);
    Tensor d = ones(DimVector{2, 2}, TensorOptions(ScalarType::Float64));
    EXPECT_EQ(mm(d, d).dtype(), ScalarType::Float64);  // float64 untouched
    {
      autocast::ExcludeGuard g;
      EXPECT_FALSE(autocast::any_active());
      EXPECT_EQ(mm(f32({2, 2}), f32({2, 2})).dtype(), ScalarType::Float32);
    }
    {
      autocast::DisabledGuard g;
      EXPECT_FALSE(autocast::is_enabled(DeviceType::CPU));
    }
    EXPECT_TRUE(autocast::is_enabled(DeviceType::CPU));
  }
  EXPECT_EQ(mm(f32({2, 2}), f32({2, 2})).dtype(), ScalarType::Float32);
}

TEST(Autocast, CacheHoldsWeightsForTheRegion) {
  Tensor w = f32({3, 3});
  w.set_requires_grad(true);
  {
    CpuAutocast ac;
    mm(f32({2, 3}), w);
    mm(f32({2, 3}), w);
    EXPECT_EQ(autocast::cache_size(), 1u);
    mm(f32({2, 3}), f32({3, 3}));  // not a leaf that requires grad
    EXPECT_EQ(autocast::cache_size(), 1u);
  }
  EXPECT_EQ(autocast::cache_size(), 0u);
}

TEST(Autocast, ThreadLocal) {
  CpuAutocast ac;
  bool other = true;
  std::thread([&] { other = autocast::is_enabled(DeviceType::CPU); }).join();
  EXPECT_FALSE(other);
}

TEST(Autocast, BackwardGivesFloat32Gradients) {
  Tensor w = f32({3, 2});
  w.set_requires_grad(true);
  Tensor y;
  {
    CpuAutocast ac;
    y = mm(f32({4, 3}), w);
    EXPECT_EQ(y.dtype(), ScalarType::BFloat16);
    sum(y.to(ScalarType::Float32)).backward();
  }
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().dtype(), ScalarType::Float32);
  EXPECT_EQ(sum(w.grad()).item<double>(), 24.0);  // every entry is 4
}

TEST(GradScale, UnscaleAndUpdate) {
  Tensor g = full(DimVector{2}, 8.0, TensorOptions(ScalarType::Float32));
  Tensor found = zeros(DimVector{1}, TensorOptions(ScalarType::Float32));
  amp::foreach_non_finite_check_and_unscale_({g}, found, full(DimVector{1}, 0.25, TensorOptions(ScalarType::Float32)));
  EXPECT_EQ(sum(g).item<double>(), 4.0);
  EXPECT_EQ(found.item<double>(), 0.0);
  Tensor scale = full(DimVector{1}, 16.0, TensorOptions(ScalarType::Float32));
  Tensor tracker = zeros(DimVector{1}, TensorOptions(ScalarType::Int32));
  amp::update_scale_(scale, tracker, found, 2.0, 0.5, 2);
  EXPECT_EQ(scale.item<double>(), 16.0);
  EXPECT_EQ(tracker.item<int64_t>(), 1);
  amp::update_scale_(scale, tracker, found, 2.0, 0.5, 2);
  EXPECT_EQ(scale.item<double>(), 32.0);
  EXPECT_EQ(tracker.item<int64_t>(), 0);
  found.fill_(1.0);
  amp::update_scale_(scale, tracker, found, 2.0, 0.5, 2);
  EXPECT_EQ(scale.item<double>(), 16.0);
}
