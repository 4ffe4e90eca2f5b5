// The C++ API of the linear algebra ops (ember/ops/matmul.h, linalg.h): matmul's cases against a plain triple loop, the
// gradient of a matrix product, a solve, and the errors.
#include <gtest/gtest.h>

#include <vector>

#include "ember/autograd/engine.h"
#include "ember/ops.h"
#include "ember/parallel.h"

using namespace ember;

namespace {

template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = contiguous(t);
  const T* p = c.data<T>();
  return std::vector<T>(p, p + c.numel());
}

// a @ b for 2-d float64 tensors, by the definition.
std::vector<double> reference_mm(const Tensor& a, const Tensor& b) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const std::vector<double> x = values<double>(a), y = values<double>(b);
  std::vector<double> r(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) r[i * n + j] += x[i * k + p] * y[p * n + j];
  return r;
}

void expect_near(const std::vector<double>& a, const std::vector<double>& b, double tol = 1e-12) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "at " << i;
}

Tensor f64(IntArrayRef shape, uint64_t seed) {
  Generator g(kCPU, seed);
  return randn(shape, &g, TensorOptions(ScalarType::Float64));
}

}  // namespace

TEST(Linalg, MatmulMatchesTheDefinitionInEveryLayout) {
  const Tensor a = f64({{7, 5}}, 1), b = f64({{5, 6}}, 2);
  const std::vector<double> expected = reference_mm(a, b);
  expect_near(values<double>(matmul(a, b)), expected);
  expect_near(values<double>(mm(t(contiguous(t(a))), b)), expected);             // a column-major
  expect_near(values<double>(mm(a, t(contiguous(t(b))))), expected);             // b column-major
  expect_near(values<double>(mm(select(stack({a, a}, 2), 2, 0), b)), expected);  // a strided: copied
}

TEST(Linalg, MatmulCases) {
  const Tensor m = f64({{3, 4}}, 3), v = f64({{4}}, 4), w = f64({{3}}, 5);
  const Tensor mv_r = matmul(m, v);
  EXPECT_EQ(mv_r.sizes().size(), 1u);
  expect_near(values<double>(mv_r), reference_mm(m, reshape(v, {{4, 1}})));
  const Tensor vm = matmul(w, m);
  expect_near(values<double>(vm), reference_mm(reshape(w, {{1, 3}}), m));
  EXPECT_NEAR(matmul(v, v).item<double>(), values<double>(sum(mul(v, v)))[0], 1e-12);
  // batched with a broadcast batch dim: each matrix of the result is the 2-d product
  const Tensor a = f64({{2, 1, 3, 4}}, 6), b = f64({{3, 4, 2}}, 7);
  const Tensor r = matmul(a, b);
  ASSERT_EQ(std::vector<int64_t>(r.sizes().begin(), r.sizes().end()), (std::vector<int64_t>{2, 3, 3, 2}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      expect_near(values<double>(select(select(r, 0, i), 0, j)),
                  reference_mm(select(select(a, 0, i), 0, 0), select(b, 0, j)));
}

TEST(Linalg, MatmulGradient) {
  const Tensor a = f64({{3, 4}}, 8).set_requires_grad(true), b = f64({{4, 2}}, 9).set_requires_grad(true);
  sum(matmul(a, b)).backward();
  // d sum(a @ b) / da = ones @ b^T, / db = a^T @ ones
  expect_near(values<double>(a.grad()), values<double>(matmul(ones({{3, 2}}, ScalarType::Float64), t(b.detach()))));
  expect_near(values<double>(b.grad()), values<double>(matmul(t(a.detach()), ones({{3, 2}}, ScalarType::Float64))));
}

TEST(Linalg, IntegerMatmul) {
  const std::vector<int64_t> x{1, 2, 3, 4, 5, 6}, y{1, 0, -1, 2, 3, 1};
  const Tensor a = from_blob_copy(x.data(), ScalarType::Int64, {{2, 3}}, TensorOptions(ScalarType::Int64));
  const Tensor b = from_blob_copy(y.data(), ScalarType::Int64, {{3, 2}}, TensorOptions(ScalarType::Int64));
  EXPECT_EQ(values<int64_t>(mm(a, b)), (std::vector<int64_t>{8, 7, 17, 16}));
}

TEST(Linalg, SolveAndInverse) {
  const Tensor a = add(f64({{4, 4}}, 10), mul(eye(4, std::nullopt, ScalarType::Float64), 5.0)), b = f64({{4, 2}}, 11);
  expect_near(values<double>(matmul(a, linalg_solve(a, b))), values<double>(b), 1e-10);
  expect_near(values<double>(matmul(a, linalg_inv(a))), values<double>(eye(4, std::nullopt, ScalarType::Float64)),
              1e-10);
}

TEST(Linalg, Errors) {
  EXPECT_THROW(mm(zeros({{2, 3}}), zeros({{4, 5}})), Error);
  EXPECT_THROW(matmul(zeros({}), zeros({{2}})), Error);
  EXPECT_THROW(linalg_inv(zeros({{2, 2}})), Error);  // singular
  EXPECT_THROW(linalg_cholesky(neg(eye(2))), Error);
  try {
    mm(zeros({{2, 3}}), zeros({{4, 5}}));
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  }
}

TEST(Linalg, OpenBlasThreadsFollowEmber) {
  const int old = get_num_threads();
  set_num_threads(1);
  const Tensor a = f64({{300, 300}}, 12);
  const std::vector<double> one = values<double>(matmul(a, a));
  set_num_threads(2);
  expect_near(values<double>(matmul(a, a)), one, 1e-9);
  set_num_threads(old);
}
