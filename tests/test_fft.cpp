// The FFT engine (ember/backend/cpu/fft_plan.h, Note [FFT engine]) against a naive DFT in long double, for every
// length 1..64 and lengths that reach each path: powers of two, smooth sizes, radices 7 and 11, generic primes and
// Bluestein's convolution (4099, 2^16 + 1); scalar and vector-lane execution, complex and real transforms. And the
// spectral ops of ember/ops/fft.h: round trips, batches along strided dims, and their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "ember/backend/cpu/fft_plan.h"
#include "ember/ops.h"
#include "ember/ops/fft.h"

using namespace ember;
using namespace ember::cpu::fft;

namespace {

using LC = std::complex<long double>;

// The DFT of x at the bins `bins` (all when empty), in long double with exact root indices (jk mod n).
std::vector<LC> naive_dft(const std::vector<LC>& x, bool forward, std::vector<int64_t> bins = {}) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (bins.empty())
    for (int64_t k = 0; k < n; ++k) bins.push_back(k);
  std::vector<LC> root(n);
  const long double two_pi = 6.283185307179586476925286766559005768L;
  for (int64_t m = 0; m < n; ++m) {
    const long double a = two_pi * static_cast<long double>(m) / static_cast<long double>(n);
    root[m] = LC(std::cos(a), forward ? -std::sin(a) : std::sin(a));
  }
  std::vector<LC> out;
  for (int64_t k : bins) {
    LC s = 0;
    for (int64_t j = 0; j < n; ++j) s += x[j] * root[(j * k) % n];
    out.push_back(s);
  }
  return out;
}

// ||got - want|| / ||want|| over the listed values.
template <class G>
double rel_error(const std::vector<LC>& want, G got) {
  long double e = 0, w = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    e += std::norm(got(k) - want[k]);
    w += std::norm(want[k]);
  }
  return w == 0 ? static_cast<double>(std::sqrt(e)) : static_cast<double>(std::sqrt(e / w));
}

template <class T>
double tolerance(int64_t n) {
  const double eps = std::is_same_v<T, float> ? 6e-8 : 1.2e-16;
  return eps * (8 + 4 * std::log2(static_cast<double>(n) + 1));
}

std::vector<LC> random_signal(int64_t n, unsigned seed, bool real) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<LC> x(n);
  for (auto& v : x) v = LC(u(gen), real ? 0.0 : u(gen));
  return x;
}

// Bins a test of a long length compares (the naive DFT is O(n) per bin).
std::vector<int64_t> sample_bins(int64_t n) {
  if (n <= 5000) return {};
  std::vector<int64_t> b = {0, 1, 2, n / 2, n / 2 + 1, n - 1, n - 2};
  for (int64_t k = 3; k < n; k += n / 40) b.push_back(k);
  return b;
}

template <class T>
void check_complex(int64_t n) {
  const auto plan = complex_plan<T>(n);
  const auto bins = sample_bins(n);
  for (bool forward : {true, false}) {
    const auto x = random_signal(n, static_cast<unsigned>(n * 2 + forward), false);
    const auto want = naive_dft(x, forward, bins);
    std::vector<Cx<T>> c(n), work(plan->work_size());
    for (int64_t j = 0; j < n; ++j) c[j] = {static_cast<T>(x[j].real()), static_cast<T>(x[j].imag())};
    plan->exec(c.data(), work.data(), forward);
    const double err = rel_error(want, [&](size_t k) {
      const auto& v = c[bins.empty() ? k : bins[k]];
      return LC(v.r, v.i);
    });
    EXPECT_LT(err, tolerance<T>(n)) << "n=" << n << " forward=" << forward << " bluestein=" << plan->bluestein();
  }
}

