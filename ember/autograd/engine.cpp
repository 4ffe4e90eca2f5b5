// Note [The engine]
// A backward call is one graph task on the calling thread (re-entrant: a hook or a custom function may start
// another). It walks the graph from the roots once, counting for every node the edges that point at it
// (dependencies) and, when only some inputs are wanted, which nodes lie on a path to them. Gradients arriving at
// a node are summed in its input buffer; a node runs when its count reaches zero, later-created nodes first
// (leaves' AccumulateGrad as soon as they are ready). Around each node: its pre-hooks (tensor hooks, then
// retain_grad), the formula (in grad mode only with create_graph), the checks of the gradients it returns (count,
// shape, reduced with sum_to when broadcast, dtype cast, device), and the release of its saved tensors unless
// retain_graph. In anomaly mode a failing formula or a NaN gradient is reported with the forward op's stack.
#include "ember/autograd/engine.h"

#include <cstdio>
#include <optional>
#include <queue>
#include <unordered_map>

#include "ember/autocast.h"
#include "ember/autograd/functions.h"
#include "ember/format.h"
#include "ember/ops.h"
#include "ember/profiler/profiler.h"

namespace ember::autograd {

namespace {

struct Capture {
  size_t slot;        // index into the result
  uint32_t input_nr;  // which input buffer of the node
};

struct NodeInfo {
  std::shared_ptr<Node> node;
  int deps = 0;
  bool needed = false;       // lies on a path to a wanted input (filtered tasks only)
  bool exec_target = false;  // a wanted leaf's AccumulateGrad (backward with inputs)
  std::vector<Capture> captures;
  TensorList buffer;
};

struct GraphTask {
  bool keep_graph = false;
  bool create_graph = false;
  bool filtered = false;  // only nodes leading to the wanted inputs run
  std::unordered_map<Node*, NodeInfo> info;
  TensorList captured;
  std::vector<std::function<void()>> final_callbacks;  // queue_callback, run after the graph

