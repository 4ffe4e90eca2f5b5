// The checked size arithmetic (Note [Checked size arithmetic]) and scalar conversion (Note [Checked scalar
// conversion]) helpers, against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "ember/error.h"
#include "ember/ops.h"
#include "ember/scalar_check.h"
#include "ember/sizes.h"

using namespace ember;

namespace {
constexpr int64_t k62 = int64_t(1) << 62;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// The message of the ember::Error f throws, or "" when it throws none.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(Sizes, Numel) {
  const int64_t a[] = {2, 3, 4};
  EXPECT_EQ(checked_numel(a, "op"), 24);
  EXPECT_EQ(checked_numel({}, "op"), 1);
  const int64_t zero_first[] = {0, k62, k62};
  EXPECT_EQ(checked_numel(zero_first, "op"), 0);
  const int64_t big[] = {int64_t(1) << 32, int64_t(1) << 32};
  EXPECT_TRUE(contains(error_of([&] { checked_numel(big, "op"); }), "op: the number of elements of shape"));
  const int64_t neg[] = {2, -1};
  EXPECT_EQ(error_of([&] { checked_numel(neg, "op"); }),
            "op: Trying to create tensor with negative dimension -1: [2, -1]");
}

TEST(Sizes, ContiguousStorageBytes) {
  const int64_t a[] = {2, 3};
  EXPECT_EQ(storage_nbytes(a, 4, "op"), 24);
  const int64_t edge[] = {int64_t(1) << 60};
  EXPECT_EQ(storage_nbytes(edge, 4, "op"), k62);               // 2**62 bytes fit
  EXPECT_EQ(error_of([&] { storage_nbytes(edge, 8, "op"); }),  // 2**63 bytes do not
            "op: Storage size calculation overflowed with sizes=[1152921504606846976]");
  const int64_t empty[] = {0, k62};
  EXPECT_EQ(storage_nbytes(empty, 8, "op"), 0);
}

TEST(Sizes, StridedStorageBytes) {
  // (offset + sum((size - 1) * stride) + 1) * itemsize
  const int64_t size[] = {2, 3}, stride[] = {5, 1};
  EXPECT_EQ(storage_nbytes(size, stride, 0, 4, "op"), (0 + 5 + 2 + 1) * 4);
  EXPECT_EQ(storage_nbytes(size, stride, 7, 2, "op"), (7 + 5 + 2 + 1) * 2);
  const int64_t bcast_size[] = {k62, 3}, bcast_stride[] = {0, 1};  // stride 0 reaches one row whatever the size
  EXPECT_EQ(storage_nbytes(bcast_size, bcast_stride, 0, 8, "op"), 24);
  const int64_t empty_size[] = {0, 3};  // nothing is reached: no bytes, whatever the offset (as PyTorch)
  EXPECT_EQ(storage_nbytes(empty_size, stride, k62, 8, "op"), 0);
  // The overflowing steps: the span of one dim, the sum of spans, the offset, the item size.
  const int64_t one[] = {2}, huge_stride[] = {kMax};
  EXPECT_EQ(error_of([&] { storage_nbytes(one, huge_stride, 0, 1, "op"); }),
            "op: Storage size calculation overflowed with sizes=[2] and strides=[9223372036854775807]");
  const int64_t two[] = {2, 2}, half_strides[] = {k62, k62};
  EXPECT_TRUE(contains(error_of([&] { storage_nbytes(two, half_strides, 0, 1, "op"); }), "overflowed"));
  const int64_t unit[] = {1};
  EXPECT_TRUE(contains(error_of([&] { storage_nbytes(unit, unit, kMax, 1, "op"); }), "overflowed"));
  EXPECT_TRUE(contains(error_of([&] { storage_nbytes(unit, unit, k62, 2, "op"); }), "overflowed"));
  EXPECT_EQ(storage_nbytes(unit, unit, k62 - 1, 1, "op"), k62);
  // Invalid geometry.
  const int64_t neg_stride[] = {-1};
  EXPECT_TRUE(contains(error_of([&] { storage_nbytes(one, neg_stride, 0, 1, "op"); }), "negative strides"));
  EXPECT_TRUE(contains(error_of([&] { storage_nbytes(one, unit, -1, 1, "op"); }), "invalid storage offset -1"));
  EXPECT_TRUE(contains(error_of([&] { storage_nbytes(two, unit, 0, 1, "op"); }), "mismatch in length"));
}

