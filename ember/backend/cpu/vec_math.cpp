#include "ember/backend/cpu/vec_math.h"

#if defined(EMBER_HAVE_SLEEF) && defined(__AVX2__)
#include <immintrin.h>
#include <sleef.h>

#include <cstring>
#include <utility>
#include <type_traits>

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
  static V abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static V select_gt(V a, V b, V t, V f) { return _mm256_blendv_ps(f, t, _mm256_cmp_ps(a, b, _CMP_GT_OQ)); }
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
  static V abs(V a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
  static V select_gt(V a, V b, V t, V f) { return _mm256_blendv_pd(f, t, _mm256_cmp_pd(a, b, _CMP_GT_OQ)); }
};

// Applies f to whole vectors, and to the tail through a padded buffer.
template <class V, class F>
void apply(const typename Vec<V>::T* in, typename Vec<V>::T* out, int64_t n, F f) {
  using W = Vec<V>;
  int64_t i = 0;
  for (; i + W::kWidth <= n; i += W::kWidth) W::store(out + i, f(W::load(in + i)));
  if (i < n) {
    typename W::T buf[W::kWidth] = {};
    std::memcpy(buf, in + i, (n - i) * sizeof(buf[0]));
    W::store(buf, f(W::load(buf)));
    std::memcpy(out + i, buf, (n - i) * sizeof(buf[0]));
  }
}

// For f(x) = post(x, aux, g(arg)) with (arg, aux) = pre(x) and g a Sleef call: a block of vectors goes through
// pre, then g, then post. The calls are opaque to the compiler and clobber every vector register, so fused per
// vector the chain pre -> g -> post runs serially; split, the independent calls pipeline as in a plain exp.
template <class V, class Pre, class G, class Post>
void apply_split(const typename Vec<V>::T* in, typename Vec<V>::T* out, int64_t n, Pre pre, G g, Post post) {
  using W = Vec<V>;
  constexpr int kBlock = 8;  // vectors
  int64_t i = 0;
  for (; i + kBlock * W::kWidth <= n; i += kBlock * W::kWidth) {
    V arg[kBlock], aux[kBlock];
    for (int j = 0; j < kBlock; ++j) {
      auto [a, b] = pre(W::load(in + i + j * W::kWidth));
      arg[j] = a;
      aux[j] = b;
    }
    for (int j = 0; j < kBlock; ++j) arg[j] = g(arg[j]);
    for (int j = 0; j < kBlock; ++j) {
      const int64_t at = i + j * W::kWidth;
      W::store(out + at, post(W::load(in + at), aux[j], arg[j]));
    }
  }
  apply<V>(in + i, out + i, n - i, [&](V x) {
    auto [a, b] = pre(x);
    return post(x, b, g(a));
  });
}