  NodeInfo& at(const std::shared_ptr<Node>& n) {
    auto& i = info[n.get()];
    if (!i.node) i.node = n;
    return i;
  }
};

// Counts dependencies and marks the nodes that lead to wanted inputs (post-order, iterative).
void walk(GraphTask& task, const std::vector<Edge>& roots) {
  struct Frame {
    Node* node;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  std::unordered_map<Node*, bool> done;  // false: on the stack
  for (const Edge& r : roots) {
    if (done.count(r.fn.get())) continue;
    task.at(r.fn);
    done[r.fn.get()] = false;
    stack.push_back({r.fn.get()});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == 0) {  // first visit: count the node's edges once
        for (const Edge& e : f.node->next_edges)
          if (e.fn) task.at(e.fn).deps++;
      }
      if (f.next < f.node->next_edges.size()) {
        const Edge& e = f.node->next_edges[f.next++];
        if (e.fn && !done.count(e.fn.get())) {
          done[e.fn.get()] = false;
          stack.push_back({e.fn.get()});
        }
        continue;
      }
      NodeInfo& ni = task.info[f.node];
      bool needed = ni.exec_target;
      for (const Edge& e : f.node->next_edges) {
        if (!e.fn) continue;
        const NodeInfo& c = task.info[e.fn.get()];
        needed = needed || c.needed || !c.captures.empty();
      }
      ni.needed = needed;
      done[f.node] = true;
      stack.pop_back();
    }
  }
}

[[noreturn]] void rethrow_with_trace(const Node& node) {
  const std::string where = "\n\nError detected in " + node.name() + ". The forward call that created it:\n" +
                            (node.trace.empty() ? std::string("  (no stack recorded)\n") : node.trace);
  std::fprintf(stderr, "ember: anomaly detection: %s\n", where.c_str() + 2);
  try {
    throw;
  } catch (const NotImplementedError& e) {
    throw NotImplementedError(e.what() + where);
  } catch (const IndexError& e) {
    throw IndexError(e.what() + where);
  } catch (const ValueError& e) {
    throw ValueError(e.what() + where);
  } catch (const TypeError& e) {
    throw TypeError(e.what() + where);
  } catch (const OutOfMemoryError& e) {
    throw OutOfMemoryError(e.what() + where);
  } catch (const Error& e) {
    throw Error(e.what() + where);
  }
}

void call_pre_hooks(Node& node, TensorList& grads) {
  if (node.has_hooks.load(std::memory_order_acquire)) [[unlikely]] {
    std::vector<OutputHook> hooks;  // copies: hooks run unlocked and may register or remove hooks
    std::vector<std::pair<uint32_t, std::weak_ptr<AutogradMeta>>> retained;
    {
      std::lock_guard lock(node.hooks_mutex);
      hooks = node.pre_hooks;
      retained = node.retained;
    }
    for (auto& [nr, hook] : hooks)
      if (nr < grads.size() && grads[nr].defined()) apply_grad_hook(hook, grads[nr]);
    for (auto& [nr, weak] : retained) {
      if (nr >= grads.size() || !grads[nr].defined()) continue;
      if (auto m = weak.lock(); m && m->owner.load(std::memory_order_relaxed))
        AccumulateGrad::accumulate(*m, grads[nr]);
    }
  }
  if (node.is_accumulate_grad()) static_cast<AccumulateGrad&>(node).run_leaf_hooks(grads);
}

// Checks and fixes up what a formula returned, against the forward inputs' metadata.
void validate(const Node& node, TensorList& out) {
  EMBER_CHECK(out.size() == node.next_edges.size(), "function ", node.name(),
              " returned an incorrect number of gradients (expected ", node.next_edges.size(), ", got ", out.size(),
              ")");
  for (size_t i = 0; i < out.size(); ++i) {
    Tensor& g = out[i];
    if (!node.next_edges[i].fn) {
      g = Tensor();
      continue;
    }
    if (!g.defined()) continue;
    const TensorMeta& m = node.input_meta[i];
    if (!std::ranges::equal(g.sizes(), m.shape)) {
      EMBER_CHECK(is_expandable_to(m.shape, g.sizes()), "Function ", node.name(),
                  " returned an invalid gradient at index ", i, " - got ", shape_str(g.sizes()),
                  " but expected shape compatible with ", shape_str(m.shape));
      g = sum_to(g, m.shape);
    }
    EMBER_CHECK(g.device() == m.device, "Function ", node.name(), " returned an invalid gradient at index ", i,
                " - expected device ", m.device, " but got ", g.device());
    if (g.dtype() != m.dtype) g = to(g, m.dtype);
  }
}

void check_nan(const Node& node, const TensorList& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    const Tensor& g = out[i];
    if (g.defined() && is_floating(g.dtype()) && g.numel() && any(isnan(g)).item<bool>())
      fail<Error>("Function '", node.name(), "' returned nan values in its ", i, "th output.\n\nThe forward call ",
                  "that created it:\n", node.trace.empty() ? std::string("  (no stack recorded)\n") : node.trace);
  }
}

TensorList call_node(GraphTask& task, Node& node, TensorList&& grads) {
  std::vector<NamedHook<NodePostHook>> post_hooks;
  if (node.has_hooks.load(std::memory_order_acquire)) [[unlikely]] {
    std::lock_guard lock(node.hooks_mutex);
    post_hooks = node.post_hooks;
  }
  TensorList inputs_copy;
  if (!post_hooks.empty()) inputs_copy = grads;
  TensorList out;
  const bool anomaly = is_anomaly_enabled();
  std::optional<profiler::RecordScope> scope;
  if (profiler::active()) [[unlikely]]
    scope.emplace("autograd::engine::evaluate_function: " + node.name(), profiler::EventKind::Autograd);
  {
    std::lock_guard lock(node.apply_mutex);  // another backward through the same retained graph waits
    try {
      out = node.apply(std::move(grads));
      validate(node, out);
    } catch (const Error&) {
      if (anomaly) rethrow_with_trace(node);
      throw;
    }
    if (anomaly && is_anomaly_check_nan()) check_nan(node, out);
    if (!task.keep_graph) {
      node.release_variables();
      node.released = true;
    }
  }
  for (auto& hook : post_hooks) {
    TensorList before = out;
    hook.fn(out, inputs_copy);
    check_hook_results(hook.name, before, out);  // Note [Hook results]
  }
  return out;
}