template <class T>
void check_real(int64_t n) {
  const auto plan = real_plan<T>(n);
  const auto x = random_signal(n, static_cast<unsigned>(n + 7), true);
  std::vector<int64_t> half;
  for (int64_t k = 0; k <= n / 2; ++k) half.push_back(k);
  const auto want = naive_dft(x, true, n > 5000 ? sample_bins(n) : half);
  std::vector<T> xs(n);
  for (int64_t j = 0; j < n; ++j) xs[j] = static_cast<T>(x[j].real());
  std::vector<Cx<T>> out(n / 2 + 1), work(plan->work_size());
  plan->r2c(xs.data(), out.data(), work.data());
  const auto bins = n > 5000 ? sample_bins(n) : half;
  const double err = rel_error(want, [&](size_t k) {
    const int64_t b = bins[k];  // a bin past n/2 is the conjugate of its mirror
    const auto v = b <= n / 2 ? out[b] : Cx<T>{out[n - b].r, -out[n - b].i};
    return LC(v.r, v.i);
  });
  EXPECT_LT(err, tolerance<T>(n)) << "r2c n=" << n;
  // c2r of the spectrum gives n x back.
  std::vector<T> back(n);
  plan->c2r(out.data(), back.data(), work.data());
  std::vector<LC> nx(n);
  for (int64_t j = 0; j < n; ++j) nx[j] = x[j] * static_cast<long double>(n);
  EXPECT_LT(rel_error(nx, [&](size_t j) { return LC(back[j], 0); }), 2 * tolerance<T>(n)) << "c2r n=" << n;
}

// Lanes of a vector run independent transforms: each lane against the scalar result.
template <class T>
void check_lanes(int64_t n) {
  using V = ember::cpu::lanes::Vec<T>;
  constexpr int64_t W = ember::cpu::lanes::kWidth<T>;
  const auto plan = complex_plan<T>(n);
  // Aligned by hand: this file is not compiled with the library's -march, where the vectors' alignment is 32 bytes.
  auto alloc = [](int64_t count) {
    return std::unique_ptr<Cx<V>, decltype(&std::free)>(
        static_cast<Cx<V>*>(std::aligned_alloc(64, static_cast<size_t>(count) * sizeof(Cx<V>))), &std::free);
  };
  const auto c_mem = alloc(n), work_mem = alloc(std::max<int64_t>(plan->work_size(), 1));
  Cx<V>*c = c_mem.get(), *work = work_mem.get();
  std::vector<std::vector<Cx<T>>> one(W, std::vector<Cx<T>>(n));
  std::mt19937 gen(static_cast<unsigned>(n));
  std::uniform_real_distribution<T> u(-1, 1);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t l = 0; l < W; ++l) {
      one[l][j] = {u(gen), u(gen)};
      c[j].r[l] = one[l][j].r;
      c[j].i[l] = one[l][j].i;
    }
  plan->exec(c, work, false);
  std::vector<Cx<T>> w1(plan->work_size());
  for (int64_t l = 0; l < W; ++l) {
    plan->exec(one[l].data(), w1.data(), false);
    // the same arithmetic up to the compiler's FMA contractions, which differ between the scalar and vector code
    double peak = 0;
    for (int64_t j = 0; j < n; ++j) peak = std::max<double>(peak, std::abs(one[l][j].r) + std::abs(one[l][j].i));
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_NEAR(c[j].r[l], one[l][j].r, tolerance<T>(n) * peak) << "n=" << n << " lane " << l;
      ASSERT_NEAR(c[j].i[l], one[l][j].i, tolerance<T>(n) * peak) << "n=" << n << " lane " << l;
    }
  }
}

const std::vector<int64_t>& long_lengths() {
  static const std::vector<int64_t> v = {97, 128, 1000, 1024, 1155, 4096, 4099, 65537};
  return v;
}

std::vector<double> values(const Tensor& t) {
  const Tensor c = contiguous(to(t, ScalarType::Float64));
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

}  // namespace

TEST(FftEngine, ComplexEveryShortLength) {
  for (int64_t n = 1; n <= 64; ++n) {
    check_complex<double>(n);
    check_complex<float>(n);
  }
}