template <class V, class Fns>
bool run(UnaryOp op, const typename Vec<V>::T* in, typename Vec<V>::T* out, int64_t n, const UnaryArgs& args) {
  using W = Vec<V>;
  using T = typename W::T;
  const V one = W::set1(T(1)), half = W::set1(T(0.5)), zero = W::set1(T(0));
  switch (op) {
    case UnaryOp::Exp: apply<V>(in, out, n, Fns::exp); return true;
    case UnaryOp::Exp2: apply<V>(in, out, n, Fns::exp2); return true;
    case UnaryOp::Expm1: apply<V>(in, out, n, Fns::expm1); return true;
    case UnaryOp::Log: apply<V>(in, out, n, Fns::log); return true;
    case UnaryOp::Log2: apply<V>(in, out, n, Fns::log2); return true;
    case UnaryOp::Log10: apply<V>(in, out, n, Fns::log10); return true;
    case UnaryOp::Log1p: apply<V>(in, out, n, Fns::log1p); return true;
    case UnaryOp::Sin: apply<V>(in, out, n, Fns::sin); return true;
    case UnaryOp::Cos: apply<V>(in, out, n, Fns::cos); return true;
    case UnaryOp::Tan: apply<V>(in, out, n, Fns::tan); return true;
    case UnaryOp::Asin: apply<V>(in, out, n, Fns::asin); return true;
    case UnaryOp::Acos: apply<V>(in, out, n, Fns::acos); return true;
    case UnaryOp::Atan: apply<V>(in, out, n, Fns::atan); return true;
    case UnaryOp::Sinh: apply<V>(in, out, n, Fns::sinh); return true;
    case UnaryOp::Cosh: apply<V>(in, out, n, Fns::cosh); return true;
    case UnaryOp::Tanh: apply<V>(in, out, n, Fns::tanh); return true;
    case UnaryOp::Asinh: apply<V>(in, out, n, Fns::asinh); return true;
    case UnaryOp::Acosh: apply<V>(in, out, n, Fns::acosh); return true;
    case UnaryOp::Atanh: apply<V>(in, out, n, Fns::atanh); return true;
    case UnaryOp::Erf: apply<V>(in, out, n, Fns::erf); return true;
    case UnaryOp::Erfc: apply<V>(in, out, n, Fns::erfc); return true;
    case UnaryOp::Sigmoid:
      apply<V>(in, out, n, [&](V x) { return W::div(one, W::add(one, Fns::exp(W::neg(x)))); });
      return true;
    case UnaryOp::Silu:
      apply<V>(in, out, n, [&](V x) { return W::div(x, W::add(one, Fns::exp(W::neg(x)))); });
      return true;
    case UnaryOp::Gelu: {
      const V k = W::set1(T(0.70710678118654752440));
      if constexpr (std::is_same_v<T, float>) {
        // 1 + erf(z), z = x / sqrt(2), as 2 - q or q with q = erfc(|z|) = t exp(-z^2 + P(t)), t = 1 / (1 + |z| / 2):
        // Numerical Recipes' erfcc, relative error below 1.2e-7 everywhere, so the tail x << 0 keeps its digits
        // (1 + erf(z) would cancel them); one exp instead of Sleef's erf, which costs several times more.
        static constexpr float c[] = {0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
                                      -0.18628806f, 0.09678418f, 0.37409196f, 1.00002368f, -1.26551223f};
        const V two = W::set1(2.0f);
        auto pre = [&](V x) {
          const V z = W::abs(W::mul(x, k)), t = W::div(one, W::add(one, W::mul(half, z)));
          // The degree-9 polynomial by Estrin's scheme (depth 4 rather than Horner's 9).
          auto lin = [&](int hi) { return W::add(W::set1(c[hi + 1]), W::mul(W::set1(c[hi]), t)); };
          const V t2 = W::mul(t, t), t4 = W::mul(t2, t2), t8 = W::mul(t4, t4);
          const V lo4 = W::add(lin(8), W::mul(lin(6), t2)), hi4 = W::add(lin(4), W::mul(lin(2), t2));
          const V poly = W::add(W::add(lo4, W::mul(hi4, t4)), W::mul(lin(0), t8));
          return std::pair{W::sub(poly, W::mul(z, z)), t};
        };
        auto post = [&](V x, V t, V e) {
          const V q = W::mul(t, e);
          return W::mul(W::mul(half, x), W::select_gt(x, W::set1(0.0f), W::sub(two, q), q));
        };
        apply_split<V>(in, out, n, pre, Fns::exp, post);
      } else {
        apply<V>(in, out, n, [&](V x) { return W::mul(W::mul(half, x), W::add(one, Fns::erf(W::mul(x, k)))); });
      }
      return true;
    }
    case UnaryOp::GeluTanh: {
      const V k = W::set1(T(0.79788456080286535588)), c = W::set1(T(0.044715));
      apply<V>(in, out, n, [&](V x) {
        const V inner = W::mul(k, W::add(x, W::mul(c, W::mul(x, W::mul(x, x)))));
        return W::mul(W::mul(half, x), W::add(one, Fns::tanh(inner)));
      });
      return true;
    }
    // Activations (UnaryArgs as the scalar kernels read them). x > 0 is false for NaN, which the other branch keeps.
    case UnaryOp::Elu: {  // x > 0 ? scale * x : alpha * scale * expm1(x * input_scale)
      const V neg = W::set1(T(args.a * args.b)), pos = W::set1(T(args.b)), in_scale = W::set1(T(args.c));
      if constexpr (std::is_same_v<T, float>) {
        // expm1(u) as exp(u) - 1 (Sleef's expm1 costs 3.5 times its exp), and by its Taylor polynomial to u^5 where
        // |u| < 0.1, where the subtraction would cancel digits (relative error there below 2e-8; beyond, < 7e-7).
        static constexpr float c[] = {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f};
        const V small = W::set1(0.1f);
        apply<V>(in, out, n, [&](V x) {
          const V u = W::mul(x, in_scale);
          V taylor = W::set1(c[0]);
          for (int i = 1; i < 5; ++i) taylor = W::add(W::set1(c[i]), W::mul(taylor, u));
          const V em1 = W::select_gt(small, W::abs(u), W::mul(taylor, u), W::sub(Fns::exp(u), one));
          return W::select_gt(x, zero, W::mul(x, pos), W::mul(em1, neg));  // em1 is discarded where x > 0
        });
      } else {
        apply<V>(in, out, n, [&](V x) {
          return W::select_gt(x, zero, W::mul(x, pos), W::mul(Fns::expm1(W::mul(x, in_scale)), neg));
        });
      }
      return true;
    }
    case UnaryOp::LogSigmoid:  // min(x, 0) - log1p(exp(-|x|))
      apply<V>(in, out, n, [&](V x) { return W::sub(W::min(x, zero), Fns::log1p(Fns::exp(W::neg(W::abs(x))))); });
      return true;
    case UnaryOp::Tanhshrink: apply<V>(in, out, n, [&](V x) { return W::sub(x, Fns::tanh(x)); }); return true;
    case UnaryOp::Softplus: {  // x * beta > threshold ? x : log1p(exp(x * beta)) / beta
      const V beta = W::set1(T(args.a)), threshold = W::set1(T(args.b));
      apply<V>(in, out, n, [&](V x) {
        const V bx = W::mul(x, beta);
        return W::select_gt(bx, threshold, x, W::div(Fns::log1p(Fns::exp(bx)), beta));
      });
      return true;
    }
    case UnaryOp::Mish: {  // x * tanh(log1p(e^x)) = x * m / (m + 2), m = e^x (e^x + 2): one exp; x past 20
      const V two = W::set1(T(2)), big = W::set1(T(20));  // (where tanh(...) rounds to 1, and m overflows later)
      apply<V>(in, out, n, [&](V x) {
        const V e = Fns::exp(x), m = W::mul(e, W::add(e, two));
        return W::select_gt(x, big, x, W::mul(x, W::div(m, W::add(m, two))));
      });
      return true;
    }
    default: return false;
  }
}

