#include "ember/backend/cpu/vec_math.h"

#if defined(EMBER_HAVE_SLEEF) && defined(__AVX2__)
#include <immintrin.h>
#include <sleef.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

// __m512 values pass through always-inlined helpers (Note [Width-generic float32 kernels]) that are inlined into
// AVX-512 functions before any call is made; GCC would warn about the ABI their standalone forms would have.
#pragma GCC diagnostic ignored "-Wpsabi"
// Vector types as template arguments drop their may_alias attribute, which no code here relies on.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace ember::cpu {

namespace {

// Vector arithmetic for the composed ops; V is __m256 (8 floats) or __m256d (4 doubles). The Sleef
// functions themselves are in the F32/F64 tables below.
template <class V>
struct Vec;

template <>
struct Vec<__m256> {
  using T = float;
  using V = __m256;
  static constexpr int kWidth = 8;
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  static V neg(V a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }  // b where either is NaN, as min
  static V abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static V sqrt(V a) { return _mm256_sqrt_ps(a); }
  static V select_gt(V a, V b, V t, V f) { return _mm256_blendv_ps(f, t, _mm256_cmp_ps(a, b, _CMP_GT_OQ)); }
  static V gt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }  // masks; false for NaN
  static V lt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static V le(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
  static V land(V a, V b) { return _mm256_and_ps(a, b); }
  static V blend(V mask, V t, V f) { return _mm256_blendv_ps(f, t, mask); }
  static V eq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
  static V neq(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }  // true for NaN, as !=
  static V lxor(V a, V b) { return _mm256_xor_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  static V is_nan(V a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  template <int kMode>
  static V round(V a) {
    return _mm256_round_ps(a, kMode | _MM_FROUND_NO_EXC);
  }
};

template <>
struct Vec<__m256d> {
  using T = double;
  static constexpr int kWidth = 4;
  using V = __m256d;
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static V set1(T x) { return _mm256_set1_pd(x); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V div(V a, V b) { return _mm256_div_pd(a, b); }
  static V neg(V a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }
  static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V min(V a, V b) { return _mm256_min_pd(a, b); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
  static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
  static V sqrt(V a) { return _mm256_sqrt_pd(a); }
  static V select_gt(V a, V b, V t, V f) { return _mm256_blendv_pd(f, t, _mm256_cmp_pd(a, b, _CMP_GT_OQ)); }
  static V gt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
  static V lt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
  static V le(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
  static V land(V a, V b) { return _mm256_and_pd(a, b); }
  static V blend(V mask, V t, V f) { return _mm256_blendv_pd(f, t, mask); }
  static V eq(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
  static V neq(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_NEQ_UQ); }  // true for NaN, as !=
  static V lxor(V a, V b) { return _mm256_xor_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }  // a * b + c, one rounding
  static V is_nan(V a) { return _mm256_cmp_pd(a, a, _CMP_UNORD_Q); }
  template <int kMode>
  static V round(V a) {
    return _mm256_round_pd(a, kMode | _MM_FROUND_NO_EXC);
  }
};

// Note [Width-generic float32 kernels]
// The float32 exp and GELU below are written with GCC's vector extensions (operators on __m256 or __m512 values,
// comparisons as masks, casts between vectors of one size reinterpreting bits) rather than intrinsics, so that one
// always-inlined definition compiles to AVX2 code here and to AVX-512 code inside a target("avx512f") function: an
// intrinsic cannot be inlined into a function lacking its target. The AVX-512 version is chosen at run time, so
// the x86-64-v3 build still runs everywhere. (On AVX-512 machines PyTorch 1.13's float32 GELU is oneDNN's AVX-512
// JIT kernel.) Vectors are passed by const reference (a 64-byte vector by value draws ABI notes from GCC), and the
// few instructions whose exact form matters (an fma's single rounding, minps's NaN order, blendv by the sign bit)
// are inline asm, whose text serves either width.
#define EMBER_VEC_INLINE inline __attribute__((always_inline))
#define EMBER_VEC_INLINE_LAMBDA __attribute__((always_inline))

// out[i] = f(in[i]) and out[i] = f(a[i], b[i]) for vectors V of T, the tail through padded buffers.
template <class V, class T, class F>
EMBER_VEC_INLINE void map_array(const T* in, T* out, int64_t n, F f) {
  constexpr int kWidth = sizeof(V) / sizeof(T);
  int64_t i = 0;
#pragma GCC unroll 2  // (two vectors per iteration for the cheap ops: Note [Loop alignment] in loops.h)
  for (; i + kWidth <= n; i += kWidth) {
    V x;
    std::memcpy(&x, in + i, sizeof(V));
    const V y = f(x);
    std::memcpy(out + i, &y, sizeof(V));
  }
  if (i < n) {
    T buf[kWidth] = {};
    std::memcpy(buf, in + i, (n - i) * sizeof(T));
    V x;
    std::memcpy(&x, buf, sizeof(V));
    const V y = f(x);
    std::memcpy(out + i, &y, (n - i) * sizeof(T));
  }
}
template <class V, class T, class F>
EMBER_VEC_INLINE void map2_array(const T* a, const T* b, T* out, int64_t n, F f) {
  constexpr int kWidth = sizeof(V) / sizeof(T);
  int64_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    V x, y;
    std::memcpy(&x, a + i, sizeof(V));
    std::memcpy(&y, b + i, sizeof(V));
    const V z = f(x, y);
    std::memcpy(out + i, &z, sizeof(V));
  }
  if (i < n) {
    T ba[kWidth] = {}, bb[kWidth] = {};
    std::memcpy(ba, a + i, (n - i) * sizeof(T));
    std::memcpy(bb, b + i, (n - i) * sizeof(T));
    V x, y;
    std::memcpy(&x, ba, sizeof(V));
    std::memcpy(&y, bb, sizeof(V));
    const V z = f(x, y);
    std::memcpy(out + i, &z, (n - i) * sizeof(T));
  }
}
// out[i] = f(a[i], b[i]) where a (b) is either contiguous or, with a_one (b_one), one value repeated (a number
// operand).
template <class V, class T, class F>
EMBER_VEC_INLINE void map_binary(const T* a, bool a_one, const T* b, bool b_one, T* out, int64_t n, F f) {
  constexpr int kWidth = sizeof(V) / sizeof(T);
  if (n <= 0) return;
  V x{}, y{};
  for (int k = 0; k < kWidth; ++k) {  // the repeated values, read only where there is one
    if (a_one) x[k] = *a;
    if (b_one) y[k] = *b;
  }
  if (a_one && b_one) {
    const V z = f(x, y);
    std::fill(out, out + n, z[0]);
  } else if (a_one) {
    map_array<V>(b, out, n, [&](const V& v) EMBER_VEC_INLINE_LAMBDA { return f(x, v); });
  } else if (b_one) {
    map_array<V>(a, out, n, [&](const V& v) EMBER_VEC_INLINE_LAMBDA { return f(v, y); });
  } else {
    map2_array<V>(a, b, out, n, f);
  }
}

// The integer vector of V's size and lane count, for bit manipulation (float lanes: int32; double lanes: int64).
template <class V>
struct Bits;
template <>
struct Bits<__m256> {
  using type = int32_t __attribute__((vector_size(32)));
};
template <>
struct Bits<__m512> {
  using type = int32_t __attribute__((vector_size(64)));
};
template <>
struct Bits<__m256d> {
  using type = int64_t __attribute__((vector_size(32)));
};
template <>
struct Bits<__m512d> {
  using type = int64_t __attribute__((vector_size(64)));
};

namespace f32 {

template <class V>
using I32 = typename Bits<V>::type;

template <class V>
EMBER_VEC_INLINE V splat(float x) {
  return V{} + x;
}
template <class V>
EMBER_VEC_INLINE I32<V> bits(const V& v) {
  return reinterpret_cast<I32<V>>(v);
}
template <class V>
EMBER_VEC_INLINE V from_bits(const I32<V>& i) {
  return reinterpret_cast<V>(i);
}
// a * b + c rounded once. Elsewhere a * b + c is contracted at the compiler's discretion; where the single rounding
// is what makes the result exact, it is spelled out (the same instruction for ymm and zmm registers).
template <class V>
EMBER_VEC_INLINE V fma_exact(const V& a, const V& b, const V& c) {
  V r = c;
  asm("vfmadd231ps %2, %1, %0" : "+v"(r) : "v"(a), "v"(b));
  return r;
}
// x86's minps / maxps: a < b ? a : b and a > b ? a : b, so b passes where either is NaN. One instruction where the
// generic select costs a compare and a blend on AVX2.
template <class V>
EMBER_VEC_INLINE V min_x86(const V& a, const V& b) {
  V r;
  asm("vminps %2, %1, %0" : "=v"(r) : "v"(a), "v"(b));
  return r;
}
template <class V>
EMBER_VEC_INLINE V max_x86(const V& a, const V& b) {
  V r;
  asm("vmaxps %2, %1, %0" : "=v"(r) : "v"(a), "v"(b));
  return r;
}
// x's sign bit set ? neg : pos. AVX2's blendv reads the sign bit itself; AVX-512 compares into a mask.
template <class V>
EMBER_VEC_INLINE V select_sign(const V& x, const V& neg, const V& pos) {
  if constexpr (sizeof(V) == 32) {
    V r;
    asm("vblendvps %1, %2, %3, %0" : "=x"(r) : "x"(x), "x"(neg), "x"(pos));
    return r;
  } else {
    return bits(x) < 0 ? neg : pos;
  }
}
// Loads and stores of unaligned vectors of either width.
template <class V>
EMBER_VEC_INLINE V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <class V>
EMBER_VEC_INLINE void store(float* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}

// Note [Inline float32 exp]: exp(y) = 2^n e^r with n = round(y / ln2), read from the low mantissa bits of
// y / ln2 + 1.5 * 2^23 (the "shifter"), r = y - n ln2 in two steps (ln2_hi has 16 bits, so n ln2_hi is exact), and
// e^r = 1 + r Q(r) with Q a degree-5 minimax fit made for this file (relative error 1.1e-8 on |r| <= ln2 / 2):
// below 1 ulp (0.90 measured). Inlined it costs half of Sleef's expf8 call, which clobbers every register and
// serializes the code around it. 2^n is applied in two factors so that results at the overflow and subnormal ends
// round once.
constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693145751953125f, kLn2Lo = 1.428606765330187045e-06f,
                kShifter = 12582912.0f;  // 1.5 * 2^23
constexpr int32_t kShifterBits = 0x4B400000;

// Q(r) ~ (e^r - 1) / r; m e^r is then m r Q + m.
template <class V>
EMBER_VEC_INLINE V exp_q(const V& r) {
  constexpr float q[] = {1.388887777e-03f, 8.369068733e-03f, 4.166713614e-02f,
                         1.666650622e-01f, 4.999999812e-01f, 1.000000011e+00f};
  V p = splat<V>(q[0]);
  for (int i = 1; i < 6; ++i) p = p * r + q[i];
  return p;
}

// 2^(n + bias) from the shifted value kShifter + n (n + bias within the normal exponents).
template <class V>
EMBER_VEC_INLINE V pow2_shifted(const V& shifted, int32_t bias) {
  return from_bits<V>((bits(shifted) + (bias + 127 - kShifterBits)) << 23);
}

template <class V>
EMBER_VEC_INLINE V exp(const V& arg) {
  // Past [-104, 100] the result is 0 or inf anyway; NaN passes.
  const V y = min_x86(splat<V>(100.0f), max_x86(splat<V>(-104.0f), arg));
  const V shifted = y * kLog2e + kShifter, n = shifted - kShifter;
  V r = n * -kLn2Hi + y;
  r = n * -kLn2Lo + r;
  const V p = r * exp_q(r) + 1.0f;
  // n in [-150, 145] as n1 + n2, each a normal exponent.
  const I32<V> ni = bits(shifted) - kShifterBits, n1 = ni >> 1, n2 = ni - n1;
  return p * from_bits<V>((n1 + 127) << 23) * from_bits<V>((n2 + 127) << 23);
}

// Note [Inline float32 tanh]: for |x| < 0.9, tanh(x) = x + x^3 P(x^2) with P a degree-5 fit made for this file
// (relative error 1.6e-8); beyond, 1 - 2 / (e^(2|x|) + 1) with the inline exp, whose cancellation at 0.9 (tanh 0.72)
// costs at most a bit. Measured within 1.0 ulp of float64's tanh. Sleef's tanhf8 cost 4.5 times as much (22 against
// 5 us for 10,240 floats), and an LSTM step's cell takes two tanh and three sigmoids per unit.
template <class V>
EMBER_VEC_INLINE V tanh(const V& x) {
  constexpr float p[] = {1.303960918e-03f,  -6.860059220e-03f, 2.090413123e-02f,
                         -5.372149125e-02f, 1.333035976e-01f,  -3.333321214e-01f};
  const V ax = from_bits<V>(bits(x) & 0x7fffffff), u = ax * ax;
  V q = splat<V>(p[0]);
  for (int i = 1; i < 6; ++i) q = q * u + p[i];
  const V small = (ax * u) * q + ax, big = 1.0f - 2.0f / (exp(ax + ax) + 1.0f);  // NaN takes big, which keeps it
  const V r = ax < 0.9f ? small : big;
  return from_bits<V>(bits(r) | (bits(x) & int32_t(0x80000000)));  // tanh(-x) = -tanh(x), -0 included
}

// Note [Inline float32 softplus]: log1p(e^(bx)) / b = (max(bx, 0) + log1p(e^-|bx|)) / b, the log1p of t in (0, 1]
// inlined as 2 atanh(s) = 2 s (1 + s^2/3 + ... + s^8/9) with |s| <= 0.172 (truncation below 2e-9): s = t / (t + 2)
// for t < sqrt(2) - 1 (log1p(t) = 2 atanh(t / (t + 2)) exactly: tiny t stays relatively exact), else ln2 + log m
// for 1 + t = 2 m, s = (m - 1) / (m + 1), plus (t - (u - 1)) / u for the rounding of u = 1 + t; the rounding of
// the denominator is taken out of s. Within 2.3 ulp of float64's formula (most of it the exp's error, doubled where
// log1p(t) falls a binade below t), where Sleef's log1pf8 cost two thirds of softplus's forward.
template <class V>
EMBER_VEC_INLINE V log1p_unit(const V& t) {
  const V u = t + 1.0f;
  const auto big = u >= 1.41421356f;
  const V m = u * 0.5f;
  // s = num / den, den's rounding (lo, exact by Sterbenz's lemma) taken out to first order
  const V num = big ? m - 1.0f : t, one = big ? splat<V>(1.0f) : splat<V>(2.0f), den = (big ? m : t) + one;
  const V q = num / den, lo = (big ? m : t) - (den - one);
  const V s = q - q * (lo / den), s2 = s * s;
  const V p = (((s2 * (1.0f / 9) + 1.0f / 7) * s2 + 1.0f / 5) * s2 + 1.0f / 3) * s2;
  // ln2 in two parts (ln2_hi exact), added last: rounded whole, it alone cost an ulp of the result
  const V hi = big ? splat<V>(kLn2Hi) : splat<V>(0.0f), tail = big ? (t - (u - 1.0f)) / u + kLn2Lo : splat<V>(0.0f);
  return hi + (((s + s) * p + (s + s)) + tail);
}
template <class V>
EMBER_VEC_INLINE V softplus(const V& x, float beta, float threshold) {
  const V bx = x * beta;
  const V abs_bx = from_bits<V>(bits(bx) & 0x7fffffff);
  const V y = (max_x86(splat<V>(0.0f), bx) + log1p_unit(exp(-abs_bx))) / beta;  // NaN passes (max_x86 keeps bx)
  return bx > threshold ? x : y;
}

// Note [float32 GELU]: gelu(x) = x Phi(x) with Phi(x) = erfc(-x / sqrt2) / 2. For z = |x| / sqrt2 and
// t = 1 / (1 + z / 2), erfc(z) = t exp(-z^2 + P(t)) with P a degree-9 minimax fit of log(erfc(z) / t) + z^2 on
// z <= 10.3 (made for this file with float64 NumPy; error 5e-8, Numerical Recipes' erfcc has this form). Then
// gelu(x) = -|x|/2 erfc(z) for x < 0 and x - |x|/2 erfc(z) for x >= 0: relative accuracy down to x = -14.5, past
// which gelu leaves the float range. The exponent -x^2/2 + P - n ln2 is formed without rounding -x^2/2 (x^2 + 2 n
// ln2_hi in one fma) and the exp is inlined into it (Note [Inline float32 exp]); 2^n is applied as 2^(n+32) 2^-32
// so that subnormal results round once. Measured relative error below 4.1e-7 everywhere, against PyTorch 1.13's
// 6e-5 at x = -3 and no correct digit below x = -5.5 (its 1 + erf(z) cancels), for the cost of one exp.
//
// The work goes in two stages over blocks of 8 vectors (t, P(t) and the reduced exponent; then e^r and the
// result): one vector's chain (a division feeding two polynomials) is long enough to fill the out-of-order window
// with a few vectors' serial work, while the stages' independent chains overlap.
template <class V>
struct GeluState {
  V m, r, shifted;  // f t for the factor f below, r, and kShifter + n
};
// erfc(z) 2^32 will come out times |x| (for gelu) or times 1 (for its derivative). Written to s: a returned
// struct of 64-byte vectors draws an ABI note from GCC.
template <class V>
EMBER_VEC_INLINE void gelu_first(const V& x, bool times_abs, GeluState<V>& s) {
  constexpr float p[] = {1.440553516e-01f, -6.762721924e-01f, 1.146613421e+00f, -6.837447041e-01f, -8.966972149e-02f,
                         5.652589291e-03f, 3.335220733e-02f,  3.868440402e-01f, 9.986166642e-01f,  -1.265447609e+00f};
  const V ax = min_x86(splat<V>(14.5f), from_bits<V>(bits(x) & 0x7fffffff));  // NaN passes
  const V t = 1.0f / (ax * 0.35355339059327376f + 1.0f);                      // 1 / (1 + z / 2)
  // P(t) by Estrin's scheme (depth 4 rather than Horner's 9).
  auto lin = [&](int hi) { return t * p[hi] + p[hi + 1]; };
  const V t2 = t * t, t4 = t2 * t2, t8 = t4 * t4;
  const V poly = lin(0) * t8 + ((lin(2) * t2 + lin(4)) * t4 + (lin(6) * t2 + lin(8)));
  // P - x^2/2 = n ln2 + r
  const V shifted = ((ax * ax) * -0.5f + poly) * kLog2e + kShifter, n = shifted - kShifter;
  const V x2n = fma_exact(ax, ax, n * (2 * kLn2Hi));  // x^2 + 2 n ln2_hi, exact before its one rounding
  s = {times_abs ? ax * t : t, n * -kLn2Lo + (x2n * -0.5f + poly), shifted};
}
// f erfc(z) 2^32 = m e^r 2^(n+32).
template <class V>
EMBER_VEC_INLINE V erfc_scaled(const GeluState<V>& s) {
  return (s.m * s.r * exp_q(s.r) + s.m) * pow2_shifted(s.shifted, 32);
}
template <class V>
EMBER_VEC_INLINE V gelu_second(const V& x, const GeluState<V>& s) {
  const V w = erfc_scaled(s) * -0x1p-33f;  // -|x|/2 erfc(z)
  // x * 0 + w makes gelu(-inf) NaN, as PyTorch's (|x| is clamped above, so w is finite).
  return select_sign(x, x * 0.0f + w, x + w);
}
// gelu'(x) = Phi(x) + x phi(x), Phi(x) = erfc(z) / 2 for x < 0, 1 - erfc(z) / 2 for x >= 0.
template <class V>
EMBER_VEC_INLINE V gelu_grad(const V& x) {
  GeluState<V> s;
  gelu_first(x, false, s);
  const V half_q = erfc_scaled(s) * 0x1p-33f;
  const V cdf = select_sign(x, half_q, 1.0f - half_q);
  return x * (exp(x * x * -0.5f) * 0.39894228040143267794f) + cdf;
}

// Note [Inline float32 erf]: Sleef's erff (1 ulp) cost 2.4 ns an element, twice PyTorch's erf. For |y| < 1 the
// Maclaurin series to y^23 (truncation below 2e-9 relative), in Horner's form on y^2 with the leading term's
// coefficient in two parts and added last; else 1 - erfc(|y|) with erfc from GELU's fit above (x = y sqrt2, so
// z = |y|; relative error 4.1e-7 in erfc, which 1 - erfc shrinks by erfc(1) / erf(1) = 0.19 at the seam and more
// beyond). Measured within 1.4 ulp of float64's erf (PyTorch's
// float32 erf: 1.5e-7 absolute, several ulp near 0.5). 64K floats at one thread: 159 -> 64 us (PyTorch 86-118).
template <class V>
EMBER_VEC_INLINE V erf(const V& y) {
  constexpr float c[] = {-3.761263788e-01f, 1.128379181e-01f, -2.686617151e-02f, 5.223977845e-03f,
                         -8.548327023e-04f, 1.205533263e-04f, -1.492565025e-05f, 1.646211444e-06f,
                         -1.636584415e-07f, 1.480719281e-08f, -1.229055524e-09f};
  constexpr float c0_hi = 1.128379226e+00f, c0_lo = -5.863538344e-08f;  // 2 / sqrt(pi) in two parts
  const V ay = from_bits<V>(bits(y) & 0x7fffffff), u = ay * ay;
  V q = splat<V>(c[10]);
  for (int k = 9; k >= 0; --k) q = q * u + c[k];
  const V small = ay * c0_hi + (ay * c0_lo + ay * (u * q));  // the leading term last, in one fma
  GeluState<V> s;
  gelu_first(ay * 1.41421356237309505f, false, s);  // NaN passes; past 10.25 |y| is clamped, where erfc rounds to 0
  const V big = 1.0f - erfc_scaled(s) * 0x1p-32f;
  const V r = ay < 1.0f ? small : big;  // erf(|y|)
  return select_sign(y, -r, r);         // erf(-0) = -0
}

template <class V>
EMBER_VEC_INLINE void gelu_array(const float* in, float* out, int64_t n) {
  constexpr int kWidth = sizeof(V) / sizeof(float), kBlock = 8;
  int64_t i = 0;
  for (; i + kBlock * kWidth <= n; i += kBlock * kWidth) {
    GeluState<V> st[kBlock];
    for (int j = 0; j < kBlock; ++j) gelu_first(load<V>(in + i + j * kWidth), true, st[j]);
    for (int j = 0; j < kBlock; ++j) store(out + i + j * kWidth, gelu_second(load<V>(in + i + j * kWidth), st[j]));
  }
  for (; i < n; i += kWidth) {  // the tail vector by vector, the last through a padded buffer
    float buf[kWidth] = {};
    const int64_t m = std::min<int64_t>(kWidth, n - i);
    std::memcpy(buf, in + i, m * sizeof(float));
    const V x = load<V>(buf);
    GeluState<V> s;
    gelu_first(x, true, s);
    store(buf, gelu_second(x, s));
    std::memcpy(out + i, buf, m * sizeof(float));
  }
}
}  // namespace f32

// GELU's other forms, for either width and element type (Note [Width-generic float32 kernels]).
// x/2 (1 + tanh(u)) = x / (1 + exp(-2u)): one exp and a division rather than a tanh, and no cancellation for
// x << 0 where tanh(u) -> -1.
template <class V, class Exp>
EMBER_VEC_INLINE V gelu_tanh(const V& x, Exp exp) {
  using T = std::remove_cvref_t<decltype(x[0])>;
  return x / (T(1) + exp((x * x * x * T(0.044715) + x) * T(-2 * 0.79788456080286535588)));
}
// float64: Phi by Sleef's erf, as PyTorch's (1 + erf(z) loses digits for x < -3).
template <class V, class Erf>
EMBER_VEC_INLINE V gelu_erf(const V& x, Erf erf) {
  return x * 0.5 * (1.0 + erf(x * 0.70710678118654752440));
}

struct InlineExpF32 {
  template <class V>
  EMBER_VEC_INLINE V operator()(const V& v) const {
    return f32::exp(v);
  }
};
// Sleef's AVX-512 functions are declared by sleef.h only where __AVX512F__ is defined for the whole file.
extern "C" __m512d Sleef_expd8_u10avx512f(__m512d);
struct SleefExpF64 {
  EMBER_VEC_INLINE __m256d operator()(__m256d v) const { return Sleef_expd4_u10avx2(v); }
  EMBER_VEC_INLINE __m512d operator()(const __m512d& v) const { return Sleef_expd8_u10avx512f(v); }
};
// Note [float64 erf]: Sleef 3.5's erfd (Debian 12's) costs about 190 cycles a vector, three times PyTorch's erf, so
// erf is computed here from two fits made for this file (least squares in float64, refined against mpmath's erf):
// for |x| < 1, x P(x^2) with P of degree 11; for 1 <= |x| < 6, 1 - e^(-x^2) R(s) with R of degree 24 in
// s = 2.4 / |x| - 1.4 (1/|x| mapped onto [-1, 1]), x^2 split into hi + lo by an fma so that e^(-x^2) =
// e^(-hi) (1 - lo) keeps its digits; past 6, erf rounds to +-1. Measured within 1 ulp of mpmath's erf.

// e^y for y in [-37, -1] (erf_f64's e^(-x^2)): 2^n e^r, n = round(y / ln2) read from the low bits of y / ln2 + 1.5 *
// 2^52, r = y - n ln2 in two steps (ln2_hi's low 32 bits are zero, so n ln2_hi is exact), e^r by its Taylor
// polynomial to r^13 (|r| <= ln2 / 2: truncation below 5e-18). Inlined, a fifth of Sleef's expd call.
template <class V>
EMBER_VEC_INLINE V exp_neg_f64(const V& y) {
  using I = typename Bits<V>::type;
  constexpr double kShifter = 0x1.8p52, kLn2Hi = 0x1.62e42fee00000p-1, kLn2Lo = 0x1.a39ef35793c76p-33;
  const V shifted = y * 1.4426950408889634 + kShifter, n = shifted - kShifter;
  const V r = (y - n * kLn2Hi) - n * kLn2Lo;
  static constexpr double kInvFact[] = {
      1.0,        1.0,         1.0 / 2,      1.0 / 6,       1.0 / 24,       1.0 / 120,       1.0 / 720,
      1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800};
  V p = V{} + kInvFact[13];
  for (int k = 12; k >= 0; --k) p = p * r + kInvFact[k];
  const I bits = (reinterpret_cast<I>(shifted) - reinterpret_cast<I>(V{} + kShifter) + 1023) << 52;
  return p * reinterpret_cast<V>(bits);
}
template <class V>
EMBER_VEC_INLINE V erf_f64(const V& x) {
  static constexpr double a[] = {1.1283791670955126,      -0.37612638903183532,    0.11283791670944646,
                                 -0.026866170643183154,   0.0052239776067013327,   -0.00085483259571233388,
                                 0.00012055294404304886,  -1.4924728082089833e-05, 1.6447324405181422e-06,
                                 -1.6207773320583487e-07, 1.3717210328484642e-08,  -7.7909329286380756e-10};
  static constexpr double r[] = {
      0.28972211632346423,     0.16536269001261483,     -0.030831050508433443,   0.0028211318978460468,
      0.0010344322265078906,   -0.00073838674175930204, 0.00026560546361496936,  -5.5286514330758138e-05,
      -4.0465698729005861e-06, 1.088279661249913e-05,   -6.4984029870250318e-06, 2.582419096554582e-06,
      -6.6221398073763206e-07, 3.3239720229183606e-09,  1.2353053455118364e-07,  -9.8249419817142008e-08,
      5.1936695627919674e-08,  -1.4549583831912831e-08, 1.0590345394808931e-10,  -2.8207398533828993e-09,
      1.9092182512469301e-09,  2.8359622399814036e-09,  -2.1495478709286394e-09, -2.3263628911333546e-10,
      3.270556924444862e-10};
  using I = typename Bits<V>::type;
  const I sign = reinterpret_cast<I>(x) & INT64_MIN;
  const V ax = reinterpret_cast<V>(reinterpret_cast<I>(x) ^ sign), u = x * x;
  V p = V{} + a[11];
  for (int i = 10; i >= 0; --i) p = p * u + a[i];
  const V b = ax < 1.0 ? V{} + 1.0 : ax < 6.0 ? ax : V{} + 6.0;  // (NaN: 6, replaced below)
  const V s = 2.4 / b - 1.4;
  V q = V{} + r[24];
  for (int i = 23; i >= 0; --i) q = q * s + r[i];
  const V hi = b * b;
  V lo = -hi;  // b * b - hi, rounded once
  asm("vfmadd231pd %2, %1, %0" : "+v"(lo) : "v"(b), "v"(b));
  const V one_minus = 1.0 - exp_neg_f64(-hi) * (1.0 - lo) * q;
  const V big = reinterpret_cast<V>(reinterpret_cast<I>(one_minus) | sign);
  const V r1 = ax < 1.0 ? x * p : big;
  return x == x ? r1 : x;
}
// Note [float32 erfinv]: nn.init.trunc_normal_ runs erfinv over whole weights, and the scalar erfinv (math/unary.h:
// Giles' approximation, then two Newton steps on erf in double) took 51 ns per element, 26 times PyTorch's. Here,
// float32 values are widened to double and erfinv(y) = y g(w), w = -log((1 - y)(1 + y)) (exact in double for a float
// y, so no digit of 1 - y^2 is lost near |y| = 1), with g a polynomial in w: degree 14 on [0, 6.25) and 12 on
// [6.25, 16.2] (the largest float below 1 gives 15.94). Both were fitted for this file (relative least squares in
// float64 NumPy against the float64 erfinv on Chebyshev nodes): relative error 3.7e-11 and 1.1e-10, the second the
// float64 reference's own limit there, so the result is the correctly rounded float except within about 0.001 ulp of a
// tie: at most 0.5006 ulp from the float64 erfinv over a dense sweep of (-1, 1) (PyTorch's float32 erfinv: 0.5012).
// 64K floats at one thread: 202 us (the scalar path 3340, PyTorch 125). |y| > 1 and NaN give NaN, +-1 +-inf.
template <class V, class Log>
EMBER_VEC_INLINE V erfinv_f64_lanes(const V& y, Log log) {
  static constexpr double c1[] = {1.0098907563736208e-13,  1.2908069347459543e-12, -1.5836630390354864e-11,
                                  -3.546791533342115e-11,  1.0773210815786225e-09, -4.2475840875739936e-09,
                                  -2.920849152506419e-08,  4.2400528675278814e-07, -1.3650633294394275e-06,
                                  -1.3883582317399582e-05, 0.00018673361375285707, -0.0007407015934669431,
                                  -0.006033670535639942,   0.24015818218388557,    1.653654562651512};
  static constexpr double c2[] = {5.05930652863806e-16,    -8.509142608004828e-14, 1.692487421232132e-12,
                                  -1.8495216120939346e-11, 1.5454500865699098e-10, -7.698678217480269e-10,
                                  -6.730707163776524e-09,  2.926731241814979e-07,  -6.5276380632200885e-06,
                                  0.00013498477930841063,  -0.003247016500057715,  0.15016731296915367,
                                  3.184837136885291};
  const V w = -log((1.0 - y) * (1.0 + y)), u1 = w - 3.125, u2 = w - 11.225;
  V p1 = V{} + c1[0], p2 = V{} + c2[0];
  for (int k = 1; k < 15; ++k) p1 = p1 * u1 + c1[k];
  for (int k = 1; k < 13; ++k) p2 = p2 * u2 + c2[k];
  const V x = (w < 6.25 ? p1 : p2) * y, ay = y < 0.0 ? -y : y;
  const V inf = y < 0.0 ? V{} - __builtin_inf() : V{} + __builtin_inf();
  const V r = ay == 1.0 ? inf : x;
  return ay <= 1.0 ? r : V{} + __builtin_nan("");  // |y| > 1 or NaN
}
struct SleefLogF64 {
  EMBER_VEC_INLINE __m256d operator()(__m256d v) const { return Sleef_logd4_u10avx2(v); }
};
void erfinv_f32_array(const float* in, float* out, int64_t n) {
  auto f = [](__m256 y) {
    const __m256d lo = erfinv_f64_lanes(_mm256_cvtps_pd(_mm256_castps256_ps128(y)), SleefLogF64{});
    const __m256d hi = erfinv_f64_lanes(_mm256_cvtps_pd(_mm256_extractf128_ps(y, 1)), SleefLogF64{});
    return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
  };
  map_array<__m256>(in, out, n, f);
}

struct InlineErfF64 {
  template <class V>
  EMBER_VEC_INLINE V operator()(const V& v) const {
    return erf_f64(v);
  }
};
template <class V>
struct GeluTanhFn {
  using Exp = std::conditional_t<sizeof(V{}[0]) == 4, InlineExpF32, SleefExpF64>;
  EMBER_VEC_INLINE V operator()(const V& x) const { return gelu_tanh(x, Exp{}); }
};
template <class V>
struct GeluErfFn {
  EMBER_VEC_INLINE V operator()(const V& x) const { return gelu_erf(x, InlineErfF64{}); }
};
template <class V>
struct SoftplusFn {  // float32
  float beta, threshold;
  EMBER_VEC_INLINE V operator()(const V& x) const { return f32::softplus(x, beta, threshold); }
};
template <class V>
struct TanhFn {  // float32
  EMBER_VEC_INLINE V operator()(const V& x) const { return f32::tanh(x); }
};
template <class V>
struct GeluGradFn {  // g gelu'(x), float32
  EMBER_VEC_INLINE V operator()(const V& g, const V& x) const { return g * f32::gelu_grad(x); }
};

// y = exp(x - shift) and its sum, two vectors a step (the exps' chains overlap), the tail through a padded buffer
// whose lanes past n are left out of the sum.
template <class V, class T, class Exp>
EMBER_VEC_INLINE T exp_shift_sum_array(const T* x, T shift, T* y, int64_t n, Exp exp) {
  constexpr int kWidth = sizeof(V) / sizeof(T);
  V a0 = V{} + T(0), a1 = a0;
  int64_t i = 0;
  for (; i + 2 * kWidth <= n; i += 2 * kWidth) {
    V u, v;
    std::memcpy(&u, x + i, sizeof(V));
    std::memcpy(&v, x + i + kWidth, sizeof(V));
    u = exp(u - shift);
    v = exp(v - shift);
    std::memcpy(y + i, &u, sizeof(V));
    std::memcpy(y + i + kWidth, &v, sizeof(V));
    a0 += u;
    a1 += v;
  }
  a0 += a1;
  T s = 0;
  for (int k = 0; k < kWidth; ++k) s += a0[k];
  for (; i < n; i += kWidth) {
    const int64_t m = std::min<int64_t>(kWidth, n - i);
    T buf[kWidth] = {};
    std::memcpy(buf, x + i, m * sizeof(T));
    V u;
    std::memcpy(&u, buf, sizeof(V));
    u = exp(u - shift);
    std::memcpy(buf, &u, sizeof(V));
    std::memcpy(y + i, buf, m * sizeof(T));
    for (int64_t k = 0; k < m; ++k) s += buf[k];
  }
  return s;
}

// The AVX-512 versions, chosen at run time: the width-generic bodies at 16 (8) lanes. (Vector extensions and
// target attributes: this file is for GCC and Clang.)
namespace avx512 {
bool available() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}
#define EMBER_AVX512 __attribute__((target("avx512f")))
EMBER_AVX512 void gelu(const float* in, float* out, int64_t n) { f32::gelu_array<__m512>(in, out, n); }
EMBER_AVX512 void gelu(const double* in, double* out, int64_t n) {
  map_array<__m512d>(in, out, n, GeluErfFn<__m512d>{});
}
EMBER_AVX512 void gelu_grad(const float* g, const float* x, float* out, int64_t n) {
  map2_array<__m512>(g, x, out, n, GeluGradFn<__m512>{});
}
EMBER_AVX512 void gelu_tanh(const float* in, float* out, int64_t n) {
  map_array<__m512>(in, out, n, GeluTanhFn<__m512>{});
}
EMBER_AVX512 void gelu_tanh(const double* in, double* out, int64_t n) {
  map_array<__m512d>(in, out, n, GeluTanhFn<__m512d>{});
}
EMBER_AVX512 float exp_shift_sum(const float* x, float shift, float* y, int64_t n) {
  return exp_shift_sum_array<__m512>(x, shift, y, n, InlineExpF32{});
}
EMBER_AVX512 void erf(const double* in, double* out, int64_t n) { map_array<__m512d>(in, out, n, InlineErfF64{}); }
EMBER_AVX512 void softplus(const float* in, float* out, int64_t n, float beta, float threshold) {
  map_array<__m512>(in, out, n, SoftplusFn<__m512>{beta, threshold});
}
EMBER_AVX512 void tanh(const float* in, float* out, int64_t n) { map_array<__m512>(in, out, n, TanhFn<__m512>{}); }
EMBER_AVX512 double exp_shift_sum(const double* x, double shift, double* y, int64_t n) {
  return exp_shift_sum_array<__m512d>(x, shift, y, n, SleefExpF64{});
}

// Note [AVX-512 Sleef]: on AVX-512 machines the functions that are plain Sleef calls run Sleef's 16-lane (float32) and
// 8-lane (float64) versions, as PyTorch's kernels do there: 64K floats at one thread, log1p 76 -> 53 us, atan2 142 ->
// 95 (PyTorch 53, 95). Same algorithms, so the same accuracy (1.0 ULP; hypot 0.5).
// (sleef.h declares the AVX-512 functions only where __AVX512F__ is defined for the whole file)
#define EMBER_SLEEF_DECLARE(name)              \
  __m512 Sleef_##name##f16_u10avx512f(__m512); \
  __m512d Sleef_##name##d8_u10avx512f(__m512d);
extern "C" {
EMBER_SLEEF_DECLARE(exp2)
EMBER_SLEEF_DECLARE(expm1)
EMBER_SLEEF_DECLARE(log)
EMBER_SLEEF_DECLARE(log2)
EMBER_SLEEF_DECLARE(log10)
EMBER_SLEEF_DECLARE(log1p)
EMBER_SLEEF_DECLARE(sin)
EMBER_SLEEF_DECLARE(cos)
EMBER_SLEEF_DECLARE(tan)
EMBER_SLEEF_DECLARE(asin)
EMBER_SLEEF_DECLARE(acos)
EMBER_SLEEF_DECLARE(atan)
EMBER_SLEEF_DECLARE(sinh)
EMBER_SLEEF_DECLARE(cosh)
EMBER_SLEEF_DECLARE(asinh)
EMBER_SLEEF_DECLARE(acosh)
EMBER_SLEEF_DECLARE(atanh)
__m512 Sleef_erfcf16_u15avx512f(__m512);
__m512d Sleef_erfcd8_u15avx512f(__m512d);
__m512d Sleef_tanhd8_u10avx512f(__m512d);
__m512 Sleef_atan2f16_u10avx512f(__m512, __m512);
__m512d Sleef_atan2d8_u10avx512f(__m512d, __m512d);
__m512 Sleef_hypotf16_u05avx512f(__m512, __m512);
__m512d Sleef_hypotd8_u05avx512f(__m512d, __m512d);
__m512 Sleef_powf16_u10avx512f(__m512, __m512);
__m512d Sleef_powd8_u10avx512f(__m512d, __m512d);
__m512 Sleef_fmodf16_avx512f(__m512, __m512);
__m512d Sleef_fmodd8_avx512f(__m512d, __m512d);
}
#undef EMBER_SLEEF_DECLARE

template <class V, V (*F)(V, V)>
struct Sleef2 {
  EMBER_VEC_INLINE V operator()(const V& x, const V& y) const { return F(x, y); }
};

// fmod, and remainder (fmod's result moved into the divisor's sign where it is nonzero and of the other sign), as
// the AVX2 path of Note [Vector binary functions] computes them: Sleef's exact fmod, whose NaN where x / y is past
// T's range (finite x, nonzero y) is replaced by libm's.
template <class V, bool Remainder>
struct Fmod512 {
  // (called, not inlined: the loops' lambdas are not compiled for AVX-512, so its intrinsics cannot inline there)
  EMBER_AVX512 V operator()(const V& x, const V& y) const {
    constexpr bool f32 = std::is_same_v<V, __m512>;
    if constexpr (f32) {
      __m512 m = Sleef_fmodf16_avx512f(x, y);
      const __m512 zero = _mm512_setzero_ps();
      const __mmask16 bad = _mm512_cmp_ps_mask(m, m, _CMP_UNORD_Q) &
                            _mm512_cmp_ps_mask(_mm512_sub_ps(x, x), zero, _CMP_EQ_OQ) &
                            _mm512_cmp_ps_mask(y, zero, _CMP_NEQ_UQ);
      if (bad) [[unlikely]]
        for (int k = 0; k < 16; ++k)
          if (bad >> k & 1) m[k] = std::fmod(x[k], y[k]);
      if constexpr (Remainder) {
        const __mmask16 fix = _mm512_cmp_ps_mask(m, zero, _CMP_NEQ_UQ) &
                              (_mm512_cmp_ps_mask(y, zero, _CMP_LT_OQ) ^ _mm512_cmp_ps_mask(m, zero, _CMP_LT_OQ));
        m = _mm512_mask_add_ps(m, fix, m, y);
      }
      return m;
    } else {
      __m512d m = Sleef_fmodd8_avx512f(x, y);
      const __m512d zero = _mm512_setzero_pd();
      const __mmask8 bad = _mm512_cmp_pd_mask(m, m, _CMP_UNORD_Q) &
                           _mm512_cmp_pd_mask(_mm512_sub_pd(x, x), zero, _CMP_EQ_OQ) &
                           _mm512_cmp_pd_mask(y, zero, _CMP_NEQ_UQ);
      if (bad) [[unlikely]]
        for (int k = 0; k < 8; ++k)
          if (bad >> k & 1) m[k] = std::fmod(x[k], y[k]);
      if constexpr (Remainder) {
        const __mmask8 fix = _mm512_cmp_pd_mask(m, zero, _CMP_NEQ_UQ) &
                             (_mm512_cmp_pd_mask(y, zero, _CMP_LT_OQ) ^ _mm512_cmp_pd_mask(m, zero, _CMP_LT_OQ));
        m = _mm512_mask_add_pd(m, fix, m, y);
      }
      return m;
    }
  }
};

// The Sleef function of Note [AVX-512 Sleef] for op, or null.
using Sleef16 = __m512 (*)(__m512);
using Sleef8 = __m512d (*)(__m512d);
Sleef16 sleef_f32(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp2: return Sleef_exp2f16_u10avx512f;
    case UnaryOp::Expm1: return Sleef_expm1f16_u10avx512f;
    case UnaryOp::Log: return Sleef_logf16_u10avx512f;
    case UnaryOp::Log2: return Sleef_log2f16_u10avx512f;
    case UnaryOp::Log10: return Sleef_log10f16_u10avx512f;
    case UnaryOp::Log1p: return Sleef_log1pf16_u10avx512f;
    case UnaryOp::Sin: return Sleef_sinf16_u10avx512f;
    case UnaryOp::Cos: return Sleef_cosf16_u10avx512f;
    case UnaryOp::Tan: return Sleef_tanf16_u10avx512f;
    case UnaryOp::Asin: return Sleef_asinf16_u10avx512f;
    case UnaryOp::Acos: return Sleef_acosf16_u10avx512f;
    case UnaryOp::Atan: return Sleef_atanf16_u10avx512f;
    case UnaryOp::Sinh: return Sleef_sinhf16_u10avx512f;
    case UnaryOp::Cosh: return Sleef_coshf16_u10avx512f;
    case UnaryOp::Asinh: return Sleef_asinhf16_u10avx512f;
    case UnaryOp::Acosh: return Sleef_acoshf16_u10avx512f;
    case UnaryOp::Atanh: return Sleef_atanhf16_u10avx512f;
    case UnaryOp::Erfc: return Sleef_erfcf16_u15avx512f;
    default: return nullptr;
  }
}
Sleef8 sleef_f64(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp2: return Sleef_exp2d8_u10avx512f;
    case UnaryOp::Expm1: return Sleef_expm1d8_u10avx512f;
    case UnaryOp::Log: return Sleef_logd8_u10avx512f;
    case UnaryOp::Log2: return Sleef_log2d8_u10avx512f;
    case UnaryOp::Log10: return Sleef_log10d8_u10avx512f;
    case UnaryOp::Log1p: return Sleef_log1pd8_u10avx512f;
    case UnaryOp::Sin: return Sleef_sind8_u10avx512f;
    case UnaryOp::Cos: return Sleef_cosd8_u10avx512f;
    case UnaryOp::Tan: return Sleef_tand8_u10avx512f;
    case UnaryOp::Asin: return Sleef_asind8_u10avx512f;
    case UnaryOp::Acos: return Sleef_acosd8_u10avx512f;
    case UnaryOp::Atan: return Sleef_atand8_u10avx512f;
    case UnaryOp::Sinh: return Sleef_sinhd8_u10avx512f;
    case UnaryOp::Cosh: return Sleef_coshd8_u10avx512f;
    case UnaryOp::Asinh: return Sleef_asinhd8_u10avx512f;
    case UnaryOp::Acosh: return Sleef_acoshd8_u10avx512f;
    case UnaryOp::Atanh: return Sleef_atanhd8_u10avx512f;
    case UnaryOp::Tanh: return Sleef_tanhd8_u10avx512f;
    case UnaryOp::Erfc: return Sleef_erfcd8_u15avx512f;
    default: return nullptr;
  }
}
// op over float32 (float64) values in AVX-512; false for the ops without such a version here.
// sigmoid(x) = 1 / (1 + e^-x) and silu(x) = x / (1 + e^-x), as the AVX2 kernels in run() compute them.
template <class Exp>
struct SigmoidFn {
  template <class V>
  EMBER_VEC_INLINE V operator()(const V& x) const {
    return 1 / (1 + Exp{}(-x));
  }
};
template <class Exp>
struct SiluFn {
  template <class V>
  EMBER_VEC_INLINE V operator()(const V& x) const {
    return x / (1 + Exp{}(-x));
  }
};
EMBER_AVX512 bool sleef(UnaryOp op, const float* in, float* out, int64_t n) {
  if (op == UnaryOp::Exp) {
    map_array<__m512>(in, out, n, InlineExpF32{});  // Note [Inline float32 exp]
    return true;
  }
  if (op == UnaryOp::Erf) {
    map_array<__m512>(in, out, n, [](const __m512& x) EMBER_VEC_INLINE_LAMBDA { return f32::erf(x); });
    return true;
  }
  if (op == UnaryOp::Sigmoid || op == UnaryOp::Silu) {
    if (op == UnaryOp::Sigmoid)
      map_array<__m512>(in, out, n, SigmoidFn<InlineExpF32>{});
    else
      map_array<__m512>(in, out, n, SiluFn<InlineExpF32>{});
    return true;
  }
  const Sleef16 f = sleef_f32(op);
  if (f) map_array<__m512>(in, out, n, [f](const __m512& x) EMBER_VEC_INLINE_LAMBDA { return f(x); });
  return f != nullptr;
}
EMBER_AVX512 bool sleef(UnaryOp op, const double* in, double* out, int64_t n) {
  if (op == UnaryOp::Sigmoid || op == UnaryOp::Silu) {
    if (op == UnaryOp::Sigmoid)
      map_array<__m512d>(in, out, n, SigmoidFn<SleefExpF64>{});
    else
      map_array<__m512d>(in, out, n, SiluFn<SleefExpF64>{});
    return true;
  }
  if (op == UnaryOp::Exp || op == UnaryOp::Erf) {
    if (op == UnaryOp::Exp)
      map_array<__m512d>(in, out, n, SleefExpF64{});
    else
      map_array<__m512d>(in, out, n, InlineErfF64{});  // Note [float64 erf]
    return true;
  }
  const Sleef8 f = sleef_f64(op);
  if (f) map_array<__m512d>(in, out, n, [f](const __m512d& x) EMBER_VEC_INLINE_LAMBDA { return f(x); });
  return f != nullptr;
}

struct SleefLog8 {
  EMBER_VEC_INLINE __m512d operator()(const __m512d& v) const { return Sleef_logd8_u10avx512f(v); }
};
// Note [float32 erfinv] eight lanes at a time.
EMBER_AVX512 void erfinv(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm512_cvtpd_ps(erfinv_f64_lanes(_mm512_cvtps_pd(_mm256_loadu_ps(in + i)), SleefLog8{})));
  if (i < n) {
    float buf[8] = {};
    std::memcpy(buf, in + i, static_cast<size_t>(n - i) * sizeof(float));
    const __m256 r = _mm512_cvtpd_ps(erfinv_f64_lanes(_mm512_cvtps_pd(_mm256_loadu_ps(buf)), SleefLog8{}));
    std::memcpy(out + i, &r, static_cast<size_t>(n - i) * sizeof(float));
  }
}

// atan2, hypot, pow, fmod and remainder of Note [Vector binary functions] in AVX-512.
template <class T>
EMBER_AVX512 bool sleef_binary(BinaryOp op, const T* a, bool a_one, const T* b, bool b_one, T* out, int64_t n) {
  constexpr bool f32 = std::is_same_v<T, float>;
  using V = std::conditional_t<f32, __m512, __m512d>;
  if (op == BinaryOp::Atan2) {
    if constexpr (f32)
      map_binary<V>(a, a_one, b, b_one, out, n, Sleef2<V, Sleef_atan2f16_u10avx512f>{});
    else
      map_binary<V>(a, a_one, b, b_one, out, n, Sleef2<V, Sleef_atan2d8_u10avx512f>{});
    return true;
  }
  if (op == BinaryOp::Pow) {  // x * x for y == 2, as the scalar functor
    auto pow = [](const V& x, const V& y) EMBER_VEC_INLINE_LAMBDA {
      V two{};
      for (int k = 0; k < static_cast<int>(sizeof(V) / sizeof(T)); ++k) two[k] = T(2);
      if constexpr (f32)  // (vector extensions: an intrinsic would not inline into the lambda)
        return y == two ? x * x : Sleef_powf16_u10avx512f(x, y);
      else
        return y == two ? x * x : Sleef_powd8_u10avx512f(x, y);
    };
    map_binary<V>(a, a_one, b, b_one, out, n, pow);
    return true;
  }
  if (op == BinaryOp::Fmod) {
    map_binary<V>(a, a_one, b, b_one, out, n, Fmod512<V, false>{});
    return true;
  }
  if (op == BinaryOp::Remainder) {
    map_binary<V>(a, a_one, b, b_one, out, n, Fmod512<V, true>{});
    return true;
  }
  if (op == BinaryOp::Hypot) {
    if constexpr (f32)
      map_binary<V>(a, a_one, b, b_one, out, n, Sleef2<V, Sleef_hypotf16_u05avx512f>{});
    else
      map_binary<V>(a, a_one, b, b_one, out, n, Sleef2<V, Sleef_hypotd8_u05avx512f>{});
    return true;
  }
  return false;
}
#undef EMBER_AVX512
}  // namespace avx512

template <class V, class Fns>
bool run(UnaryOp op, const typename Vec<V>::T* in, typename Vec<V>::T* out, int64_t n, const UnaryArgs& args) {
  using W = Vec<V>;
  using T = typename W::T;
  const V one = W::set1(T(1)), zero = W::set1(T(0));
  if (avx512::available() && avx512::sleef(op, in, out, n)) return true;  // Note [AVX-512 Sleef]
  switch (op) {
    case UnaryOp::Exp: map_array<V>(in, out, n, Fns::exp); return true;
    case UnaryOp::Exp2: map_array<V>(in, out, n, Fns::exp2); return true;
    case UnaryOp::Expm1: map_array<V>(in, out, n, Fns::expm1); return true;
    case UnaryOp::Log: map_array<V>(in, out, n, Fns::log); return true;
    case UnaryOp::Sqrt: map_array<V>(in, out, n, [](V x) { return W::sqrt(x); }); return true;
    case UnaryOp::Log2: map_array<V>(in, out, n, Fns::log2); return true;
    case UnaryOp::Log10: map_array<V>(in, out, n, Fns::log10); return true;
    case UnaryOp::Log1p: map_array<V>(in, out, n, Fns::log1p); return true;
    case UnaryOp::Sin: map_array<V>(in, out, n, Fns::sin); return true;
    case UnaryOp::Cos: map_array<V>(in, out, n, Fns::cos); return true;
    case UnaryOp::Tan: map_array<V>(in, out, n, Fns::tan); return true;
    case UnaryOp::Asin: map_array<V>(in, out, n, Fns::asin); return true;
    case UnaryOp::Acos: map_array<V>(in, out, n, Fns::acos); return true;
    case UnaryOp::Atan: map_array<V>(in, out, n, Fns::atan); return true;
    case UnaryOp::Sinh: map_array<V>(in, out, n, Fns::sinh); return true;
    case UnaryOp::Cosh: map_array<V>(in, out, n, Fns::cosh); return true;
    case UnaryOp::Tanh:
      if constexpr (std::is_same_v<T, float>) {  // Note [Inline float32 tanh]
        if (avx512::available()) {
          avx512::tanh(in, out, n);
          return true;
        }
      }
      map_array<V>(in, out, n, Fns::tanh);
      return true;
    case UnaryOp::Asinh: map_array<V>(in, out, n, Fns::asinh); return true;
    case UnaryOp::Acosh: map_array<V>(in, out, n, Fns::acosh); return true;
    case UnaryOp::Atanh: map_array<V>(in, out, n, Fns::atanh); return true;
    case UnaryOp::Erf:
      if constexpr (std::is_same_v<T, double>) {  // Note [float64 erf]
        if (avx512::available()) {
          avx512::erf(in, out, n);
          return true;
        }
      }
      map_array<V>(in, out, n, Fns::erf);
      return true;
    case UnaryOp::Erfc: map_array<V>(in, out, n, Fns::erfc); return true;
    case UnaryOp::Erfinv:  // Note [float32 erfinv]; float64 keeps the scalar functor's two Newton steps on libm
      if constexpr (std::is_same_v<T, float>) {
        if (avx512::available())
          avx512::erfinv(in, out, n);
        else
          erfinv_f32_array(in, out, n);
        return true;
      } else {
        return false;
      }
    // Note [Selects GCC does not vectorize]: the scalar functors of these (math/unary.h) compile to scalar loops under
    // -ftrapping-math, which keeps GCC from if-converting their selects and rounding calls: over 64K floats at one
    // thread clamp took 52 us against PyTorch's 9, rsqrt 149 against 19, floor 19 against 6, hardsigmoid 57 against
    // 9. Each here gives the scalar functor's bits: max and min return their second operand where either is NaN, so
    // a NaN x stays NaN; roundps is floor, ceil, trunc and round-half-even exactly.
    case UnaryOp::Clamp: {  // bounds of NaN: none
      const bool lo = !std::isnan(args.a), hi = !std::isnan(args.b);
      const V vlo = W::set1(T(args.a)), vhi = W::set1(T(args.b));
      if (lo && hi)
        map_array<V>(in, out, n, [&](V x) { return W::min(vhi, W::max(vlo, x)); });
      else if (lo)
        map_array<V>(in, out, n, [&](V x) { return W::max(vlo, x); });
      else if (hi)
        map_array<V>(in, out, n, [&](V x) { return W::min(vhi, x); });
      else
        return false;
      return true;
    }
    case UnaryOp::NanToNum: {
      const V nan = W::set1(T(args.a)), pinf = W::set1(T(args.b)), ninf = W::set1(T(args.c));
      const V inf = W::set1(std::numeric_limits<T>::infinity());
      map_array<V>(in, out, n, [&](V x) {
        const V y = W::blend(W::eq(x, inf), pinf, W::blend(W::eq(x, W::neg(inf)), ninf, x));
        return W::blend(W::is_nan(x), nan, y);
      });
      return true;
    }
    case UnaryOp::Floor:
      map_array<V>(in, out, n, [](V x) { return W::template round<_MM_FROUND_TO_NEG_INF>(x); });
      return true;
    case UnaryOp::Ceil:
      map_array<V>(in, out, n, [](V x) { return W::template round<_MM_FROUND_TO_POS_INF>(x); });
      return true;
    case UnaryOp::Trunc:
      map_array<V>(in, out, n, [](V x) { return W::template round<_MM_FROUND_TO_ZERO>(x); });
      return true;
    case UnaryOp::Round:  // decimals 0 only: the others scale first
      if (args.a != 0) return false;
      map_array<V>(in, out, n, [](V x) { return W::template round<_MM_FROUND_TO_NEAREST_INT>(x); });
      return true;
    case UnaryOp::Reciprocal: map_array<V>(in, out, n, [&](V x) { return W::div(one, x); }); return true;
    case UnaryOp::Rsqrt: map_array<V>(in, out, n, [&](V x) { return W::div(one, W::sqrt(x)); }); return true;
    case UnaryOp::Hardsigmoid: {  // min(max(x + 3, 0), 6) / 6, as PyTorch's
      const V three = W::set1(T(3)), six = W::set1(T(6));
      map_array<V>(in, out, n, [&](V x) { return W::div(W::min(six, W::max(zero, W::add(x, three))), six); });
      return true;
    }
    case UnaryOp::Sigmoid:
      map_array<V>(in, out, n, [&](V x) { return W::div(one, W::add(one, Fns::exp(W::neg(x)))); });
      return true;
    case UnaryOp::Silu:
      map_array<V>(in, out, n, [&](V x) { return W::div(x, W::add(one, Fns::exp(W::neg(x)))); });
      return true;
    case UnaryOp::Gelu:  // Note [float32 GELU]; float64: Sleef's erf
      if (avx512::available())
        avx512::gelu(in, out, n);
      else if constexpr (std::is_same_v<T, float>)
        f32::gelu_array<V>(in, out, n);
      else
        map_array<V>(in, out, n, GeluErfFn<V>{});
      return true;
    case UnaryOp::GeluTanh:
      if (avx512::available())
        avx512::gelu_tanh(in, out, n);
      else
        map_array<V>(in, out, n, GeluTanhFn<V>{});
      return true;
    // Activations (UnaryArgs as the scalar kernels read them). x > 0 is false for NaN, which the other branch keeps.
    case UnaryOp::Elu: {  // x > 0 ? scale * x : alpha * scale * expm1(x * input_scale)
      const V neg = W::set1(T(args.a * args.b)), pos = W::set1(T(args.b)), in_scale = W::set1(T(args.c));
      if constexpr (std::is_same_v<T, float>) {
        // expm1(u) as exp(u) - 1 (Sleef's expm1 costs 3.5 times its exp), and by its Taylor polynomial to u^5 where
        // |u| < 0.1, where the subtraction would cancel digits (relative error there below 2e-8; beyond, < 7e-7).
        static constexpr float c[] = {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f};
        const V small = W::set1(0.1f);
        map_array<V>(in, out, n, [&](V x) {
          const V u = W::mul(x, in_scale);
          V taylor = W::set1(c[0]);
          for (int i = 1; i < 5; ++i) taylor = W::add(W::set1(c[i]), W::mul(taylor, u));
          const V em1 = W::select_gt(small, W::abs(u), W::mul(taylor, u), W::sub(Fns::exp(u), one));
          return W::select_gt(x, zero, W::mul(x, pos), W::mul(em1, neg));  // em1 is discarded where x > 0
        });
      } else {
        map_array<V>(in, out, n, [&](V x) {
          return W::select_gt(x, zero, W::mul(x, pos), W::mul(Fns::expm1(W::mul(x, in_scale)), neg));
        });
      }
      return true;
    }
    case UnaryOp::LogSigmoid:  // min(x, 0) - log1p(exp(-|x|))
      map_array<V>(in, out, n,
                   [&](V x) { return W::sub(W::min(x, zero), Fns::log1p_unit(Fns::exp(W::neg(W::abs(x))))); });
      return true;
    case UnaryOp::Tanhshrink: map_array<V>(in, out, n, [&](V x) { return W::sub(x, Fns::tanh(x)); }); return true;
    case UnaryOp::Softplus: {                    // x * beta > threshold ? x : log1p(exp(x * beta)) / beta
      if constexpr (std::is_same_v<T, float>) {  // Note [Inline float32 softplus]
        const float b = static_cast<float>(args.a), th = static_cast<float>(args.b);
        if (avx512::available())
          avx512::softplus(in, out, n, b, th);
        else
          map_array<V>(in, out, n, SoftplusFn<V>{b, th});
        return true;
      }
      const V beta = W::set1(T(args.a)), threshold = W::set1(T(args.b));
      map_array<V>(in, out, n, [&](V x) {
        const V bx = W::mul(x, beta);
        return W::select_gt(bx, threshold, x, W::div(Fns::log1p(Fns::exp(bx)), beta));
      });
      return true;
    }
    case UnaryOp::Mish: {  // x * tanh(log1p(e^x)) = x * m / (m + 2), m = e^x (e^x + 2): one exp; x past 20
      const V two = W::set1(T(2)), big = W::set1(T(20));  // (where tanh(...) rounds to 1, and m overflows later)
      map_array<V>(in, out, n, [&](V x) {
        const V e = Fns::exp(x), m = W::mul(e, W::add(e, two));
        return W::select_gt(x, big, x, W::mul(x, W::div(m, W::add(m, two))));
      });
      return true;
    }
    default: return false;
  }
}

// grad_in = g * op'(v), v the input or the result as unary_saves (autograd/elementwise_grad.cpp) keeps it; the
// scalar functors in unary.cpp are the reference (same formulas, PyTorch's choices at the kinks).
template <class V, class Fns>
bool run_backward(UnaryOp op, const typename Vec<V>::T* g, const typename Vec<V>::T* v, typename Vec<V>::T* out,
                  int64_t n, const UnaryArgs& args) {
  using W = Vec<V>;
  using T = typename W::T;
  const V one = W::set1(T(1)), zero = W::set1(T(0));
  auto grad = [&](auto f) { map2_array<V>(g, v, out, n, f); };
  auto sigmoid = [&](V x) { return W::div(one, W::add(one, Fns::exp(W::neg(x)))); };
  switch (op) {
    case UnaryOp::Relu: grad([&](V g, V r) { return W::blend(W::gt(r, zero), g, zero); }); return true;
    case UnaryOp::Sigmoid: grad([&](V g, V r) { return W::mul(g, W::mul(r, W::sub(one, r))); }); return true;
    case UnaryOp::Tanh: grad([&](V g, V r) { return W::mul(g, W::sub(one, W::mul(r, r))); }); return true;
    case UnaryOp::Gelu:
      if constexpr (std::is_same_v<T, float>) {
        if (avx512::available())
          avx512::gelu_grad(g, v, out, n);
        else
          map2_array<V>(g, v, out, n, GeluGradFn<V>{});
      } else {  // Phi(x) + x phi(x) with Sleef's erf, as PyTorch's
        const V k = W::set1(0.70710678118654752440), half = W::set1(0.5), pdf = W::set1(0.39894228040143267794);
        grad([&](V g, V x) {
          const V cdf = W::mul(half, W::add(one, Fns::erf(W::mul(x, k))));
          return W::mul(g, W::add(cdf, W::mul(x, W::mul(pdf, Fns::exp(W::mul(W::mul(x, x), W::neg(half)))))));
        });
      }
      return true;
    case UnaryOp::GeluTanh: {  // y = x s, s = sigmoid(v), v = 2k (x + c x^3): y' = s + x s (1 - s) v'
      const V k2 = W::set1(T(2 * 0.79788456080286535588)), c = W::set1(T(0.044715)), c3 = W::set1(T(3 * 0.044715));
      grad([&](V g, V x) {
        const V x2 = W::mul(x, x), s = sigmoid(W::mul(k2, W::add(x, W::mul(c, W::mul(x2, x)))));
        const V dv = W::mul(k2, W::add(one, W::mul(c3, x2)));
        return W::mul(g, W::add(s, W::mul(W::mul(x, s), W::mul(W::sub(one, s), dv))));
      });
      return true;
    }
    case UnaryOp::Silu:  // s (1 + x (1 - s))
      grad([&](V g, V x) {
        const V s = sigmoid(x);
        return W::mul(g, W::mul(s, W::add(one, W::mul(x, W::sub(one, s)))));
      });
      return true;
    case UnaryOp::Mish: {  // t + x sigmoid(x) (1 - t^2), t = tanh(softplus(x)) = m / (m + 2), m = e (e + 2), e = e^x
      const V two = W::set1(T(2)), big = W::set1(T(20));  // past 20, t = 1 and sigmoid = 1: the derivative is 1
      grad([&](V g, V x) {
        const V e = Fns::exp(W::min(x, big)), m = W::mul(e, W::add(e, two)), m2 = W::add(m, two);
        const V t = W::div(m, m2), sech2 = W::div(W::mul(W::set1(T(4)), W::add(m, one)), W::mul(m2, m2));  // 1 - t^2
        const V d = W::add(t, W::mul(W::mul(x, W::div(e, W::add(one, e))), sech2));
        return W::mul(g, W::select_gt(x, big, one, d));
      });
      return true;
    }
    case UnaryOp::Softplus: {  // beta x > threshold ? 1 : sigmoid(beta x)
      const V beta = W::set1(T(args.a)), threshold = W::set1(T(args.b));
      grad([&](V g, V x) {
        const V bx = W::mul(x, beta);
        return W::blend(W::gt(bx, threshold), g, W::mul(g, sigmoid(bx)));
      });
      return true;
    }
    case UnaryOp::Elu: {  // x > 0 ? scale : alpha scale input_scale exp(x input_scale)
      const V pos = W::set1(T(args.b)), neg = W::set1(T(args.a * args.b * args.c)), in_scale = W::set1(T(args.c));
      grad([&](V g, V x) { return W::mul(g, W::select_gt(x, zero, pos, W::mul(neg, Fns::exp(W::mul(x, in_scale))))); });
      return true;
    }
    case UnaryOp::LeakyRelu: {
      const V slope = W::set1(T(args.a));
      grad([&](V g, V x) { return W::blend(W::gt(x, zero), g, W::mul(g, slope)); });
      return true;
    }
    case UnaryOp::Hardtanh: {  // no gradient at the bounds, as PyTorch
      const V lo = W::set1(T(args.a)), hi = W::set1(T(args.b));
      grad([&](V g, V x) { return W::blend(W::land(W::gt(x, lo), W::lt(x, hi)), g, zero); });
      return true;
    }
    case UnaryOp::Hardsigmoid: {
      const V three = W::set1(T(3)), sixth = W::set1(T(1.0 / 6));
      grad([&](V g, V x) {
        return W::blend(W::land(W::gt(x, W::neg(three)), W::lt(x, three)), W::mul(g, sixth), zero);
      });
      return true;
    }
    case UnaryOp::Hardswish: {  // x < -3 ? 0 : x <= 3 ? g (x / 3 + 1/2) : g
      const V three = W::set1(T(3)), half = W::set1(T(0.5));
      grad([&](V g, V x) {  // x / 3 rather than x * (1/3): one rounding before the cancellation near x = -1.5
        const V mid = W::blend(W::le(x, three), W::mul(g, W::add(W::div(x, three), half)), g);
        return W::blend(W::lt(x, W::neg(three)), zero, mid);
      });
      return true;
    }
    default: return false;
  }
}

struct F32 {
  static __m256 exp(__m256 x) { return f32::exp(x); }  // Note [Inline float32 exp]
  static __m256 exp2(__m256 x) { return Sleef_exp2f8_u10avx2(x); }
  static __m256 expm1(__m256 x) { return Sleef_expm1f8_u10avx2(x); }
  static __m256 log(__m256 x) { return Sleef_logf8_u10avx2(x); }
  static __m256 log2(__m256 x) { return Sleef_log2f8_u10avx2(x); }
  static __m256 log10(__m256 x) { return Sleef_log10f8_u10avx2(x); }
  static __m256 log1p(__m256 x) { return Sleef_log1pf8_u10avx2(x); }
  // log1p of t in [0, 1] (an exp(-|x|)): inlined (Note [Inline float32 softplus])
  static __m256 log1p_unit(__m256 t) { return f32::log1p_unit(t); }
  static __m256 sin(__m256 x) { return Sleef_sinf8_u10avx2(x); }
  static __m256 cos(__m256 x) { return Sleef_cosf8_u10avx2(x); }
  static __m256 tan(__m256 x) { return Sleef_tanf8_u10avx2(x); }
  static __m256 asin(__m256 x) { return Sleef_asinf8_u10avx2(x); }
  static __m256 acos(__m256 x) { return Sleef_acosf8_u10avx2(x); }
  static __m256 atan(__m256 x) { return Sleef_atanf8_u10avx2(x); }
  static __m256 sinh(__m256 x) { return Sleef_sinhf8_u10avx2(x); }
  static __m256 cosh(__m256 x) { return Sleef_coshf8_u10avx2(x); }
  static __m256 tanh(__m256 x) { return f32::tanh(x); }  // Note [Inline float32 tanh]
  static __m256 asinh(__m256 x) { return Sleef_asinhf8_u10avx2(x); }
  static __m256 acosh(__m256 x) { return Sleef_acoshf8_u10avx2(x); }
  static __m256 atanh(__m256 x) { return Sleef_atanhf8_u10avx2(x); }
  static __m256 erf(__m256 x) { return f32::erf(x); }  // Note [Inline float32 erf]
  static __m256 erfc(__m256 x) { return Sleef_erfcf8_u15avx2(x); }
  static __m256 atan2(__m256 y, __m256 x) { return Sleef_atan2f8_u10avx2(y, x); }
  static __m256 hypot(__m256 x, __m256 y) { return Sleef_hypotf8_u05avx2(x, y); }
  static __m256 fmod(__m256 x, __m256 y) { return Sleef_fmodf8_avx2(x, y); }
  static __m256 pow(__m256 x, __m256 y) { return Sleef_powf8_u10avx2(x, y); }
};

struct F64 {
  static __m256d exp(__m256d x) { return Sleef_expd4_u10avx2(x); }
  static __m256d exp2(__m256d x) { return Sleef_exp2d4_u10avx2(x); }
  static __m256d expm1(__m256d x) { return Sleef_expm1d4_u10avx2(x); }
  static __m256d log(__m256d x) { return Sleef_logd4_u10avx2(x); }
  static __m256d log2(__m256d x) { return Sleef_log2d4_u10avx2(x); }
  static __m256d log10(__m256d x) { return Sleef_log10d4_u10avx2(x); }
  static __m256d log1p(__m256d x) { return Sleef_log1pd4_u10avx2(x); }
  static __m256d log1p_unit(__m256d t) { return log1p(t); }
  static __m256d sin(__m256d x) { return Sleef_sind4_u10avx2(x); }
  static __m256d cos(__m256d x) { return Sleef_cosd4_u10avx2(x); }
  static __m256d tan(__m256d x) { return Sleef_tand4_u10avx2(x); }
  static __m256d asin(__m256d x) { return Sleef_asind4_u10avx2(x); }
  static __m256d acos(__m256d x) { return Sleef_acosd4_u10avx2(x); }
  static __m256d atan(__m256d x) { return Sleef_atand4_u10avx2(x); }
  static __m256d sinh(__m256d x) { return Sleef_sinhd4_u10avx2(x); }
  static __m256d cosh(__m256d x) { return Sleef_coshd4_u10avx2(x); }
  static __m256d tanh(__m256d x) { return Sleef_tanhd4_u10avx2(x); }
  static __m256d asinh(__m256d x) { return Sleef_asinhd4_u10avx2(x); }
  static __m256d acosh(__m256d x) { return Sleef_acoshd4_u10avx2(x); }
  static __m256d atanh(__m256d x) { return Sleef_atanhd4_u10avx2(x); }
  static __m256d erf(__m256d x) { return erf_f64(x); }  // Note [float64 erf]
  static __m256d erfc(__m256d x) { return Sleef_erfcd4_u15avx2(x); }
  static __m256d atan2(__m256d y, __m256d x) { return Sleef_atan2d4_u10avx2(y, x); }
  static __m256d hypot(__m256d x, __m256d y) { return Sleef_hypotd4_u05avx2(x, y); }
  static __m256d fmod(__m256d x, __m256d y) { return Sleef_fmodd4_avx2(x, y); }
  static __m256d pow(__m256d x, __m256d y) { return Sleef_powd4_u10avx2(x, y); }
};

// Note [Vector binary functions]: atan2, hypot, pow, fmod, remainder and logaddexp of contiguous operands (or one
// repeated value) run Sleef's vector functions, as PyTorch's do, where the scalar functors (math/binary.h, special.h)
// called libm once per element: 64K floats at one thread, atan2 1580 us against PyTorch's 95, logaddexp 1060 against
// 121, remainder 580 against 89. fmod and remainder are exact either way (Sleef's fmod where it is, libm's where not:
// below); atan2, pow and hypot are Sleef's 1.0-, 1.0- and 0.5-ULP versions (pow: x * x for y == 2), logaddexp the
// scalar formula on the vector exp and a log1p of [0, 1] (float32: inlined as softplus's, Note [Inline float32
// softplus]; 64K floats 153 -> 94 us against PyTorch's 103; log_sigmoid likewise 137 -> 84, PyTorch 98).
template <class V, class Fns>
bool run_binary(BinaryOp op, const typename Vec<V>::T* a, bool a_one, const typename Vec<V>::T* b, bool b_one,
                typename Vec<V>::T* out, int64_t n) {
  using W = Vec<V>;
  using T = typename W::T;
  auto map = [&](auto f) { map_binary<V>(a, a_one, b, b_one, out, n, f); };
  const V zero = W::set1(T(0)), inf = W::set1(std::numeric_limits<T>::infinity());
  // Sleef's fmod is exact while x / y is finite in T; past that (float32: fmod(1e30, 1e-30)) it returns NaN, as
  // PyTorch's vector fmod does. Those lanes (NaN from finite x and nonzero y) are computed again by libm.
  auto fmod = [&](V x, V y) {
    V m = Fns::fmod(x, y);
    const V bad = W::land(W::is_nan(m), W::land(W::lt(W::abs(x), inf), W::neq(y, zero)));
    if (_mm256_movemask_epi8(_mm256_castps_si256(reinterpret_cast<__m256>(bad))) == 0) [[likely]]
      return m;
    T xs[W::kWidth], ys[W::kWidth], ms[W::kWidth];
    std::memcpy(xs, &x, sizeof xs);
    std::memcpy(ys, &y, sizeof ys);
    for (int k = 0; k < W::kWidth; ++k) ms[k] = std::fmod(xs[k], ys[k]);
    std::memcpy(&m, ms, sizeof ms);
    return m;
  };
  if (avx512::available() && avx512::sleef_binary(op, a, a_one, b, b_one, out, n)) return true;
  switch (op) {
    case BinaryOp::Atan2: map([](V y, V x) { return Fns::atan2(y, x); }); return true;
    case BinaryOp::Hypot: map([](V x, V y) { return Fns::hypot(x, y); }); return true;
    case BinaryOp::Pow: {  // x * x for y == 2, as the scalar functor
      const V two = W::set1(T(2));
      map([&](V x, V y) { return W::blend(W::eq(y, two), W::mul(x, x), Fns::pow(x, y)); });
      return true;
    }
    case BinaryOp::Fmod: map(fmod); return true;
    case BinaryOp::Remainder:  // m = fmod(a, b); m + b where m is nonzero and its sign differs from b's
      map([&](V x, V y) {
        const V m = fmod(x, y);
        const V fix = W::land(W::neq(m, zero), W::lxor(W::lt(y, zero), W::lt(m, zero)));
        return W::blend(fix, W::add(m, y), m);
      });
      return true;
    case BinaryOp::Logaddexp: {  // a where a and b are the same infinity; else max + log1p(exp(-|a - b|))
      map([&](V x, V y) {
        const V mx = W::select_gt(x, y, x, y), d = W::neg(W::abs(W::sub(x, y)));
        const V r = W::add(mx, Fns::log1p_unit(Fns::exp(d)));
        return W::blend(W::land(W::eq(W::abs(x), inf), W::eq(x, y)), x, r);
      });
      return true;
    }
    default: return false;
  }
}

}  // namespace

