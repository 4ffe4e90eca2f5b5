// TensorImpl holds what a tensor is (a strided view of a storage); Tensor is the handle users pass around.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ember/small_vector.h"
#include "ember/storage.h"

namespace ember {

struct AutogradMeta;
class Tensor;

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
  char* data() const {
    return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(element_size(dtype_));
  }

  void set_sizes_strides(IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  // Makes this tensor view src's storage with src's geometry (Python's `t.data = src`).
  void set_data(const TensorImpl& src);

  // Autograd metadata is allocated only when a tensor first takes part in autograd.
  AutogradMeta* autograd_meta() const { return autograd_.get(); }
  AutogradMeta& ensure_autograd_meta();

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
  std::unique_ptr<AutogradMeta> autograd_;
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
  size_t element_size() const { return ::ember::element_size(dtype()); }
  size_t nbytes() const { return numel() * element_size(); }
  void* data_ptr() const { return impl_->data(); }
  template <class T>
  T* data() const {
    EMBER_CHECK(scalar_type_of<T> == dtype(), "expected a tensor of dtype ", scalar_type_of<T>, " but got ",
                dtype());
    return reinterpret_cast<T*>(impl_->data());
  }
  bool is_floating_point() const { return is_floating(dtype()); }
  bool is_cuda() const { return device().is_cuda(); }

  uint32_t version() const { return impl_->storage()->version(); }
  void bump_version() const { impl_->storage()->bump_version(); }

  // Autograd state (issue 4 builds the engine on these slots).
  bool requires_grad() const;
  const Tensor& set_requires_grad(bool r) const;
  bool is_leaf() const;
  Tensor grad() const;
  void set_grad(const Tensor& g) const;

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

// Autograd metadata; issue 4's engine adds the graph node and hooks.
struct Node;
struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  uint32_t output_nr = 0;
};

// Wraps a possibly negative dim into [0, ndim); IndexError names the op and the valid range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

std::string shape_str(IntArrayRef s);  // "[2, 3]"
std::ostream& operator<<(std::ostream& os, const Tensor& t);  // like repr(t) in Python

}  // namespace ember
