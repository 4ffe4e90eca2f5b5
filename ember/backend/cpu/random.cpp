// Random fills from the Philox stream (Note [Random numbers]); the per-element math is in random_math.h.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/philox.h"
#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/random.h"
#include "ember/detail/random_math.h"

namespace ember::cpu {
namespace {

// Calls f(i, w) for each element i of [begin, end), where w(k) gives its k-th word.
template <class F>
void for_each_words(int64_t begin, int64_t end, int words, PhiloxState s, F f) {
  for_word_blocks(begin, end, words, s, [&](int64_t i0, int64_t n, const uint32_t* w) {
    for (int64_t j = 0; j < n; ++j) {
      const uint32_t* e = w + j * words;
      auto word = [e](int k) { return e[k]; };
      f(i0 + j, word);
    }
  });
}

// An element's words depend only on its index, so a fill splits across threads and gives the same numbers.
template <class G>
void fill_random(const Tensor& dst, int words, PhiloxState s, G g) {
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    T* out = static_cast<T*>(dst.data_ptr());
    parallel_for(0, dst.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      for_each_words(begin, end, words, s, [&](int64_t i, auto& w) { out[i] = convert<T>(g(i, w)); });
    });
  });
}

void uniform(const Tensor& dst, double from, double to, PhiloxState s) {
  const int bits = rnd::uniform_bits(dst.dtype());
  fill_random(dst, rnd::uniform_words(bits == 53), s,
              [&](int64_t, auto& w) { return from + (to - from) * rnd::uniform(bits, w); });
}

// rnd::normal's Box-Muller over blocks of elements, with log and cos vectorized (Sleef, 1 ULP): C is the compute
// type (float, or double for float64 outputs), T the output type.
template <class C, class T>
void normal_blocks(T* out, int64_t begin, int64_t end, double mean, double std, const double* m, const double* sd,
                   PhiloxState s) {
  constexpr bool f64 = std::is_same_v<C, double>;
  const int words = rnd::normal_words(f64);
  C u1[kBlock], u2[kBlock];
  for_word_blocks(begin, end, words, s, [&](int64_t i0, int64_t n, const uint32_t* w) {
    for (int64_t j = 0; j < n; ++j) {
      const uint32_t* e = w + j * words;
      if constexpr (f64) {
        u1[j] = 1.0 - uniform_f64(e[0], e[1]);
        u2[j] = 6.283185307179586 * uniform_f64(e[2], e[3]);
      } else {
        u1[j] = 1.0f - uniform_f32(e[0]);
        u2[j] = 6.2831855f * uniform_f32(e[1]);
      }
    }
    vec_or_scalar(UnaryOp::Log, u1, n, [](C x) { return std::log(x); });
    vec_or_scalar(UnaryOp::Cos, u2, n, [](C x) { return std::cos(x); });
    for (int64_t j = 0; j < n; ++j) u1[j] *= C(-2);
    vec_or_scalar(UnaryOp::Sqrt, u1, n, [](C x) { return std::sqrt(x); });
    for (int64_t j = 0; j < n; ++j) u1[j] *= u2[j];
    T* o = out + i0;
    if (!m && !sd) {  // the common case, without per-element branches so that it vectorizes
      for (int64_t j = 0; j < n; ++j) o[j] = convert<T>(mean + std * static_cast<double>(u1[j]));
    } else {
      for (int64_t j = 0; j < n; ++j)
        o[j] = convert<T>((m ? m[i0 + j] : mean) + (sd ? sd[i0 + j] : std) * static_cast<double>(u1[j]));
    }
  });
}

void normal(const Tensor& dst, double mean, double std, const Tensor& mean_t, const Tensor& std_t, PhiloxState s) {
  const double* m = mean_t.defined() ? mean_t.data<double>() : nullptr;
  const double* sd = std_t.defined() ? std_t.data<double>() : nullptr;
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      T* out = static_cast<T*>(dst.data_ptr());
      parallel_for(0, dst.numel(), kGrainSize / 4,
                   [&](int64_t begin, int64_t end) { normal_blocks<C>(out, begin, end, mean, std, m, sd, s); });
    } else {
      fail<TypeError>("normal_: expected a floating point tensor, got ", dst.dtype());
    }
  });
}

void random_int(const Tensor& dst, int64_t low, uint64_t range, PhiloxState s) {
  fill_random(dst, rnd::kIntWords, s, [&](int64_t, auto& w) {
    uint64_t x = rnd::bits64(w);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + (range ? x % range : x));
  });
}

void bernoulli(const Tensor& dst, const Tensor& p, PhiloxState s) {
  const double* pp = p.data<double>();
  fill_random(dst, rnd::kBernoulliWords, s,
              [&](int64_t i, auto& w) { return static_cast<int64_t>(uniform_f64(w(0), w(1)) < pp[i]); });
}

void randperm(const Tensor& dst, PhiloxState s) {
  int64_t* out = dst.data<int64_t>();
  const int64_t n = dst.numel();
  for (int64_t i = 0; i < n; ++i) out[i] = i;
  // Step k (k = 0..n-2) swaps position n-1-k with j uniform in [0, n-1-k], from words 2k, 2k+1. The steps are
  // serial; their words come in bulk.
  for_word_blocks(0, n > 1 ? n - 1 : 0, 2, s, [&](int64_t k0, int64_t m, const uint32_t* w) {
    for (int64_t t = 0; t < m; ++t) {
      const int64_t i = n - 1 - (k0 + t);
      const uint64_t x = static_cast<uint64_t>(w[2 * t]) << 32 | w[2 * t + 1];
      std::swap(out[i], out[static_cast<int64_t>(x % static_cast<uint64_t>(i + 1))]);
    }
  });
}

// Row r, sample k uses words 2(r*num_samples + k) and the next: inverse-CDF sampling of a uniform draw.
void multinomial(const Tensor& dst, const Tensor& probs, bool replacement, PhiloxState s) {
  const int64_t rows = probs.size(0), cats = probs.size(1), ns = dst.size(1);
  const double* p = probs.data<double>();
  int64_t* out = dst.data<int64_t>();
  std::vector<double> w(cats);
  for_each_words(0, rows * ns, 2, s, [&](int64_t idx, auto& word) {
    const int64_t r = idx / ns, k = idx % ns;
    if (k == 0) std::copy(p + r * cats, p + (r + 1) * cats, w.begin());
    double total = 0;
    for (double x : w) total += x;
    const double target = uniform_f64(word(0), word(1)) * total;
    double acc = 0;
    int64_t c = 0, last_nonzero = 0;
    for (; c < cats; ++c) {
      if (w[c] > 0) last_nonzero = c;
      acc += w[c];
      if (target < acc && w[c] > 0) break;
    }
    if (c == cats) c = last_nonzero;  // rounding left target at the total
    out[idx] = c;
    if (!replacement) w[c] = 0;
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(randperm, CPU, randperm)
EMBER_REGISTER_KERNEL(multinomial, CPU, multinomial)
EMBER_REGISTER_KERNEL(uniform, CPU, uniform)
EMBER_REGISTER_KERNEL(normal, CPU, normal)
EMBER_REGISTER_KERNEL(random_int, CPU, random_int)
EMBER_REGISTER_KERNEL(bernoulli, CPU, bernoulli)

}  // namespace ember::cpu
