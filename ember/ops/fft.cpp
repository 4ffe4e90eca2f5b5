// The spectral ops: argument checks, output shapes, normalization, one kernel call per transformed dim
// (backend/kernels/fft.h), and the gradients, which are transforms themselves (docs/fft.md).
#include "ember/ops/fft.h"

#include <cmath>
#include <sstream>

#include "ember/autograd/node.h"
#include "ember/backend/kernels/fft.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

std::string list(IntArrayRef v) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << "]";
  return s.str();
}

void check_dtype(const Tensor& x, const char* op) {
  EMBER_CHECK_TYPE(is_floating(x.dtype()), op, ": Only supports floating-point dtypes, but found: ", x.dtype());
  EMBER_CHECK_T(NotImplementedError, x.dtype() == ScalarType::Float32 || x.dtype() == ScalarType::Float64, op,
                ": the FFT supports float32 and float64 tensors, but got ", x.dtype());
}

// A complex tensor's view_as_real layout: a floating tensor whose last dim has size 2.
void check_complex_layout(const Tensor& x, const char* op) {
  check_dtype(x, op);
  EMBER_CHECK(x.dim() >= 1 && x.size(x.dim() - 1) == 2, op,
              ": expected a complex tensor in view_as_real's layout (a last dim of size 2), but got shape ",
              list(x.sizes()));
}

// dims wrapped against a rank of `rank`, checked to be unique and non-empty.
DimVector wrap_dims(IntArrayRef dim, int64_t rank, const char* op) {
  EMBER_CHECK(!dim.empty(), op, ": expected at least one dim to transform");
  EMBER_CHECK(rank >= 1, op, ": expected a signal of at least one dim, but got a 0-d tensor");
  DimVector r;
  for (int64_t d : dim) {
    const int64_t w = wrap_dim(d, rank, op);
    for (int64_t e : r) EMBER_CHECK(e != w, op, ": dims must be unique, but got ", list(dim));
    r.push_back(w);
  }
  return r;
}

// The factor of normalization mode `norm` for a signal of n points.
double norm_scale(int64_t norm, int64_t n, const char* op) {
  EMBER_CHECK_VALUE(norm >= 0 && norm <= 2, op,
                    ": normalization must be 0 (none), 1 (by 1/sqrt(n)) or 2 (by 1/n), but got ", norm);
  if (norm == 0 || n == 0) return 1.0;
  return norm == 1 ? 1.0 / std::sqrt(static_cast<double>(n)) : 1.0 / static_cast<double>(n);
}

int64_t signal_numel(const Tensor& t, IntArrayRef dims, const char* op) {
  int64_t n = 1;
  for (int64_t d : dims) n = checked_mul(n, t.size(d), op, "signal size");
  return n;
}

// The complex transforms of `out` in place over dims (the first reads `in`), the last one scaled.
void c2c_dims(const Tensor& out, const Tensor& in, IntArrayRef dims, bool forward, double scale) {
  const Tensor* src = &in;
  for (size_t i = 0; i < dims.size(); ++i) {
    fft_c2c_kernel[out.device()](out, *src, dims[i], forward, i + 1 == dims.size() ? scale : 1.0);
    src = &out;
  }
}

TensorOptions options_of(const Tensor& x) { return TensorOptions(x.dtype()).device(x.device()); }

// Multiplies g (a complex layout) along dim by 1 at bin 0, 2 at bins 1..n-h, 1 after: the bins c2r counted twice.
Tensor double_mirrored_bins(const Tensor& g, int64_t dim, int64_t n) {
  const int64_t h = g.size(dim);
  std::vector<double> w(h, 1.0);
  for (int64_t k = 1; k <= n - h; ++k) w[k] = 2.0;
  DimVector shape(g.dim(), 1);
  shape[dim] = h;
  return mul(g, from_blob_copy(w.data(), ScalarType::Float64, shape, options_of(g)));
}

}  // namespace

