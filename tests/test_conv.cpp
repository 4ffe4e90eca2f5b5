// Convolution and pooling from C++ (ember/nn/functional/conv.h, pooling.h): conv2d against a direct loop in float32
// (oneDNN) and float64 (im2col), its gradients, and max pooling with indices.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/pooling.h"
#include "ember/ops.h"
#include "test_values.h"

using namespace ember;

namespace {

using ember::testing::values;

Tensor filled(IntArrayRef shape, ScalarType dtype, double phase) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * i + phase);
  return from_blob_copy(v.data(), ScalarType::Float64, shape, TensorOptions(dtype));
}

// y[n, o, i, j] = b[o] + sum over c in o's group and (p, q) of
//                 x[n, c, i * s - pad + p * d, j * s - pad + q * d] * w[o, c, p, q]
std::vector<double> direct_conv2d(const Tensor& xt, const Tensor& wt, const Tensor& bt, int64_t s, int64_t pad,
                                  int64_t d, int64_t groups, std::vector<int64_t>& shape) {
  const auto x = values(xt), w = values(wt), b = values(bt);
  const int64_t N = xt.size(0), C = xt.size(1), H = xt.size(2), W = xt.size(3);
  const int64_t O = wt.size(0), Cg = wt.size(1), K = wt.size(2), L = wt.size(3), Og = O / groups;
  const int64_t Ho = (H + 2 * pad - d * (K - 1) - 1) / s + 1, Wo = (W + 2 * pad - d * (L - 1) - 1) / s + 1;
  shape = {N, O, Ho, Wo};
  std::vector<double> y(N * O * Ho * Wo);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < Ho; ++i)
        for (int64_t j = 0; j < Wo; ++j) {
          double acc = b[o];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t p = 0; p < K; ++p)
              for (int64_t q = 0; q < L; ++q) {
                const int64_t h = i * s - pad + p * d, v = j * s - pad + q * d;
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                acc += x[((n * C + (o / Og) * Cg + c) * H + h) * W + v] * w[((o * Cg + c) * K + p) * L + q];
              }
          y[((n * O + o) * Ho + i) * Wo + j] = acc;
        }
  return y;
}

void expect_near(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tol) << "at " << i;
}

}  // namespace

TEST(Conv, Conv2dMatchesDirectLoop) {
  struct Case {
    int64_t N, C, O, H, W, K, s, pad, d, groups;
  };
  for (const Case& k : {Case{2, 3, 4, 7, 6, 3, 1, 1, 1, 1}, Case{1, 4, 6, 9, 8, 3, 2, 1, 2, 2},
                        Case{2, 4, 4, 6, 6, 3, 1, 1, 1, 4}, Case{3, 16, 8, 12, 12, 3, 1, 1, 1, 1}}) {
    for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64}) {
      Tensor x = filled({{k.N, k.C, k.H, k.W}}, dt, 0.1);
      Tensor w = filled({{k.O, k.C / k.groups, k.K, k.K}}, dt, 0.7);
      Tensor b = filled({{k.O}}, dt, 1.3);
      std::vector<int64_t> shape;
      const auto ref = direct_conv2d(x, w, b, k.s, k.pad, k.d, k.groups, shape);
      Tensor y = conv2d(x, w, b, {{k.s}}, {{k.pad}}, {{k.d}}, k.groups);
      EXPECT_EQ(std::vector<int64_t>(y.sizes().begin(), y.sizes().end()), shape);
      EXPECT_EQ(y.dtype(), dt);
      expect_near(values(y), ref, dt == ScalarType::Float32 ? 1e-4 : 1e-12);
    }
  }
}

TEST(Conv, SamePaddingAndErrors) {
  Tensor x = filled({{1, 2, 5, 6}}, ScalarType::Float64, 0.0), w = filled({{3, 2, 3, 3}}, ScalarType::Float64, 0.5);
  std::vector<int64_t> shape;
  const auto ref = direct_conv2d(x, w, zeros({{3}}, ScalarType::Float64), 1, 1, 1, 1, shape);
  expect_near(values(conv2d(x, w, {}, {}, "same")), ref, 1e-12);
  try {
    conv2d(filled({{1, 4, 5, 5}}, ScalarType::Float32, 0), filled({{2, 3, 3, 3}}, ScalarType::Float32, 0));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "Given groups=1, weight of size [2, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 "
                 "channels, but got 4 channels instead");
  }
  EXPECT_THROW(conv2d(x, w, {}, {{2}}, "same"), Error);
}

TEST(Conv, GradientsMatchBetweenFloat32AndFloat64) {
  std::vector<std::vector<double>> grads[2];
  int i = 0;
  for (ScalarType dt : {ScalarType::Float32, ScalarType::Float64}) {
    Tensor x = filled({{2, 4, 6, 5}}, dt, 0.2), w = filled({{6, 2, 3, 3}}, dt, 0.9), b = filled({{6}}, dt, 0.4);
    for (const Tensor* t : {&x, &w, &b}) t->set_requires_grad(true);
    Tensor y = conv2d(x, w, b, {{2}}, {{1}}, {{1}}, 2);
    y.backward(filled(y.sizes(), dt, 2.0));
    for (const Tensor* t : {&x, &w, &b}) grads[i].push_back(values(t->grad()));
    ++i;
  }
  for (size_t k = 0; k < 3; ++k) expect_near(grads[0][k], grads[1][k], 1e-4);
}

// Note [Blocked weights]: the reordered weight kept from the second call at one version follows a raw write that
// bumps the version, and an in-place op.
TEST(Conv, KeptBlockedWeightsFollowTheWeightsBytes) {
  Tensor x = filled({{1, 16, 5, 5}}, ScalarType::Float32, 0.3), w = filled({{32, 16, 3, 3}}, ScalarType::Float32, 0.8);
  const Tensor b = zeros({{32}}, ScalarType::Float32);
  std::vector<int64_t> shape;
  for (int round = 0; round < 3; ++round) {
    const auto ref = direct_conv2d(x, w, b, 1, 1, 1, 1, shape);
    for (int call = 0; call < 3; ++call) expect_near(values(conv2d(x, w, {}, {{1}}, {{1}})), ref, 1e-4);
    if (round == 0) {
      float* p = w.data<float>();
      for (int64_t i = 0; i < w.numel(); ++i) p[i] = -2 * p[i] + 0.01f * static_cast<float>(i % 7);
      w.bump_version();
    } else {
      copy_(w, filled({{32, 16, 3, 3}}, ScalarType::Float32, 1.9 + round));
    }
  }
}

TEST(Pool, MaxPoolWithIndices) {
  std::vector<double> v{1, 5, 2, 0, 3, 4, 9, 8, 7, 6, 1, 2, 0, 1, 3, 2};
  Tensor x = from_blob_copy(v.data(), ScalarType::Float64, {{1, 1, 4, 4}}, TensorOptions(ScalarType::Float32));
  auto [out, idx] = max_pool2d_with_indices(x, {{2}});
  EXPECT_EQ(values(out), (std::vector<double>{5, 9, 7, 3}));
  EXPECT_EQ(values(idx), (std::vector<double>{1, 6, 8, 14}));
  EXPECT_EQ(values(avg_pool2d(x, {{2}})), (std::vector<double>{3.25, 4.75, 3.5, 2}));
  EXPECT_EQ(values(max_unpool2d(out, idx, {{2}})),
            (std::vector<double>{0, 5, 0, 0, 0, 0, 9, 0, 7, 0, 0, 0, 0, 0, 3, 0}));
}
