#include "ember/autograd/node.h"

#include <algorithm>
#include <atomic>

#include "ember/autograd/functions.h"
#include "ember/format.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember::autograd {

namespace {

std::atomic<uint64_t> next_sequence_nr{0};
std::string (*stack_provider)() = nullptr;

// Deep graphs (long chains) are freed iteratively: a dying node hands the nodes it was the last owner of to
// this per-thread list instead of destroying them recursively, which would overflow the stack.
thread_local std::vector<std::shared_ptr<Node>> dying;
thread_local bool draining = false;

void defer_release(std::shared_ptr<Node>& n) {
  if (n && n.use_count() == 1) dying.push_back(std::move(n));
}

void drain() {
  if (draining) return;
  draining = true;
  while (!dying.empty()) {
    auto n = std::move(dying.back());
    dying.pop_back();
    n.reset();  // may push more
  }
  draining = false;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  auto& meta = t.impl()->autograd_meta_ptr();
  std::lock_guard lock(meta->mutex);  // two threads recording with one leaf make one accumulator
  if (auto acc = meta->grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(meta);
  meta->grad_accumulator = acc;
  meta->shared = true;
  return acc;
}

// "[ember.FloatTensor [2, 3]]", as PyTorch names a tensor in autograd errors.
std::string describe(const Tensor& t) {
  std::string s = type_label(t.dtype());
  return "[ember." + s + "Tensor " + shape_str(t.sizes()) + "]";
}

// For an in-place op whose result has no history on a tensor that has some: the old history gets zeros.
struct ZeroGradNode final : Node {
  explicit ZeroGradNode(std::string name) : name_(std::move(name)) {}
  TensorList apply(TensorList&& g) override { return {zeros_like(g[0])}; }
  std::string name() const override { return name_; }
  std::string name_;
};

std::string backward_name(const char* op) {  // "fill_" -> "FillBackward0"
  std::string s;
  bool up = true;
  for (const char* p = op; *p; ++p) {
    if (*p == '_') {
      up = true;
      continue;
    }
    s += up ? static_cast<char>(std::toupper(*p)) : *p;
    up = false;
  }
  return s + "Backward0";
}

}  // namespace

// ---- Node

Node::Node() : sequence_nr(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {
  if (is_anomaly_enabled()) [[unlikely]]
    trace = current_stack();
}

Node::~Node() {
  for (auto& e : next_edges) defer_release(e.fn);
  drain();
}

void Node::set_inputs(std::span<const Tensor* const> inputs) {
  next_edges.reserve(inputs.size());
  input_meta.reserve(inputs.size());
  for (const Tensor* t : inputs) {
    if (t && t->defined()) {
      next_edges.push_back(gradient_edge(*t));
      input_meta.push_back({DimVector(t->sizes()), t->dtype(), t->device()});
    } else {
      next_edges.emplace_back();
      input_meta.emplace_back();
    }
  }
}

// ---- SavedVariable

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  version_ = t.version();
  requires_grad_ = t.requires_grad();
  if (!requires_grad_) {
    data_ = t;  // no autograd metadata to form a cycle with
    return;
  }
  data_ = alias(t);
  if (is_output) {
    output_nr_ = t.impl()->autograd_meta()->output_nr;
  } else if (auto& fn = grad_fn(t)) {
    grad_fn_ = fn;
    output_nr_ = t.impl()->autograd_meta()->output_nr;
  } else {
    grad_accumulator_ = grad_accumulator(t);
  }
}

Tensor SavedVariable::unpack(const Node& owner, bool history) const {
  if (!data_.defined()) {
    if (!was_defined_) return {};
    fail<Error>(
        "Trying to backward through the graph a second time (or directly access saved tensors after they "
        "have already been freed). Saved intermediate values of the graph are freed when you call "
        ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
        "a second time or if you need to access saved tensors after calling backward. (in ",
        owner.name(), ")");
  }
  if (data_.version() != version_) [[unlikely]] {
    std::string which = is_output_ || grad_fn_ ? "output " + std::to_string(output_nr_) + " of " +
                                                     (is_output_ ? owner.name() : grad_fn_->name())
                                               : "a leaf";
    fail<Error>("one of the variables needed for gradient computation has been modified by an inplace operation: ",
                describe(data_), ", which is ", which, " (saved by ", owner.name(), "), is at version ",
                data_.version(), "; expected version ", version_,
                " instead. Hint: the operation that failed to compute its gradient is ", owner.name(),
                "; enable anomaly detection with ember.autograd.set_detect_anomaly(True) to find where it was "
                "called in the forward pass.");
  }
  if (!requires_grad_ || (!history && !is_grad_enabled())) return data_;
  // With create_graph, formulas record: hand out the data with the history it was saved with.
  Tensor t = alias(data_);
  auto& m = t.impl()->ensure_autograd_meta();
  if (is_output_) {
    m.grad_fn = const_cast<Node&>(owner).shared_from_this();
    m.output_nr = output_nr_;
  } else if (grad_fn_) {
    m.grad_fn = grad_fn_;
    m.output_nr = output_nr_;
  } else {
    m.requires_grad = true;
    m.grad_accumulator = grad_accumulator_;  // routes to the original leaf's accumulator
  }
  return t;
}

void SavedVariable::snapshot_if_overwritten(const Tensor& self) {
  if (!data_.defined() || is_output_ || data_.impl()->storage().get() != self.impl()->storage().get()) return;
  NoGradGuard off;
  data_ = clone(data_);
  version_ = data_.version();
}

void SavedVariable::reset() {
  data_ = Tensor();
  defer_release(grad_fn_);
  grad_fn_.reset();
  grad_accumulator_.reset();
  drain();
}

// ---- FormulaNode

void FormulaNode::release_variables() {
  for (auto& s : saved) s.reset();
  released = true;
}

size_t FormulaNode::save(const Tensor& t) {
  saved.emplace_back(t, false);
  return saved.size() - 1;
}

size_t FormulaNode::save_output(const Tensor& t) {
  saved.emplace_back(t, true);
  return saved.size() - 1;
}

// ---- recording

bool needs_grad(std::span<const Tensor* const> inputs) {
  if (!is_grad_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

std::vector<const Tensor*> pointers(std::span<const Tensor> ts) {
  std::vector<const Tensor*> r;
  r.reserve(ts.size());
  for (const Tensor& t : ts) r.push_back(&t);
  return r;
}

void set_history(const Tensor& out, const std::shared_ptr<Node>& node, uint32_t output_nr, bool is_view) {
  if (!out.defined() || !is_inexact(out.dtype())) return;  // integer and bool results are not differentiable
  auto& m = out.impl()->ensure_autograd_meta();
  m.grad_fn = node;
  m.output_nr = output_nr;
  m.requires_grad = false;
  if (!is_view)
    out.impl()->set_view_base({}, 0);
  else
    out.impl()->set_view_version(out.version());
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node, const Edge& old_edge) {
  TensorImpl* b = self.impl()->view_base();
  if (!b) {
    set_history(self, node);
    return;
  }
  Tensor base{IntrusivePtr<TensorImpl>(b)};
  auto cs = std::make_shared<CopySlices>(base, self, node);
  if (node) {
    // The op's input that was the old self (if it read self) gets its gradient through the view's region.
    for (size_t k = 0; k < node->next_edges.size(); ++k) {
      const Edge& e = node->next_edges[k];
      if (old_edge.fn && e.fn == old_edge.fn && e.input_nr == old_edge.input_nr) {
        cs->self_input = static_cast<int>(k);
        cs->next_edges[k + 1] = Edge();
        break;
      }
    }
  }
  set_history(base, cs);
  auto view_node = std::make_shared<AsStridedBackward>(base, self);
  set_history(self, view_node, 0, /*is_view=*/true);
}

void check_inplace(const Tensor& self, const char* op) {
  if (!is_grad_enabled()) return;
  auto leaf_requiring_grad = [](const TensorImpl* t) {
    auto* m = t->autograd_meta();
    return m && m->requires_grad && !m->grad_fn;
  };
  EMBER_CHECK(!leaf_requiring_grad(self.impl()), op,
              ": a leaf Variable that requires grad is being used in an in-place operation.");
  if (TensorImpl* b = self.impl()->view_base())
    EMBER_CHECK(!leaf_requiring_grad(b), op,
                ": a view of a leaf Variable that requires grad is being used in an in-place operation.");
}

void detail::finish_inplace(const Tensor& self, const Tensor& result, const char* op) {
  EMBER_CHECK(std::ranges::equal(result.sizes(), self.sizes()), op, ": output with shape ", shape_str(self.sizes()),
              " doesn't match the broadcast shape ", shape_str(result.sizes()));
  EMBER_CHECK(can_cast(result.dtype(), self.dtype()), op, ": result type ", type_label(result.dtype()),
              " can't be cast to the desired output type ", type_label(self.dtype()));
  EMBER_CHECK(self.device() == result.device(), op, ": expected ", self.device(), " but the result is on ",
              result.device());
  const Edge old_edge = gradient_edge(self);
  auto* rm0 = result.impl()->autograd_meta();
  if (auto* f = rm0 && rm0->grad_fn ? dynamic_cast<FormulaNode*>(rm0->grad_fn.get()) : nullptr)
    for (auto& s : f->saved) s.snapshot_if_overwritten(self);
  copy_into(self, result);
  self.bump_version();
  auto* rm = result.impl()->autograd_meta();
  std::shared_ptr<Node> fn = rm ? rm->grad_fn : nullptr;
  if (!fn && !self.requires_grad()) return;
  if (!fn && !self.impl()->view_base()) {  // the old history gets a zero gradient
    auto z = std::make_shared<ZeroGradNode>(backward_name(op));
    const Tensor* in[] = {&self};
    z->set_inputs(in);
    fn = z;
  }
  if (fn && !is_inexact(self.dtype())) return;
  rebase_history(self, fn, old_edge);
}

void record_not_implemented(const char* op, std::span<const Tensor* const> inputs, std::span<const Tensor> outputs) {
  if (!needs_grad(inputs)) return;
  auto n = std::make_shared<NotImplementedBackward>(op);
  n->set_inputs(inputs);
  n->num_outputs = static_cast<uint32_t>(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) set_history(outputs[i], n, static_cast<uint32_t>(i));
}

// ---- edges

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> none;
  TensorImpl* impl = t.impl();
  TensorImpl* b = impl->view_base();
  if (b && impl->view_version() != t.version()) [[unlikely]] {
    // The storage was written since this view's history was set: if the base has history now, the view's
    // gradient flows into it (Note [In-place on views]).
    auto* bm = b->autograd_meta();
    if (bm && bm->grad_fn) {
      Tensor base{IntrusivePtr<TensorImpl>(b)};
      auto n = std::make_shared<AsStridedBackward>(base, t);
      auto& m = impl->ensure_autograd_meta();
      m.grad_fn = std::move(n);
      m.output_nr = 0;
      impl->set_view_version(t.version());
      return m.grad_fn;
    }
  }
  auto* m = impl->autograd_meta();
  return m ? m->grad_fn : none;
}

Edge gradient_edge(const Tensor& t) {
  auto& fn = grad_fn(t);
  if (fn) return {fn, t.impl()->autograd_meta()->output_nr};
  auto* m = t.impl()->autograd_meta();
  if (m && m->requires_grad) return {grad_accumulator(t), 0};
  return {};
}

// ---- broadcasting

bool is_expandable_to(IntArrayRef shape, IntArrayRef target) {
  if (shape.size() > target.size()) return false;
  const size_t lead = target.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && shape[i] != target[lead + i]) return false;
  return true;
}

Tensor sum_to(const Tensor& g, IntArrayRef shape) {
  if (std::ranges::equal(g.sizes(), shape)) return g;
  const int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  DimVector dims;
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && g.size(lead + static_cast<int64_t>(i)) != 1) dims.push_back(lead + static_cast<int64_t>(i));
  Tensor r = dims.empty() ? g : sum(g, dims, /*keepdim=*/true);
  return lead > 0 || r.dim() != static_cast<int64_t>(shape.size()) ? reshape(r, shape) : r;
}