void add_to(TensorList& buffer, size_t n, uint32_t slot, Tensor&& g) {
  if (buffer.empty()) buffer.resize(n);
  Tensor& b = buffer[slot];
  if (!b.defined()) {
    b = std::move(g);
  } else if (!is_grad_enabled() && b.impl()->use_count() == 1 && b.impl()->storage()->use_count() == 1 &&
             b.is_contiguous() && std::ranges::equal(b.sizes(), g.sizes()) && b.dtype() == g.dtype()) {
    binary_op(BinaryOp::Add, b, g, b);  // nobody else holds b: sum in place (no allocation)
  } else {
    b = b + g;  // out of place: b may be a tensor the user passed or holds, or part of a graph
  }
}

struct ReadyItem {
  uint64_t priority;
  Node* node;
  bool operator<(const ReadyItem& o) const { return priority < o.priority; }
};

// The graph tasks running on this thread, innermost last (a hook may start a nested backward).
thread_local std::vector<GraphTask*> running_tasks;

struct RunningTask {
  explicit RunningTask(GraphTask& t) { running_tasks.push_back(&t); }
  ~RunningTask() { running_tasks.pop_back(); }
};

void run_graph(GraphTask& task, const std::vector<Edge>& roots, TensorList& root_grads);

void execute(GraphTask& task, const std::vector<Edge>& roots, TensorList& root_grads) {
  RunningTask running(task);
  run_graph(task, roots, root_grads);
  // Callbacks may queue more callbacks: index, not iterators.
  for (size_t i = 0; i < task.final_callbacks.size(); ++i) {
    auto fn = std::move(task.final_callbacks[i]);
    fn();
  }
}

void run_graph(GraphTask& task, const std::vector<Edge>& roots, TensorList& root_grads) {
  walk(task, roots);
  std::priority_queue<ReadyItem> ready;
  for (size_t i = 0; i < roots.size(); ++i) {
    NodeInfo& ni = task.info[roots[i].fn.get()];
    add_to(ni.buffer, ni.node->num_outputs, roots[i].input_nr, std::move(root_grads[i]));
  }
  auto runnable = [&](const NodeInfo& ni) { return !task.filtered || ni.needed || !ni.captures.empty(); };
  for (const Edge& r : roots) {
    NodeInfo& ni = task.info[r.fn.get()];
    if (ni.deps == 0 && runnable(ni)) {
      ni.deps = -1;  // queued once
      ready.push({r.fn->sequence_nr, r.fn.get()});
    }
  }
  GradModeGuard mode(task.create_graph);
  autocast::DisabledGuard no_autocast;  // backward ops run in the forward's dtypes (Note [Autocast])
  while (!ready.empty()) {
    Node* node = ready.top().node;
    ready.pop();
    NodeInfo& ni = task.info[node];
    TensorList grads = std::move(ni.buffer);
    grads.resize(node->num_outputs);
    call_pre_hooks(*node, grads);
    for (const Capture& c : ni.captures) task.captured[c.slot] = grads[c.input_nr];
    if (task.filtered && !ni.needed) continue;
    bool any = false;
    for (const Tensor& g : grads) any = any || g.defined();
    TensorList out;
    if (any) out = call_node(task, *node, std::move(grads));
    for (size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& e = node->next_edges[i];
      if (!e.fn) continue;
      NodeInfo& ci = task.info[e.fn.get()];
      if (i < out.size() && out[i].defined()) add_to(ci.buffer, e.fn->num_outputs, e.input_nr, std::move(out[i]));
      if (--ci.deps == 0 && runnable(ci)) ready.push({e.fn->sequence_nr, e.fn.get()});
    }
  }
}

