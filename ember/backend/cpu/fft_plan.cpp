// Note [FFT engine]
// ember's own FFT, in the design class of pocketfft (FFTPACK's passes): a length n = f1 f2 ... fk is transformed by
// k self-sorting Cooley-Tukey passes, pass j reading one buffer and writing the other (ping-pong), with the twiddles
// of every pass computed once per plan in long double. Radix 4 and 2 have their own butterflies; odd radices share
// one butterfly written with the symmetry of the roots (sums and differences of x_m and x_{p-m}, half the
// multiplications), instantiated for 3, 5, 7 and 11 (so the compiler unrolls it) and kept generic for other primes.
// A length whose passes would cost more than a convolution (a large prime factor, as in 4099) goes through
// Bluestein's algorithm: jk = (j^2 + k^2 - (k-j)^2) / 2 turns the DFT into a convolution with the chirp
// exp(i pi k^2 / n), computed with transforms of a 2^a 3^b 5^c length m >= 2n - 1; chirp indices are reduced modulo
// 2n in integers so that large n keeps its accuracy. Every routine is a template over the value type V: a scalar
// runs one transform, a vector of lanes (lanes.h) runs 4 or 8 transforms of a batch at once, with the same code and
// scalar twiddles. Plans are cached per (length, kind, precision) behind a mutex (made outside it).
#include "ember/backend/cpu/fft_plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>

#include "ember/error.h"
#include "ember/sizes.h"

namespace ember::cpu::fft {

namespace {

using ld = long double;
constexpr ld kTwoPi = 6.283185307179586476925286766559005768L;

// exp(-2 pi i m / n), rounded once from long double.
template <class T>
Cx<T> root(int64_t m, int64_t n) {
  m %= n;
  if (m < 0) m += n;
  const ld a = kTwoPi * static_cast<ld>(m) / static_cast<ld>(n);
  return {static_cast<T>(std::cos(a)), static_cast<T>(-std::sin(a))};
}

// A pass's output CH(i, k, u) = ch[i + ido * (k + l1 * u)] written after the twiddle of (u, i).
template <bool F, class V, class T>
struct Out {
  Cx<V>* ch;
  const Cx<T>* wa;
  int64_t ido, stride;  // stride = ido * l1: the distance between u and u + 1
  void put(int64_t i, int64_t u, Cx<V> v) const {
    ch[i + u * stride] = (u == 0 || i == 0) ? v : twiddle<F>(v, wa[(u - 1) * (ido - 1) + i - 1]);
  }
};

template <bool F, class V, class T>
void pass2(int64_t ido, int64_t l1, const Cx<V>* cc, Cx<V>* ch, const Cx<T>* wa) {
  for (int64_t k = 0; k < l1; ++k) {
    const Cx<V>* a = cc + ido * 2 * k;
    const Out<F, V, T> o{ch + ido * k, wa, ido, ido * l1};
    for (int64_t i = 0; i < ido; ++i) {
      const Cx<V> a0 = a[i], a1 = a[i + ido];
      o.put(i, 0, a0 + a1);
      o.put(i, 1, a0 - a1);
    }
  }
}

template <bool F, class V, class T>
void pass4(int64_t ido, int64_t l1, const Cx<V>* cc, Cx<V>* ch, const Cx<T>* wa) {
  for (int64_t k = 0; k < l1; ++k) {
    const Cx<V>* a = cc + ido * 4 * k;
    const Out<F, V, T> o{ch + ido * k, wa, ido, ido * l1};
    for (int64_t i = 0; i < ido; ++i) {
      const Cx<V> t1 = a[i] + a[i + 2 * ido], t2 = a[i] - a[i + 2 * ido];
      const Cx<V> t3 = a[i + ido] + a[i + 3 * ido], r = quarter<F>(a[i + ido] - a[i + 3 * ido]);
      o.put(i, 0, t1 + t3);
      o.put(i, 1, t2 + r);
      o.put(i, 2, t1 - t3);
      o.put(i, 3, t2 - r);
    }
  }
}

// An odd radix p (P when known at compile time, else ip): with h = (p - 1) / 2, s_m = x_m + x_{p-m} and
// d_m = x_m - x_{p-m}, y_u = A_u -+ i B_u and y_{p-u} = A_u +- i B_u, where A_u = x_0 + sum_m s_m cos(2 pi um / p)
// and B_u = sum_m d_m sin(2 pi um / p).
template <bool F, int P, class V, class T>
void pass_odd(const Pass<T>& pass, const Cx<V>* cc, Cx<V>* ch) {
  const int64_t p = P ? P : pass.ip, h = (p - 1) / 2, ido = pass.ido, l1 = pass.l1;
  const T *cs = pass.cs.data(), *sn = pass.cs.data() + h * h;
  const Cx<T>* wa = pass.tw.data();
  constexpr int64_t kH = P ? (P - 1) / 2 : 1;
  std::array<Cx<V>, kH> s_fixed, d_fixed;
  std::vector<Cx<V>> s_dyn, d_dyn;
  Cx<V>*s = s_fixed.data(), *d = d_fixed.data();
  if constexpr (P == 0) {
    s_dyn.resize(h), d_dyn.resize(h);
    s = s_dyn.data(), d = d_dyn.data();
  }
  for (int64_t k = 0; k < l1; ++k) {
    const Cx<V>* a = cc + ido * p * k;
    const Out<F, V, T> o{ch + ido * k, wa, ido, ido * l1};
    for (int64_t i = 0; i < ido; ++i) {
      const Cx<V> x0 = a[i];
      Cx<V> y0 = x0;
      for (int64_t m = 1; m <= h; ++m) {
        const Cx<V> xm = a[i + m * ido], xp = a[i + (p - m) * ido];
        s[m - 1] = xm + xp;
        d[m - 1] = xm - xp;
        y0 = y0 + s[m - 1];
      }
      o.put(i, 0, y0);
      for (int64_t u = 1; u <= h; ++u) {
        Cx<V> A = x0, B{V{}, V{}};
        for (int64_t m = 0; m < h; ++m) {
          A = A + scale(s[m], cs[(u - 1) * h + m]);
          B = B + scale(d[m], sn[(u - 1) * h + m]);
        }
        const Cx<V> r = quarter<F>(B);
        o.put(i, u, A + r);
        o.put(i, p - u, A - r);
      }
    }
  }
}

std::vector<int64_t> factorize(int64_t n) {
  std::vector<int64_t> f;
  while (n % 4 == 0) f.push_back(4), n /= 4;
  if (n % 2 == 0) {  // the one radix-2 pass goes first, where its twiddles are fewest
    n /= 2;
    f.push_back(2);
    std::swap(f.front(), f.back());
  }
  for (int64_t p = 3; p * p <= n; p += 2)
    while (n % p == 0) f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  return f;
}

// Operations per element of a length's passes, roughly: radix p costs p, a generic (not unrolled) one twice that.
double pass_cost(int64_t n) {
  double c = 0;
  for (int64_t f : factorize(n)) c += f <= 11 ? static_cast<double>(f) : 2.0 * static_cast<double>(f);
  return c * static_cast<double>(n);
}

template <class P>
std::shared_ptr<const P> cached(int64_t n) {
  static std::mutex mutex;
  static std::map<int64_t, std::shared_ptr<const P>> plans;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = plans.find(n);
    if (it != plans.end()) return it->second;
  }
  auto plan = std::make_shared<const P>(n);  // outside the lock: a Bluestein plan asks for its inner plan
  std::lock_guard<std::mutex> lock(mutex);
  if (plans.size() >= 64) plans.clear();  // bounded; plans in use stay alive through their shared_ptr
  return plans.emplace(n, std::move(plan)).first->second;
}

}  // namespace

