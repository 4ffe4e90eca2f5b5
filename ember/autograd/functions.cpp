#include "ember/autograd/functions.h"

#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember::autograd {

// ---- AccumulateGrad

AccumulateGrad::AccumulateGrad(const std::shared_ptr<AutogradMeta>& m) : meta(m) {
  sequence_nr = UINT64_MAX;  // run as soon as ready (as PyTorch does), so .grad is final early
}

Tensor AccumulateGrad::variable() const {
  auto m = meta.lock();
  if (!m) return {};
  // Under the mutex the tensor's destructor cannot finish; a tensor already dying (count 0) is not revived.
  std::lock_guard lock(m->mutex);
  TensorImpl* t = m->owner.load(std::memory_order_relaxed);
  return t && t->try_retain() ? Tensor(IntrusivePtr<TensorImpl>::adopt(t)) : Tensor();
}

void AccumulateGrad::run_leaf_hooks(TensorList& grads) const {
  auto m = meta.lock();
  if (!m || grads.empty() || !grads[0].defined()) return;
  std::vector<NamedHook<GradHook>> hooks;
  {
    std::lock_guard lock(m->mutex);
    if (m->hooks.empty()) return;
    hooks = m->hooks;  // a copy: hooks run unlocked, and may register or remove hooks
  }
  for (auto& h : hooks) apply_grad_hook(h, grads[0]);
}

namespace {

// Whether strides lay `sizes` out densely in some order of the dims (size-1 dims ignored).
bool dense_layout(IntArrayRef sizes, IntArrayRef strides) {
  DimVector order;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1) order.push_back(static_cast<int64_t>(d));
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

bool same_strides(IntArrayRef sizes, IntArrayRef a, IntArrayRef b) {
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1 && a[d] != b[d]) return false;
  return true;
}

// Whether g's memory is reachable through g alone: nobody else holds g or its storage, or, for a view, its root base,
// which the view alone keeps alive (a gradient formula's transposed or reshaped result: Note [Gradients in the
// operand's layout] in ops/matmul.cpp).
bool sole_owner(const Tensor& g) {
  if (g.requires_grad() || g.impl()->use_count() != 1) return false;
  const TensorImpl* base = g.impl()->view_base();
  const auto users = g.impl()->storage()->use_count();
  return base ? base->use_count() == 1 && users == 2 : users == 1;
}

// g, which sole_owner() found unreachable but through itself, as a tensor of its own: not a view (.grad never is).
Tensor unviewed(const Tensor& g) {
  if (!g.impl()->view_base()) return g;
  Tensor r(make_intrusive<TensorImpl>(g.impl()->storage(), g.dtype(), g.sizes(), g.strides(), g.storage_offset()));
  r.impl()->set_conj(g.is_conj());
  return r;
}

}  // namespace

void AccumulateGrad::accumulate(AutogradMeta& m, const Tensor& g) {
  std::lock_guard lock(m.mutex);  // other threads may set .grad or accumulate (Note [Autograd and threads])
  if (!m.grad.defined()) {
    // Without create_graph, a gradient nobody else holds becomes .grad as is; otherwise .grad gets a copy, so
    // that later accumulation never writes into a tensor the user holds. PyTorch's layout contract: .grad has the
    // variable's strides when the variable is dense (a channels-last weight or input gets a channels-last gradient),
    // else it is row-major (a linear layer's weight gradient arrives transposed); p.grad.view(-1) works wherever
    // p.view(-1) does, and the optimizers' fused steps see dense tensors laid out as their parameters.
    const bool sole = sole_owner(g);
    const TensorImpl* v = m.owner.load(std::memory_order_relaxed);  // alive while the mutex is held
    if (v && !v->is_contiguous() && std::ranges::equal(v->sizes(), g.sizes()) &&
        dense_layout(v->sizes(), v->strides())) {
      if (same_strides(g.sizes(), g.strides(), v->strides())) {
        m.grad = sole ? unviewed(g) : clone(g);
      } else {
        m.grad = empty_strided(v->sizes(), v->strides(), TensorOptions(g.dtype()).device(g.device()));
        copy_(m.grad, g);
      }
      return;
    }
    m.grad = sole && g.is_contiguous() ? unviewed(g) : g.is_contiguous() ? clone(g) : contiguous(g);
  } else if (is_grad_enabled()) {
    m.grad = m.grad + g;  // create_graph: the sum keeps the history of both
  } else if (m.grad.requires_grad()) {
    m.grad = m.grad + g;  // .grad has history from an earlier create_graph: never write into it
  } else {
    binary_op(BinaryOp::Add, m.grad, g, m.grad);
  }
}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  auto m = meta.lock();
  if (!m || !m->owner.load(std::memory_order_relaxed) || !grads[0].defined()) return {};
  accumulate(*m, grads[0]);
  std::vector<NamedHook<PostAccumulateGradHook>> hooks;
  {
    std::lock_guard lock(m->mutex);
    hooks = m->post_accumulate_hooks;
  }
  if (hooks.empty()) return {};
  if (Tensor v = variable(); v.defined())
    for (auto& h : hooks) h.fn(v);
  return {};
}

