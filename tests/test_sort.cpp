// The C++ API of the sort op family (ember/ops/sort.h, scan.h, histogram.h, norm.h): scans, sorting, selection,
// counting and norms; the binary search of ember/ops/search.h (shared by the CPU and CUDA kernels) and a few ops of
// ember/ops/diagonal.h, products.h and split_stack.h.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/backend/math/search.h"
#include "ember/ops.h"
#include "ember/ops/diagonal.h"
#include "ember/ops/search.h"

using namespace ember;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = contiguous(t);
  const T* p = c.data<T>();
  return std::vector<T>(p, p + c.numel());
}

Tensor f32(std::initializer_list<double> v) {
  std::vector<float> d(v.begin(), v.end());
  return from_blob_copy(d.data(), ScalarType::Float32, {{static_cast<int64_t>(d.size())}}, {});
}

Tensor i64(std::initializer_list<int64_t> v) {
  std::vector<int64_t> d(v);
  return from_blob_copy(d.data(), ScalarType::Int64, {{static_cast<int64_t>(d.size())}},
                        TensorOptions(ScalarType::Int64));
}

Tensor f64(std::vector<double> d, DimVector shape = {}) {
  if (shape.empty()) shape.push_back(static_cast<int64_t>(d.size()));
  return from_blob_copy(d.data(), ScalarType::Float64, shape, TensorOptions(ScalarType::Float64));
}

}  // namespace

TEST(Sort, StableWithTiesAndNaNLast) {
  auto [v, i] = sort(f32({2, kNaN, 1, 2, 1}));
  const std::vector<float> sv = values<float>(v);
  EXPECT_EQ(std::vector<float>(sv.begin(), sv.begin() + 4), (std::vector<float>{1, 1, 2, 2}));
  EXPECT_TRUE(std::isnan(sv[4]));
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{2, 4, 0, 3, 1}));
  EXPECT_EQ(values<int64_t>(argsort(f32({2, kNaN, 1, 2, 1}), -1, true)), (std::vector<int64_t>{1, 0, 3, 2, 4}));
}

TEST(Sort, SortsEverySliceOfATransposedTensor) {
  Tensor x = arange(6.0).view({{2, 3}}).t();  // [[0, 3], [1, 4], [2, 5]]
  auto [v, i] = sort(x, 0, true);
  EXPECT_EQ(values<float>(v), (std::vector<float>{2, 5, 1, 4, 0, 3}));
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{2, 2, 1, 1, 0, 0}));
}

TEST(Sort, TopkAndKthvalueBreakTiesByPosition) {
  auto [v, i] = topk(i64({3, 1, 3, 2, 3}), 2);
  EXPECT_EQ(values<int64_t>(v), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{0, 2}));
  auto [kv, ki] = kthvalue(i64({3, 1, 3, 2, 3}), 4);
  EXPECT_EQ(kv.item<int64_t>(), 3);
  EXPECT_EQ(ki.item<int64_t>(), 2);
  EXPECT_THROW(topk(i64({1, 2}), 3), Error);
  EXPECT_THROW(kthvalue(i64({1, 2}), 0), Error);
}

TEST(Sort, MedianModeAndNaN) {
  EXPECT_EQ(median(i64({4, 1, 3, 2})).item<int64_t>(), 2);
  EXPECT_TRUE(std::isnan(median(f32({3, kNaN, 1})).item<double>()));
  EXPECT_EQ(nanmedian(f32({3, kNaN, 1})).item<double>(), 1.0);
  auto [mv, mi] = mode(i64({3, 1, 1, 2, 2, 5}));
  EXPECT_EQ(mv.item<int64_t>(), 1);
  EXPECT_EQ(mi.item<int64_t>(), 2);
  EXPECT_THROW(median(zeros({{0, 3}}), 0), IndexError);
}

TEST(Scan, CumsumPromotesIntegersAndCummaxTracksIndices) {
  Tensor x = from_blob_copy(std::vector<int8_t>{100, 100, 100}.data(), ScalarType::Int8, {{3}},
                            TensorOptions(ScalarType::Int8));
  Tensor s = cumsum(x, 0);
  EXPECT_EQ(s.dtype(), ScalarType::Int64);
  EXPECT_EQ(values<int64_t>(s), (std::vector<int64_t>{100, 200, 300}));
  cumsum_(x, 0);
  EXPECT_EQ(values<int8_t>(x), (std::vector<int8_t>{100, -56, 44}));
  auto [v, i] = cummax(i64({1, 3, 3, 2, 3}), 0);
  EXPECT_EQ(values<int64_t>(v), (std::vector<int64_t>{1, 3, 3, 3, 3}));
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{0, 1, 2, 2, 4}));
  EXPECT_THROW(cumsum(x, 1), IndexError);
  EXPECT_THROW(logcumsumexp(x, 0), Error);
}

TEST(Counting, UniqueBincountHistc) {
  UniqueResult u = unique(i64({3, 1, 2, 1, 3}), true, true);
  EXPECT_EQ(values<int64_t>(u.values), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(values<int64_t>(u.inverse), (std::vector<int64_t>{2, 0, 1, 0, 2}));
  EXPECT_EQ(values<int64_t>(u.counts), (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(values<int64_t>(bincount(i64({1, 1, 3}), {}, 5)), (std::vector<int64_t>{0, 2, 0, 1, 0}));
  EXPECT_THROW(bincount(i64({1, -1})), Error);
  EXPECT_EQ(values<float>(histc(f32({1, 2, 1, 5, -1}), 4, 0, 4)), (std::vector<float>{0, 2, 1, 0}));
}

TEST(Norms, VectorNormAndNorm) {
  EXPECT_EQ(linalg_vector_norm(f32({3, -4})).item<double>(), 5.0);
  EXPECT_EQ(linalg_vector_norm(f32({3, -4}), 1).item<double>(), 7.0);
  EXPECT_EQ(linalg_vector_norm(f32({3, -4, 0}), 0).item<double>(), 2.0);
  EXPECT_EQ(linalg_vector_norm(f32({3, -4}), -std::numeric_limits<double>::infinity()).item<double>(), 3.0);
  EXPECT_EQ(norm(f32({3, -4}), "fro").item<double>(), 5.0);
  EXPECT_EQ(norm(i64({3, 4}), 2.0, {}, false, ScalarType::Float64).dtype(), ScalarType::Float64);
  EXPECT_THROW(linalg_vector_norm(i64({3, 4})), Error);
  EXPECT_THROW(norm(f32({1}), "nuc"), NotImplementedError);
}

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
