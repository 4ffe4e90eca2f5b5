// The CPU FFT engine's plans (Note [FFT engine], fft_plan.cpp): one-dimensional complex transforms of any length
// and real transforms through a half-length complex one. A plan is immutable once made and shared through a cache,
// so threads execute one plan at once; each call brings its own work memory.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ember/backend/cpu/lanes.h"

namespace ember::cpu::fft {

// A complex number of V: a scalar (float, double) or a vector of lanes (one transform per lane).
template <class V>
struct Cx {
  V r, i;
};

template <class V>
inline Cx<V> operator+(Cx<V> a, Cx<V> b) {
  return {a.r + b.r, a.i + b.i};
}
template <class V>
inline Cx<V> operator-(Cx<V> a, Cx<V> b) {
  return {a.r - b.r, a.i - b.i};
}
template <class V>
inline Cx<V> conj(Cx<V> a) {
  return {a.r, -a.i};
}
// a * w (Fwd) or a * conj(w): twiddles are stored for the forward direction.
template <bool Fwd, class V, class T>
inline Cx<V> twiddle(Cx<V> a, Cx<T> w) {
  if constexpr (Fwd)
    return {a.r * w.r - a.i * w.i, a.r * w.i + a.i * w.r};
  else
    return {a.r * w.r + a.i * w.i, a.i * w.r - a.r * w.i};
}
// a * -i (Fwd) or a * i: the quarter turn of a radix-4 butterfly.
template <bool Fwd, class V>
inline Cx<V> quarter(Cx<V> a) {
  if constexpr (Fwd)
    return {a.i, -a.r};
  else
    return {-a.i, a.r};
}
template <class V, class T>
inline Cx<V> scale(Cx<V> a, T s) {
  return {a.r * s, a.i * s};
}

// The pass list of a length: factors in execution order and their twiddles (FFTPACK's layout).
template <class T>
struct Pass {
  int64_t ip, l1, ido;
  std::vector<Cx<T>> tw;  // (ip - 1) * (ido - 1) factors exp(-2 pi i u i' l1 / n), u = 1..ip-1, i' = 1..ido-1
  std::vector<T> cs;      // an odd radix: cos(2 pi um / ip) then sin(2 pi um / ip), u, m = 1..(ip - 1) / 2
};

template <class T>
class ComplexPlan {
 public:
  explicit ComplexPlan(int64_t n);
  int64_t size() const { return n_; }
  // Elements of work memory exec needs beside the data.
  int64_t work_size() const { return work_; }
  // The unnormalised DFT of c[0..n) in place: forward multiplies by exp(-2 pi i jk/n), backward by exp(+...).
  // V is T or lanes::Vec<T>.
  template <class V>
  void exec(Cx<V>* c, Cx<V>* work, bool forward) const;
  // Whether the length goes through Bluestein's convolution (for the tests).
  bool bluestein() const { return inner_ != nullptr; }

 private:
  template <class V>
  void run_passes(Cx<V>* c, Cx<V>* work, bool forward) const;
  template <class V>
  void run_bluestein(Cx<V>* c, Cx<V>* work, bool forward) const;

  int64_t n_, work_;
  std::vector<Pass<T>> passes_;
  // Bluestein: the chirp exp(i pi k^2 / n) and the transformed, 1/m-scaled convolution kernel of length m.
  std::shared_ptr<const ComplexPlan<T>> inner_;
  std::vector<Cx<T>> chirp_, kernel_;
};

// Real transforms of length n: an even n through a complex transform of n/2, an odd one through a full one.
template <class T>
class RealPlan {
 public:
  explicit RealPlan(int64_t n);
  int64_t size() const { return n_; }
  int64_t work_size() const { return work_; }
  // out[0..n/2] = the unnormalised forward DFT of the real x[0..n).
  template <class V>
  void r2c(const V* x, Cx<V>* out, Cx<V>* work) const;
  // x[0..n) = the unnormalised backward DFT of the Hermitian spectrum whose first n/2+1 values are in[]; the
  // imaginary parts of in[0] (and in[n/2] for an even n) are ignored, as in pocketfft.
  template <class V>
  void c2r(const Cx<V>* in, V* x, Cx<V>* work) const;
  // An even n's last step of r2c: out[0..n/2] from Z, the transform of the n/2 packed pairs x_2j + i x_2j+1 (for a
  // caller that transforms Z another way: the split transform of a long line).
  template <class V>
  void untangle(const Cx<V>* z, Cx<V>* out) const;
  // An even n's first step of c2r: the n/2 values z whose backward transform is n (x_2j + i x_2j+1).
  template <class V>
  void pack(const Cx<V>* in, Cx<V>* z) const;

 private:
  int64_t n_, work_;
  std::shared_ptr<const ComplexPlan<T>> plan_;
  std::vector<Cx<T>> tw_;  // even n: exp(-2 pi i k / n), k < n/2
};

// exp(-2 pi i m / n) for any m < n from two tables of about sqrt(n) values each (one product per lookup).
template <class T>
class Roots {
 public:
  explicit Roots(int64_t n);
  Cx<T> operator()(int64_t m) const { return at(m / block_, m % block_); }
  // exp(-2 pi i (q block + r) / n): for callers that step m without dividing.
  Cx<T> at(int64_t q, int64_t r) const {
    const Cx<T> a = lo_[r], b = hi_[q];
    return {a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r};
  }
  int64_t block() const { return block_; }

 private:
  int64_t block_;
  std::vector<Cx<T>> lo_, hi_;
};

// The cached plans and tables (keyed by length and precision, made once under a lock). T: float or double.
template <class T>
std::shared_ptr<const ComplexPlan<T>> complex_plan(int64_t n);
template <class T>
std::shared_ptr<const RealPlan<T>> real_plan(int64_t n);
template <class T>
std::shared_ptr<const Roots<T>> roots(int64_t n);

// The smallest 2^a 3^b 5^c >= n: the length of Bluestein's convolution.
int64_t good_size(int64_t n);

}  // namespace ember::cpu::fft
