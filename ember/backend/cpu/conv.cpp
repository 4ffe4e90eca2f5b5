// The CPU convolution kernels: float32, bfloat16 and float16 through oneDNN (dnnl.cpp; 16-bit in float32 where oneDNN
// has no fast kernel for them); float64, which oneDNN lacks, through im2col and
// OpenBLAS's dgemm, exact to the last bits a dgemm gives (it is what gradcheck runs on).
#include <cblas.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>

#include "ember/backend/cpu/dnnl.h"
#include "ember/backend/kernels/nn/conv.h"
#include "ember/ops.h"
#include "ember/parallel.h"

namespace ember {
namespace {

// The geometry padded to three spatial dims (leading dims of size 1), in elements.
struct Geo3 {
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, d{1, 1, 1}, p{0, 0, 0};
  int64_t in_n() const { return in[0] * in[1] * in[2]; }
  int64_t out_n() const { return out[0] * out[1] * out[2]; }
  int64_t k_n() const { return k[0] * k[1] * k[2]; }
  bool identity() const {  // a 1x1 convolution with unit stride and no padding: im2col is the input itself
    return k_n() == 1 && s == std::array<int64_t, 3>{1, 1, 1} && p == std::array<int64_t, 3>{0, 0, 0} && in == out;
  }
};

// input [N, C, *in], weight [O, C/G, *k], output [N, O, *out].
Geo3 geo3(const Tensor& input, const Tensor& weight, const Tensor& output, const ConvGeometry& g) {
  Geo3 r;
  const size_t off = 3 - g.dims();
  for (size_t i = 0; i < g.dims(); ++i) {
    const int64_t dim = static_cast<int64_t>(i) + 2;
    r.in[off + i] = input.size(dim);
    r.out[off + i] = output.size(dim);
    r.k[off + i] = weight.size(dim);
    r.s[off + i] = g.stride[i];
    r.d[off + i] = g.dilation[i];
    r.p[off + i] = g.pad_l[i];
  }
  return r;
}

// Visits every (row of the column matrix, output position) pair with the input offset it reads (-1: padding).
// Rows are (channel, kernel position); f(row, out_pos, in_offset) over rows [r0, r1).
template <class F>
void for_each_tap(const Geo3& g, int64_t r0, int64_t r1, F f) {
  const int64_t kn = g.k_n();
  for (int64_t row = r0; row < r1; ++row) {
    const int64_t c = row / kn, kk = row % kn;
    const int64_t kw = kk % g.k[2], kh = kk / g.k[2] % g.k[1], kd = kk / (g.k[2] * g.k[1]);
    int64_t o = 0;
    for (int64_t od = 0; od < g.out[0]; ++od) {
      const int64_t id = od * g.s[0] + kd * g.d[0] - g.p[0];
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        const int64_t ih = oh * g.s[1] + kh * g.d[1] - g.p[1];
        const bool inside = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1];
        const int64_t base = ((c * g.in[0] + id) * g.in[1] + ih) * g.in[2];
        for (int64_t ow = 0; ow < g.out[2]; ++ow, ++o) {
          const int64_t iw = ow * g.s[2] + kw * g.d[2] - g.p[2];
          f(row, o, inside && iw >= 0 && iw < g.in[2] ? base + iw : -1);
        }
      }
    }
  }
}

// col[C * K, P] from x[C, *in].
template <class T>
void im2col(const Geo3& g, int64_t channels, const T* x, T* col) {
  const int64_t rows = channels * g.k_n(), P = g.out_n();
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / P), [&](int64_t b, int64_t e) {
    for_each_tap(g, b, e, [&](int64_t row, int64_t o, int64_t i) { col[row * P + o] = i >= 0 ? x[i] : T(0); });
  });
}

// x[C, *in] += col[C * K, P]; a channel's rows only touch that channel, so channels split across threads.
template <class T>
void col2im(const Geo3& g, int64_t channels, const T* col, T* x) {
  const int64_t kn = g.k_n(), P = g.out_n();
  parallel_for(0, channels, std::max<int64_t>(1, kGrainSize / (kn * P)), [&](int64_t b, int64_t e) {
    for_each_tap(g, b * kn, e * kn, [&](int64_t row, int64_t o, int64_t i) {
      if (i >= 0) x[i] += col[row * P + o];
    });
  });
}

