// Complex tensors from C++ (ember/ops/complex.h and the elementwise, reduction and matmul ops on complex64/128):
// values against closed forms, the parts as views, promotion with complex Scalars, autograd's convention, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ops.h"

using namespace ember;

namespace {

using C = Complex<double>;

Tensor c128(std::vector<C> v) {
  const auto n = static_cast<int64_t>(v.size());
  return from_blob_copy(v.data(), ScalarType::ComplexDouble, DimVector{n}, TensorOptions(ScalarType::ComplexDouble));
}

std::vector<C> values(const Tensor& t) {
  const Tensor c = contiguous(to(resolve_conj(t), ScalarType::ComplexDouble));  // the values, not a conj view's memory
  const C* p = c.data<C>();
  return std::vector<C>(p, p + c.numel());
}

void expect_near(const std::vector<C>& got, const std::vector<C>& want, double tol = 1e-12) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].re, want[i].re, tol) << "element " << i;
    EXPECT_NEAR(got[i].im, want[i].im, tol) << "element " << i;
  }
}

}  // namespace

TEST(Complex, ArithmeticAndPromotion) {
  const Tensor a = c128({{1, 2}, {3, -4}}), b = c128({{0, 1}, {2, 2}});
  expect_near(values(add(a, b)), {{1, 3}, {5, -2}});
  expect_near(values(mul(a, b)), {{-2, 1}, {14, -2}});
  expect_near(values(div(a, b)), {{2, -1}, {-0.25, -1.75}});
  expect_near(values(mul(a, Scalar(C(0, 1)))), {{-2, 1}, {4, 3}});
  // an int tensor times a complex number is complex64; a float64 tensor's is complex128
  EXPECT_EQ(mul(arange(3, ScalarType::Int64), Scalar(C(0, 1))).dtype(), ScalarType::ComplexFloat);
  EXPECT_EQ(mul(ones(DimVector{2}, ScalarType::Float64), Scalar(C(0, 1))).dtype(), ScalarType::ComplexDouble);
  EXPECT_EQ(add(ones(DimVector{2}), a).dtype(), ScalarType::ComplexDouble);
}

TEST(Complex, PartsAreViews) {
  Tensor z = c128({{1, 2}, {3, 4}});
  Tensor re = real(z), im = imag(z);
  EXPECT_EQ(re.dtype(), ScalarType::Float64);
  EXPECT_EQ(re.strides()[0], 2);
  EXPECT_EQ(re.data_ptr(), z.data_ptr());
  im.fill_(Scalar(-1.0));
  expect_near(values(z), {{1, -1}, {3, -1}});
  Tensor r = view_as_real(z);
  EXPECT_EQ(DimVector(r.sizes()), (DimVector{2, 2}));
  EXPECT_EQ(view_as_complex(r).data_ptr(), z.data_ptr());
  expect_near(values(complex(ones(DimVector{2}, ScalarType::Float64), zeros(DimVector{2}, ScalarType::Float64))),
              {{1, 0}, {1, 0}});
  expect_near(values(conj(z)), {{1, 1}, {3, 1}});
  EXPECT_THROW(view_as_complex(zeros(DimVector{3})), Error);
  EXPECT_THROW(view_as_real(conj(z)), Error);
  EXPECT_THROW(imag(ones(DimVector{2})), TypeError);
}

TEST(Complex, UnaryReductionsAndMatmul) {
  const Tensor z = c128({{3, 4}, {0, M_PI}});
  const std::vector<double> mag = [&] {
    const Tensor a = abs(z);
    return std::vector<double>(a.data<double>(), a.data<double>() + 2);
  }();
  EXPECT_DOUBLE_EQ(mag[0], 5.0);
  EXPECT_DOUBLE_EQ(mag[1], M_PI);
  expect_near(values(exp(c128({{0, M_PI}}))), {{-1, 0}});  // Euler
  expect_near(values(sum(z, {}, false, std::nullopt)), {{3, 4 + M_PI}});
  expect_near(values(cumsum(z, 0, std::nullopt)), {{3, 4}, {3, 4 + M_PI}});
  // [[1, i], [2, 0]] @ [[i], [1]] = [[2i], [2i]]
  const Tensor m = reshape(c128({{1, 0}, {0, 1}, {2, 0}, {0, 0}}), DimVector{2, 2});
  const Tensor v = reshape(c128({{0, 1}, {1, 0}}), DimVector{2, 1});
  expect_near(values(matmul(m, v)), {{0, 2}, {0, 2}});
  expect_near(values(vdot(c128({{0, 1}}), c128({{0, 1}}))), {{1, 0}});  // conj(i) i = 1
  EXPECT_THROW(lt(z, z), NotImplementedError);
  EXPECT_THROW(amax(z, {}, false), NotImplementedError);
}

TEST(Complex, GradientConvention) {
  // L = |z|^2 summed: the gradient is dL/dre + i dL/dim = 2 z
  Tensor z = c128({{1, 1}, {2, -3}});
  z.set_requires_grad(true);
  Tensor loss = sum(real(mul(z, conj(z))), {}, false, std::nullopt);
  loss.backward();
  expect_near(values(z.grad()), {{2, 2}, {4, -6}});
}

// Note [The conjugate bit]: conj() is a view; kernels read it conjugated and in-place ops write through it.
TEST(Complex, ConjugateBit) {
  Tensor z = c128({{1, 2}, {3, 4}});
  Tensor c = conj(z);
  EXPECT_TRUE(c.is_conj());
  EXPECT_FALSE(z.is_conj());
  EXPECT_EQ(c.data_ptr(), z.data_ptr());
  EXPECT_FALSE(conj(c).is_conj());
  EXPECT_TRUE(select(c, 0, 1).is_conj());
  expect_near(values(add(c, z)), {{2, 0}, {6, 0}});
  expect_near(values(mul(c, c128({{0, 1}, {0, 1}}))), {{2, 1}, {4, 3}});
  EXPECT_EQ(item(select(c, 0, 0)).to<Complex<double>>(), (C{1, -2}));
  c += c128({{1, 1}, {1, 1}});  // c's values become (2 - i, 4 - 3i): z holds their conjugates
  expect_near(values(z), {{2, 1}, {4, 3}});
  EXPECT_FALSE(resolve_conj(c).is_conj());
  expect_near(values(conj_physical(c)), {{2, 1}, {4, 3}});
  Tensor r = ones(DimVector{2}, ScalarType::Float64);
  EXPECT_TRUE(conj(r).is_same(r));
}
