#include "ember/ops/detail/util.h"

#include <algorithm>

#include "ember/autograd/grad_mode.h"
#include "ember/cuda.h"
#include "ember/ops.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef size) {
  DimVector s(size.size(), 1);
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(size.size()) - 1; i >= 0; --i) {
    s[i] = acc;
    // Wraps (as PyTorch's) only past a 0-size dim, where no element is addressed (Note [Checked size arithmetic]).
    __builtin_mul_overflow(acc, std::max<int64_t>(size[i], 1), &acc);
  }
  return s;
}

Device resolve_device(Device d) {
  if (d.is_cpu()) [[likely]]
    return d.has_index() && d.index != 0 ? (fail<Error>("CPU device index must be 0, got ", d), d) : kCPU;
  if (d.is_meta()) return kMeta;  // one meta device: PyTorch drops the index too
  cuda::check_available(("device '" + d.str() + "'").c_str());
  if (!d.has_index()) return Device(DeviceType::CUDA, cuda::current_device());
  EMBER_CHECK(d.index < cuda::device_count(), "CUDA error: invalid device ordinal (", d, " requested, ",
              cuda::device_count(), " available)");
  return d;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  DimVector perm;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.sizes()[i] != 1) perm.push_back(i);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t expected = 1;
  for (int64_t d : perm) {
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

bool has_internal_overlap(const Tensor& t) {
  if (t.is_contiguous() || t.numel() <= 1) return false;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.strides()[i] == 0 && t.sizes()[i] > 1) return true;
  // Dims sorted by stride must each step past everything the smaller ones span.
  DimVector perm;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.sizes()[i] > 1) perm.push_back(i);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t span = 0;  // max offset reachable by the smaller dims
  for (int64_t d : perm) {
    if (t.strides()[d] <= span) return true;
    span += (t.sizes()[d] - 1) * t.strides()[d];
  }
  return false;
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.impl()->storage().get() != b.impl()->storage().get() || a.numel() == 0 || b.numel() == 0) return false;
  auto range = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = lo;
    for (int64_t i = 0; i < t.dim(); ++i) hi += (t.sizes()[i] - 1) * t.strides()[i];
    return std::pair<int64_t, int64_t>(lo * t.element_size(), (hi + 1) * t.element_size());
  };
  auto [alo, ahi] = range(a);
  auto [blo, bhi] = range(b);
  return alo < bhi && blo < ahi;
}

Tensor scalar_tensor(const Scalar& value, ScalarType dtype, Device device) {
  if (!device.is_cpu()) return full({}, value, TensorOptions(dtype).device(device));
  constexpr int kRing = 4;
  thread_local Tensor ring[kNumScalarTypes][kRing];
  thread_local int next[kNumScalarTypes] = {};
  const int d = static_cast<int>(dtype);
  Tensor& slot = ring[d][next[d]];
  next[d] = (next[d] + 1) % kRing;
  // Reuse only when nothing else holds the tensor or its storage.
  if (!slot.defined() || slot.impl()->use_count() != 1 || slot.impl()->storage()->use_count() != 1)
    slot = empty({}, TensorOptions(dtype));
  dispatch_any(dtype, [&](auto v) {
    using T = decltype(v);
    *static_cast<T*>(slot.data_ptr()) = value.to<T>();
  });
  return slot;
}

Tensor make_view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 std::optional<ScalarType> dtype) {
  Tensor v(make_intrusive<TensorImpl>(t.impl()->storage(), dtype.value_or(t.dtype()), sizes, strides, offset));
  v.impl()->set_conj(t.is_conj() && is_complex(v.dtype()));  // a view of a conjugate view reads conjugated too
  // Every view remembers its root base, for in-place ops on views (Note [In-place on views]).
  TensorImpl* base = t.impl()->view_base() ? t.impl()->view_base() : t.impl();
  v.impl()->set_view_base(IntrusivePtr<TensorImpl>(base), t.version());
  return v;
}

namespace {
[[noreturn, gnu::noinline, gnu::cold]] void device_mismatch(const char* op, Device a, Device b) {
  fail<Error>(op, ": Expected all tensors to be on the same device, but found at least two devices, ", a, " and ", b,
              "!");
}
}  // namespace

void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!t || !t->defined()) continue;
    if (!first)
      first = t;
    else if (t->device() != first->device()) [[unlikely]]
      device_mismatch(op, first->device(), t->device());
  }
}

void check_same_device(const char* op, const std::vector<Tensor>& tensors) {
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    if (!first)
      first = &t;
    else if (t.device() != first->device()) [[unlikely]]
      device_mismatch(op, first->device(), t.device());
  }
}

void check_has_data(const Tensor& t, const char* op) {
  if (t.is_meta()) [[unlikely]]
    fail<NotImplementedError>(op, ": not implemented for meta tensors: the size of its result depends on the data");
}

std::pair<Scalar, Scalar> host_extrema(const Tensor& t) {
  autograd::NoGradGuard no_grad;
  if (!t.is_cuda()) return {item(amin(t)), item(amax(t))};
  const Tensor both = to(stack({amin(t), amax(t)}), kCPU);
  return {item(select(both, 0, 0)), item(select(both, 0, 1))};
}

}  // namespace ember