// Row-major C[m, n] = op(A) op(B) + beta C.
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b, int64_t ldb,
          double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b,
              ldb, beta, c, ldc);
}

using T = double;

// Sample xn as the GEMM's column matrix: xn itself for a 1x1 unit-stride unpadded convolution (col undefined),
// else unfolded into col.
const T* columns(const Geo3& g, int64_t C, const T* xn, const Tensor& col) {
  if (!col.defined()) return xn;
  im2col(g, C, xn, col.data<T>());
  return col.data<T>();
}

void forward_f64(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const ConvGeometry& cg) {
  const Geo3 g = geo3(input, weight, out, cg);
  const int64_t N = input.size(0), C = input.size(1), O = weight.size(0), G = cg.groups;
  const int64_t Cg = C / G, Og = O / G, CgK = Cg * g.k_n(), P = g.out_n();
  Tensor col = g.identity() ? Tensor() : empty({{C * g.k_n() * P}}, TensorOptions(ScalarType::Float64));
  const T* x = input.data<T>();
  const T* w = weight.data<T>();
  T* y = out.data<T>();
  for (int64_t n = 0; n < N; ++n) {
    const T* cols = columns(g, C, x + n * C * g.in_n(), col);
    for (int64_t gi = 0; gi < G; ++gi)
      gemm(false, false, Og, P, CgK, w + gi * Og * CgK, CgK, cols + gi * CgK * P, P, 0.0, y + (n * O + gi * Og) * P, P);
    if (bias.defined()) {
      const T* b = bias.data<T>();
      for (int64_t o = 0; o < O; ++o) {
        T* row = y + (n * O + o) * P;
        for (int64_t i = 0; i < P; ++i) row[i] += b[o];
      }
    }
  }
}

void backward_input_f64(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                        const ConvGeometry& cg) {
  const Geo3 g = geo3(grad_input, weight, grad_out, cg);
  const int64_t N = grad_input.size(0), C = grad_input.size(1), O = weight.size(0), G = cg.groups;
  const int64_t Cg = C / G, Og = O / G, CgK = Cg * g.k_n(), P = g.out_n();
  const bool direct = g.identity();
  Tensor col = direct ? Tensor() : empty({{C * g.k_n() * P}}, TensorOptions(ScalarType::Float64));
  const T* gy = grad_out.data<T>();
  const T* w = weight.data<T>();
  T* gx = grad_input.data<T>();
  for (int64_t n = 0; n < N; ++n) {
    T* gxn = gx + n * C * g.in_n();
    T* cols = direct ? gxn : col.data<T>();
    for (int64_t gi = 0; gi < G; ++gi)
      gemm(true, false, CgK, P, Og, w + gi * Og * CgK, CgK, gy + (n * O + gi * Og) * P, P, 0.0, cols + gi * CgK * P, P);
    if (!direct) {
      std::memset(gxn, 0, sizeof(T) * C * g.in_n());
      col2im(g, C, cols, gxn);
    }
  }
}

void backward_weight_f64(const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& grad_out,
                         const Tensor& input, const ConvGeometry& cg) {
  const Geo3 g = geo3(input, grad_weight, grad_out, cg);
  const int64_t N = input.size(0), C = input.size(1), O = grad_weight.size(0), G = cg.groups;
  const int64_t Cg = C / G, Og = O / G, CgK = Cg * g.k_n(), P = g.out_n();
  Tensor col = g.identity() ? Tensor() : empty({{C * g.k_n() * P}}, TensorOptions(ScalarType::Float64));
  const T* x = input.data<T>();
  const T* gy = grad_out.data<T>();
  T* gw = grad_weight.data<T>();
  for (int64_t n = 0; n < N; ++n) {
    const T* cols = columns(g, C, x + n * C * g.in_n(), col);
    for (int64_t gi = 0; gi < G; ++gi)
      gemm(false, true, Og, CgK, P, gy + (n * O + gi * Og) * P, P, cols + gi * CgK * P, P, n ? 1.0 : 0.0,
           gw + gi * Og * CgK, CgK);
  }
  if (grad_bias.defined()) {
    T* gb = grad_bias.data<T>();
    for (int64_t o = 0; o < O; ++o) {
      T s = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < P; ++i) s += gy[(n * O + o) * P + i];
      gb[o] = s;
    }
  }
}

