// The special functions from C++ (ember/ops/special.h): closed-form values of the gamma family, the Bessel and normal
// functions, the binary ops with numbers, frexp, and the windows. python/tests/test_special.py covers them against
// scipy; this checks the C++ API itself.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "ember/ops.h"
#include "ember/ops/special.h"
#include "test_values.h"

using namespace ember;

namespace {

using ember::testing::values;

Tensor f64(std::vector<double> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_blob_copy(v.data(), ScalarType::Float64, DimVector{n}, TensorOptions(ScalarType::Float64));
}

constexpr double kEulerGamma = 0.57721566490153286061, kPi = std::numbers::pi;

}  // namespace

TEST(Special, GammaFamilyClosedForms) {
  auto lg = values(lgamma(f64({1.0, 2.0, 0.5, 5.0})));
  EXPECT_NEAR(lg[0], 0.0, 1e-15);
  EXPECT_NEAR(lg[2], 0.5 * std::log(kPi), 1e-15);
  EXPECT_NEAR(lg[3], std::log(24.0), 1e-14);
  auto dg = values(digamma(f64({1.0, 0.5, 0.0, -1.0})));
  EXPECT_NEAR(dg[0], -kEulerGamma, 1e-15);
  EXPECT_NEAR(dg[1], -kEulerGamma - 2 * std::log(2.0), 1e-14);
  EXPECT_EQ(dg[2], -INFINITY);
  EXPECT_TRUE(std::isnan(dg[3]));
  auto tg = values(polygamma(1, f64({1.0, 0.5})));
  EXPECT_NEAR(tg[0], kPi * kPi / 6, 1e-14);
  EXPECT_NEAR(tg[1], kPi * kPi / 2, 1e-14);
  EXPECT_NEAR(values(polygamma(2, f64({1.0})))[0], -2 * 1.2020569031595942854, 1e-14);  // -2 zeta(3)
  EXPECT_NEAR(values(mvlgamma(f64({2.5}), 2))[0], std::lgamma(2.5) + std::lgamma(2.0) + 0.5 * std::log(kPi), 1e-14);
  EXPECT_THROW(polygamma(-1, f64({1.0})), Error);
  EXPECT_THROW(mvlgamma(f64({1.0}), 0), Error);
  EXPECT_EQ(lgamma(arange(3)).dtype(), default_dtype());  // integers compute in the default float dtype
}

TEST(Special, BesselNormalAndBinary) {
  EXPECT_NEAR(values(i0(f64({0.0})))[0], 1.0, 1e-16);
  EXPECT_NEAR(values(special_i1(f64({1.0})))[0], 0.56515910399248502721, 1e-15);
  EXPECT_NEAR(values(special_ndtr(f64({1.959963984540054})))[0], 0.975, 1e-15);
  EXPECT_NEAR(values(special_ndtri(f64({0.975})))[0], 1.959963984540054, 1e-14);
  EXPECT_NEAR(values(special_erfcx(f64({30.0})))[0], 0.018795888861416754, 1e-16);
  EXPECT_NEAR(values(xlogy(2.0, f64({3.0})))[0], 2 * std::log(3.0), 1e-15);
  EXPECT_EQ(values(xlogy(f64({0.0}), f64({0.0})))[0], 0.0);
  EXPECT_NEAR(values(special_zeta(2.0, f64({1.0})))[0], kPi * kPi / 6, 1e-14);
  EXPECT_NEAR(values(igamma(f64({1.0}), f64({2.0})))[0], 1 - std::exp(-2.0), 1e-15);
  EXPECT_NEAR(values(logaddexp(f64({1000.0}), f64({1000.0})))[0], 1000 + std::log(2.0), 1e-12);
  EXPECT_EQ(values(gcd(arange(0, 12, 3), full({}, 6)))[3], 3.0);  // gcd(9, 6)
  EXPECT_THROW(gcd(f64({1.0}), f64({1.0})), Error);
  EXPECT_EQ(float_power(arange(3), 2).dtype(), ScalarType::Float64);
}

TEST(Special, FrexpAndWindows) {
  auto [m, e] = frexp(f64({8.0, -0.375}));
  EXPECT_EQ(values(m), (std::vector<double>{0.5, -0.75}));
  EXPECT_EQ(e.dtype(), ScalarType::Int32);
  EXPECT_EQ(values(e), (std::vector<double>{4.0, -1.0}));
  auto w = values(hann_window(4, /*periodic=*/false, {ScalarType::Float64}));
  ASSERT_EQ(w.size(), 4u);
  EXPECT_NEAR(w[1], 0.75, 1e-15);
  EXPECT_EQ(hann_window(0).numel(), 0);
  EXPECT_EQ(values(kaiser_window(1)), std::vector<double>{1.0});
  EXPECT_THROW(bartlett_window(-1), Error);
  EXPECT_THROW(blackman_window(3, true, {ScalarType::Int64}), Error);
}
