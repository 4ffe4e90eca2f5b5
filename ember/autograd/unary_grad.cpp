// Recording of the unary ops: the node's name, what it saves and its formula come from one table,
// ember/autograd/unary_derivatives.def (Note [Op tables]).
#include <cmath>
#include <limits>
#include <numbers>

#include "ember/autograd/formulas.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/unary_backward.h"

namespace ember::autograd {

namespace {

enum class Saves : uint8_t { Nothing, Input, Result };

struct UnaryGrad {
  const char* node;  // nullptr: the op has no gradient
  Saves saves;
};

constexpr UnaryGrad unary_grad(UnaryOp op) {
  switch (op) {
#define EMBER_UNARY_GRAD(op, node, saves, ...) \
  case UnaryOp::op:                            \
    return {node, Saves::saves};
#include "ember/autograd/unary_derivatives.def"
#undef EMBER_UNARY_GRAD
    default: return {nullptr, Saves::Nothing};
  }
}

// The gradient of x for the result's gradient g; v is the saved input x or result r (UnaryGrad::saves).
Tensor unary_formula(UnaryOp op, const UnaryArgs& args, const Tensor& g, const Tensor& v) {
  [[maybe_unused]] const Tensor& x = v;
  [[maybe_unused]] const Tensor& r = v;
  [[maybe_unused]] constexpr double kSqrtPi = 1.7724538509055160273, kInvSqrt2 = 0.70710678118654752440;
  switch (op) {
#define EMBER_UNARY_GRAD(op, node, saves, ...) \
  case UnaryOp::op:                            \
    return __VA_ARGS__;
#include "ember/autograd/unary_derivatives.def"
#undef EMBER_UNARY_GRAD
    default: return {};
  }
}

// Note [Complex gradients]
// ember follows PyTorch's convention: a complex tensor's gradient is dL/dre + i dL/dim (the conjugate Wirtinger
// derivative, times 2), so the gradient of a holomorphic f is g * conj(f'(z)). The table's formulas are linear in g
// and compute g * f'(x) with ember ops, which work on complex tensors too, so conj(formula(conj(g))) is that gradient;
// the binary ops do the same (elementwise_grad.cpp). abs and sgn are not holomorphic and have their own formulas.
void record_complex_unary(UnaryOp op, const UnaryArgs& args, const UnaryGrad& grad, const Tensor& x,
                          const Tensor& out) {
  const Tensor* in[] = {&x};
  std::shared_ptr<FormulaNode> n;
  if (op == UnaryOp::Abs || op == UnaryOp::Sgn) {
    n = make_node(grad.node, in, [op](FormulaNode& n, TensorList& g) {
      const Tensor z = n.saved_tensor(0), s = sgn(z);
      if (op == UnaryOp::Abs) return TensorList{mul(g[0], s)};
      // (g - s re(g conj(s))) / |z|, and 0 at 0 (dividing by inf there)
      const Tensor a = abs(z), d = where(eq(a, 0), std::numeric_limits<double>::infinity(), a);
      return TensorList{div(sub(g[0], mul(s, real(mul(g[0], conj_physical(s))))), d)};
    });
    n->save(x);
    set_history(out, n);
    return;
  }
  const Saves saves = grad.saves;
  n = make_node(grad.node, in, [op, args, saves](FormulaNode& n, TensorList& g) {
    const Tensor v = saves == Saves::Nothing ? Tensor() : n.saved_tensor(0);
    return TensorList{conj_physical(unary_formula(op, args, conj_physical(g[0]), v))};
  });
  if (saves == Saves::Input) n->save(x);
  set_history(out, n);
  if (saves == Saves::Result) n->save_output(out);
}

}  // namespace

bool unary_grad_reads_input(UnaryOp op) { return unary_grad(op).saves == Saves::Input; }

// Note [In-place activations]
// An in-place op that records runs as its out-of-place form and copies the result into self (Note [In-place ops]).
// For an activation whose gradient reads only its result, as nn.ReLU(inplace=True), that cost a second tensor and a
// pass over it, and the node kept the second tensor alive until the backward: the in-place form saved no memory.
// Here the kernel writes into self's memory through an alias that is no view, the op's node (input: self's old
// history) saves that alias, holding self's new value, and self takes the node, as PyTorch's relu_ saves self.
bool inplace_unary_reading_result(UnaryOp op, const char* name, const Tensor& self, const UnaryArgs& args,
                                  const std::function<void(const Tensor&)>& write) {
  const UnaryGrad grad = unary_grad(op);
  if (!grad.node || grad.saves != Saves::Result || !is_inexact(self.dtype()) || is_complex(self.dtype())) return false;
  check_inplace(self, name);
  const Edge old_edge = gradient_edge(self);
  const Tensor r(make_intrusive<TensorImpl>(self.impl()->storage(), self.dtype(), self.sizes(), self.strides(),
                                            self.storage_offset()));
  write(r);
  self.bump_version();
  record_unary(op, self, r, args);  // its input edge is self's old history, still self's here
  rebase_history(self, r.impl()->autograd_meta()->grad_fn, old_edge);
  return true;
}

void record_unary(UnaryOp op, const Tensor& x, const Tensor& out, const UnaryArgs& args) {
  const Tensor* in[] = {&x};
  if (!needs_grad(in)) [[likely]]
    return;
  const UnaryGrad grad = unary_grad(op);
  if (!grad.node || !is_inexact(out.dtype())) return;
  if (is_complex(x.dtype())) [[unlikely]]
    return record_complex_unary(op, args, grad, x, out);
  const Saves saves = grad.saves;
  auto n = make_node(grad.node, in, [op, args, saves](FormulaNode& n, TensorList& g) {
    const Tensor v = saves == Saves::Nothing ? Tensor() : n.saved_tensor(0);
    if (dispatch::enabled()) [[unlikely]] {
      // Note [Python dispatch]: the fused gradients PyTorch has as ops; the others compose, so modes see the parts.
      std::optional<std::vector<Tensor>> r;
      if (op == UnaryOp::Relu)
        r = dispatch::call("aten.threshold_backward.default", dispatch::values(g[0], v, Scalar(0)));
      else if (op == UnaryOp::Sigmoid)
        r = dispatch::call("aten.sigmoid_backward.default", dispatch::values(g[0], v));
      else if (op == UnaryOp::Tanh)
        r = dispatch::call("aten.tanh_backward.default", dispatch::values(g[0], v));
      else if (op == UnaryOp::Silu)
        r = dispatch::call("aten.silu_backward.default", dispatch::values(g[0], v));
      else if (op == UnaryOp::Gelu || op == UnaryOp::GeluTanh)
        r = dispatch::call("aten.gelu_backward.default",
                           dispatch::values(g[0], v, std::string(op == UnaryOp::Gelu ? "none" : "tanh")));
      if (r) return TensorList{dispatch::result<Tensor>(std::move(*r))};
      return TensorList{unary_formula(op, args, g[0], v)};
    }
    if (!is_grad_enabled())  // Note [Fused activation backward]
      if (Tensor fused = fused_unary_backward(op, g[0], v, args); fused.defined()) return TensorList{fused};
    return TensorList{unary_formula(op, args, g[0], v)};
  });
  if (saves == Saves::Input) n->save(x);
  set_history(out, n);
  if (saves == Saves::Result) n->save_output(out);
}

}  // namespace ember::autograd
