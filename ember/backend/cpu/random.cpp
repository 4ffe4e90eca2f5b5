// Random fills from the Philox stream (Note [Random numbers]); the per-element math is in random_math.h.
#include "ember/backend/cpu/loops.h"
#include "ember/backend/kernels.h"
#include "ember/random_math.h"

#include <vector>

namespace ember::cpu {
namespace {

// Calls f(i, w) for each element i, where w(k) gives its k-th word; one Philox block serves 4 words.
template <class F>
void for_each_words(int64_t n, int words, PhiloxState s, F f) {
  rnd::PhiloxWords stream(s);  // consecutive elements share blocks
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t base = static_cast<uint64_t>(i) * words;
    auto w = [&](int k) { return stream(base + static_cast<uint64_t>(k)); };
    f(i, w);
  }
}

template <class G>
void fill_random(const Tensor& dst, int words, PhiloxState s, G g) {
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    T* out = static_cast<T*>(dst.data_ptr());
    for_each_words(dst.numel(), words, s, [&](int64_t i, auto& w) { out[i] = convert<T>(g(i, w)); });
  });
}

void uniform(const Tensor& dst, double from, double to, PhiloxState s) {
  const int bits = rnd::uniform_bits(dst.dtype());
  fill_random(dst, rnd::uniform_words(bits == 53), s,
              [&](int64_t, auto& w) { return from + (to - from) * rnd::uniform(bits, w); });
}

void normal(const Tensor& dst, double mean, double std, const Tensor& mean_t, const Tensor& std_t, PhiloxState s) {
  const bool f64 = dst.dtype() == ScalarType::Float64;
  const double* m = mean_t.defined() ? mean_t.data<double>() : nullptr;
  const double* sd = std_t.defined() ? std_t.data<double>() : nullptr;
  fill_random(dst, rnd::normal_words(f64), s, [&](int64_t i, auto& w) {
    return (m ? m[i] : mean) + (sd ? sd[i] : std) * rnd::normal(f64, w);
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
  // Step k (k = 0..n-2) swaps position n-1-k with j uniform in [0, n-1-k], from words 2k, 2k+1.
  for_each_words(n > 1 ? n - 1 : 0, 2, s, [&](int64_t k, auto& w) {
    const int64_t i = n - 1 - k;
    const int64_t j = static_cast<int64_t>(rnd::bits64(w) % static_cast<uint64_t>(i + 1));
    std::swap(out[i], out[j]);
  });
}

// Row r, sample k uses words 2(r*num_samples + k) and the next: inverse-CDF sampling of a uniform draw.
void multinomial(const Tensor& dst, const Tensor& probs, bool replacement, PhiloxState s) {
  const int64_t rows = probs.size(0), cats = probs.size(1), ns = dst.size(1);
  const double* p = probs.data<double>();
  int64_t* out = dst.data<int64_t>();
  std::vector<double> w(cats);
  for_each_words(rows * ns, 2, s, [&](int64_t idx, auto& word) {
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
