// Factory functions: empty, zeros, ones, full, ranges, eye, *_like, and tensors from host data.
#include <cmath>

#include "ember/backend/kernels.h"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/creation.h"
#include "ember/cuda.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/scalar_check.h"
#include "ember/sizes.h"

namespace ember {

Tensor empty(IntArrayRef size, TensorOptions opts) {
  DimVector strides = contiguous_strides(size);
  return empty_strided(size, strides, opts);
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions opts) {
  EMBER_CHECK(size.size() == stride.size(), "empty_strided: mismatch in length of strides and shape (", shape_str(size),
              " vs ", shape_str(stride), ")");
  const ScalarType dtype = opts.dtype_or(default_dtype());
  const Device device = resolve_device(opts.device_);
  checked_numel(size, "empty");
  for (int64_t s : stride)
    EMBER_CHECK(s >= 0, "empty_strided: negative strides are not supported, got ", shape_str(stride));
  // Every op's output comes through here (Note [Checked size arithmetic]).
  const int64_t nbytes = storage_nbytes(size, stride, 0, element_size(dtype), "empty");
  auto storage = make_intrusive<StorageImpl>(static_cast<size_t>(nbytes), device);
  Tensor t(make_intrusive<TensorImpl>(std::move(storage), dtype, size, stride, 0));
  if (opts.requires_grad_) t.set_requires_grad(true);
  return t;
}

Tensor full(IntArrayRef size, const Scalar& value, TensorOptions opts) {
  const ScalarType dtype = opts.dtype_or(value.default_dtype());
  check_scalar_fits(value, dtype, "full");  // before allocating
  Tensor t = empty(size, opts.dtype(dtype).requires_grad(false));
  if (t.numel()) fill_kernel[t.device()](t, value);
  if (opts.requires_grad_) t.set_requires_grad(true);
  return t;
}

Tensor zeros(IntArrayRef size, TensorOptions opts) { return full(size, 0, opts.dtype(opts.dtype_or(default_dtype()))); }
Tensor ones(IntArrayRef size, TensorOptions opts) { return full(size, 1, opts.dtype(opts.dtype_or(default_dtype()))); }

Tensor arange(const Scalar& end, TensorOptions opts) { return arange(0, end, 1, opts); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions opts) {
  const bool fp = start.is_floating() || end.is_floating() || step.is_floating();
  const ScalarType dtype = opts.dtype_or(fp ? default_dtype() : ScalarType::Int64);
  refuse_complex_half("arange_cpu", dtype);  // Note [complex32]
  const double a = start.to_double(), b = end.to_double(), s = step.to_double();
  EMBER_CHECK(std::isfinite(a) && std::isfinite(b), "arange: unsupported range: ", a, " -> ", b);
  // Integer outputs step by the step truncated to an integer (PyTorch's accumulate type), which must
  // not be 0 either.
  EMBER_CHECK(s != 0 && (is_floating(dtype) || step.to_int() != 0), "arange: step must be nonzero");
  EMBER_CHECK((s > 0 && b >= a) || (s < 0 && b <= a),
              "arange: upper bound and larger bound inconsistent with step sign");
  int64_t n;
  // Exact integer arithmetic, ceil((b - a) / s), for integer arguments and, as PyTorch, on the truncated
  // arguments for int64 outputs.
  if (!fp || dtype == ScalarType::Int64) {
    const int64_t ia = start.to_int(), ib = end.to_int(), is = step.to_int();
    n = is > 0 ? (ib - ia + is - 1) / is : (ia - ib - is - 1) / -is;
  } else {
    n = static_cast<int64_t>(std::ceil((b - a) / s));
  }
  Tensor t = empty({&n, 1}, opts.dtype(dtype).requires_grad(false));
  if (n) arange_kernel[t.device()](t, start, step);
  if (opts.requires_grad_) t.set_requires_grad(true);
  return t;
}

static Tensor spaced(const Scalar& start, const Scalar& end, int64_t steps, bool log_scale, double base,
                     TensorOptions opts, const char* op) {
  EMBER_CHECK(steps >= 0, op, ": number of steps must be non-negative, got ", steps);
  refuse_complex_half(std::string(op) + "_cpu", opts.dtype_or(default_dtype()));  // Note [complex32]
  Tensor t = empty({&steps, 1}, opts.dtype(opts.dtype_or(default_dtype())).requires_grad(false));
  // One step is `start` (the kernels evaluate the upper half from `end`).
  if (steps)
    linspace_kernel[t.device()](t, start.to_double(), steps == 1 ? start.to_double() : end.to_double(), log_scale,
                                base);
  if (opts.requires_grad_) t.set_requires_grad(true);
  return t;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions opts) {
  return spaced(start, end, steps, false, 0.0, opts, "linspace");
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, TensorOptions opts) {
  return spaced(start, end, steps, true, base, opts, "logspace");
}

Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions opts) {
  const int64_t cols = m.value_or(n);
  EMBER_CHECK(n >= 0, "eye: n must be greater or equal to 0, got ", n);
  EMBER_CHECK(cols >= 0, "eye: m must be greater or equal to 0, got ", cols);
  refuse_complex_half("eye", opts.dtype_or(default_dtype()));  // Note [complex32]
  const int64_t size[] = {n, cols};
  Tensor t = zeros(size, opts.requires_grad(false));
  Tensor d = diagonal(t, 0, 0, 1);
  if (d.numel()) fill_kernel[t.device()](d, 1);
  if (opts.requires_grad_) t.set_requires_grad(true);
  return t;
}

