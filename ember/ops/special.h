// Special functions (PyTorch's torch.special and the matching torch.* names), window functions, frexp, ldexp and
// float_power. The elementwise ones are UnaryOp/BinaryOp cases (math in ember/backend/math/special.h); the others
// compose ember ops. Integer inputs compute in the default float dtype where PyTorch does so.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "ember/ops/binary.h"
#include "ember/ops/unary.h"

namespace ember {

// The unary special functions (lgamma, digamma, polygamma, i0, special_i0e, the Bessel functions, ...) are rows of
// ember/ops/unary.def, declared in ember/ops/unary.h.

// The multivariate log-gamma function (special.multigammaln), p >= 1.
Tensor mvlgamma(const Tensor& x, int64_t p);
// (mantissa, exponent): x = mantissa * 2^exponent, |mantissa| in [0.5, 1), exponent int32. Floating x only.
std::pair<Tensor, Tensor> frexp(const Tensor& x);

Tensor logaddexp(const Tensor& a, const Tensor& b);
Tensor logaddexp2(const Tensor& a, const Tensor& b);
Tensor xlogy(const Operand& x, const Operand& y);
Tensor special_xlog1py(const Operand& x, const Operand& y);
Tensor heaviside(const Tensor& x, const Tensor& values);
Tensor gcd(const Tensor& a, const Tensor& b);
Tensor lcm(const Tensor& a, const Tensor& b);
Tensor nextafter(const Tensor& a, const Tensor& b);
Tensor igamma(const Tensor& a, const Tensor& x);   // special.gammainc
Tensor igammac(const Tensor& a, const Tensor& x);  // special.gammaincc
Tensor special_zeta(const Operand& s, const Operand& q);
// The orthogonal polynomials p_n(x) of torch.special (chebyshev_polynomial_t, ..., legendre_polynomial_p): n is
// truncated to an integer, p_n = 0 for n < 0. No gradient (as PyTorch).
enum class Polynomial : uint8_t {
  ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, ShiftedChebyshevT, ShiftedChebyshevU, ShiftedChebyshevV,
  ShiftedChebyshevW, HermiteH, HermiteHe, LaguerreL, LegendreP,
};
Tensor special_polynomial(Polynomial family, const Operand& x, const Operand& n);

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
