// The distribution samplers and the gamma reparameterization gradient on the CPU; the formulas are shared with
// CUDA in ember/backend/math/sampling.h (Note [Rejection samplers]).
#include <algorithm>
#include <cmath>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/philox.h"
#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels/sampling.h"
#include "ember/backend/math/sampling.h"

namespace ember::cpu {
namespace {

// Exponential, geometric, Cauchy and log-normal are transforms of uniforms: a block of elements takes its words in
// bulk, and the transcendental function runs vectorized over the block. Same formulas as rnd::sample_one, in double
// (Sleef's 1-ULP functions where glibc's would be correctly rounded or nearly so).
bool transform_block(int kind, double* out, int64_t begin, int64_t end, const double* pa, const double* pb, double sa,
                     double sb, PhiloxState s) {
  if (kind != rnd::kExponential && kind != rnd::kGeometric && kind != rnd::kCauchy && kind != rnd::kLogNormal)
    return false;
  const int words = rnd::sample_words(kind);
  double u[kBlock], v[kBlock];
  for_word_blocks(begin, end, words, s, [&](int64_t i0, int64_t m, const uint32_t* w) {
    auto a = [&](int64_t j) { return pa ? pa[i0 + j] : sa; };
    auto b = [&](int64_t j) { return pb ? pb[i0 + j] : sb; };
    double* o = out + i0;
    for (int64_t j = 0; j < m; ++j) u[j] = uniform_f64(w[j * words], w[j * words + 1]);
    switch (kind) {
      case rnd::kExponential:  // -log1p(-u) / lambda; lambda 0 gives inf
        for (int64_t j = 0; j < m; ++j) u[j] = -u[j];
        vec_or_scalar(UnaryOp::Log1p, u, m, [](double x) { return std::log1p(x); });
        for (int64_t j = 0; j < m; ++j) o[j] = a(j) == 0 ? HUGE_VAL : -u[j] / a(j);
        break;
      case rnd::kGeometric:  // ceil(log1p(-u) / log1p(-p)), at least 1
        for (int64_t j = 0; j < m; ++j) {
          u[j] = -u[j];
          v[j] = -a(j);
        }
        vec_or_scalar(UnaryOp::Log1p, u, m, [](double x) { return std::log1p(x); });
        vec_or_scalar(UnaryOp::Log1p, v, m, [](double x) { return std::log1p(x); });
        for (int64_t j = 0; j < m; ++j) {
          const double g = std::ceil(u[j] / v[j]);
          o[j] = g < 1 ? 1 : g;
        }
        break;
      case rnd::kCauchy:  // median + sigma tan(pi (u - 1/2))
        for (int64_t j = 0; j < m; ++j) u[j] = 3.141592653589793 * (u[j] - 0.5);
        vec_or_scalar(UnaryOp::Tan, u, m, [](double x) { return std::tan(x); });
        for (int64_t j = 0; j < m; ++j) o[j] = a(j) + b(j) * u[j];
        break;
      case rnd::kLogNormal:  // exp(mean + std * Box-Muller normal)
        for (int64_t j = 0; j < m; ++j) {
          u[j] = 1.0 - u[j];
          v[j] = 6.283185307179586 * uniform_f64(w[j * words + 2], w[j * words + 3]);
        }
        vec_or_scalar(UnaryOp::Log, u, m, [](double x) { return std::log(x); });
        vec_or_scalar(UnaryOp::Cos, v, m, [](double x) { return std::cos(x); });
        for (int64_t j = 0; j < m; ++j) u[j] = -2.0 * u[j];
        vec_or_scalar(UnaryOp::Sqrt, u, m, [](double x) { return std::sqrt(x); });
        for (int64_t j = 0; j < m; ++j) u[j] = a(j) + b(j) * u[j] * v[j];
        vec_or_scalar(UnaryOp::Exp, u, m, [](double x) { return std::exp(x); });
        std::copy(u, u + m, o);
        break;
      default: break;
    }
  });
  return true;
}

void sample(const Tensor& dst, int kind, const Tensor& a, const Tensor& b, double sa, double sb, double tiny,
            PhiloxState s) {
  double* out = dst.data<double>();
  const double* pa = a.defined() ? a.data<double>() : nullptr;
  const double* pb = b.defined() ? b.data<double>() : nullptr;
  const int words = rnd::sample_words(kind);
  const int64_t n = dst.numel();
  // Elements are independent (each reads its own words), so the range is split across threads.
  parallel_for(0, n, 256, [&](int64_t begin, int64_t end) {
    if (transform_block(kind, out, begin, end, pa, pb, sa, sb, s)) return;
    for (int64_t i = begin; i < end; ++i) {
      out[i] = rnd::sample_one(kind, pa ? pa[i] : sa, pb ? pb[i] : sb, tiny,
                               rnd::ElementWords(s, static_cast<uint64_t>(i) * words));
    }
  });
}

void standard_gamma_grad(const Tensor& dst, const Tensor& alpha, const Tensor& x) {
  double* out = dst.data<double>();
  const double* pa = alpha.data<double>();
  const double* px = x.data<double>();
  parallel_for(0, dst.numel(), 256, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = rnd::standard_gamma_grad_one(pa[i], px[i]);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(sample, CPU, sample)
EMBER_REGISTER_KERNEL(standard_gamma_grad, CPU, standard_gamma_grad)

}  // namespace ember::cpu
