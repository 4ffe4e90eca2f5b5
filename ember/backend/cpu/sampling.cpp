// The distribution samplers and the gamma reparameterization gradient on the CPU; the formulas are shared with
// CUDA in ember/backend/math/sampling.h (Note [Rejection samplers]).
#include "ember/backend/cpu/loops.h"
#include "ember/backend/math/sampling.h"
#include "ember/ops/sampling.h"

namespace ember::cpu {
namespace {

void sample(const Tensor& dst, int kind, const Tensor& a, const Tensor& b, double sa, double sb, double tiny,
            PhiloxState s) {
  double* out = dst.data<double>();
  const double* pa = a.defined() ? a.data<double>() : nullptr;
  const double* pb = b.defined() ? b.data<double>() : nullptr;
  const int words = rnd::sample_words(kind);
  const int64_t n = dst.numel();
  // Elements are independent (each reads its own words), so the range is split across threads.
  parallel_for(0, n, 256, [&](int64_t begin, int64_t end) {
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