int64_t good_size(int64_t n) {
  if (n <= 6) return std::max<int64_t>(n, 1);
  int64_t best = 1;
  while (best < n) best = checked_mul(best, 2, "fft", "transform length");
  for (int64_t f5 = 1; f5 < best; f5 *= 5)
    for (int64_t f35 = f5; f35 < best; f35 *= 3) {
      int64_t x = f35;
      while (x < n) x *= 2;
      best = std::min(best, x);
    }
  return best;
}

template <class T>
ComplexPlan<T>::ComplexPlan(int64_t n) : n_(n), work_(n) {
  EMBER_CHECK(n >= 1, "fft: invalid transform length ", n);
  const int64_t m = n > 50 ? good_size(checked_mul(n, 2, "fft", "transform length") - 1) : 0;
  if (m && 1.5 * 2 * pass_cost(m) + 6.0 * static_cast<double>(m) < pass_cost(n)) {
    inner_ = complex_plan<T>(m);
    work_ = m + inner_->work_size();
    chirp_.resize(n);
    const int64_t n2 = 2 * n;
    for (int64_t k = 0, q = 0; k < n; ++k) {  // q = k^2 mod 2n, kept exact
      chirp_[k] = root<T>(-q, n2);
      q = (q + 2 * k + 1) % n2;
    }
    std::vector<Cx<T>> b(m, Cx<T>{0, 0}), w(inner_->work_size());
    b[0] = chirp_[0];
    for (int64_t k = 1; k < n; ++k) b[k] = b[m - k] = chirp_[k];
    inner_->exec(b.data(), w.data(), true);
    const T inv = T(1) / static_cast<T>(m);
    kernel_.resize(m);
    for (int64_t k = 0; k < m; ++k) kernel_[k] = scale(b[k], inv);
    return;
  }
  int64_t l1 = 1;
  for (int64_t ip : factorize(n)) {
    const int64_t ido = n / (l1 * ip);
    Pass<T> p{ip, l1, ido, {}, {}};
    p.tw.resize((ip - 1) * (ido - 1));
    for (int64_t u = 1; u < ip; ++u)
      for (int64_t i = 1; i < ido; ++i) p.tw[(u - 1) * (ido - 1) + i - 1] = root<T>(u * l1 * i, n);
    if (ip % 2) {  // an odd butterfly's cos and sin of 2 pi um / ip, u, m = 1..h
      const int64_t h = (ip - 1) / 2;
      p.cs.resize(2 * h * h);
      for (int64_t u = 1; u <= h; ++u)
        for (int64_t m = 1; m <= h; ++m) {
          const Cx<T> w = root<T>(u * m, ip);
          p.cs[(u - 1) * h + m - 1] = w.r;
          p.cs[h * h + (u - 1) * h + m - 1] = -w.i;
        }
    }
    passes_.push_back(std::move(p));
    l1 *= ip;
  }
}

