#include "ember/autograd/detail/shape_grad.h"

#include <algorithm>

#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember::autograd {

bool any_needs_grad(const std::vector<Tensor>& ts, const Tensor* extra) {
  if (!is_grad_enabled()) return false;
  for (const Tensor& t : ts)
    if (t.defined() && t.requires_grad()) return true;
  return extra && extra->defined() && extra->requires_grad();
}

Tensor zeros_for(const Tensor& g, IntArrayRef shape) {
  return zeros(shape, TensorOptions(g.dtype()).device(g.device()));
}

Tensor grow_to(const Tensor& g, IntArrayRef shape) {
  if (std::ranges::equal(g.sizes(), shape)) return g;
  const int64_t numel = checked_numel(shape, "grow_to");
  if (g.numel() == numel) return reshape(g, shape);
  Tensor z = zeros_for(g, shape), block = z;
  if (g.numel() == 0) return z;
  for (int64_t d = 0; d < g.dim(); ++d) block = narrow(block, d, 0, g.size(d));
  block.copy_(g);  // records with create_graph, so this stays differentiable
  return z;
}

Tensor delayed_error(const Tensor& t, const char* msg) {
  auto n = make_node("DelayedError", {&t}, [msg](FormulaNode&, TensorList&) -> TensorList { fail<Error>(msg); });
  if (!n) return t;
  Tensor r = alias(t);
  set_history(r, n);
  return r;
}

}  // namespace ember::autograd
