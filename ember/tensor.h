// TensorImpl holds what a tensor is (a strided view of a storage); Tensor is the handle users pass around.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ember/small_vector.h"
#include "ember/storage.h"

namespace ember {

struct AutogradMeta;
class Tensor;
namespace autograd {
struct Node;
}

class TensorImpl final : public RefCounted {
 public:
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  ~TensorImpl() override;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  const Storage& storage() const { return storage_; }
  int64_t storage_offset() const { return offset_; }
  bool is_contiguous() const { return contiguous_; }
  // The conjugate bit of a complex tensor: its elements are the conjugates of the memory's (Note [The conjugate bit]
  // in ember/ops/complex.cpp). Only conj() and the views of a conjugate view set it.
  bool is_conj() const { return conj_; }
  void set_conj(bool c) { conj_ = c; }
  char* data() const {
    return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(element_size(dtype_));
  }

  void set_sizes_strides(IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  // Makes this tensor view src's storage with src's geometry (Python's `t.data = src`).
  void set_data(const TensorImpl& src);

  // Autograd metadata is allocated only when a tensor first takes part in autograd. It is shared so that a
  // leaf's gradient accumulator can refer to it weakly (Note [No reference cycles] in autograd/node.h).
  AutogradMeta* autograd_meta() const { return autograd_.get(); }
  const std::shared_ptr<AutogradMeta>& autograd_meta_ptr() const { return autograd_; }
  AutogradMeta& ensure_autograd_meta();

  // The tensor this one is a view of (the root of a chain of views), or null. Set by every view op, so
  // that an in-place op on a view can rewrite its base's history (Note [In-place on views]).
  TensorImpl* view_base() const { return base_.get(); }
  // The storage version at which this view's history was last set (when it differs, the base may have been
  // modified in place since and the view's grad_fn is regenerated).
  uint32_t view_version() const { return view_version_; }
  void set_view_base(IntrusivePtr<TensorImpl> base, uint32_t version) {
    base_ = std::move(base);
    view_version_ = version;
  }
  void set_view_version(uint32_t v) { view_version_ = v; }

  // The Tensor held by this tensor's live Python wrapper, so that one tensor keeps one Python identity
  // (set by the bindings, cleared by that Tensor's destructor; null when there is no wrapper).
  const Tensor* pyobj = nullptr;

 private:
  void refresh();
  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool contiguous_ = true;
  bool conj_ = false;  // in the padding before view_version_: no bigger TensorImpl
  uint32_t view_version_ = 0;
  std::shared_ptr<AutogradMeta> autograd_;
  IntrusivePtr<TensorImpl> base_;
};

// Options for creating tensors, as libtorch's TensorOptions: ember::zeros({2, 3}, TensorOptions().dtype(...)).
struct TensorOptions {
  std::optional<ScalarType> dtype_;
  Device device_ = kCPU;
  bool requires_grad_ = false;

  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions dtype(std::optional<ScalarType> t) const {
    auto o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions device(Device d) const {
    auto o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions requires_grad(bool r) const {
    auto o = *this;
    o.requires_grad_ = r;
    return o;
  }
  ScalarType dtype_or(ScalarType t) const { return dtype_.value_or(t); }
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(const Tensor&) = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  ~Tensor() {
    if (impl_ && impl_->pyobj == this) [[unlikely]]
      impl_->pyobj = nullptr;  // the Python wrapper holding this Tensor is going away
  }

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  IntArrayRef shape() const { return impl_->sizes(); }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_conj() const { return impl_->is_conj(); }
  size_t element_size() const { return ::ember::element_size(dtype()); }
  size_t nbytes() const { return numel() * element_size(); }
  void* data_ptr() const { return impl_->data(); }
  template <class T>
  T* data() const {
    EMBER_CHECK(scalar_type_of<T> == dtype(), "expected a tensor of dtype ", scalar_type_of<T>, " but got ", dtype());
    return reinterpret_cast<T*>(impl_->data());
  }
  bool is_floating_point() const { return is_floating(dtype()); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_meta() const { return device().is_meta(); }

  uint32_t version() const { return impl_->storage()->version(); }
  void bump_version() const { impl_->storage()->bump_version(); }

  // Autograd state (ember/autograd/: the graph, the engine and the hooks).
  bool requires_grad() const;
  const Tensor& set_requires_grad(bool r) const;
  const Tensor& requires_grad_(bool r = true) const { return set_requires_grad(r); }  // libtorch's and PyTorch's name
  bool is_leaf() const;
  Tensor grad() const;
  void set_grad(const Tensor& g) const;
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  // Runs backward from this tensor (a scalar unless `gradient` is given); see autograd/engine.h.
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = {}, bool create_graph = false) const;
  void retain_grad() const;
  bool retains_grad() const;
  Tensor detach() const;
  const Tensor& detach_() const;

  // Method forms of the ops in ops.h.
  Tensor view(IntArrayRef size) const;
  Tensor reshape(IntArrayRef size) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor t() const;
  Tensor expand(IntArrayRef size) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start = 0, int64_t end = -1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step = 1) const;
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(ScalarType t) const;
  Tensor to(Device d) const;
  Scalar item() const;
  const Tensor& fill_(const Scalar& v) const;
  const Tensor& zero_() const;
  const Tensor& copy_(const Tensor& src) const;
  template <class T>
  T item() const {
    return item().to<T>();
  }

 private:
  IntrusivePtr<TensorImpl> impl_;
};

// A hook on a tensor's gradient: returns a replacement, or an undefined tensor to keep the gradient.
using GradHook = std::function<Tensor(const Tensor&)>;
// Runs after a leaf's .grad was updated, with the leaf.
using PostAccumulateGradHook = std::function<void(const Tensor&)>;
// A registered hook: its handle's id, its name (errors about what it returned name it, as PyTorch's "hook 'f' has
// changed the size of value") and the hook.
template <class F>
struct NamedHook {
  int id;
  std::string name;
  F fn;
};

// Autograd metadata (ember/autograd/node.h explains the graph). `mutex` guards grad, hooks,
// post_accumulate_hooks, grad_accumulator and retains_grad, which the engine reads and writes while other threads
// may set them (Note [Autograd and threads] in ember/autograd/node.h). It is recursive because accumulating into
// .grad under it may record ops (create_graph), and recording reads the same tensor's accumulator when a hook
// returned the leaf itself.
struct AutogradMeta {
  bool requires_grad = false;  // a leaf that requires grad (non-leaves: grad_fn is set)
  bool retains_grad = false;
  // An AccumulateGrad or a retain_grad entry refers to this metadata weakly: the tensor's destructor then clears
  // `owner` under the mutex, so that AccumulateGrad::variable never revives a dying tensor.
  bool shared = false;
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;         // null for leaves
  std::weak_ptr<autograd::Node> grad_accumulator;  // leaves: the AccumulateGrad node, while a graph uses it
  uint32_t output_nr = 0;                          // which output of grad_fn this tensor is
  std::atomic<TensorImpl*> owner{nullptr};         // the tensor; cleared when it dies
  std::vector<NamedHook<GradHook>> hooks;          // leaves' gradient hooks
  std::vector<NamedHook<PostAccumulateGradHook>> post_accumulate_hooks;
  mutable std::recursive_mutex mutex;
};

// Wraps a possibly negative dim into [0, ndim); IndexError names the op and the valid range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

std::string shape_str(IntArrayRef s);                         // "[2, 3]"
std::ostream& operator<<(std::ostream& os, const Tensor& t);  // like repr(t) in Python

}  // namespace ember