const char* unsupported = "convolution: the CPU kernels support float32, float64, bfloat16 and float16, not ";

bool is_half(ScalarType t) { return t == ScalarType::BFloat16 || t == ScalarType::Float16; }

// A tensor's copy in a wider dtype (undefined stays undefined): float32 where oneDNN has no fast 16-bit kernel,
// float64 for geometries beyond oneDNN (Note [Geometries beyond oneDNN]); and an output of that dtype to narrow back.
Tensor widened(const Tensor& t, ScalarType dt = ScalarType::Float32) { return t.defined() ? to(t, dt) : t; }
Tensor widened_out(const Tensor& t, ScalarType dt = ScalarType::Float32) {
  return t.defined() ? empty(t.sizes(), TensorOptions(dt)) : t;
}
void narrow_into(const Tensor& dst, const Tensor& src) {
  if (dst.defined()) copy_(dst, src);
}

// Whether all defined operands are row-major: ember's own loops (float64, and the 16-bit fallback's widening) need
// it; oneDNN takes channels-last operands as they are.
bool all_contiguous(std::initializer_list<const Tensor*> ts) {
  return std::all_of(ts.begin(), ts.end(), [](const Tensor* t) { return !t->defined() || t->is_contiguous(); });
}
Tensor row_major(const Tensor& t) { return t.defined() ? contiguous(t) : t; }
Tensor row_major_out(const Tensor& t) {
  return t.defined() && !t.is_contiguous() ? empty(t.sizes(), TensorOptions(t.dtype())) : t;
}
void copy_back(const Tensor& dst, const Tensor& src) {
  if (dst.defined() && !dst.is_same(src)) copy_(dst, src);
}

void conv_forward_cpu(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const ConvGeometry& g);

void conv_backward_cpu(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                       const Tensor& grad_out, const Tensor& input, const Tensor& weight, const ConvGeometry& g);

// A channels-last convolution outside float32 (Note [Primitives on ember's threads] covers float32): computed on
// row-major copies, the outputs copied back.
bool strided_fallback_forward(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                              const ConvGeometry& g) {
  if (input.dtype() == ScalarType::Float32 || all_contiguous({&out, &input, &weight, &bias})) return false;
  const Tensor o = row_major_out(out);
  conv_forward_cpu(o, row_major(input), row_major(weight), row_major(bias), g);
  copy_back(out, o);
  return true;
}

bool strided_fallback_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                               const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                               const ConvGeometry& g) {
  if (grad_out.dtype() == ScalarType::Float32 ||
      all_contiguous({&grad_input, &grad_weight, &grad_bias, &grad_out, &input, &weight}))
    return false;
  const Tensor gi = row_major_out(grad_input), gw = row_major_out(grad_weight), gb = row_major_out(grad_bias);
  conv_backward_cpu(gi, gw, gb, row_major(grad_out), row_major(input), row_major(weight), g);
  copy_back(grad_input, gi);
  copy_back(grad_weight, gw);
  copy_back(grad_bias, gb);
  return true;
}

// Note [Geometries beyond oneDNN]
// oneDNN's kernels index their taps in 32 bits: a padding, stride or dilated kernel extent near 2^31, which PyTorch
// computes (conv2d over a 1x1 input with padding=2**32 and dilation=2**31 is one output), crashed in its JIT code or
// failed to make a descriptor. Geometries past kOneDnnReach run in float64 on ember's im2col path, which indexes in
// 64 bits (their outputs are small: such taps mostly fall in the padding), and are rounded back.
constexpr int64_t kOneDnnReach = int64_t{1} << 24;
bool beyond_onednn(const ConvGeometry& g, const Tensor& weight) {
  for (size_t i = 0; i < g.dims(); ++i) {
    const int64_t span = std::max<int64_t>(weight.size(static_cast<int64_t>(i) + 2) - 1, 1);
    if (std::max({g.pad_l[i], g.pad_r[i], g.stride[i]}) >= kOneDnnReach || g.dilation[i] >= kOneDnnReach / span)
      return true;
  }
  return false;
}
bool onednn_dtype(ScalarType t) { return t == ScalarType::Float32 || is_half(t); }
// An operand for the float64 path, which reads row-major tensors.
Tensor as_f64(const Tensor& t) { return row_major(widened(t, ScalarType::Float64)); }

