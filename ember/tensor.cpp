#include "ember/tensor.h"

#include <sstream>

#include "ember/error.h"
#include "ember/format.h"
#include "ember/ops.h"

namespace ember {

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset)
    : storage_(std::move(storage)), sizes_(sizes), strides_(strides), offset_(offset), dtype_(dtype) {
  refresh();
}

TensorImpl::~TensorImpl() {
  if (!autograd_) return;
  // An accumulator may still refer to the metadata (Note [Autograd and threads] in autograd/node.h). `shared` was
  // set by a thread that held a reference to this tensor, released before this destructor runs, so it is seen.
  if (autograd_->shared) {
    std::lock_guard lock(autograd_->mutex);
    autograd_->owner.store(nullptr, std::memory_order_relaxed);
  } else {
    autograd_->owner.store(nullptr, std::memory_order_relaxed);
  }
}

namespace {
// A view may have more elements than int64 counts (expand(2**32, 2**32)); PyTorch's refresh_numel raises too.
int64_t view_numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    if (__builtin_mul_overflow(n, s, &n)) [[unlikely]]
      fail<Error>("numel: integer multiplication overflow: the shape ", shape_str(sizes),
                  " has more elements than int64 holds");
  return n;
}
}  // namespace

void TensorImpl::set_sizes_strides(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  view_numel(sizes);  // before changing anything
  sizes_ = sizes;
  strides_ = strides;
  offset_ = offset;
  refresh();
}

void TensorImpl::set_data(const TensorImpl& src) {
  storage_ = src.storage_;
  dtype_ = src.dtype_;
  conj_ = src.conj_;
  set_sizes_strides(src.sizes(), src.strides(), src.storage_offset());
}

void TensorImpl::refresh() {
  numel_ = view_numel(sizes_);
  // Contiguous means row-major; size-1 dims may have any stride (as in PyTorch).
  contiguous_ = true;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contiguous_ = numel_ == 0;
      break;
    }
    expected *= sizes_[i];
  }
}

AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_) {
    autograd_ = std::make_shared<AutogradMeta>();
    autograd_->owner.store(this, std::memory_order_relaxed);
  }
  return *autograd_;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a 0-d tensor accepts dim 0 and -1, as in PyTorch
  if (dim < -n || dim >= n) [[unlikely]]
    fail<IndexError>(op, ": Dimension out of range (expected to be in range of [", -n, ", ", n - 1, "], but got ", dim,
                     ")");
  return dim < 0 ? dim + n : dim;
}

std::string shape_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

int64_t Tensor::size(int64_t d) const { return sizes()[wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_dim(d, dim(), "stride")]; }

bool Tensor::requires_grad() const {
  auto* m = impl_->autograd_meta();
  if (m && (m->requires_grad || m->grad_fn)) return true;
  // A view whose base got history by an in-place op through another view (Note [In-place on views]).
  TensorImpl* b = impl_->view_base();
  return b && impl_->view_version() != version() && b->autograd_meta() && b->autograd_meta()->grad_fn;
}

const Tensor& Tensor::set_requires_grad(bool r) const {
  if (r)
    EMBER_CHECK(is_inexact(dtype()), "only Tensors of floating point and complex dtype can require gradients (got ",
                dtype(), ")");
  auto* m = impl_->autograd_meta();
  if (m && m->grad_fn && !r)
    fail<Error>(
        "you can only change requires_grad flags of leaf variables. If you want to use a "
        "computed variable in a subgraph that doesn't require differentiation use "
        "var_no_grad = var.detach().");
  if (r || m) impl_->ensure_autograd_meta().requires_grad = r;
  return *this;
}

bool Tensor::is_leaf() const {
  auto* m = impl_->autograd_meta();
  return !m || !m->grad_fn;
}

Tensor Tensor::grad() const {
  auto* m = impl_->autograd_meta();
  if (!m) return {};
  std::lock_guard lock(m->mutex);  // the engine may be accumulating into it (Note [Autograd and threads])
  return m->grad;
}

void Tensor::set_grad(const Tensor& g) const {
  if (g.defined()) {
    EMBER_CHECK(g.dtype() == dtype() && g.device() == device(),
                "assigned grad has data of a different type or device: expected ", dtype(), " on ", device(), ", got ",
                g.dtype(), " on ", g.device());
    EMBER_CHECK(std::ranges::equal(g.sizes(), sizes()), "assigned grad has data of a different size: expected ",
                shape_str(sizes()), ", got ", shape_str(g.sizes()));
  }
  if (!g.defined() && !impl_->autograd_meta()) return;
  AutogradMeta& m = impl_->ensure_autograd_meta();
  Tensor old;  // released after the lock
  std::lock_guard lock(m.mutex);
  old = std::exchange(m.grad, g);
}

Tensor Tensor::view(IntArrayRef s) const { return ember::view(*this, s); }
Tensor Tensor::reshape(IntArrayRef s) const { return ember::reshape(*this, s); }
Tensor Tensor::permute(IntArrayRef d) const { return ember::permute(*this, d); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return ember::transpose(*this, a, b); }
Tensor Tensor::t() const { return ember::t(*this); }
Tensor Tensor::expand(IntArrayRef s) const { return ember::expand(*this, s); }
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(int64_t d) const { return ember::squeeze(*this, d); }
Tensor Tensor::unsqueeze(int64_t d) const { return ember::unsqueeze(*this, d); }
Tensor Tensor::flatten(int64_t s, int64_t e) const { return ember::flatten(*this, s, e); }
Tensor Tensor::narrow(int64_t d, int64_t s, int64_t l) const { return ember::narrow(*this, d, s, l); }
Tensor Tensor::select(int64_t d, int64_t i) const { return ember::select(*this, d, i); }
Tensor Tensor::slice(int64_t d, std::optional<int64_t> s, std::optional<int64_t> e, int64_t st) const {
  return ember::slice(*this, d, s, e, st);
}
Tensor Tensor::contiguous() const { return ember::contiguous(*this); }
Tensor Tensor::clone() const { return ember::clone(*this); }
Tensor Tensor::to(ScalarType t) const { return ember::to(*this, t); }
Tensor Tensor::to(Device d) const { return ember::to(*this, d); }
Scalar Tensor::item() const { return ember::item(*this); }
const Tensor& Tensor::fill_(const Scalar& v) const {
  ember::fill_(*this, v);
  return *this;
}
const Tensor& Tensor::zero_() const { return fill_(0); }
const Tensor& Tensor::copy_(const Tensor& src) const {
  ember::copy_(*this, src);
  return *this;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << tensor_repr(t); }

}  // namespace ember
