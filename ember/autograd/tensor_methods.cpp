// The autograd methods of Tensor (declared in tensor.h).
#include "ember/autograd/engine.h"
#include "ember/ops.h"

namespace ember {

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const { return autograd::grad_fn(*this); }

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

void Tensor::retain_grad() const { autograd::retain_grad(*this); }

bool Tensor::retains_grad() const {
  auto* m = impl_->autograd_meta();
  return m && m->retains_grad;
}

Tensor Tensor::detach() const { return alias(*this); }

const Tensor& Tensor::detach_() const {
  EMBER_CHECK(!impl_->view_base() || !impl_->view_base()->autograd_meta() || !requires_grad(),
              "detach_: Can't detach views in-place. Use detach() instead.");
  if (auto* m = impl_->autograd_meta()) {
    m->grad_fn.reset();
    m->requires_grad = false;
    m->output_nr = 0;
  }
  return *this;
}

}  // namespace ember
