// Special functions (PyTorch's torch.special and the matching torch.* names), window functions, frexp, ldexp and
// float_power. The elementwise ones are UnaryOp/BinaryOp rows (math in ember/backend/math/special.h); the others
// compose ember ops. Integer inputs compute in the default float dtype where PyTorch does so.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "ember/ops/binary.h"
#include "ember/ops/unary.h"

namespace ember {

// The unary special functions (lgamma, digamma, polygamma, i0, special_i0e, the Bessel functions, ...) are rows of
// ember/ops/unary.def, declared in ember/ops/unary.h; the binary ones (logaddexp, xlogy, gcd, igamma, the orthogonal
// polynomials, ...) rows of ember/ops/binary.def, declared in ember/ops/binary.h.

// The multivariate log-gamma function (special.multigammaln), p >= 1.
Tensor mvlgamma(const Tensor& x, int64_t p);
// (mantissa, exponent): x = mantissa * 2^exponent, |mantissa| in [0.5, 1), exponent int32. Floating x only.
std::pair<Tensor, Tensor> frexp(const Tensor& x);

// x * 2^e (a composition, as PyTorch's); out= of the in-place form: x itself.
Tensor ldexp(const Tensor& x, const Tensor& e, const Tensor& out = {});
// pow computed in float64 (the result is float64).
Tensor float_power(const Operand& a, const Operand& b);

// Window functions (creation ops). dtype: a floating dtype (default: the default dtype).
struct WindowOptions {
  std::optional<ScalarType> dtype;
  Device device = kCPU;
  bool requires_grad = false;
};
Tensor hann_window(int64_t length, bool periodic = true, const WindowOptions& opts = {});
Tensor hamming_window(int64_t length, bool periodic = true, double alpha = 0.54, double beta = 0.46,
                      const WindowOptions& opts = {});
Tensor blackman_window(int64_t length, bool periodic = true, const WindowOptions& opts = {});
Tensor bartlett_window(int64_t length, bool periodic = true, const WindowOptions& opts = {});
Tensor kaiser_window(int64_t length, bool periodic = true, double beta = 12.0, const WindowOptions& opts = {});

}  // namespace ember