// ---- hooks

int next_hook_id() {
  static std::atomic<int> id{0};
  return ++id;
}

HookRemover register_hook(const Tensor& t, GradHook hook, std::string name) {
  EMBER_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  const int id = next_hook_id();
  if (auto& fn = grad_fn(t)) {
    {
      std::lock_guard lock(fn->hooks_mutex);
      fn->pre_hooks.push_back({t.impl()->autograd_meta()->output_nr, {id, std::move(name), std::move(hook)}});
      fn->has_hooks = true;
    }
    return [w = std::weak_ptr<Node>(fn), id] {
      auto n = w.lock();
      if (!n) return;
      std::lock_guard lock(n->hooks_mutex);
      std::erase_if(n->pre_hooks, [&](auto& h) { return h.hook.id == id; });
    };
  }
  auto& meta = t.impl()->autograd_meta_ptr();
  {
    std::lock_guard lock(meta->mutex);
    meta->hooks.push_back({id, std::move(name), std::move(hook)});
  }
  return [w = std::weak_ptr<AutogradMeta>(meta), id] {
    auto m = w.lock();
    if (!m) return;
    std::lock_guard lock(m->mutex);
    std::erase_if(m->hooks, [&](auto& h) { return h.id == id; });
  };
}

HookRemover register_post_accumulate_grad_hook(const Tensor& t, PostAccumulateGradHook hook, std::string name) {
  EMBER_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  EMBER_CHECK(!grad_fn(t), "post accumulate grad hooks cannot be registered on non-leaf tensors");
  const int id = next_hook_id();
  auto& meta = t.impl()->autograd_meta_ptr();
  {
    std::lock_guard lock(meta->mutex);
    meta->post_accumulate_hooks.push_back({id, std::move(name), std::move(hook)});
  }
  return [w = std::weak_ptr<AutogradMeta>(meta), id] {
    auto m = w.lock();
    if (!m) return;
    std::lock_guard lock(m->mutex);
    std::erase_if(m->post_accumulate_hooks, [&](auto& h) { return h.id == id; });
  };
}

