// Recording of the unary ops: the node's name, what it saves and its formula come from one table,
// ember/autograd/unary_derivatives.def (Note [Op tables]).
#include <cmath>
#include <numbers>

#include "ember/autograd/formulas.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
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

}  // namespace

bool unary_grad_reads_input(UnaryOp op) { return unary_grad(op).saves == Saves::Input; }

void record_unary(UnaryOp op, const Tensor& x, const Tensor& out, const UnaryArgs& args) {
  const Tensor* in[] = {&x};
  if (!needs_grad(in)) [[likely]]
    return;
  const UnaryGrad grad = unary_grad(op);
  if (!grad.node || !is_floating(out.dtype())) return;
  const Saves saves = grad.saves;
  auto n = make_node(grad.node, in, [op, args, saves](FormulaNode& n, TensorList& g) {
    const Tensor v = saves == Saves::Nothing ? Tensor() : n.saved_tensor(0);
    if (!is_grad_enabled())  // Note [Fused activation backward]
      if (Tensor fused = fused_unary_backward(op, g[0], v, args); fused.defined()) return TensorList{fused};
    return TensorList{unary_formula(op, args, g[0], v)};
  });
  if (saves == Saves::Input) n->save(x);
  set_history(out, n);
  if (saves == Saves::Result) n->save_output(out);
}

}  // namespace ember::autograd
