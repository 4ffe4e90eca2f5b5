// The autograd graph: nodes (one per recorded op), edges to the nodes of the op's inputs, and the tensors a
// node saves for its formula.
//
// Note [Recording an op]
// An op that has a gradient formula records it after computing its result:
//
//   if (auto n = autograd::make_node("MulBackward0", {&a, &b}, [](autograd::FormulaNode& n, TensorList& g) {
//         return TensorList{g[0] * n.saved_tensor(1), g[0] * n.saved_tensor(0)};
//       })) {
//     n->save(a); n->save(b);                   // only what the formula needs (Chainer's retain_inputs)
//     autograd::set_history(out, n);
//   }
//
// make_node returns null (and costs one branch) unless grad mode is on and some input requires grad. The
// formula receives one gradient per output of the op (undefined when no gradient reached that output; a node
// whose gradients are all undefined is not called) and returns one gradient per input, undefined where the
// input needs none (n.needs(i)). Formulas are written with ember ops, so with create_graph they record a graph
// themselves and higher derivatives come for free. The engine reduces a broadcast gradient to its input's shape
// (sum_to) and casts it to the input's dtype, so formulas need not.
//
// Note [In-place ops]
// An in-place op that must record (grad mode on, and self or another input requires grad) runs as its out-of-place
// form, which records the op's one formula and saves what it needs of the old self, then writes the result into
// self and moves the result's history onto self (inplace_with_grad). Without recording, in-place ops write
// straight into self. Every in-place write bumps the version counter, which SavedVariable checks.
//
// Note [In-place on views]
// A view op's result remembers its base (TensorImpl::view_base). An in-place op on a view rewrites the base's
// history, as PyTorch does: the base's grad_fn becomes a CopySlices node that routes the gradient of the region
// the view covers through the op's node and the rest to the base's old history; the view's grad_fn becomes an
// as_strided view of the base's new history, and other views of the base regenerate theirs when next used.
//
// Note [No reference cycles]
// The graph holds no path back to a tensor's autograd metadata, so a tensor, its .grad and the graph that made
// the .grad (create_graph) never form a cycle: a saved tensor is kept as a fresh alias of its data plus the node
// it came from (strongly for inputs; an output's node is the node itself), and a leaf's AccumulateGrad refers to
// the leaf's metadata weakly. A tensor's data is therefore kept alive by the graph only when a formula needs it.
//
// Note [Autograd and threads]
// The engine runs without Python's GIL, so while it runs other threads may set or delete .grad, register or remove
// hooks, call retain_grad, zero_grad, step an optimizer, assign .data, or run backward on other graphs that share
// leaves. What the engine reads and writes of a tensor after it started lives in the tensor's AutogradMeta (grad,
// hooks, post-accumulate hooks, retains_grad, the accumulator) and is guarded by AutogradMeta::mutex, as PyTorch
// guards it: accumulation into .grad holds it, Tensor::grad/set_grad and every hook list's readers and writers
// take it, and hook lists are copied under it and run outside it (a hook may register or remove hooks, or start a
// backward). A node's hook lists are guarded by Node::hooks_mutex the same way. The engine holds the metadata
// (a locked weak_ptr) while it uses it, and AccumulateGrad::variable revives the leaf only while its destructor
// has not started (the destructor clears AutogradMeta::owner under the mutex). The single-threaded cost is one
// uncontended lock per accumulation and per .grad read; nodes without hooks cost an atomic load.
// Not guarded, because only the thread that owns the tensor touches them while no engine reads them: requires_grad,
// grad_fn and output_nr (set when an op records; the engine reads a graph's nodes, never a tensor's grad_fn, once
// started) and the metadata's creation. In Python the GIL serializes those; C++ threads that share a tensor must
// not change its requires_grad or record in-place ops on it concurrently. The values in .grad are not guarded
// beyond their handle: a thread that reads p.grad while another accumulates into it sees some sum (as PyTorch).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/tensor.h"

