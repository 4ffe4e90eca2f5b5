// arange / linspace / logspace fills.
#include <cmath>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/creation.h"

namespace ember::cpu {
namespace {

void arange(const Tensor& dst, const Scalar& start, const Scalar& step) {
  const int64_t n = dst.numel();
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    T* out = static_cast<T*>(dst.data_ptr());
    if constexpr (std::is_integral_v<T>) {
      const int64_t a = start.to_int(), s = step.to_int();
      for (int64_t i = 0; i < n; ++i) out[i] = convert<T>(a + i * s);
    } else {
      const double a = start.to_double(), s = step.to_double();
      for (int64_t i = 0; i < n; ++i) out[i] = convert<T>(a + static_cast<double>(i) * s);
    }
  });
}

// Symmetric evaluation (from both ends) keeps the last element exactly `end`, as PyTorch does.
void linspace(const Tensor& dst, double start, double end, bool log_scale, double base) {
  const int64_t n = dst.numel();
  const double step = n > 1 ? (end - start) / static_cast<double>(n - 1) : 0.0;
  const int64_t half = n / 2;
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    T* out = static_cast<T*>(dst.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      double v = i < half ? start + step * static_cast<double>(i) : end - step * static_cast<double>(n - 1 - i);
      if (log_scale) v = std::pow(base, v);
      out[i] = convert<T>(v);
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(arange, CPU, arange)
EMBER_REGISTER_KERNEL(linspace, CPU, linspace)

}  // namespace ember::cpu
