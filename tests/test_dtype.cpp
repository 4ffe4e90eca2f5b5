#include <gtest/gtest.h>

#include <cmath>

#include "ember/dtype.h"

using namespace ember;
using S = ScalarType;

// torch.promote_types for every pair, as PyTorch 1.13 prints it (rows and columns in enum order:
// b1 u1 i1 i2 i4 i8 f2 bf f4 f8).
TEST(DType, PromotionTableMatchesPyTorch) {
  const char* table[] = {"b1 u1 i1 i2 i4 i8 f2 bf f4 f8", "u1 u1 i2 i2 i4 i8 f2 bf f4 f8",
                         "i1 i2 i1 i2 i4 i8 f2 bf f4 f8", "i2 i2 i2 i2 i4 i8 f2 bf f4 f8",
                         "i4 i4 i4 i4 i4 i8 f2 bf f4 f8", "i8 i8 i8 i8 i8 i8 f2 bf f4 f8",
                         "f2 f2 f2 f2 f2 f2 f2 f4 f4 f8", "bf bf bf bf bf bf f4 bf f4 f8",
                         "f4 f4 f4 f4 f4 f4 f4 f4 f4 f8", "f8 f8 f8 f8 f8 f8 f8 f8 f8 f8"};
  const char* codes[] = {"b1", "u1", "i1", "i2", "i4", "i8", "f2", "bf", "f4", "f8"};
  for (int a = 0; a < kNumScalarTypes; ++a)
    for (int b = 0; b < kNumScalarTypes; ++b) {
      std::string want(table[a] + 3 * b, 2);
      std::string got = codes[static_cast<int>(promote_types(static_cast<S>(a), static_cast<S>(b)))];
      EXPECT_EQ(got, want) << "promote_types(" << static_cast<S>(a) << ", " << static_cast<S>(b) << ")";
    }
}

TEST(DType, SizesAndNames) {
  EXPECT_EQ(element_size(S::BFloat16), 2u);
  EXPECT_EQ(element_size(S::Int64), 8u);
  EXPECT_EQ(dtype_name(S::Float16), "float16");
  EXPECT_TRUE(is_floating(S::BFloat16));
  EXPECT_FALSE(is_floating(S::Int64));
  EXPECT_TRUE(can_cast(S::Int32, S::Float32));
  EXPECT_FALSE(can_cast(S::Float32, S::Int32));
  EXPECT_FALSE(can_cast(S::Int8, S::Bool));
}

// Half and bfloat16 round to nearest even; checked against values computed by hand.
TEST(DType, HalfConversions) {
  EXPECT_EQ(Half(1.0f).x, 0x3c00);
  EXPECT_EQ(Half(-2.0f).x, 0xc000);
  EXPECT_EQ(Half(65504.0f).x, 0x7bff);
  EXPECT_EQ(Half(65520.0f).x, 0x7c00);            // rounds up to inf
  EXPECT_EQ(Half(5.9604645e-8f).x, 0x0001);       // smallest subnormal
  EXPECT_EQ(Half(1.0f + 1.0f / 2048).x, 0x3c00);  // tie rounds to even
  EXPECT_EQ(Half(1.0f + 3.0f / 2048).x, 0x3c02);
  EXPECT_FLOAT_EQ(static_cast<float>(Half::from_bits(0x3555)), 0.333251953125f);
  EXPECT_FLOAT_EQ(static_cast<float>(Half::from_bits(0x0001)), 5.9604645e-8f);
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::nanf("")))));
  EXPECT_EQ(BFloat16(1.0f).x, 0x3f80);
  EXPECT_EQ(BFloat16(1.00390625f).x, 0x3f80);  // tie to even
  EXPECT_EQ(BFloat16(1.01171875f).x, 0x3f82);
  EXPECT_FLOAT_EQ(static_cast<float>(BFloat16::from_bits(0x4049)), 3.140625f);
  // Every half value survives half -> float -> half.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7c00) == 0x7c00 && (b & 0x3ff)) continue;  // NaN payloads
    ASSERT_EQ(Half(static_cast<float>(Half::from_bits(static_cast<uint16_t>(b)))).x, b);
  }
}