struct F32 {
  static __m256 exp(__m256 x) { return Sleef_expf8_u10avx2(x); }
  static __m256 exp2(__m256 x) { return Sleef_exp2f8_u10avx2(x); }
  static __m256 expm1(__m256 x) { return Sleef_expm1f8_u10avx2(x); }
  static __m256 log(__m256 x) { return Sleef_logf8_u10avx2(x); }
  static __m256 log2(__m256 x) { return Sleef_log2f8_u10avx2(x); }
  static __m256 log10(__m256 x) { return Sleef_log10f8_u10avx2(x); }
  static __m256 log1p(__m256 x) { return Sleef_log1pf8_u10avx2(x); }
  static __m256 sin(__m256 x) { return Sleef_sinf8_u10avx2(x); }
  static __m256 cos(__m256 x) { return Sleef_cosf8_u10avx2(x); }
  static __m256 tan(__m256 x) { return Sleef_tanf8_u10avx2(x); }
  static __m256 asin(__m256 x) { return Sleef_asinf8_u10avx2(x); }
  static __m256 acos(__m256 x) { return Sleef_acosf8_u10avx2(x); }
  static __m256 atan(__m256 x) { return Sleef_atanf8_u10avx2(x); }
  static __m256 sinh(__m256 x) { return Sleef_sinhf8_u10avx2(x); }
  static __m256 cosh(__m256 x) { return Sleef_coshf8_u10avx2(x); }
  static __m256 tanh(__m256 x) { return Sleef_tanhf8_u10avx2(x); }
  static __m256 asinh(__m256 x) { return Sleef_asinhf8_u10avx2(x); }
  static __m256 acosh(__m256 x) { return Sleef_acoshf8_u10avx2(x); }
  static __m256 atanh(__m256 x) { return Sleef_atanhf8_u10avx2(x); }
  static __m256 erf(__m256 x) { return Sleef_erff8_u10avx2(x); }
  static __m256 erfc(__m256 x) { return Sleef_erfcf8_u15avx2(x); }
};

struct F64 {
  static __m256d exp(__m256d x) { return Sleef_expd4_u10avx2(x); }
  static __m256d exp2(__m256d x) { return Sleef_exp2d4_u10avx2(x); }
  static __m256d expm1(__m256d x) { return Sleef_expm1d4_u10avx2(x); }
  static __m256d log(__m256d x) { return Sleef_logd4_u10avx2(x); }
  static __m256d log2(__m256d x) { return Sleef_log2d4_u10avx2(x); }
  static __m256d log10(__m256d x) { return Sleef_log10d4_u10avx2(x); }
  static __m256d log1p(__m256d x) { return Sleef_log1pd4_u10avx2(x); }
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
  static __m256d erf(__m256d x) { return Sleef_erfd4_u10avx2(x); }
  static __m256d erfc(__m256d x) { return Sleef_erfcd4_u15avx2(x); }
};

}  // namespace

bool vec_unary(UnaryOp op, const float* in, float* out, int64_t n, const UnaryArgs& args) {
  return run<__m256, F32>(op, in, out, n, args);
}
bool vec_unary(UnaryOp op, const double* in, double* out, int64_t n, const UnaryArgs& args) {
  return run<__m256d, F64>(op, in, out, n, args);
}

}  // namespace ember::cpu

#else  // no Sleef or no AVX2: the scalar functors do the work

namespace ember::cpu {
bool vec_unary(UnaryOp, const float*, float*, int64_t, const UnaryArgs&) { return false; }
bool vec_unary(UnaryOp, const double*, double*, int64_t, const UnaryArgs&) { return false; }
}  // namespace ember::cpu

#endif
