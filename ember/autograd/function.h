// Custom differentiable functions in C++, as libtorch's torch::autograd::Function:
//
//   struct Cube : ember::autograd::Function<Cube> {
//     static Tensor forward(AutogradContext* ctx, const Tensor& x) {
//       ctx->save_for_backward({x});
//       return x * x * x;
//     }
//     static TensorList backward(AutogradContext* ctx, TensorList g) {
//       Tensor x = ctx->get_saved_variables()[0];
//       return {g[0] * 3 * x * x};
//     }
//   };
//   Tensor y = Cube::apply(x);
//
// forward runs with grad mode off; the call is recorded as one node whose backward calls T::backward (written
// with ember ops, it is differentiable again). backward returns one gradient per forward argument (undefined
// for arguments that are not tensors or need none). Python's ember.autograd.Function records through the same
// record_custom_function.
#pragma once

#include <any>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>

#include "ember/autograd/node.h"

namespace ember::autograd {

// What a custom function's forward declares, and what backward reads.
struct AutogradContext {
  void save_for_backward(TensorList tensors) { to_save = std::move(tensors); }
  void mark_dirty(TensorList tensors) { dirty = std::move(tensors); }
  void mark_non_differentiable(TensorList tensors) { non_differentiable = std::move(tensors); }
  void set_materialize_grads(bool value) { materialize_grads = value; }
  // The saved tensors (checked against in-place modification); raises after the graph was freed.
  TensorList get_saved_variables() const;
  bool needs_input_grad(size_t arg) const { return arg < needs.size() && needs[arg]; }

  std::unordered_map<std::string, std::any> saved_data;  // anything else backward needs

  // Set by the machinery.
  TensorList to_save, dirty, non_differentiable;
  bool materialize_grads = true;
  std::vector<bool> needs;  // per forward argument
  std::vector<SavedVariable> saved;
  std::weak_ptr<Node> node;
};

// The node a custom function records: the custom part is apply; outputs' metadata materialize undefined grads.
struct CustomNode : Node {
  std::vector<TensorMeta> out_meta;
  std::vector<bool> out_differentiable;
  // Undefined gradients become zeros of the output's shape (set_materialize_grads).
  void materialize(TensorList& grads) const;
};

// Records a custom function call after its forward ran (see the top of this file). inputs: the tensor arguments
// (in order); outputs: the forward's results (undefined for non-tensor results), updated in place where an input
// was returned unchanged (it gets a new tensor that carries the history). Fills node's edges and out_meta and the
// context's saved variables. `name` names the op in in-place errors.
void record_custom_function(const std::shared_ptr<CustomNode>& node, AutogradContext& ctx, const TensorList& inputs,
                            TensorList& outputs, const char* name);
// "Cube" for typeid(Cube).name() (a node of Function<Cube> is named "CubeBackward").
std::string demangled_name(const char* mangled);

template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args);
};

namespace detail {

template <class T>
struct CppNode final : CustomNode {
  AutogradContext ctx;
  std::vector<int> tensor_args;  // forward argument position of each node input
  size_t num_args = 0;
  std::string name() const override { return name_; }
  std::string name_;
  void release_variables() override {
    for (auto& s : ctx.saved) s.reset();
    released = true;
  }
  TensorList apply(TensorList&& grads) override {
    if (ctx.materialize_grads) materialize(grads);
    TensorList r = T::backward(&ctx, std::move(grads));
    EMBER_CHECK(r.size() >= num_args, "function ", name_, " returned an incorrect number of gradients (expected ",
                num_args, ", got ", r.size(), ")");
    TensorList out;
    for (int pos : tensor_args) out.push_back(r[pos]);
    return out;
  }
};

template <class A>
void collect(const A& a, TensorList& tensors, std::vector<int>& positions, int pos) {
  if constexpr (std::is_same_v<std::decay_t<A>, Tensor>) {
    tensors.push_back(a);
    positions.push_back(pos);
  }
}

}  // namespace detail

template <class T>
template <class... Args>
auto Function<T>::apply(Args&&... args) {
  auto node = std::make_shared<detail::CppNode<T>>();
  node->name_ = demangled_name(typeid(T).name()) + "Backward";
  node->num_args = sizeof...(Args);
  TensorList inputs;
  {
    int pos = 0;
    (detail::collect(args, inputs, node->tensor_args, pos++), ...);
  }
  const bool record = needs_grad(pointers(inputs));
  AutogradContext& ctx = node->ctx;
  ctx.needs.assign(sizeof...(Args), false);
  for (size_t k = 0; k < inputs.size(); ++k) ctx.needs[node->tensor_args[k]] = record && inputs[k].requires_grad();
  using Out = decltype(T::forward(&ctx, std::forward<Args>(args)...));
  Out out;
  {
    GradModeGuard off(false);
    out = T::forward(&ctx, std::forward<Args>(args)...);
  }
  if (!record) return out;
  if constexpr (std::is_same_v<Out, Tensor>) {
    TensorList outs{out};
    record_custom_function(node, ctx, inputs, outs, node->name_.c_str());
    return outs[0];
  } else {
    record_custom_function(node, ctx, inputs, out, node->name_.c_str());
    return out;
  }
}

}  // namespace ember::autograd
