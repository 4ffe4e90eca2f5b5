// The distribution samplers' C++ API (ember/ops/sampling.h): element i depends only on (seed, offset, i), also for
// the rejection samplers (Note [Rejection samplers]); parameter checks; the gamma gradient's known values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ember/ops.h"
#include "ember/ops/sampling.h"

using namespace ember;

TEST(Sampling, RejectionSamplersArePerElement) {
  // A prefix of a draw equals a shorter draw from the same state: no element reads another's words.
  Generator g;
  g.manual_seed(3);
  Tensor alpha = full({{64}}, 0.7, ScalarType::Float64);
  Tensor all = standard_gamma(alpha, &g);
  g.manual_seed(3);
  Tensor head = standard_gamma(full({{32}}, 0.7, ScalarType::Float64), &g);
  EXPECT_EQ(std::memcmp(all.data_ptr(), head.data_ptr(), 32 * sizeof(double)), 0);
  g.manual_seed(3);
  Tensor p = poisson(full({{64}}, 25.0, ScalarType::Float64), &g);
  g.manual_seed(3);
  Tensor p2 = poisson(full({{16}}, 25.0, ScalarType::Float64), &g);
  EXPECT_EQ(std::memcmp(p.data_ptr(), p2.data_ptr(), 16 * sizeof(double)), 0);
}

TEST(Sampling, SupportsAndChecks) {
  Generator g;
  g.manual_seed(5);
  Tensor b = binomial(full({{200}}, 30.0, ScalarType::Float64), full({{200}}, 0.25, ScalarType::Float64), &g);
  for (int64_t i = 0; i < 200; ++i) {
    const double v = b.data<double>()[i];
    EXPECT_TRUE(v >= 0 && v <= 30 && v == std::floor(v));
  }
  Tensor e = empty({{100}}, ScalarType::Float32);
  exponential_(e, 2.0, &g);
  for (int64_t i = 0; i < 100; ++i) EXPECT_GE(e.data<float>()[i], 0.0f);
  EXPECT_THROW(poisson(full({{2}}, -1.0, ScalarType::Float64), &g), Error);
  EXPECT_THROW(geometric_(e, 1.0, &g), Error);
  EXPECT_THROW(exponential_(empty({{2}}, ScalarType::Int64), 1.0, &g), Error);
}

TEST(Sampling, StandardGammaGradKnownValues) {
  // -(dP/dalpha) / pdf at alpha = 1, x = 0.5: PyTorch gives 0.8070
  Tensor r = standard_gamma_grad(full({{1}}, 1.0, ScalarType::Float64), full({{1}}, 0.5, ScalarType::Float64));
  EXPECT_NEAR(r.data<double>()[0], 0.8070, 1e-4);
}
