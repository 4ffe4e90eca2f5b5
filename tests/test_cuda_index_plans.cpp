// Host-side logic of the CUDA indexing, sorting and spatial kernels (ember/backend/cuda/index_plans.h), checked
// without a GPU: the radix keys order values exactly as the CPU's sort does (NaN last, -0 == +0, 16-bit floats), the
// two-pass segmented sort built on them reproduces the CPU's stable per-slice order, the plan's geometry, and the
// resampling adjoint's gather lists sum exactly as the CPU's scatter does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "ember/backend/cuda/index_plans.h"
#include "ember/backend/kernels/nn/spatial.h"

using namespace ember;
using namespace ember::cuda;

namespace {

// The CPU's order (ember/backend/cpu/sort.cpp key_less): NaN above every number.
template <class T>
bool cpu_less(T a_, T b_) {
  const Acc<T> a = static_cast<Acc<T>>(a_), b = static_cast<Acc<T>>(b_);
  if constexpr (is_float_type<T>)
    return a < b || (b != b && a == a);
  else
    return a < b;
}

template <class T>
void expect_key_order(const std::vector<T>& values) {
  for (T a : values)
    for (T b : values) {
      EXPECT_EQ(cpu_less(a, b), radix_key(a) < radix_key(b))
          << static_cast<double>(static_cast<Acc<T>>(a)) << " vs " << static_cast<double>(static_cast<Acc<T>>(b));
      // descending: the complemented keys order as the CPU's key_greater
      EXPECT_EQ(cpu_less(b, a), static_cast<KeyOf<T>>(~radix_key(a)) < static_cast<KeyOf<T>>(~radix_key(b)));
    }
}

template <class T>
std::vector<T> float_values() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<T> v;
  for (double d : {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-3, -1e-3, 3e4, -3e4, inf, -inf, nan, -nan, 1e-7, -1e-7})
    v.push_back(static_cast<T>(d));
  return v;
}

TEST(CudaSortKeys, FloatsOrderAsTheCpu) {
  expect_key_order(float_values<float>());
  expect_key_order(float_values<double>());
  expect_key_order(float_values<Half>());
  expect_key_order(float_values<BFloat16>());
  // every NaN payload maps to the one largest key, and -0 to +0's key
  float other_nan;
  const uint32_t bits = 0xffc12345u;
  std::memcpy(&other_nan, &bits, 4);
  EXPECT_EQ(radix_key(other_nan), radix_key(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_EQ(radix_key(-0.0), radix_key(0.0));
}

TEST(CudaSortKeys, IntegersOrderAsTheCpu) {
  expect_key_order(std::vector<int8_t>{-128, -1, 0, 1, 127, 5});
  expect_key_order(std::vector<uint8_t>{0, 1, 127, 128, 255});
  expect_key_order(std::vector<int16_t>{-32768, -300, 0, 300, 32767});
  expect_key_order(
      std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -1, 0, 7, std::numeric_limits<int32_t>::max()});
  expect_key_order(
      std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -1, 0, 1, std::numeric_limits<int64_t>::max()});
  EXPECT_LT(radix_key(false), radix_key(true));
}

// nonzero's kernel writes element i's coordinates to row nonzero_row(scan, i): each nonzero element to its rank among
// the nonzero ones, zeros nowhere (row -1 was written before, an out-of-bounds store for a leading zero).
TEST(CudaNonzeroPlan, RowsAreTheRanksOfTheNonzeroElements) {
  for (const std::vector<int> flags : {std::vector<int>{0, 1, 1, 0, 0, 1}, std::vector<int>{1, 0, 1, 1},
                                       std::vector<int>{0, 0, 0}, std::vector<int>{1}, std::vector<int>{0}}) {
    std::vector<int64_t> scan(flags.size());
    int64_t sum = 0;
    for (size_t i = 0; i < flags.size(); ++i) scan[i] = sum += flags[i];
    int64_t rank = 0;
    for (size_t i = 0; i < flags.size(); ++i) {
      const int64_t row = nonzero_row(scan.data(), static_cast<int64_t>(i));
      if (flags[i])
        EXPECT_EQ(row, rank++) << i;
      else
        EXPECT_EQ(row, -1) << i;
    }
  }
}

TEST(CudaSortPlan, RowBits) {
  EXPECT_EQ(plan_sort(0, 5).row_bits, 0);
  EXPECT_EQ(plan_sort(1, 5).row_bits, 0);
  EXPECT_EQ(plan_sort(2, 5).row_bits, 1);
  EXPECT_EQ(plan_sort(3, 5).row_bits, 2);
  EXPECT_EQ(plan_sort(4, 5).row_bits, 2);
  EXPECT_EQ(plan_sort(5, 5).row_bits, 3);
  EXPECT_EQ(plan_sort(int64_t(1) << 32, 1).row_bits, 32);
  EXPECT_EQ(plan_sort((int64_t(1) << 32) + 1, 1).row_bits, 33);
  EXPECT_THROW(plan_sort(-1, 3), Error);
}

