// The in-place forms of the view ops and resize_: they change a tensor's geometry, not its data.
#include "ember/ops/inplace_views.h"

#include "ember/autograd/detail/shape_grad.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/sizes.h"

namespace ember {

namespace {

// Makes self take view's geometry in place: a metadata-only change, bumping the version (as PyTorch), and, when
// recording, the view's node as self's grad_fn.
const Tensor& take_geometry(const Tensor& self, const Tensor& view, const char* op) {
  if (autograd::needs_grad({&self})) autograd::check_inplace(self, op);
  const auto& fn = view.grad_fn();
  self.impl()->set_sizes_strides(view.sizes(), view.strides(), view.storage_offset());
  self.bump_version();
  if (fn) autograd::set_history(self, fn, 0, /*is_view=*/true);
  return self;
}

}  // namespace

const Tensor& unsqueeze_(const Tensor& t, int64_t dim) { return take_geometry(t, unsqueeze(t, dim), "unsqueeze_"); }
const Tensor& squeeze_(const Tensor& t, std::optional<int64_t> dim) {
  return take_geometry(t, dim ? squeeze(t, *dim) : squeeze(t), "squeeze_");
}
const Tensor& transpose_(const Tensor& t, int64_t d0, int64_t d1) {
  return take_geometry(t, transpose(t, d0, d1), "transpose_");
}
const Tensor& t_(const Tensor& x) {
  EMBER_CHECK(x.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", x.dim(), "D");
  return take_geometry(x, t(x), "t_");
}
const Tensor& as_strided_(const Tensor& t, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> offset) {
  return take_geometry(t, as_strided(t, size, stride, offset), "as_strided_");
}

const Tensor& resize_(const Tensor& t, IntArrayRef size) {
  EMBER_CHECK(!t.requires_grad(), "cannot resize variables that require grad");
  const int64_t numel = checked_numel(size, "resize_");
  const DimVector strides = contiguous_strides(size);
  const auto need = static_cast<size_t>(storage_nbytes(size, strides, t.storage_offset(), t.element_size(), "resize_"));
  const Storage& old = t.impl()->storage();
  if (numel == 0 || need <= old->nbytes()) {
    t.impl()->set_sizes_strides(size, strides, t.storage_offset());
    return t;
  }
  // A larger storage holding the old bytes (Note: other tensors viewing the old storage keep it).
  Tensor bytes = empty({{static_cast<int64_t>(need)}}, TensorOptions(ScalarType::UInt8).device(t.device()));
  if (old->nbytes()) {
    Tensor old_bytes(IntrusivePtr<TensorImpl>(
        new TensorImpl(old, ScalarType::UInt8, {{static_cast<int64_t>(old->nbytes())}}, {{1}}, 0)));
    copy_into(narrow(bytes, 0, 0, static_cast<int64_t>(old->nbytes())), old_bytes);
  }
  TensorImpl fresh(bytes.impl()->storage(), t.dtype(), size, strides, t.storage_offset());
  t.impl()->set_data(fresh);
  return t;
}

}  // namespace ember
