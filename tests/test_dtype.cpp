#include <gtest/gtest.h>

#include <cmath>

#include "ember/dtype.h"

using namespace ember;
using S = ScalarType;

// torch.promote_types for every pair, as PyTorch 2.15 prints it (rows and columns in enum order:
// b1 u1 i1 i2 i4 i8 f2 bf f4 f8, cf cd ch: complex64, complex128 and complex32).
TEST(DType, PromotionTableMatchesPyTorch) {
  const char* table[] = {
      "b1 u1 i1 i2 i4 i8 f2 bf f4 f8 cf cd ch", "u1 u1 i2 i2 i4 i8 f2 bf f4 f8 cf cd ch",
      "i1 i2 i1 i2 i4 i8 f2 bf f4 f8 cf cd ch", "i2 i2 i2 i2 i4 i8 f2 bf f4 f8 cf cd ch",
      "i4 i4 i4 i4 i4 i8 f2 bf f4 f8 cf cd ch", "i8 i8 i8 i8 i8 i8 f2 bf f4 f8 cf cd ch",
      "f2 f2 f2 f2 f2 f2 f2 f4 f4 f8 cf cd ch", "bf bf bf bf bf bf f4 bf f4 f8 cf cd cf",
      "f4 f4 f4 f4 f4 f4 f4 f4 f4 f8 cf cd cf", "f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 cd cd cd",
      "cf cf cf cf cf cf cf cf cf cd cf cd cf", "cd cd cd cd cd cd cd cd cd cd cd cd cd",
      "ch ch ch ch ch ch ch cf cf cd cf cd ch",
  };
  const char* codes[] = {"b1", "u1", "i1", "i2", "i4", "i8", "f2", "bf", "f4", "f8", "cf", "cd", "ch"};
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
  EXPECT_EQ(element_size(S::ComplexFloat), 8u);
  EXPECT_EQ(element_size(S::ComplexDouble), 16u);
  EXPECT_EQ(dtype_name(S::ComplexDouble), "complex128");
  EXPECT_FALSE(is_floating(S::ComplexFloat));
  EXPECT_TRUE(is_complex(S::ComplexFloat));
  EXPECT_TRUE(is_inexact(S::ComplexDouble));
  EXPECT_FALSE(can_cast(S::ComplexFloat, S::Float64));
  EXPECT_TRUE(can_cast(S::Float64, S::ComplexFloat));
  EXPECT_EQ(to_complex(S::Float64), S::ComplexDouble);
  EXPECT_EQ(to_complex(S::Float32), S::ComplexFloat);
  EXPECT_EQ(to_real(S::ComplexFloat), S::Float32);
  EXPECT_EQ(to_real(S::Int32), S::Int32);
  EXPECT_THROW(to_complex(S::Int32), Error);
  // complex32: float16 pairs (Note [complex32])
  EXPECT_EQ(element_size(S::ComplexHalf), 4u);
  EXPECT_EQ(dtype_name(S::ComplexHalf), "complex32");
  EXPECT_STREQ(type_label(S::ComplexHalf), "ComplexHalf");
  EXPECT_TRUE(is_complex(S::ComplexHalf) && is_inexact(S::ComplexHalf) && !is_floating(S::ComplexHalf));
  EXPECT_EQ(to_complex(S::Float16), S::ComplexHalf);
  EXPECT_EQ(to_complex(S::BFloat16), S::ComplexFloat);  // ember has no bcomplex32
  EXPECT_EQ(to_real(S::ComplexHalf), S::Float16);
  EXPECT_TRUE(can_cast(S::ComplexFloat, S::ComplexHalf));
  EXPECT_FALSE(can_cast(S::ComplexHalf, S::Float16));
  EXPECT_THROW(refuse_complex_half("sum_cpu", S::ComplexHalf), NotImplementedError);
  EXPECT_NO_THROW(refuse_complex_half("sum_cpu", S::ComplexFloat));
}

// The complex value type's arithmetic, against closed forms.
TEST(DType, ComplexArithmetic) {
  using C = Complex<double>;
  const C a(1, 2), b(3, -4);
  EXPECT_EQ(a + b, C(4, -2));
  EXPECT_EQ(a - b, C(-2, 6));
  EXPECT_EQ(a * b, C(11, 2));  // (1 + 2i)(3 - 4i) = 3 - 4i + 6i + 8
  const C q = a / b;           // (1 + 2i)(3 + 4i) / 25 = (-5 + 10i) / 25
  EXPECT_DOUBLE_EQ(q.re, -0.2);
  EXPECT_DOUBLE_EQ(q.im, 0.4);
  const C big = C(1e300, 1e300) / C(1e300, 1e300);  // Smith's scaling: no overflow to inf / inf
  EXPECT_DOUBLE_EQ(big.re, 1.0);
  EXPECT_DOUBLE_EQ(big.im, 0.0);
  EXPECT_EQ(conj(a), C(1, -2));
  const C z = C(1, 1) / C(0, 0);  // as PyTorch: inf + inf j
  EXPECT_TRUE(std::isinf(z.re) && std::isinf(z.im));
  EXPECT_EQ(Complex<float>(C(0.5, -0.25)), Complex<float>(0.5f, -0.25f));
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
