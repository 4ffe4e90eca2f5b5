// The shape and indexing ops from C++: values against hand-computed results, the bounds errors of the index
// kernels, and the parallel paths (inputs above the grain size).
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "ember/ops.h"

using namespace ember;

namespace {

Tensor longs(std::vector<int64_t> v, IntArrayRef shape) {
  return from_blob_copy(v.data(), ScalarType::Int64, shape, TensorOptions(ScalarType::Int64));
}
Tensor longs(std::vector<int64_t> v) { return longs(v, {{static_cast<int64_t>(v.size())}}); }

std::vector<int64_t> values(const Tensor& t) {
  Tensor c = contiguous(to(t, ScalarType::Int64));
  const int64_t* p = c.data<int64_t>();
  return {p, p + c.numel()};
}
std::vector<int64_t> vec(IntArrayRef a) { return {a.begin(), a.end()}; }

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Shape, CatPromotesAndChecksShapes) {
  Tensor a = arange(6).view({{2, 3}}), b = ones({{1, 3}}, ScalarType::Float32);
  Tensor r = cat({a, b});
  EXPECT_EQ(r.dtype(), ScalarType::Float32);
  EXPECT_EQ(vec(r.sizes()), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(values(r), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 1, 1, 1}));
  EXPECT_EQ(error_of([&] {
              cat({a, ones({{2, 4}})}, 0);
            }),
            "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in "
            "the list.");
  EXPECT_THROW(cat({}), Error);
}

