// copy_, fill_, dtype/device conversion and item().
#include <algorithm>
#include <cstring>

#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/copy.h"
#include "ember/cuda.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/conj_bit.h"
#include "ember/ops/detail/util.h"
#include "ember/scalar_check.h"
#include "ember/sizes.h"

namespace ember {

namespace {

void check_writable(const Tensor& dst, const char* op) {
  EMBER_CHECK(!has_internal_overlap(dst), op,
              ": unsupported operation: more than one element of the written-to tensor refers to a single "
              "memory location. Please clone() the tensor before performing the operation.");
}

// Copies between devices: stage through a contiguous tensor of dst's dtype on the source side, then one
// memcpy (into a contiguous staging tensor on the destination side when dst itself is not contiguous).
// non_blocking leaves the host free to run on only when the host side of the memcpy is the caller's own pinned
// tensor: the block then records the stream, so that it is not reused before the copy is done (Note [Pinned host
// memory]). Pageable memory and host staging tensors are used right after, so those copies are synchronous.
void copy_across_devices(const Tensor& dst, const Tensor& src, bool non_blocking) {
  Tensor s = src;
  if (s.dtype() != dst.dtype() || !s.is_contiguous()) {
    s = empty(src.sizes(), TensorOptions(dst.dtype()).device(src.device()));
    copy_kernel[src.device()](s, src);
  }
  Tensor d = dst.is_contiguous() ? dst : empty(dst.sizes(), TensorOptions(dst.dtype()).device(dst.device()));
  const auto kind = src.is_cuda() ? (dst.is_cuda() ? cuda::CopyKind::DeviceToDevice : cuda::CopyKind::DeviceToHost)
                                  : cuda::CopyKind::HostToDevice;
  const int device = (src.is_cuda() ? src : dst).device().index;
  bool async = false;
  if (non_blocking && kind != cuda::CopyKind::DeviceToDevice) {
    const bool to_host = kind == cuda::CopyKind::DeviceToHost;
    const Tensor& host = to_host ? d : s;
    if ((to_host ? d.is_same(dst) : s.is_same(src)) && cuda::is_pinned(host.data_ptr())) {
      cuda::record_pinned_use(host.data_ptr(), cuda::current_stream(device));
      async = true;
    }
  }
  // Between two GPUs the copy runs on the source's current stream: it waits for the work queued so far on the
  // destination's current stream (which may still use d's memory or be writing dst), and that stream waits for the
  // copy before anything later there reads d.
  const bool peer = kind == cuda::CopyKind::DeviceToDevice && dst.device().index != device;
  if (peer) cuda::stream_wait_stream(cuda::current_stream(device), cuda::current_stream(dst.device().index));
  cuda::memcpy(d.data_ptr(), s.data_ptr(), d.nbytes(), kind, device, async);
  if (peer) cuda::stream_wait_stream(cuda::current_stream(dst.device().index), cuda::current_stream(device));
  if (!d.is_same(dst)) copy_kernel[dst.device()](dst, d);
}

// A contiguous CPU tensor in pinned memory (Note [Pinned host memory]).
Tensor empty_pinned(IntArrayRef sizes, ScalarType dtype) {
  const auto nbytes = static_cast<size_t>(storage_nbytes(sizes, element_size(dtype), "pin_memory"));
  void* p = cuda::pinned_allocate(std::max<size_t>(nbytes, 1));
  return from_blob(
      p, dtype, sizes, contiguous_strides(sizes), kCPU, [p] { cuda::pinned_free(p); }, nbytes);
}

}  // namespace

namespace {
void copy_into_impl(const Tensor& dst, const Tensor& src, bool non_blocking);
}  // namespace

// An in-place op counts as a write even when it changes nothing (as in PyTorch).
const Tensor& copy_(const Tensor& dst, const Tensor& src) { return copy_(dst, src, false); }

const Tensor& copy_(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]: the handler updates dst
    if (dispatch::call("aten.copy_.default", dispatch::values(dst, src, non_blocking))) return dst;
  }
  if (const Tensor * in[] = {&dst, &src}; autograd::needs_grad(in)) {
    // The new value of dst is src broadcast and cast: recorded as expand and to (Note [In-place ops]).
    return autograd::inplace_with_grad(dst, "copy_", [&] {
      Tensor s = std::ranges::equal(src.sizes(), dst.sizes()) ? src : expand(src, dst.sizes());
      return to(s, dst.device(), dst.dtype(), /*copy=*/true);
    });
  }
  copy_into_impl(dst, src, non_blocking);
  dst.bump_version();
  return dst;
}

void copy_into(const Tensor& dst, const Tensor& src) { copy_into_impl(dst, src, false); }