template <class T>
template <class V>
void ComplexPlan<T>::run_passes(Cx<V>* c, Cx<V>* work, bool forward) const {
  Cx<V>*p1 = c, *p2 = work;
  for (const Pass<T>& p : passes_) {
    auto run = [&]<bool F>() {
      const Cx<T>* tw = p.tw.data();
      switch (p.ip) {
        case 2: return pass2<F>(p.ido, p.l1, p1, p2, tw);
        case 3: return pass_odd<F, 3>(p, p1, p2);
        case 4: return pass4<F>(p.ido, p.l1, p1, p2, tw);
        case 5: return pass_odd<F, 5>(p, p1, p2);
        case 7: return pass_odd<F, 7>(p, p1, p2);
        case 11: return pass_odd<F, 11>(p, p1, p2);
        default: return pass_odd<F, 0>(p, p1, p2);
      }
    };
    if (forward)
      run.template operator()<true>();
    else
      run.template operator()<false>();
    std::swap(p1, p2);
  }
  if (p1 != c) std::copy(p1, p1 + n_, c);
}

template <class T>
template <class V>
void ComplexPlan<T>::run_bluestein(Cx<V>* c, Cx<V>* work, bool forward) const {
  const int64_t m = inner_->size();
  Cx<V>*a = work, *w = work + m;
  auto run = [&]<bool F>() {
    for (int64_t k = 0; k < n_; ++k) a[k] = twiddle<!F>(c[k], chirp_[k]);
    std::fill(a + n_, a + m, Cx<V>{V{}, V{}});
    inner_->exec(a, w, true);
    for (int64_t k = 0; k < m; ++k) a[k] = twiddle<F>(a[k], kernel_[k]);
    inner_->exec(a, w, false);
    for (int64_t k = 0; k < n_; ++k) c[k] = twiddle<!F>(a[k], chirp_[k]);
  };
  if (forward)
    run.template operator()<true>();
  else
    run.template operator()<false>();
}

template <class T>
template <class V>
void ComplexPlan<T>::exec(Cx<V>* c, Cx<V>* work, bool forward) const {
  if (n_ == 1) return;
  if (inner_)
    run_bluestein(c, work, forward);
  else
    run_passes(c, work, forward);
}

template <class T>
Roots<T>::Roots(int64_t n) : block_(1) {
  while (block_ * block_ < n) ++block_;
  lo_.resize(block_);
  hi_.resize(n / block_ + 1);
  for (int64_t m = 0; m < block_; ++m) lo_[m] = root<T>(m, n);
  for (int64_t m = 0; m <= n / block_; ++m) hi_[m] = root<T>(m * block_, n);
}

template <class T>
std::shared_ptr<const Roots<T>> roots(int64_t n) {
  return cached<Roots<T>>(n);
}

template <class T>
std::shared_ptr<const ComplexPlan<T>> complex_plan(int64_t n) {
  return cached<ComplexPlan<T>>(n);
}
template <class T>
std::shared_ptr<const RealPlan<T>> real_plan(int64_t n) {
  return cached<RealPlan<T>>(n);
}

template class Roots<float>;
template class Roots<double>;
template std::shared_ptr<const Roots<float>> roots<float>(int64_t);
template std::shared_ptr<const Roots<double>> roots<double>(int64_t);
template class ComplexPlan<float>;
template class ComplexPlan<double>;
template void ComplexPlan<float>::exec(Cx<float>*, Cx<float>*, bool) const;
template void ComplexPlan<float>::exec(Cx<lanes::Vec<float>>*, Cx<lanes::Vec<float>>*, bool) const;
template void ComplexPlan<double>::exec(Cx<double>*, Cx<double>*, bool) const;
template void ComplexPlan<double>::exec(Cx<lanes::Vec<double>>*, Cx<lanes::Vec<double>>*, bool) const;
template std::shared_ptr<const ComplexPlan<float>> complex_plan<float>(int64_t);
template std::shared_ptr<const ComplexPlan<double>> complex_plan<double>(int64_t);
template std::shared_ptr<const RealPlan<float>> real_plan<float>(int64_t);
template std::shared_ptr<const RealPlan<double>> real_plan<double>(int64_t);

}  // namespace ember::cpu::fft
