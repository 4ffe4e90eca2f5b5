// Recording of custom functions (C++ Function<T> and Python's ember.autograd.Function).
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "ember/autograd/function.h"
#include "ember/ops.h"

namespace ember::autograd {

TensorList AutogradContext::get_saved_variables() const {
  auto n = node.lock();
  EMBER_CHECK(n, "the graph of this function was freed; its saved tensors are no longer available");
  TensorList r;
  for (auto& s : saved) r.push_back(s.unpack(*n, /*history=*/true));
  return r;
}

std::string demangled_name(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string r = status == 0 && d ? d : mangled;
  std::free(d);
  // Drop namespaces and template arguments' noise: "ns::Cube" -> "Cube".
  if (auto p = r.rfind("::"); p != std::string::npos && r.find('<') == std::string::npos) r = r.substr(p + 2);
  return r;
}

void CustomNode::materialize(TensorList& grads) const {
  for (size_t i = 0; i < grads.size() && i < out_meta.size(); ++i)
    if (!grads[i].defined() && out_differentiable[i])
      grads[i] = zeros(out_meta[i].shape, TensorOptions(out_meta[i].dtype).device(out_meta[i].device));
}

void record_custom_function(const std::shared_ptr<CustomNode>& node, AutogradContext& ctx, const TensorList& inputs,
                            TensorList& outputs, const char* name) {
  auto contains = [](const TensorList& l, const Tensor& t) {
    return std::ranges::any_of(l, [&](const Tensor& x) { return x.defined() && x.is_same(t); });
  };
  node->set_inputs(pointers(inputs));
  std::vector<Edge> old_edges;
  for (auto& t : ctx.dirty) old_edges.push_back(gradient_edge(t));
  node->num_outputs = static_cast<uint32_t>(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& t = outputs[i];
    if (!t.defined()) {
      node->out_meta.emplace_back();
      node->out_differentiable.push_back(false);
      continue;
    }
    node->out_meta.push_back({DimVector(t.sizes()), t.dtype(), t.device()});
    const bool differentiable = is_inexact(t.dtype()) && !contains(ctx.non_differentiable, t);
    node->out_differentiable.push_back(differentiable);
    const uint32_t nr = static_cast<uint32_t>(i);
    if (contains(ctx.dirty, t)) {  // modified in place by forward: its history is rewritten
      size_t k = 0;
      while (!ctx.dirty[k].is_same(t)) ++k;
      check_inplace(t, name);
      if (differentiable) {
        rebase_history(t, node, old_edges[k]);
        t.impl()->autograd_meta()->output_nr = nr;
      }
    } else if (differentiable) {
      if (contains(inputs, t)) t = alias(t);  // an input returned as is: a new tensor carries the history
      set_history(t, node, nr);
    }
  }
  for (const Tensor& t : ctx.to_save) {
    bool is_output = false;
    for (auto& o : outputs)
      is_output = is_output ||
                  (t.defined() && o.defined() && o.is_same(t) && grad_fn(t) == std::shared_ptr<Node>(node));
    ctx.saved.emplace_back(t, is_output);
  }
  ctx.to_save.clear();
  ctx.node = node;
}

}  // namespace ember::autograd