bool vec_unary(UnaryOp op, const float* in, float* out, int64_t n, const UnaryArgs& args) {
  return run<__m256, F32>(op, in, out, n, args);
}
bool vec_unary(UnaryOp op, const double* in, double* out, int64_t n, const UnaryArgs& args) {
  return run<__m256d, F64>(op, in, out, n, args);
}
// lerp as PyTorch's vector kernel computes it: |w| < 0.5 ? fma(w, e - s, s) : fma(w - 1, e - s, e). One operand
// pointer per input, each contiguous or (one) a single value repeated.
template <class V>
void lerp_array(const typename Vec<V>::T* s, bool s_one, const typename Vec<V>::T* e, bool e_one,
                const typename Vec<V>::T* w, bool w_one, typename Vec<V>::T* out, int64_t n) {
  using W = Vec<V>;
  using T = typename W::T;
  const V half = W::set1(T(0.5)), one = W::set1(T(1));
  auto f = [&](V vs, V ve, V vw) {
    const V d = W::sub(ve, vs), small = W::lt(W::abs(vw), half);
    return W::fma(W::blend(small, vw, W::sub(vw, one)), d, W::blend(small, vs, ve));
  };
  auto load = [](const T* p, bool one, int64_t i, int64_t m) {
    if (one) return W::set1(*p);
    T buf[W::kWidth] = {};
    std::memcpy(buf, p + i, static_cast<size_t>(m) * sizeof(T));
    V v;
    std::memcpy(&v, buf, sizeof v);
    return v;
  };
  int64_t i = 0;
  for (; i + W::kWidth <= n; i += W::kWidth) {
    const V r = f(s_one ? W::set1(*s) : W::load(s + i), e_one ? W::set1(*e) : W::load(e + i),
                  w_one ? W::set1(*w) : W::load(w + i));
    W::store(out + i, r);
  }
  if (i < n) {
    const int64_t m = n - i;
    const V r = f(load(s, s_one, i, m), load(e, e_one, i, m), load(w, w_one, i, m));
    std::memcpy(out + i, &r, static_cast<size_t>(m) * sizeof(T));
  }
}

