// The nodes the engine itself makes: accumulating into leaves, routing gradients of views modified in place,
// and ops without a formula.
#pragma once

#include "ember/autograd/node.h"

namespace ember::autograd {

// The end of the graph for a leaf: adds the gradient into leaf.grad (Note [No reference cycles]: it refers
// to the leaf's metadata weakly; when the leaf is gone the gradient is dropped, as nobody can read it).
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(const std::shared_ptr<AutogradMeta>& meta);
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  bool is_accumulate_grad() const override { return true; }
  // The leaf (undefined when it is gone).
  Tensor variable() const;
  // The leaf's hooks (Tensor.register_hook on a leaf), run by the engine before apply.
  void run_leaf_hooks(TensorList& grads) const;
  // Adds g into the grad of the tensor with metadata m (leaves, and retain_grad of non-leaves).
  static void accumulate(AutogradMeta& m, const Tensor& g);

  std::weak_ptr<AutogradMeta> meta;
};

// The geometry of a view within its base's storage. A real view of a complex base (Tensor.real, .imag, view_as_real)
// counts its strides and offset in the base's real parts: such a view is taken of view_as_real(base).
struct ViewGeometry {
  DimVector sizes, strides;
  int64_t offset = 0;
  ScalarType dtype = ScalarType::Float32;
  bool conj = false;  // the conjugate bit (Note [The conjugate bit]): a view and its base may differ in it
  static ViewGeometry of(const Tensor& t);
};

// A base whose view was modified in place (Note [In-place on views]): next_edges[0] is the base's old history,
// the rest are fn's inputs other than the view.
struct CopySlices final : Node {
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "CopySlices"; }
  void release_variables() override {
    if (fn) fn->release_variables();
  }

  ViewGeometry base, view;
  std::shared_ptr<Node> fn;  // null when the op's result has no history (e.g. fill_)
  int self_input = -1;       // fn's input that was the view before the op, if it read it
};

// A view of a base with history: the gradient of the base is zero outside the view.
struct AsStridedBackward final : Node {
  AsStridedBackward(const Tensor& base, const Tensor& view);
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "AsStridedBackward0"; }

  ViewGeometry base, view;
};

// An op without a gradient formula: backward raises NotImplementedError naming it.
struct NotImplementedBackward final : Node {
  explicit NotImplementedBackward(const char* op) : op_(op) {}
  TensorList apply(TensorList&&) override;
  std::string name() const override { return "NotImplemented"; }
  const char* op_;
};

// The gradient of base for a gradient g of its view: zeros outside the view's region.
Tensor view_scatter(const Tensor& g, const ViewGeometry& base, const ViewGeometry& view);

}  // namespace ember::autograd