namespace ember::autograd {

using TensorList = std::vector<Tensor>;
struct Node;

// Where a gradient goes: input `input_nr` of node `fn` (null fn: the input needs no gradient).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// What the gradient for one forward input must look like.
struct TensorMeta {
  DimVector shape;
  ScalarType dtype = ScalarType::Float32;
  Device device;
};

// (gradients of the forward inputs, which the hook may replace; gradients of the forward outputs)
using NodePostHook = std::function<void(TensorList&, const TensorList&)>;
// A tensor hook on one output of a node, before the node runs.
struct OutputHook {
  uint32_t output_nr;
  NamedHook<GradHook> hook;
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // grads: one per forward output (undefined: none reached it). Returns one per forward input (next_edges).
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual std::string name() const = 0;
  // Frees what the node saved for its formula (after it ran, unless retain_graph).
  virtual void release_variables() {}
  virtual bool is_accumulate_grad() const { return false; }

  bool needs(size_t input) const { return input < next_edges.size() && next_edges[input].fn; }
  // Sets next_edges and input_meta from the op's inputs (null or undefined entries get no edge).
  void set_inputs(std::span<const Tensor* const> inputs);

  uint64_t sequence_nr;      // creation order; the engine runs later nodes first
  uint32_t num_outputs = 1;  // of the forward op
  std::vector<Edge> next_edges;
  std::vector<TensorMeta> input_meta;  // parallel to next_edges
  // Hooks on the gradient of one output, before apply, in registration order.
  std::vector<OutputHook> pre_hooks;
  // Non-leaf tensors that retain their grad: (output, the tensor's metadata).
  std::vector<std::pair<uint32_t, std::weak_ptr<AutogradMeta>>> retained;
  std::vector<NamedHook<NodePostHook>> post_hooks;
  std::string trace;                   // anomaly mode: where the forward op was called
  std::atomic<bool> released = false;  // saved tensors were freed

  // Note [Autograd and threads]: hooks_mutex guards pre_hooks, retained and post_hooks; has_hooks (set under it,
  // never cleared) lets the engine skip the lock for the many nodes that never had one. apply_mutex is held while
  // the engine runs the node and releases its saved tensors, so that two backward calls through one retained
  // graph take turns.
  std::mutex hooks_mutex;
  std::atomic<bool> has_hooks = false;
  std::mutex apply_mutex;
};

// A tensor saved for a formula, checked against in-place modification when unpacked (Note [No reference cycles]).
class SavedVariable {
 public:
  SavedVariable() = default;
  // is_output: t is an output of the node that saves it.
  SavedVariable(const Tensor& t, bool is_output);
  // The tensor as it was saved; in grad mode (create_graph), or always with `history`, it carries its autograd
  // history (custom functions see their saved tensors as PyTorch shows them: requiring grad).
  Tensor unpack(const Node& owner, bool history = false) const;
  void reset();
  // An in-place op is about to overwrite `self`: if this saved input shares self's storage, keep a copy of
  // its current values instead (PyTorch saves the original self the same way).
  void snapshot_if_overwritten(const Tensor& self);
  bool defined() const { return data_.defined(); }

 private:
  Tensor data_;
  std::shared_ptr<Node> grad_fn_;           // an input with history
  std::shared_ptr<Node> grad_accumulator_;  // a leaf that requires grad
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
};

// A node whose formula is a function object; saved tensors in `saved`. See Note [Recording an op].
struct FormulaNode : Node {
  explicit FormulaNode(const char* name) : name_(name) {}
  std::string name() const override { return name_; }
  void release_variables() override;
  size_t save(const Tensor& t);         // an input (or any tensor that is not an output of this node)
  size_t save_output(const Tensor& t);  // an output of this node: saved without a reference to the node
  Tensor saved_tensor(size_t i) const { return saved[i].unpack(*this); }

