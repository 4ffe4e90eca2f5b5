// torch.signal.windows: PyTorch's linspace grids and formulas, composed of ember ops (docs/signal.md).
#include "ember/ops/signal.h"

#include <cmath>
#include <numbers>

#include "ember/ops.h"

namespace ember::signal {

namespace {

// PyTorch's common checks; the dtype the window is made in.
ScalarType checked_dtype(const char* name, int64_t M, const WindowOptions& o) {
  const ScalarType dtype = o.dtype.value_or(default_dtype());
  EMBER_CHECK_VALUE(M >= 0, name, " requires non-negative window length, got M=", M);
  EMBER_CHECK_VALUE(dtype == ScalarType::Float32 || dtype == ScalarType::Float64, name,
                    " expects float32 or float64 dtypes, got: ", dtype);
  return dtype;
}

TensorOptions options(ScalarType dtype, const WindowOptions& o) { return TensorOptions(dtype).device(o.device); }

// A leaf tensor (the empty window, or ones for M == 1, or the grid), requiring grad when asked.
Tensor leaf(Tensor t, const WindowOptions& o) {
  if (o.requires_grad) t.set_requires_grad(true);
  return t;
}

Tensor trivial(int64_t M, ScalarType dtype, const WindowOptions& o) {
  const int64_t shape[] = {M};
  return leaf(M == 0 ? empty(shape, options(dtype, o)) : ones(shape, options(dtype, o)), o);
}

// M points from start to end (PyTorch's linspace).
Tensor grid(double start, double end, int64_t M, ScalarType dtype, const WindowOptions& o) {
  return leaf(linspace(start, end, M, options(dtype, o)), o);
}

// The period a window's grid spans: M - 1 for a symmetric window, M for a periodic one.
double span(int64_t M, bool sym) { return static_cast<double>(sym ? M - 1 : M); }

}  // namespace

Tensor exponential(int64_t M, std::optional<double> center, double tau, bool sym, const WindowOptions& opts) {
  const ScalarType dtype = checked_dtype("exponential", M, opts);
  EMBER_CHECK_VALUE(tau > 0, "Tau must be positive, got: ", tau, " instead.");
  EMBER_CHECK_VALUE(!sym || !center, "Center must be None for symmetric windows");
  if (M == 0) return trivial(M, dtype, opts);
  const double c = center.value_or(static_cast<double>(!sym && M > 1 ? M : M - 1) / 2.0), k = 1 / tau;
  const Tensor n = grid(-c * k, (-c + static_cast<double>(M - 1)) * k, M, dtype, opts);
  return exp(neg(abs(n)));
}

Tensor cosine(int64_t M, bool sym, const WindowOptions& opts) {
  const ScalarType dtype = checked_dtype("cosine", M, opts);
  if (M == 0) return trivial(M, dtype, opts);
  const double k = std::numbers::pi / static_cast<double>(!sym && M > 1 ? M + 1 : M);
  return sin(grid(0.5 * k, (0.5 + static_cast<double>(M - 1)) * k, M, dtype, opts));
}

Tensor gaussian(int64_t M, double std_dev, bool sym, const WindowOptions& opts) {
  const ScalarType dtype = checked_dtype("gaussian", M, opts);
  EMBER_CHECK_VALUE(std_dev > 0, "Standard deviation must be positive, got: ", std_dev, " instead.");
  if (M == 0) return trivial(M, dtype, opts);
  const double start = -static_cast<double>(!sym && M > 1 ? M : M - 1) / 2.0, k = 1 / (std_dev * std::sqrt(2.0));
  const Tensor n = grid(start * k, (start + static_cast<double>(M - 1)) * k, M, dtype, opts);
  return exp(neg(mul(n, n)));
}

Tensor kaiser(int64_t M, double beta, bool sym, const WindowOptions& opts) {
  const ScalarType dtype = checked_dtype("kaiser", M, opts);
  EMBER_CHECK_VALUE(beta >= 0, "beta must be non-negative, got: ", beta, " instead.");
  if (M <= 1) return trivial(M, dtype, opts);
  // The grid runs over [-beta, beta] (its end clamped to beta against rounding); the radicand is clamped at 0 so
  // that the end points give I0(0) rather than a NaN when beta^2 and k^2 round differently.
  const double step = 2.0 * beta / span(M, sym);
  const Tensor k = grid(-beta, std::min(beta, -beta + static_cast<double>(M - 1) * step), M, dtype, opts);
  const Tensor r = sqrt(clamp(sub(beta * beta, mul(k, k)), Operand(Scalar(0.0)), std::nullopt));
  return div(i0(r), i0(full({}, beta, options(dtype, opts))));
}

Tensor bartlett(int64_t M, bool sym, const WindowOptions& opts) {
  const ScalarType dtype = checked_dtype("bartlett", M, opts);
  if (M <= 1) return trivial(M, dtype, opts);
  const double k = 2.0 / span(M, sym);
  return sub(1.0, abs(grid(-1.0, -1.0 + static_cast<double>(M - 1) * k, M, dtype, opts)));
}

Tensor general_cosine(int64_t M, const std::vector<double>& a, bool sym, const WindowOptions& opts, const char* name) {
  const ScalarType dtype = checked_dtype(name, M, opts);
  if (M <= 1) return trivial(M, dtype, opts);
  EMBER_CHECK_VALUE(!a.empty(), "Coefficients cannot be empty");
  const double k = 2.0 * std::numbers::pi / span(M, sym);
  const Tensor n = grid(0.0, static_cast<double>(M - 1) * k, M, dtype, opts);
  std::vector<double> signed_a(a);
  for (size_t i = 1; i < a.size(); i += 2) signed_a[i] = -a[i];
  const int64_t terms[] = {static_cast<int64_t>(a.size())};
  const Tensor ai = from_blob_copy(signed_a.data(), ScalarType::Float64, terms, options(dtype, opts));
  const Tensor i = arange(0, terms[0], 1, options(dtype, opts));
  // (a_i cos(i n)) summed over i, as PyTorch sums it
  return sum(mul(unsqueeze(ai, -1), cos(mul(unsqueeze(i, -1), n))), {0});
}

}  // namespace ember::signal
