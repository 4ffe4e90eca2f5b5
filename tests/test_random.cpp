#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/backend/cpu/philox.h"
#include "ember/ops.h"

using namespace ember;

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, KnownAnswers) {
  Philox4x32 zero(0, 0);
  EXPECT_EQ(zero.v[0], 0x6627e8d5u);
  EXPECT_EQ(zero.v[1], 0xe169c58du);
  EXPECT_EQ(zero.v[2], 0xbc57ac4cu);
  EXPECT_EQ(zero.v[3], 0x9b00dbd8u);
}

// The bulk generator (eight or sixteen blocks per step) gives the block-at-a-time words, at any start and length,
// across a carry into the counter's high word, and for keys with both halves set.
TEST(Philox, BulkWordsMatchTheScalarGenerator) {
  for (PhiloxState s : {PhiloxState{0, 0}, PhiloxState{0x123456789abcdefull, 7}, PhiloxState{42, 0xFFFFFFFFull - 9}}) {
    for (uint64_t first : {0ull, 1ull, 3ull, 4ull, 61ull}) {
      for (int64_t n : {0, 1, 3, 4, 31, 64, 65, 200, 1000}) {
        std::vector<uint32_t> got(n + 1, 0xDEADBEEFu);
        cpu::philox_words(s, first, n, got.data());
        for (int64_t j = 0; j < n; ++j)
          ASSERT_EQ(got[j], philox_word(s, first + j))
              << "seed " << s.seed << " offset " << s.offset << " first " << first << " n " << n << " word " << j;
        EXPECT_EQ(got[n], 0xDEADBEEFu);  // nothing written past n
      }
    }
  }
}

TEST(Random, SameSeedSameNumbers) {
  Generator g1, g2;
  g1.manual_seed(42);
  g2.manual_seed(42);
  Tensor a = rand({{100}}, &g1), b = rand({{100}}, &g2);
  EXPECT_EQ(std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()), 0);
  Tensor c = rand({{100}}, &g1);  // the stream advanced
  EXPECT_NE(std::memcmp(a.data_ptr(), c.data_ptr(), a.nbytes()), 0);
}

// Element i's value depends only on (seed, offset, i): drawing 10 then 10 equals drawing 20 with
// the same generator state when the counts are multiples of the block size.
TEST(Random, CounterBasedStreams) {
  Generator g;
  g.manual_seed(7);
  Tensor all = rand({{8}}, &g);
  g.manual_seed(7);
  Tensor first = rand({{4}}, &g), second = rand({{4}}, &g);
  EXPECT_EQ(std::memcmp(all.data_ptr(), first.data_ptr(), 16), 0);
  EXPECT_EQ(std::memcmp(static_cast<char*>(all.data_ptr()) + 16, second.data_ptr(), 16), 0);
}

TEST(Random, UniformAndNormalMoments) {
  Generator g;
  g.manual_seed(0);
  const int n = 200000;
  for (ScalarType t : {ScalarType::Float32, ScalarType::Float64}) {
    Tensor u = to(rand({{n}}, &g, t), ScalarType::Float64), z = to(randn({{n}}, &g, t), ScalarType::Float64);
    const double* pu = u.data<double>();
    const double* pz = z.data<double>();
    double su = 0, su2 = 0, sz = 0, sz2 = 0, lo = 1, hi = 0;
    for (int i = 0; i < n; ++i) {
      su += pu[i];
      su2 += pu[i] * pu[i];
      sz += pz[i];
      sz2 += pz[i] * pz[i];
      lo = std::min(lo, pu[i]);
      hi = std::max(hi, pu[i]);
    }
    EXPECT_NEAR(su / n, 0.5, 0.005);
    EXPECT_NEAR(su2 / n - 0.25, 1.0 / 12, 0.002);
    EXPECT_GE(lo, 0.0);
    EXPECT_LT(hi, 1.0);
    EXPECT_NEAR(sz / n, 0.0, 0.01);
    EXPECT_NEAR(sz2 / n, 1.0, 0.01);
  }
}

TEST(Random, RandpermIsAPermutation) {
  Tensor p = randperm(1000);
  std::vector<int64_t> v(p.data<int64_t>(), p.data<int64_t>() + 1000);
  std::vector<int64_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(sorted[i], i);
  int fixed = 0;
  for (int i = 0; i < 1000; ++i) fixed += v[i] == i;
  EXPECT_LT(fixed, 10);  // a uniform permutation has about one fixed point
}

TEST(Random, RandintCoversTheRange) {
  Tensor r = randint(-3, 4, {{10000}});
  std::vector<int> count(7);
  for (int i = 0; i < 10000; ++i) {
    const int64_t v = r.data<int64_t>()[i];
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    ++count[v + 3];
  }
  for (int c : count) EXPECT_NEAR(c, 10000 / 7.0, 150);
}

TEST(Random, MultinomialFollowsTheWeights) {
  const double w[] = {0.0, 1.0, 3.0, 0.0};
  Tensor probs = from_blob_copy(w, ScalarType::Float64, {{4}}, ScalarType::Float32);
  Tensor s = multinomial(probs, 20000, /*replacement=*/true);
  int count[4] = {};
  for (int i = 0; i < 20000; ++i) ++count[s.data<int64_t>()[i]];
  EXPECT_EQ(count[0], 0);
  EXPECT_EQ(count[3], 0);
  EXPECT_NEAR(count[2] / 20000.0, 0.75, 0.015);
  Tensor nr = multinomial(probs, 2, /*replacement=*/false);
  std::vector<int64_t> v(nr.data<int64_t>(), nr.data<int64_t>() + 2);
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, (std::vector<int64_t>{1, 2}));
  EXPECT_THROW(multinomial(probs, 3, false), Error);  // only two categories have weight
}