// ---- views modified in place

ViewGeometry ViewGeometry::of(const Tensor& t) {
  return {DimVector(t.sizes()), DimVector(t.strides()), t.storage_offset(), t.dtype(), t.is_conj()};
}

namespace {
// The view's region of r (a tensor of the base's geometry at offset 0): through view_as_real for a real view of a
// complex base, whose offsets count real parts.
Tensor view_region(const Tensor& r, const ViewGeometry& base, const ViewGeometry& view) {
  if (is_complex(base.dtype) && !is_complex(view.dtype))
    return as_strided(view_as_real(r), view.sizes, view.strides, view.offset - 2 * base.offset);
  return as_strided(r, view.sizes, view.strides, view.offset - base.offset);
}

// A view whose conjugate bit differs from its base's holds the conjugates of the base's elements, so gradients
// crossing between the two are conjugated (conj is its own gradient map).
Tensor across(const Tensor& g, const ViewGeometry& base, const ViewGeometry& view) {
  return base.conj != view.conj ? conj_physical(g) : g;
}
}  // namespace

Tensor view_scatter(const Tensor& g, const ViewGeometry& base, const ViewGeometry& view) {
  const bool real_view = is_complex(base.dtype) && !is_complex(view.dtype);
  const auto opts = TensorOptions(real_view ? base.dtype : g.dtype()).device(g.device());
  Tensor r = zeros(base.sizes, opts);
  if (!std::ranges::equal(r.strides(), base.strides)) {
    r = empty_strided(base.sizes, base.strides, opts);
    r.zero_();
  }
  Tensor region = view_region(r, base, view);
  if (!has_internal_overlap(region)) {
    region.copy_(across(g, base, view));
    return r;
  }
  // A view that reaches some elements more than once (as_strided with overlapping strides): each element of
  // the base gets the sum of the gradients at all its positions.
  const Tensor rr = real_view ? view_as_real(r) : r;
  const int64_t extent = static_cast<int64_t>(rr.impl()->storage()->nbytes() / rr.element_size());
  const int64_t flat_shape[] = {-1};
  Tensor pos = as_strided(arange(extent, TensorOptions(ScalarType::Int64).device(g.device())), view.sizes, view.strides,
                          view.offset - (real_view ? 2 : 1) * base.offset);
  Tensor flat = index_add(zeros(DimVector{extent}, TensorOptions(rr.dtype()).device(g.device())), 0,
                          reshape(pos, flat_shape), reshape(across(g, base, view), flat_shape));
  if (real_view) flat = view_as_complex(reshape(flat, DimVector{-1, 2}));
  return as_strided(flat, base.sizes, base.strides, 0);
}

CopySlices::CopySlices(const Tensor& b, const Tensor& v, std::shared_ptr<Node> f)
    : base(ViewGeometry::of(b)), view(ViewGeometry::of(v)), fn(std::move(f)) {
  const Tensor* in[] = {&b};
  set_inputs(in);
  if (fn) {
    next_edges.insert(next_edges.end(), fn->next_edges.begin(), fn->next_edges.end());
    input_meta.insert(input_meta.end(), fn->input_meta.begin(), fn->input_meta.end());
  }
}

TensorList CopySlices::apply(TensorList&& grads) {
  const Tensor& g = grads[0];
  TensorList out(next_edges.size());
  Tensor res = empty_strided(base.sizes, base.strides, TensorOptions(g.dtype()).device(g.device()));
  res.copy_(g);
  Tensor slice = view_region(res, base, view);
  if (fn) {
    TensorList fg = fn->apply({clone(across(slice, base, view))});
    EMBER_CHECK(fg.size() == fn->next_edges.size(), "function ", fn->name(),
                " returned an incorrect number of gradients (expected ", fn->next_edges.size(), ", got ", fg.size(),
                ")");
    for (size_t k = 0; k < fg.size(); ++k)
      if (static_cast<int>(k) != self_input) out[k + 1] = std::move(fg[k]);
    if (self_input >= 0 && fg[self_input].defined()) {
      Tensor s = fg[self_input];
      if (!std::ranges::equal(s.sizes(), view.sizes)) s = sum_to(s, view.sizes);
      slice.copy_(across(s, base, view));
    } else {
      slice.zero_();
    }
  } else {
    slice.zero_();
  }
  out[0] = std::move(res);
  return out;
}

AsStridedBackward::AsStridedBackward(const Tensor& b, const Tensor& v)
    : base(ViewGeometry::of(b)), view(ViewGeometry::of(v)) {
  const Tensor* in[] = {&b};
  set_inputs(in);
}

TensorList AsStridedBackward::apply(TensorList&& grads) { return {view_scatter(grads[0], base, view)}; }

TensorList NotImplementedBackward::apply(TensorList&&) {
  fail<NotImplementedError>("the derivative for '", op_, "' is not implemented.");
}

}  // namespace ember::autograd
