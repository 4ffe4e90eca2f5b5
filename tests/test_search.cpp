// The C++ API of ember/ops/search.h and ember/ops/shape_more.h: the binary search (shared by the CPU and CUDA
// kernels) and a few of the compositions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/backend/math/search.h"
#include "ember/ops.h"
#include "ember/ops/search.h"
#include "ember/ops/shape_more.h"

using namespace ember;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = contiguous(t);
  const T* p = c.data<T>();
  return std::vector<T>(p, p + c.numel());
}

Tensor f64(std::vector<double> d, DimVector shape = {}) {
  if (shape.empty()) shape.push_back(static_cast<int64_t>(d.size()));
  return from_blob_copy(d.data(), ScalarType::Float64, shape, TensorOptions(ScalarType::Float64));
}

}  // namespace

TEST(Search, SharedBinarySearchMatchesPyTorchComparisons) {
  const double seq[] = {1, 2, 2, 5};
  EXPECT_EQ(math::search_row(seq, nullptr, 4, 2.0, false), 1);
  EXPECT_EQ(math::search_row(seq, nullptr, 4, 2.0, true), 3);
  EXPECT_EQ(math::search_row(seq, nullptr, 4, 0.0, false), 0);
  EXPECT_EQ(math::search_row(seq, nullptr, 4, 9.0, true), 4);
  EXPECT_EQ(math::search_row(seq, nullptr, 4, kNaN, false), 4);  // a NaN value goes past the end
  EXPECT_EQ(math::search_row(seq, nullptr, 0, 1.0, false), 0);
  const double unsorted[] = {5, 1, 2};
  const int64_t order[] = {1, 2, 0};
  EXPECT_EQ(math::search_row(unsorted, order, 3, 3.0, false), 2);
  const Half h[] = {Half(1.0f), Half(2.5f)};
  EXPECT_EQ(math::search_row(h, nullptr, 2, Half(2.5f), false), 1);
}

TEST(Search, BatchedSearchsortedAndBucketize) {
  const Tensor seq = f64({1, 3, 5, 0, 10, 20}, {2, 3});
  const Tensor v = f64({3, 6, 15, -1}, {2, 2});
  EXPECT_EQ(values<int64_t>(searchsorted(seq, v)), (std::vector<int64_t>{1, 3, 2, 0}));
  EXPECT_EQ(values<int64_t>(searchsorted(seq, v, false, true)), (std::vector<int64_t>{2, 3, 2, 0}));
  const Tensor r = bucketize(f64({0, 1, 4}), f64({1, 3, 5}), /*out_int32=*/true);
  EXPECT_EQ(r.dtype(), ScalarType::Int32);
  EXPECT_EQ(values<int32_t>(r), (std::vector<int32_t>{0, 0, 2}));
  EXPECT_THROW(searchsorted(seq, f64({1, 2, 3}, {3, 1})), Error);
  EXPECT_THROW(searchsorted(f64({1, 2}), f64({1}), false, true, "left"), Error);
}

TEST(Search, IsinBothPaths) {
  const Tensor e = f64({1, 2, kNaN, 4});
  EXPECT_EQ(values<bool>(isin(e, f64({4, kNaN}))), (std::vector<bool>{false, false, false, true}));
  std::vector<double> many(40, 7.0);
  many[3] = 2;
  many[9] = kNaN;
  EXPECT_EQ(values<bool>(isin(e, f64(many))), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(values<bool>(isin(e, f64(many), false, true)), (std::vector<bool>{true, false, true, true}));
}

TEST(ShapeMore, DiagKronQuantile) {
  EXPECT_EQ(values<double>(diag(f64({1, 2}), 1)), (std::vector<double>{0, 1, 0, 0, 0, 2, 0, 0, 0}));
  EXPECT_EQ(values<double>(kron(f64({1, 2}), f64({1, 10}))), (std::vector<double>{1, 10, 2, 20}));
  const Tensor q = quantile(f64({4, 1, 3, 2}), f64({0.4}));
  EXPECT_NEAR(values<double>(q)[0], 2.2, 1e-12);
  EXPECT_EQ(values<double>(cross(f64({1, 0, 0}), f64({0, 1, 0}))), (std::vector<double>{0, 0, 1}));
}

TEST(ShapeMore, InPlaceGeometryKeepsTheObject) {
  Tensor t = zeros({{2, 3}});
  const uint32_t v = t.version();
  const Tensor& r = t_(t);
  EXPECT_TRUE(r.is_same(t));
  EXPECT_EQ(t.sizes()[0], 3);
  EXPECT_EQ(t.version(), v + 1);
  resize_(t, {{4, 4}});
  EXPECT_EQ(t.numel(), 16);
  EXPECT_TRUE(t.is_contiguous());
}