TEST(FftEngine, ComplexLongLengths) {
  for (int64_t n : long_lengths()) {
    check_complex<double>(n);
    check_complex<float>(n);
  }
  EXPECT_TRUE(complex_plan<double>(4099)->bluestein());
  EXPECT_TRUE(complex_plan<double>(65537)->bluestein());
  EXPECT_FALSE(complex_plan<double>(1155)->bluestein());  // 3 * 5 * 7 * 11: the unrolled odd passes
  EXPECT_FALSE(complex_plan<double>(4096)->bluestein());
}

TEST(FftEngine, RealEveryShortLength) {
  for (int64_t n = 1; n <= 64; ++n) {
    check_real<double>(n);
    check_real<float>(n);
  }
}

TEST(FftEngine, RealLongLengths) {
  for (int64_t n : long_lengths()) {
    check_real<double>(n);
    check_real<float>(n);
  }
}

TEST(FftEngine, VectorLanesMatchScalar) {
  for (int64_t n : {1, 2, 3, 8, 12, 35, 77, 121, 97, 4099}) {
    check_lanes<float>(n);
    check_lanes<double>(n);
  }
}

TEST(FftEngine, GoodSize) {
  EXPECT_EQ(good_size(1), 1);
  EXPECT_EQ(good_size(7), 8);
  EXPECT_EQ(good_size(8197), 8640);      // 2^6 3^3 5
  EXPECT_EQ(good_size(131073), 131220);  // 2^2 3^8 5
}

TEST(FftOps, RoundTripsOverStridedDims) {
  // A (4, 6, 5) complex tensor seen through a transpose: c2c over both dims and back with 1/n is the identity.
  const Tensor x = transpose(randn({5, 6, 4, 2}, nullptr, TensorOptions(ScalarType::Float64)), 0, 2);
  const Tensor y = fft_c2c(fft_c2c(x, {0, 1}, 0, true), {0, 1}, 2, false);
  const auto a = values(x), b = values(y);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-13);
  // r2c then c2r over (0, 2) with normalization 1 both ways gives the real signal back, for an odd last length.
  const Tensor r = transpose(randn({7, 3, 4}, nullptr, TensorOptions(ScalarType::Float64)), 0, 2);  // (4, 3, 7)
  const Tensor back = fft_c2r(fft_r2c(r, {0, 2}, 1, true), {0, 2}, 1, 7);
  const auto ra = values(r), rb = values(back);
  ASSERT_EQ(ra.size(), rb.size());
  for (size_t i = 0; i < ra.size(); ++i) EXPECT_NEAR(ra[i], rb[i], 1e-13);
}

TEST(FftOps, Errors) {
  const Tensor c = zeros({4, 5, 2});
  EXPECT_THROW(fft_c2c(c, {0, 0}, 0, true), Error);
  EXPECT_THROW(fft_c2c(c, {2}, 0, true), IndexError);
  EXPECT_THROW(fft_c2c(c, {0}, 3, true), ValueError);
  EXPECT_THROW(fft_c2c(zeros({4, 5}), {0}, 0, true), Error);  // not view_as_real's layout
  EXPECT_THROW(fft_r2c(zeros({{4}}, TensorOptions(ScalarType::Int64)), {0}, 0, true), TypeError);
  EXPECT_THROW(fft_r2c(zeros({4, 0}), {{1}}, 0, true), Error);  // no data points
  EXPECT_THROW(fft_c2r(c, {1}, 0, 0), Error);
  EXPECT_THROW(fft_c2r(c, {1}, 0, 20), Error);  // 5 bins are not 20 / 2 + 1
  EXPECT_EQ(fft_c2r(c, {1}, 0, 9).size(1), 9);
  EXPECT_EQ(fft_c2c(zeros({0, 3, 2}), {0}, 0, true).numel(), 0);
}