bool vec_binary(BinaryOp op, const float* a, bool a_one, const float* b, bool b_one, float* out, int64_t n) {
  return run_binary<__m256, F32>(op, a, a_one, b, b_one, out, n);
}
bool vec_binary(BinaryOp op, const double* a, bool a_one, const double* b, bool b_one, double* out, int64_t n) {
  return run_binary<__m256d, F64>(op, a, a_one, b, b_one, out, n);
}
bool vec_lerp(const float* s, bool s_one, const float* e, bool e_one, const float* w, bool w_one, float* out,
              int64_t n) {
  lerp_array<__m256>(s, s_one, e, e_one, w, w_one, out, n);
  return true;
}
bool vec_lerp(const double* s, bool s_one, const double* e, bool e_one, const double* w, bool w_one, double* out,
              int64_t n) {
  lerp_array<__m256d>(s, s_one, e, e_one, w, w_one, out, n);
  return true;
}
bool vec_unary_backward(UnaryOp op, const float* g, const float* v, float* out, int64_t n, const UnaryArgs& args) {
  return run_backward<__m256, F32>(op, g, v, out, n, args);
}
float exp_shift_sum(const float* x, float shift, float* y, int64_t n) {
  if (avx512::available()) return avx512::exp_shift_sum(x, shift, y, n);
  return exp_shift_sum_array<__m256>(x, shift, y, n, InlineExpF32{});
}
double exp_shift_sum(const double* x, double shift, double* y, int64_t n) {
  if (avx512::available()) return avx512::exp_shift_sum(x, shift, y, n);
  return exp_shift_sum_array<__m256d>(x, shift, y, n, SleefExpF64{});
}
bool vec_unary_backward(UnaryOp op, const double* g, const double* v, double* out, int64_t n, const UnaryArgs& args) {
  return run_backward<__m256d, F64>(op, g, v, out, n, args);
}

}  // namespace ember::cpu