Tensor fft_c2c(const Tensor& x, IntArrayRef dim, int64_t normalization, bool forward) {
  constexpr const char* op = "_fft_c2c";
  check_complex_layout(x, op);
  if (dim.empty()) {
    norm_scale(normalization, 1, op);
    return clone(x);
  }
  const DimVector dims = wrap_dims(dim, x.dim() - 1, op);
  const double scale = norm_scale(normalization, signal_numel(x, dims, op), op);
  Tensor out = empty(x.sizes(), options_of(x));
  if (out.numel()) c2c_dims(out, x, dims, forward, scale);
  if (autograd::needs_grad({&x})) [[unlikely]] {
    const Tensor* in[] = {&x};
    autograd::set_history(
        out, autograd::make_node("FftC2CBackward0", in, [dims, normalization, forward](FormulaNode&, TensorList& g) {
          return TensorList{fft_c2c(g[0], dims, normalization, !forward)};
        }));
  }
  return out;
}

Tensor fft_r2c(const Tensor& x, IntArrayRef dim, int64_t normalization, bool onesided) {
  constexpr const char* op = "_fft_r2c";
  check_dtype(x, op);
  const DimVector dims = wrap_dims(dim, x.dim(), op);
  const int64_t last = dims.back(), n = x.size(last);
  EMBER_CHECK(n >= 1, op, ": Invalid number of data points (", n, ") specified");
  const double scale = norm_scale(normalization, signal_numel(x, dims, op), op);
  DimVector shape(x.sizes());
  shape[last] = onesided ? n / 2 + 1 : n;
  shape.push_back(2);
  Tensor out = empty(shape, options_of(x));
  if (out.numel()) {
    const bool only = dims.size() == 1;
    fft_r2c_kernel[x.device()](out, x, last, only ? scale : 1.0);
    if (!only) c2c_dims(out, out, IntArrayRef(dims.data(), dims.size() - 1), true, scale);
  }
  if (autograd::needs_grad({&x})) [[unlikely]] {
    const Tensor* in[] = {&x};
    // The adjoint of keeping bins [0, h): zero-pad the gradient to the whole spectrum, then the backward transform.
    autograd::set_history(
        out,
        autograd::make_node("FftR2CBackward0", in, [dims, normalization, onesided, n](FormulaNode&, TensorList& g) {
          Tensor full = g[0];
          const int64_t last = dims.back(), h = full.size(last);
          if (onesided && h < n) {
            DimVector pad(full.sizes());
            pad[last] = n - h;
            full = cat({full, zeros(pad, options_of(full))}, last);
          }
          return TensorList{select(fft_c2c(full, dims, normalization, false), -1, 0)};
        }));
  }
  return out;
}

Tensor fft_c2r(const Tensor& x, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  constexpr const char* op = "_fft_c2r";
  check_complex_layout(x, op);
  const DimVector dims = wrap_dims(dim, x.dim() - 1, op);
  const int64_t last = dims.back(), n = last_dim_size;
  EMBER_CHECK(n >= 1, op, ": Invalid number of data points (", n, ") specified");
  EMBER_CHECK(x.size(last) == n / 2 + 1, op, ": expected the input's size along dim ", last,
              " to be last_dim_size / 2 + 1 = ", n / 2 + 1, ", but got ", x.size(last), " (input shape ",
              list(x.sizes()), ")");
  DimVector shape(x.sizes());
  shape.pop_back();
  shape[last] = n;
  Tensor out = empty(shape, options_of(x));
  const double scale = norm_scale(normalization, signal_numel(out, dims, op), op);
  if (out.numel()) {
    Tensor spectrum = x;
    if (dims.size() > 1) {  // the other dims first, as complex backward transforms (aten's order)
      spectrum = empty(x.sizes(), options_of(x));
      c2c_dims(spectrum, x, IntArrayRef(dims.data(), dims.size() - 1), false, 1.0);
    }
    fft_c2r_kernel[x.device()](out, spectrum, last, scale);
  }
  if (autograd::needs_grad({&x})) [[unlikely]] {
    const Tensor* in[] = {&x};
    autograd::set_history(
        out, autograd::make_node("FftC2RBackward0", in, [dims, normalization, n](FormulaNode&, TensorList& g) {
          const Tensor gi = fft_r2c(g[0], dims, normalization, true);
          return TensorList{double_mirrored_bins(gi, dims.back(), n)};
        }));
  }
  return out;
}

}  // namespace ember