// *_like keep the input's strides when it is dense (torch.preserve_format), else are contiguous.
Tensor empty_like(const Tensor& t, TensorOptions opts) {
  if (is_non_overlapping_and_dense(t) && !t.is_contiguous()) return empty_strided(t.sizes(), t.strides(), opts);
  return empty(t.sizes(), opts);
}
Tensor empty_like(const Tensor& t) { return empty_like(t, TensorOptions(t.dtype()).device(t.device())); }

Tensor full_like(const Tensor& t, const Scalar& value, std::optional<ScalarType> dtype) {
  EMBER_PY_DISPATCH(Tensor, "aten.full_like.default", t, value, dtype);
  check_scalar_fits(value, dtype.value_or(t.dtype()), "full_like");
  Tensor r = empty_like(t, TensorOptions(dtype.value_or(t.dtype())).device(t.device()));
  if (r.numel()) fill_kernel[r.device()](r, value);
  return r;
}
Tensor zeros_like(const Tensor& t, std::optional<ScalarType> dtype) {
  EMBER_PY_DISPATCH(Tensor, "aten.zeros_like.default", t, dtype);
  return full_like(t, 0, dtype);
}
Tensor ones_like(const Tensor& t, std::optional<ScalarType> dtype) {
  EMBER_PY_DISPATCH(Tensor, "aten.ones_like.default", t, dtype);
  return full_like(t, 1, dtype);
}

Tensor from_blob(void* data, ScalarType dtype, IntArrayRef size, IntArrayRef strides, Device device,
                 std::function<void()> deleter, size_t storage_nbytes) {
  auto storage = make_intrusive<StorageImpl>(data, storage_nbytes, device, std::move(deleter));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, size, strides, 0));
}

Tensor from_blob_copy(const void* data, ScalarType src_dtype, IntArrayRef size, TensorOptions opts) {
  DimVector strides = contiguous_strides(size);
  const int64_t nbytes = storage_nbytes(size, element_size(src_dtype), "tensor");
  Tensor src = from_blob(const_cast<void*>(data), src_dtype, size, strides, kCPU, nullptr, static_cast<size_t>(nbytes));
  Tensor out = empty(size, opts.requires_grad(false));
  copy_into(out, src);
  if (opts.requires_grad_) out.set_requires_grad(true);
  return out;
}

}  // namespace ember