TEST(CudaSortPlan, RowBufferStrides) {
  EXPECT_EQ(row_buffer_strides(DimVector{2, 3, 4}, 10), (DimVector{30, 10, 1}));
  EXPECT_EQ(row_buffer_strides(DimVector{7}, 9), (DimVector{1}));
  EXPECT_EQ(row_buffer_strides(DimVector{2, 3, 1}, 1), (DimVector{3, 1, 1}));
}

// The device algorithm on the host: stable sort of all elements by key, then stable sort by row (the radix sorts
// are stable), against the CPU's per-row stable_sort.
template <class T>
void check_two_pass(const std::vector<T>& x, int64_t rows, int64_t n, bool descending) {
  const int64_t total = rows * n;
  std::vector<int64_t> order(total);
  std::iota(order.begin(), order.end(), 0);
  const KeyOf<T> flip = descending ? static_cast<KeyOf<T>>(~KeyOf<T>(0)) : KeyOf<T>(0);
  auto key = [&](int64_t i) { return static_cast<KeyOf<T>>(radix_key(x[i]) ^ flip); };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
  const int bits = plan_sort(rows, n).row_bits;
  if (bits) std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return a / n < b / n; });
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> pos(n);
    std::iota(pos.begin(), pos.end(), 0);
    std::stable_sort(pos.begin(), pos.end(), [&](int64_t a, int64_t b) {
      return descending ? cpu_less(x[r * n + b], x[r * n + a]) : cpu_less(x[r * n + a], x[r * n + b]);
    });
    for (int64_t j = 0; j < n; ++j) ASSERT_EQ(order[r * n + j] - r * n, pos[j]) << "row " << r << " position " << j;
  }
}

TEST(CudaSortPlan, TwoPassSegmentedSortIsTheCpusStableSort) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> small(-3, 3);
  for (auto [rows, n] : {std::pair<int64_t, int64_t>{1, 50}, {5, 17}, {33, 4}, {4, 1}}) {
    std::vector<float> xf(rows * n);
    std::vector<int16_t> xi(rows * n);
    for (int64_t i = 0; i < rows * n; ++i) {
      const int v = small(gen);
      xf[i] = v == 3 ? std::numeric_limits<float>::quiet_NaN() : v == 0 && i % 2 ? -0.0f : static_cast<float>(v);
      xi[i] = static_cast<int16_t>(v * 1000);
    }
    for (bool desc : {false, true}) {
      check_two_pass(xf, rows, n, desc);
      check_two_pass(xi, rows, n, desc);
    }
  }
}

// The CPU's resample_adjoint (ember/backend/cpu/spatial.cpp) for one line, against the gather over adjoint_taps.
TEST(CudaResamplePlan, AdjointGatherMatchesTheCpusScatter) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  ResampleTaps t;
  t.in_size = 9;
  t.out_size = 6;
  t.width = 4;
  for (int64_t o = 0; o < t.out_size; ++o)
    for (int64_t k = 0; k < t.width; ++k) {
      t.index.push_back(std::min<int64_t>(t.in_size - 1, (o * 3) / 2 + k));  // repeated indices at the edge
      t.weight.push_back(k == 3 && o % 2 ? 0.0 : u(gen));                    // and some zero weights
    }
  std::vector<float> g(t.out_size);
  for (float& v : g) v = static_cast<float>(u(gen));
  std::vector<float> cpu(t.in_size, 0.0f);
  for (int64_t o = 0; o < t.out_size; ++o)
    for (int64_t k = 0; k < t.width; ++k) {
      const float wt = static_cast<float>(t.weight[o * t.width + k]);
      if (wt == 0.0f) continue;
      cpu[t.index[o * t.width + k]] += g[o] * wt;
    }
  const AdjointTaps<float> a = adjoint_taps<float>(t);
  ASSERT_EQ(a.first.size(), static_cast<size_t>(t.in_size + 1));
  for (int64_t i = 0; i < t.in_size; ++i) {
    float acc = 0.0f;
    for (int64_t q = a.first[i]; q < a.first[i + 1]; ++q) acc += g[a.output[q]] * a.weight[q];
    EXPECT_EQ(acc, cpu[i]) << "input " << i;  // the same additions in the same order: bitwise equal
  }
  EXPECT_EQ(a.first.back(), static_cast<int64_t>(a.output.size()));
}

}  // namespace