TEST(Sizes, CheckedProducts) {
  EXPECT_EQ(checked_mul(k62, 1, "op", "x"), k62);
  EXPECT_EQ(error_of([] { checked_mul(k62, 2, "op", "the area"); }),
            "op: the area overflowed (4611686018427387904 * 2)");
  EXPECT_EQ(checked_add(kMax - 1, 1, "op", "x"), kMax);
  EXPECT_EQ(error_of([] { checked_add(kMax, 1, "op", "the sum"); }),
            "op: the sum overflowed (9223372036854775807 + 1)");
}

TEST(Sizes, FactoriesAndViewsUseThem) {
  const int64_t huge[] = {k62};
  EXPECT_TRUE(contains(error_of([&] { empty(huge); }), "Storage size calculation overflowed"));
  Tensor x = arange(3.0);
  const int64_t one[] = {1};
  EXPECT_TRUE(contains(error_of([&] { as_strided(x, huge, one); }), "Storage size calculation overflowed"));
  const int64_t grid[] = {int64_t(1) << 32, int64_t(1) << 32};
  EXPECT_TRUE(contains(error_of([&] { expand(ones(one), grid); }), "numel: integer multiplication overflow"));
  EXPECT_EQ(expand(ones(one), huge).numel(), k62);
}

TEST(ScalarCheck, IntegerTargets) {
  auto ok = [](const Scalar& v, ScalarType t) { return error_of([&] { check_scalar_fits(v, t, "op"); }).empty(); };
  EXPECT_TRUE(ok(255, ScalarType::UInt8));
  EXPECT_FALSE(ok(256, ScalarType::UInt8));
  EXPECT_TRUE(ok(-255, ScalarType::UInt8));  // wraps, as PyTorch allows
  EXPECT_FALSE(ok(-256, ScalarType::UInt8));
  EXPECT_TRUE(ok(255.9, ScalarType::UInt8));  // [lowest, max + 1)
  EXPECT_FALSE(ok(-0.5, ScalarType::UInt8));
  EXPECT_TRUE(ok(-128, ScalarType::Int8));
  EXPECT_FALSE(ok(-128.5, ScalarType::Int8));
  EXPECT_FALSE(ok(std::nan(""), ScalarType::Int64));
  EXPECT_FALSE(ok(INFINITY, ScalarType::Int32));
  EXPECT_FALSE(ok(9223372036854775808.0, ScalarType::Int64));  // 2**63
  EXPECT_TRUE(ok(-9223372036854775808.0, ScalarType::Int64));
  EXPECT_TRUE(ok(true, ScalarType::Int8));
  EXPECT_TRUE(ok(1e300, ScalarType::Bool));
  EXPECT_EQ(error_of([] { check_scalar_fits(1000, ScalarType::Int8, "fill_"); }),
            "fill_: value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { check_scalar_fits(300, ScalarType::UInt8, "tensor", ScalarCheck::Tensor); }),
            "tensor: value cannot be converted to type uint8 without overflow");
}

TEST(ScalarCheck, FloatTargets) {
  auto ok = [](const Scalar& v, ScalarType t, ScalarCheck k = ScalarCheck::Fill) {
    return error_of([&] { check_scalar_fits(v, t, "op", k); }).empty();
  };
  EXPECT_FALSE(ok(1e300, ScalarType::Float32));
  EXPECT_TRUE(ok(1e300, ScalarType::Float32, ScalarCheck::Tensor));  // tensor() rounds to inf
  EXPECT_TRUE(ok(INFINITY, ScalarType::Float32));
  EXPECT_TRUE(ok(std::nan(""), ScalarType::Float32));
  EXPECT_TRUE(ok(3.4e38, ScalarType::Float32));
  EXPECT_TRUE(ok(1e300, ScalarType::Float16));
  EXPECT_TRUE(ok(1e300, ScalarType::Float64));
}