TEST(Shape, SplitChunkAndUnbindReturnViews) {
  Tensor t = arange(10);
  auto parts = split(t, 4);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(values(parts[2]), (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(parts[1].data_ptr(), static_cast<int64_t*>(t.data_ptr()) + 4);
  EXPECT_EQ(chunk(t, 4).size(), 4u);
  EXPECT_EQ(values(unbind(t.view({{2, 5}}), 1)[3]), (std::vector<int64_t>{3, 8}));
}

TEST(Shape, FlipRollRepeat) {
  Tensor t = arange(6).view({{2, 3}});
  EXPECT_EQ(values(flip(t, {{0, 1}})), (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(values(roll(t, {{1}}, {{1}})), (std::vector<int64_t>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(values(roll(t, {{-1}})), (std::vector<int64_t>{1, 2, 3, 4, 5, 0}));
  EXPECT_EQ(values(repeat(arange(2), {{2, 2}})), (std::vector<int64_t>{0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(values(repeat_interleave(arange(3), longs({1, 0, 2}))), (std::vector<int64_t>{0, 2, 2}));
  EXPECT_EQ(values(tril(ones({{2, 2}}))), (std::vector<int64_t>{1, 0, 1, 1}));
}

TEST(Index, GatherScatterRoundTrip) {
  Tensor src = arange(12).view({{3, 4}});
  Tensor idx = longs({3, 0, 1, 1, 2, 2}, {{3, 2}});
  Tensor g = gather(src, 1, idx);
  EXPECT_EQ(values(g), (std::vector<int64_t>{3, 0, 5, 5, 10, 10}));
  Tensor z = zeros({{3, 4}}, ScalarType::Int64);
  scatter_add_(z, 1, idx, g);
  EXPECT_EQ(values(z), (std::vector<int64_t>{0, 0, 0, 3, 0, 10, 0, 0, 0, 0, 20, 0}));
}

// PyTorch's types: gather and scatter raise RuntimeError (ember::Error), index_select and indexing IndexError.
TEST(Index, OutOfBoundsErrorNamesOpValueAndSize) {
  Tensor src = zeros({{3, 4}});
  auto is_index_error = [](auto f) {
    try {
      f();
    } catch (const IndexError&) {
      return true;
    } catch (const Error&) {
      return false;
    }
    ADD_FAILURE() << "no error";
    return false;
  };
  EXPECT_FALSE(is_index_error([&] { gather(src, 1, longs({0, 7}, {{1, 2}})); }));
  EXPECT_FALSE(is_index_error([&] { scatter(src, 0, longs({3}, {{1, 1}}), 1.0); }));
  EXPECT_TRUE(is_index_error([&] { index_select(src, 0, longs({5})); }));
  EXPECT_EQ(error_of([&] {
              gather(src, 1, longs({0, 7}, {{1, 2}}));
            }),
            "gather(): index 7 is out of bounds for dimension 1 with size 4");
  EXPECT_EQ(error_of([&] { index_select(src, 0, longs({5})); }),
            "index_select(): index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(error_of([&] {
              index(src, {longs({1}), longs({-5})});
            }),
            "index -5 is out of bounds for dimension 1 with size 4");
}

TEST(Index, AdvancedIndexingFollowsTheTranspositionRule) {
  Tensor t = arange(24).view({{2, 3, 4}});
  // adjacent indexed dims: the result dims replace them
  Tensor r = index(t, {Tensor(), longs({0, 2}), longs({1, 3})});
  EXPECT_EQ(vec(r.sizes()), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(r), (std::vector<int64_t>{1, 11, 13, 23}));
  // separated: they come first
  Tensor s = index(t, {longs({1, 0}), Tensor(), longs({0, -1})});
  EXPECT_EQ(vec(s.sizes()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(s), (std::vector<int64_t>{12, 16, 20, 3, 7, 11}));
  Tensor m = gt(t, 20);
  EXPECT_EQ(values(index(t, {m})), (std::vector<int64_t>{21, 22, 23}));
}

TEST(Index, IndexPutAccumulatesDuplicates) {
  Tensor t = zeros({{4}}, ScalarType::Int64);
  index_put_(t, {longs({1, 1, 3, 1})}, longs({1, 2, 3, 4}), /*accumulate=*/true);
  EXPECT_EQ(values(t), (std::vector<int64_t>{0, 7, 0, 3}));
  EXPECT_THROW(index_put_(t, {longs({4})}, longs({1})), IndexError);
  EXPECT_EQ(values(t), (std::vector<int64_t>{0, 7, 0, 3}));
}

TEST(Index, ParallelPathsMatchSerialResults) {
  const int64_t n = 200000;  // above the grain size: nonzero and scatter split their work
  Tensor x = remainder(arange(n), 7);
  Tensor nz = nonzero(x);
  int64_t expected = 0;
  for (int64_t i = 0; i < n; ++i) expected += i % 7 != 0;
  ASSERT_EQ(nz.sizes()[0], expected);
  std::vector<int64_t> got = values(nz);
  for (size_t k = 1; k < got.size(); ++k) ASSERT_LT(got[k - 1], got[k]);
  Tensor counts = zeros({{7, 100}}, ScalarType::Int64);
  scatter_add_(counts, 0, remainder(arange(n), 7).view({{n / 100, 100}}), ones({{n / 100, 100}}, ScalarType::Int64));
  for (int64_t v : values(counts)) EXPECT_NEAR(static_cast<double>(v), n / 700.0, 1.0);
  EXPECT_EQ(item(sum(counts)).to_int(), n);
}

TEST(Index, MasksAndTake) {
  Tensor t = arange(6).view({{2, 3}});
  Tensor m = from_blob_copy(std::vector<uint8_t>{1, 0, 1}.data(), ScalarType::Bool, {{3}}, ScalarType::Bool);
  EXPECT_EQ(values(masked_select(t, m)), (std::vector<int64_t>{0, 2, 3, 5}));
  EXPECT_EQ(values(masked_fill(t, m, -1)), (std::vector<int64_t>{-1, 1, -1, -1, 4, -1}));
  Tensor u = zeros({{2, 3}}, ScalarType::Int64);
  masked_scatter_(u, m, longs({7, 8, 9, 10}));
  EXPECT_EQ(values(u), (std::vector<int64_t>{7, 0, 8, 9, 0, 10}));
  EXPECT_EQ(values(take(t, longs({-1, 0, 4}))), (std::vector<int64_t>{5, 0, 4}));
  EXPECT_EQ(values(one_hot(longs({2, 0}))), (std::vector<int64_t>{0, 0, 1, 1, 0, 0}));
}