bool far_fallback_forward(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const ConvGeometry& g) {
  if (!onednn_dtype(input.dtype()) || !beyond_onednn(g, weight)) return false;
  const Tensor o = widened_out(out, ScalarType::Float64);
  forward_f64(o, as_f64(input), as_f64(weight), as_f64(bias), g);
  narrow_into(out, o);
  return true;
}

bool far_fallback_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                           const Tensor& grad_out, const Tensor& input, const Tensor& weight, const ConvGeometry& g) {
  if (!onednn_dtype(grad_out.dtype()) || !beyond_onednn(g, weight.defined() ? weight : grad_weight)) return false;
  const ScalarType f64 = ScalarType::Float64;
  const Tensor gi = widened_out(grad_input, f64), gw = widened_out(grad_weight, f64), gb = widened_out(grad_bias, f64);
  const Tensor go = as_f64(grad_out);
  if (gi.defined()) backward_input_f64(gi, go, as_f64(weight), g);
  if (gw.defined()) backward_weight_f64(gw, gb, go, as_f64(input), g);
  narrow_into(grad_input, gi);
  narrow_into(grad_weight, gw);
  narrow_into(grad_bias, gb);
  return true;
}

void conv_forward_cpu(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const ConvGeometry& g) {
  if (far_fallback_forward(out, input, weight, bias, g) || strided_fallback_forward(out, input, weight, bias, g))
    return;
  const ScalarType dt = input.dtype();
  if (dt == ScalarType::Float32) {
    dnnl_cpu::conv_forward(out, input, weight, bias, g);
  } else if (is_half(dt)) {  // bfloat16/float16: float32 accumulation, one rounding, as in float32 then rounded
    if (dnnl_cpu::conv_forward(out, input, weight, bias, g)) return;
    const Tensor o = widened_out(out);
    dnnl_cpu::conv_forward(o, widened(input), widened(weight), widened(bias), g);
    narrow_into(out, o);
  } else {
    EMBER_CHECK_T(NotImplementedError, dt == ScalarType::Float64, unsupported, dt);
    forward_f64(out, input, weight, bias, g);
  }
}

void conv_backward_cpu(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                       const Tensor& grad_out, const Tensor& input, const Tensor& weight, const ConvGeometry& g) {
  if (far_fallback_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, g) ||
      strided_fallback_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, g))
    return;
  const ScalarType dt = grad_out.dtype();
  if (dt == ScalarType::Float32) {
    dnnl_cpu::conv_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, g);
  } else if (is_half(dt)) {
    if (dnnl_cpu::conv_backward(grad_input, grad_weight, grad_bias, grad_out, input, weight, g)) return;
    const Tensor gi = widened_out(grad_input), gw = widened_out(grad_weight), gb = widened_out(grad_bias);
    dnnl_cpu::conv_backward(gi, gw, gb, widened(grad_out), grad_weight.defined() ? widened(input) : Tensor(),
                            grad_input.defined() ? widened(weight) : Tensor(), g);
    narrow_into(grad_input, gi);
    narrow_into(grad_weight, gw);
    narrow_into(grad_bias, gb);
  } else {
    EMBER_CHECK_T(NotImplementedError, dt == ScalarType::Float64, unsupported, dt);
    if (grad_input.defined()) backward_input_f64(grad_input, grad_out, weight, g);
    if (grad_weight.defined()) backward_weight_f64(grad_weight, grad_bias, grad_out, input, g);
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(conv_forward, CPU, conv_forward_cpu)
EMBER_REGISTER_KERNEL(conv_backward, CPU, conv_backward_cpu)

}  // namespace ember