HookRemover register_node_hook(Node& n, NodePostHook fn, std::string name) {
  const int id = next_hook_id();
  {
    std::lock_guard lock(n.hooks_mutex);
    n.post_hooks.push_back({id, std::move(name), std::move(fn)});
    n.has_hooks = true;
  }
  return [w = std::weak_ptr<Node>(n.shared_from_this()), id] {
    auto p = w.lock();
    if (!p) return;
    std::lock_guard lock(p->hooks_mutex);
    std::erase_if(p->post_hooks, [&](auto& h) { return h.id == id; });
  };
}

void retain_grad(const Tensor& t) {
  EMBER_CHECK(t.requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  auto& fn = grad_fn(t);
  if (!fn) return;  // a leaf keeps its grad anyway
  auto& meta = t.impl()->autograd_meta_ptr();
  {
    std::lock_guard lock(meta->mutex);
    if (meta->retains_grad) return;
    meta->retains_grad = true;
    meta->shared = true;
  }
  std::lock_guard lock(fn->hooks_mutex);
  fn->retained.emplace_back(meta->output_nr, meta);
  fn->has_hooks = true;
}

// ---- what hooks return (Note [Hook results])

namespace {
// "ember.FloatTensor", "ember.cuda.FloatTensor": PyTorch's type names in hook errors.
std::string type_name(const Tensor& t) {
  return std::string("ember.") + (t.is_cuda() ? "cuda." : "") + type_label(t.dtype()) + "Tensor";
}
}  // namespace

void check_hook_result(const std::string& hook, const Tensor& before, const Tensor& after) {
  if (!after.defined()) return;
  EMBER_CHECK(before.defined(), "can't replace a None gradient with a non-None value");
  EMBER_CHECK(after.dtype() == before.dtype() && after.is_cuda() == before.is_cuda(), "hook '", hook,
              "' has changed the type of value (was ", type_name(before), " got ", type_name(after), ")");
  EMBER_CHECK(after.device() == before.device(), "hook '", hook, "' has changed the device of value (was ",
              before.device(), " got ", after.device(), ")");
  EMBER_CHECK(std::ranges::equal(after.sizes(), before.sizes()), "hook '", hook, "' has changed the size of value");
}

void check_hook_results(const std::string& hook, const TensorList& before, const TensorList& after) {
  EMBER_CHECK(after.size() == before.size(), "hook '", hook, "' has returned an incorrect number of values (got ",
              after.size(), ", but expected ", before.size(), ")");
  for (size_t i = 0; i < after.size(); ++i) check_hook_result(hook, before[i], after[i]);
}

void apply_grad_hook(const NamedHook<GradHook>& hook, Tensor& g) {
  Tensor r = hook.fn(g);
  if (!r.defined()) return;
  check_hook_result(hook.name, g, r);
  g = std::move(r);
}

// ---- anomaly mode

void set_stack_provider(std::string (*provider)()) { stack_provider = provider; }
std::string current_stack() { return stack_provider ? stack_provider() : std::string(); }

}  // namespace ember::autograd