namespace {
void copy_into_impl(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.is_same(src) || dst.numel() == 0) return;
  check_writable(dst, "copy_");
  Tensor s = src.dim() == dst.dim() && std::ranges::equal(src.sizes(), dst.sizes()) ? src : expand(src, dst.sizes());
  if (may_overlap(dst, s) && !(dst.data_ptr() == s.data_ptr() && std::ranges::equal(dst.strides(), s.strides())))
    s = clone(s);  // partial overlap: read everything before writing anything
  if (dst.device() == s.device() && (dst.is_conj() || s.is_conj())) [[unlikely]]
    conj_bit::copy(dst, s);  // Note [The conjugate bit]
  else if (dst.device() == s.device())
    copy_kernel[dst.device()](dst, s);
  else if (dst.device().is_meta())
    return;  // a meta tensor keeps no data: copying into one is a no-op (as PyTorch's)
  else if (s.device().is_meta())
    fail<NotImplementedError>("Cannot copy out of meta tensor; no data!");
  else
    copy_across_devices(dst, s, non_blocking);
}
}  // namespace

const Tensor& fill_(const Tensor& t, const Scalar& value) {
  check_scalar_fits(value, t.dtype(), "fill_");
  if (const Tensor * in[] = {&t}; autograd::needs_grad(in))
    return autograd::inplace_with_grad(t, "fill_", [&] { return full_like(t, value); });
  if (t.numel()) fill_kernel[t.device()](t, value);
  t.bump_version();
  return t;
}

namespace {
// to() records ToCopyBackward0: the gradient goes back to the input's device and dtype.
void record_to(const Tensor& t, const Tensor& r) {
  auto n = autograd::make_node("ToCopyBackward0", {&t},
                               [dev = t.device(), dt = t.dtype()](autograd::FormulaNode&, autograd::TensorList& g) {
                                 return autograd::TensorList{to(g[0], dev, dt)};
                               });
  if (n) autograd::set_history(r, n);
}
}  // namespace

Tensor to(const Tensor& t, ScalarType dtype, bool copy) {
  if (dtype == t.dtype() && !copy) return t;
  EMBER_PY_DISPATCH(Tensor, "aten._to_copy.default", t, dtype);
  Tensor r = empty_like(t, TensorOptions(dtype).device(t.device()));
  copy_into(r, t);
  record_to(t, r);
  return r;
}

Tensor to(const Tensor& t, Device device, std::optional<ScalarType> dtype, bool copy) {
  return to(t, device, dtype, copy, false);
}

Tensor to(const Tensor& t, Device device, std::optional<ScalarType> dtype, bool copy, bool non_blocking) {
  device = resolve_device(device);
  const ScalarType dt = dtype.value_or(t.dtype());
  if (device == t.device() && dt == t.dtype() && !copy) return t;
  if (device == t.device() && !non_blocking) EMBER_PY_DISPATCH(Tensor, "aten._to_copy.default", t, dt);
  // As PyTorch: a non_blocking copy to the CPU lands in pinned memory, so that it can be asynchronous.
  const bool pin = non_blocking && t.is_cuda() && device.is_cpu();
  Tensor r = pin ? empty_pinned(t.sizes(), dt) : empty_like(t, TensorOptions(dt).device(device));
  copy_into_impl(r, t, non_blocking);
  record_to(t, r);
  return r;
}

Tensor cuda::pin_memory(const Tensor& t) {
  EMBER_CHECK(t.device().is_cpu(), "pin_memory: cannot pin a tensor on ", t.device(),
              ": only dense CPU tensors can be pinned");
  if (is_pinned(t)) return t;
  Tensor r = empty_pinned(t.sizes(), t.dtype());
  if (r.numel()) copy_kernel[kCPU](r, t);
  record_to(t, r);
  return r;
}

bool cuda::is_pinned(const Tensor& t) {
  return t.device().is_cpu() && t.impl()->storage()->data() && is_pinned(t.impl()->storage()->data());
}

Scalar item(const Tensor& t) {
  // ValueError, as PyTorch's item()/float()/int() (the Python conversions all come here).
  EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars (a Tensor with ",
                    t.numel(), " elements cannot be converted to Scalar)");
  EMBER_CHECK(!t.device().is_meta(), "Tensor.item() cannot be called on meta tensors");
  cuda::SyncOpName sync_op("item");  // Note [Sync debug mode]
  Tensor c = t.is_cuda() ? to(t, kCPU) : t;
  return dispatch_any(c.dtype(), [&](auto v) -> Scalar {
    using T = decltype(v);
    T x;
    std::memcpy(&x, c.data_ptr(), sizeof(T));
    if constexpr (is_complex_v<T>)
      return Scalar(Complex<double>(c.is_conj() ? conj(x) : x));
    else if constexpr (std::is_same_v<T, bool>)
      return Scalar(x);
    else if constexpr (std::is_integral_v<T>)
      return Scalar(static_cast<int64_t>(x));
    else
      return Scalar(static_cast<double>(x));
  });
}

}  // namespace ember
