// Special functions that compose ember ops: mvlgamma, frexp, ldexp, float_power, the windows. The elementwise ones
// are rows of ember/ops/unary.def and binary.def (their C++ functions are in ops/unary.cpp and ops/binary.cpp).
#include "ember/ops/special.h"

#include <cmath>
#include <numbers>

#include "ember/autograd/node.h"
#include "ember/backend/kernels/unary.h"
#include "ember/ops.h"

namespace ember {

// sum_{j < p} lgamma(x - j/2) + p (p - 1) / 4 log(pi). As PyTorch 1.13, x <= (p - 1) / 2 is not checked (the
// result there is lgamma's of negative arguments).
Tensor mvlgamma(const Tensor& x, int64_t p) {
  EMBER_CHECK(p >= 1, "p has to be greater than or equal to 1");
  const Tensor xf = is_floating(x.dtype()) ? x : to(x, default_dtype());
  const Tensor shifts = arange(0, p, 1, TensorOptions(xf.dtype()).device(xf.device()));
  const Tensor terms = lgamma(sub(unsqueeze(xf, -1), mul(shifts, 0.5)));
  const int64_t last[] = {-1};
  return add(sum(terms, last), static_cast<double>(p * (p - 1)) / 4.0 * std::log(std::numbers::pi));
}

std::pair<Tensor, Tensor> frexp(const Tensor& x) {
  EMBER_CHECK(is_floating(x.dtype()), "torch.frexp() only supports floating-point dtypes");
  Tensor m = empty_like(x, TensorOptions(x.dtype()).device(x.device()));
  Tensor e = empty_like(x, TensorOptions(ScalarType::Int32).device(x.device()));
  if (x.numel()) {
    unary_kernel[x.device()](UnaryOp::FrexpMantissa, m, x, x.dtype(), {});
    unary_kernel[x.device()](UnaryOp::FrexpExponent, e, x, x.dtype(), {});
  }
  // d mantissa / dx = 2^-exponent, in float32 for the 16-bit types (2^16 is not a float16).
  auto n = autograd::make_node("FrexpBackward0", {&x}, [](autograd::FormulaNode& n, autograd::TensorList& g) {
    const ScalarType t = g[0].dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
    Tensor scale = unary_op(UnaryOp::Exp2, to(n.saved_tensor(0), t));
    return autograd::TensorList{to(div(g[0], scale), g[0].dtype())};
  });
  if (n) {
    n->save(e);
    autograd::set_history(m, n);
  }
  return {m, e};
}

Tensor ldexp(const Tensor& x, const Tensor& e, const Tensor& out) {
  const Tensor scale = pow(2.0, e);
  return out.defined() ? binary_op(BinaryOp::Mul, x, scale, out) : mul(x, scale);
}

Tensor float_power(const Operand& a, const Operand& b) {
  auto wide = [](const Operand& o) -> Tensor { return o.t ? to(*o.t, ScalarType::Float64) : Tensor(); };
  const Tensor ta = wide(a), tb = wide(b);
  // A number stays a number (it is weak in promotion, and the tensor side is float64 already).
  return pow(a.t ? Operand(ta) : Operand(a.s.to_double()), b.t ? Operand(tb) : Operand(b.s.to_double()));
}

namespace {

// The n-point grid of a window: 2 pi k / (n - 1), k < n, as a tensor of the compute dtype (float32 for 16-bit).
struct Window {
  const char* name;
  int64_t length;    // the points computed (length + 1 when periodic)
  int64_t returned;  // the points returned
  ScalarType dtype;  // the result dtype
  ScalarType compute;
  Device device;
  bool requires_grad;

  Window(const char* n, int64_t len, bool periodic, const WindowOptions& o) : name(n) {
    EMBER_CHECK(len >= 0, name, " requires non-negative window_length, got window_length=", len);
    dtype = o.dtype.value_or(default_dtype());
    EMBER_CHECK(is_floating(dtype), name, " expects floating point dtypes, got: ", dtype);
    compute = dtype == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
    device = o.device;
    requires_grad = o.requires_grad;
    returned = len;
    length = periodic && len > 1 ? len + 1 : len;
  }
  // The trivial windows (0 and 1 points), or an undefined tensor.
  Tensor trivial() const {
    if (returned > 1) return {};
    const int64_t shape[] = {returned};
    return finish(ones(shape, TensorOptions(compute).device(device)));
  }
  Tensor k() const { return arange(0, length, 1, TensorOptions(compute).device(device)); }
  Tensor finish(const Tensor& w) const {
    Tensor r = contiguous(to(narrow(w, 0, 0, returned), dtype, /*copy=*/true));
    if (requires_grad) r.set_requires_grad(true);
    return r;
  }
};

}  // namespace

Tensor hamming_window(int64_t length, bool periodic, double alpha, double beta, const WindowOptions& opts) {
  Window w("hamming_window", length, periodic, opts);
  if (Tensor t = w.trivial(); t.defined()) return t;
  const double step = 2.0 * std::numbers::pi / static_cast<double>(w.length - 1);
  return w.finish(sub(alpha, mul(cos(mul(w.k(), step)), beta)));
}

Tensor hann_window(int64_t length, bool periodic, const WindowOptions& opts) {
  Window w("hann_window", length, periodic, opts);
  if (Tensor t = w.trivial(); t.defined()) return t;
  const double step = 2.0 * std::numbers::pi / static_cast<double>(w.length - 1);
  return w.finish(sub(0.5, mul(cos(mul(w.k(), step)), 0.5)));
}

Tensor blackman_window(int64_t length, bool periodic, const WindowOptions& opts) {
  Window w("blackman_window", length, periodic, opts);
  if (Tensor t = w.trivial(); t.defined()) return t;
  const double step = 2.0 * std::numbers::pi / static_cast<double>(w.length - 1);
  const Tensor k = w.k();
  return w.finish(add(sub(0.42, mul(cos(mul(k, step)), 0.5)), mul(cos(mul(k, 2.0 * step)), 0.08)));
}

Tensor bartlett_window(int64_t length, bool periodic, const WindowOptions& opts) {
  Window w("bartlett_window", length, periodic, opts);
  if (Tensor t = w.trivial(); t.defined()) return t;
  const double step = 2.0 / static_cast<double>(w.length - 1);
  return w.finish(sub(1.0, abs(sub(mul(w.k(), step), 1.0))));
}

Tensor kaiser_window(int64_t length, bool periodic, double beta, const WindowOptions& opts) {
  Window w("kaiser_window", length, periodic, opts);
  if (Tensor t = w.trivial(); t.defined()) return t;
  // I0(beta sqrt(1 - ((k - m) / m)^2)) / I0(beta), m = (n - 1) / 2
  const double m = static_cast<double>(w.length - 1) / 2.0;
  const Tensor r = div(sub(w.k(), m), m);
  const Tensor arg = mul(sqrt(clamp(sub(1.0, mul(r, r)), Scalar(0.0), std::nullopt)), beta);
  const Tensor i0_beta = i0(full({}, beta, TensorOptions(w.compute).device(w.device)));
  return w.finish(div(i0(arg), i0_beta));
}

}  // namespace ember