  const char* name_;
  std::vector<SavedVariable> saved;
};

template <class F>
struct LambdaNode final : FormulaNode {
  LambdaNode(const char* name, F f) : FormulaNode(name), f_(std::move(f)) {}
  TensorList apply(TensorList&& grads) override { return f_(*this, grads); }
  F f_;
};

// Whether an op on these inputs records a node.
bool needs_grad(std::span<const Tensor* const> inputs);
inline bool needs_grad(std::initializer_list<const Tensor*> inputs) { return needs_grad(std::span(inputs)); }

// See Note [Recording an op]. F: TensorList(FormulaNode&, TensorList& grads).
template <class F>
std::shared_ptr<FormulaNode> make_node(const char* name, std::span<const Tensor* const> inputs, F&& f) {
  if (!needs_grad(inputs)) [[likely]]
    return nullptr;
  auto n = std::make_shared<LambdaNode<std::decay_t<F>>>(name, std::forward<F>(f));
  n->set_inputs(inputs);
  return n;
}
template <class F>
std::shared_ptr<FormulaNode> make_node(const char* name, std::initializer_list<const Tensor*> inputs, F&& f) {
  return make_node(name, std::span(inputs), std::forward<F>(f));
}
std::vector<const Tensor*> pointers(std::span<const Tensor> ts);

// Makes `out` output `output_nr` of `node` (a floating tensor; others never require grad). Only view ops pass
// is_view: any other result that happens to share a temporary's storage stops being a view of it, so that an
// in-place op on it later rewrites its own history, not the temporary's (Note [In-place on views]).
void set_history(const Tensor& out, const std::shared_ptr<Node>& node, uint32_t output_nr = 0, bool is_view = false);
// Moves the history of an in-place op's result onto `self`: self becomes output 0 of `node`. When self is a view,
// its base's history is rewritten instead (Note [In-place on views]).
// old_edge: self's gradient edge before the op (an input of `node` when the op read self).
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node, const Edge& old_edge);
// The checks an in-place op runs on the tensor it writes before writing: a leaf that requires grad (or a view
// of one) cannot be modified in place while grad mode is on. `op` names the op in the error.
void check_inplace(const Tensor& self, const char* op);
// An in-place op on self while recording (Note [In-place ops]): runs `compute`, the out-of-place op, which
// records its own node; writes the result into self and moves that node onto self.
template <class F>
const Tensor& inplace_with_grad(const Tensor& self, const char* op, F&& compute);

// Records an op that has no gradient formula: the result's backward raises NotImplementedError naming `op`.
void record_not_implemented(const char* op, std::span<const Tensor* const> inputs, std::span<const Tensor> outputs);

// Where the gradient of t goes (the leaf's AccumulateGrad, or its grad_fn's input), or an invalid edge.
Edge gradient_edge(const Tensor& t);
// t's grad_fn; for a view whose base was modified in place through another view, the regenerated one.
const std::shared_ptr<Node>& grad_fn(const Tensor& t);

// The sum of g over the dims that were broadcast to make a tensor of `shape` into g's shape.
Tensor sum_to(const Tensor& g, IntArrayRef shape);
// Whether a tensor of `shape` broadcasts to `target`.
bool is_expandable_to(IntArrayRef shape, IntArrayRef target);

// Removes the hook it was returned for (Python's RemovableHandle.remove); safe to call after the tensor died.
using HookRemover = std::function<void()>;
int next_hook_id();
// Tensor.register_hook: on a leaf the hook sees the gradient before it is accumulated; otherwise the gradient
// of this output of grad_fn.
// `name` names the hook in errors about what it returned (Note [Hook results]).
HookRemover register_hook(const Tensor& t, GradHook hook, std::string name = "hook");
HookRemover register_post_accumulate_grad_hook(const Tensor& t, PostAccumulateGradHook hook, std::string name = "hook");
// Tensor.retain_grad: a non-leaf keeps its gradient in .grad (a no-op on leaves).
void retain_grad(const Tensor& t);
// Node.register_hook: fn(grad_inputs, grad_outputs) runs after the node; it may replace grad_inputs.
HookRemover register_node_hook(Node& n, NodePostHook fn, std::string name = "hook");

// Note [Hook results]
// What a hook returns replaces a gradient only if it could have been that gradient: the same dtype and device
// (PyTorch's "type") and the same shape, as PyTorch checks; a node hook returns one value per gradient, and cannot
// put a gradient where none was. The engine checks every hook's result here, whoever registered it (Python or
// C++): tensor hooks on leaves and non-leaves, node hooks. `hook` names the hook in the error.
void check_hook_result(const std::string& hook, const Tensor& before, const Tensor& after);
void check_hook_results(const std::string& hook, const TensorList& before, const TensorList& after);
// Runs a tensor hook on g and, when it returns a tensor, checks it and replaces g with it.
void apply_grad_hook(const NamedHook<GradHook>& hook, Tensor& g);

// Anomaly mode: a provider of the current (Python) stack, set by the bindings; C++ callers get none.
void set_stack_provider(std::string (*provider)());
std::string current_stack();

namespace detail {
void finish_inplace(const Tensor& self, const Tensor& result, const char* op);
}
template <class F>
const Tensor& inplace_with_grad(const Tensor& self, const char* op, F&& compute) {
  check_inplace(self, op);
  detail::finish_inplace(self, compute(), op);
  return self;
}

}  // namespace ember::autograd