std::vector<Edge> root_edges(const TensorList& roots, const TensorList& grads, TensorList& root_grads) {
  EMBER_CHECK(grads.empty() || grads.size() == roots.size(), "grad_tensors: got ", grads.size(), " gradients for ",
              roots.size(), " tensors");
  std::vector<Edge> edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    Edge e = gradient_edge(r);
    EMBER_CHECK(e.valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grads.empty() ? Tensor() : grads[i];
    if (!g.defined()) {
      EMBER_CHECK(r.numel() == 1, "grad can be implicitly created only for scalar outputs (got a tensor of shape ",
                  shape_str(r.sizes()), ")");
      g = ones_like(r);
    } else {
      EMBER_CHECK(std::ranges::equal(g.sizes(), r.sizes()), "Mismatch in shape: grad_output[", i, "] has a shape of ",
                  shape_str(g.sizes()), " and output[", i, "] has a shape of ", shape_str(r.sizes()), ".");
      EMBER_CHECK(g.device() == r.device(), "Mismatch in device: grad_output[", i, "] is on ", g.device(),
                  " and output[", i, "] is on ", r.device(), ".");
      if (g.dtype() != r.dtype()) g = to(g, r.dtype());
    }
    root_grads.push_back(std::move(g));
    edges.push_back(std::move(e));
  }
  return edges;
}

}  // namespace

void queue_callback(std::function<void()> fn) {
  EMBER_CHECK(!running_tasks.empty(), "Final callbacks can only be installed during backward pass.");
  running_tasks.back()->final_callbacks.push_back(std::move(fn));
}

void backward(const TensorList& roots, const TensorList& grads, std::optional<bool> retain_graph, bool create_graph,
              const TensorList& inputs) {
  GraphTask task;
  task.create_graph = create_graph;
  task.keep_graph = retain_graph.value_or(create_graph);
  TensorList root_grads;
  auto edges = root_edges(roots, grads, root_grads);
  std::vector<std::pair<AutogradMeta*, size_t>> nonleaf;  // inputs that are not leaves: captured, then accumulated
  if (!inputs.empty()) {
    task.filtered = true;
    task.captured.resize(inputs.size());
    for (size_t j = 0; j < inputs.size(); ++j) {
      Edge e = gradient_edge(inputs[j]);
      EMBER_CHECK(e.valid(), "backward: inputs[", j, "] does not require grad");
      NodeInfo& ni = task.at(e.fn);
      if (e.fn->is_accumulate_grad()) {
        ni.exec_target = true;
      } else {
        ni.captures.push_back({j, e.input_nr});
        nonleaf.emplace_back(inputs[j].impl()->autograd_meta(), j);
      }
    }
  }
  execute(task, edges, root_grads);
  GradModeGuard mode(create_graph);
  for (auto [m, j] : nonleaf)
    if (task.captured[j].defined()) AccumulateGrad::accumulate(*m, task.captured[j]);
}

TensorList grad(const TensorList& roots, const TensorList& inputs, const TensorList& grads,
                std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  GraphTask task;
  task.create_graph = create_graph;
  task.keep_graph = retain_graph.value_or(create_graph);
  task.filtered = true;
  TensorList root_grads;
  auto edges = root_edges(roots, grads, root_grads);
  task.captured.resize(inputs.size());
  for (size_t j = 0; j < inputs.size(); ++j) {
    Edge e = gradient_edge(inputs[j]);
    EMBER_CHECK(e.valid(), "One of the differentiated Tensors (inputs[", j, "]) does not require grad");
    task.at(e.fn).captures.push_back({j, e.input_nr});
  }
  execute(task, edges, root_grads);
  for (size_t j = 0; j < inputs.size(); ++j)
    EMBER_CHECK(allow_unused || task.captured[j].defined(), "One of the differentiated Tensors (inputs[", j,
                "]) appears to not have been used in the graph. Set allow_unused=True if this is the desired "
                "behavior.");
  return std::move(task.captured);
}

}  // namespace ember::autograd