#else  // no Sleef or no AVX2: the scalar functors do the work

#include <cmath>

namespace ember::cpu {
namespace {
template <class T>
T exp_shift_sum_scalar(const T* x, T shift, T* y, int64_t n) {
  T s = 0;
  for (int64_t i = 0; i < n; ++i) s += (y[i] = std::exp(x[i] - shift));
  return s;
}
}  // namespace
float exp_shift_sum(const float* x, float shift, float* y, int64_t n) { return exp_shift_sum_scalar(x, shift, y, n); }
double exp_shift_sum(const double* x, double shift, double* y, int64_t n) {
  return exp_shift_sum_scalar(x, shift, y, n);
}
bool vec_unary(UnaryOp, const float*, float*, int64_t, const UnaryArgs&) { return false; }
bool vec_unary(UnaryOp, const double*, double*, int64_t, const UnaryArgs&) { return false; }
bool vec_binary(BinaryOp, const float*, bool, const float*, bool, float*, int64_t) { return false; }
bool vec_binary(BinaryOp, const double*, bool, const double*, bool, double*, int64_t) { return false; }
bool vec_lerp(const float*, bool, const float*, bool, const float*, bool, float*, int64_t) { return false; }
bool vec_lerp(const double*, bool, const double*, bool, const double*, bool, double*, int64_t) { return false; }
bool vec_unary_backward(UnaryOp, const float*, const float*, float*, int64_t, const UnaryArgs&) { return false; }
bool vec_unary_backward(UnaryOp, const double*, const double*, double*, int64_t, const UnaryArgs&) { return false; }
}  // namespace ember::cpu

#endif
