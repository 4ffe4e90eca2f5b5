// Recording of the binary and ternary elementwise ops (the unary ones: unary_grad.cpp): each node's name, what it
// saves and its formulas come from one table per family, ember/autograd/binary_derivatives.def and
// ternary_derivatives.def (Note [Op tables]). g is the output's gradient; the engine reduces broadcast gradients to
// each input's shape.
#include <cmath>

#include "ember/autograd/formulas.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/ops.h"

namespace ember::autograd {

namespace {

// What a formula reads besides g (the tables' reads_* masks).
constexpr uint8_t A = 1, B = 2, C = 4, R = 8;

// One operand of the op as a formula sees it: the index of its saved tensor (-1: not saved), whether it is a tensor,
// and the number it was called with otherwise.
struct Arg {
  int saved = -1;
  bool tensor = false;
  Scalar s;
};

// The operand inside a formula: `t` holds the unpacked tensor, so that the Operand's pointer stays valid.
struct Val {
  Tensor t;
  Operand o;
  Val(const FormulaNode& n, const Arg& a) : t(a.saved >= 0 ? n.saved_tensor(a.saved) : Tensor()), o(a.s) {
    if (a.tensor) o = Operand(t);
  }
};

// PyTorch's error for an input without a derivative (it raises when that input needs a gradient).
[[noreturn]] Tensor not_implemented(const char* what) {
  fail<NotImplementedError>("the derivative for '", what, "' is not implemented.");
}

// ---- binary

struct BinaryGrad {
  bool defined;
  uint8_t reads_a, reads_b;
};

constexpr BinaryGrad binary_grad(BinaryOp op) {
  switch (op) {
#define EMBER_BINARY_GRAD(op, node, reads_a, reads_b, ...) \
  case BinaryOp::op:                                       \
    return {true, reads_a, reads_b};
#include "ember/autograd/binary_derivatives.def"
#undef EMBER_BINARY_GRAD
    default: return {false, 0, 0};
  }
}

const char* binary_node(BinaryOp op, bool a_tensor, bool b_tensor) {
  // PyTorch's names by which operands are tensors: (both, a number other, a number input).
  auto by_operands = [&](const char* both, const char* number_other, const char* number_input) {
    return !b_tensor ? number_other : !a_tensor ? number_input : both;
  };
  switch (op) {
#define EMBER_BINARY_GRAD(op, node, ...) \
  case BinaryOp::op:                     \
    return node;
#include "ember/autograd/binary_derivatives.def"
#undef EMBER_BINARY_GRAD
    default: return nullptr;
  }
}

// Formula arguments: the macro's grad_a and grad_b, split off the row (they may contain commas inside lambdas).
#define EMBER_BINARY_GRAD_A(grad_a, grad_b) grad_a
#define EMBER_BINARY_GRAD_B(grad_a, grad_b) grad_b

TensorList binary_formula(BinaryOp op, const Scalar& alpha, const FormulaNode& n, const Arg& A_, const Arg& B_,
                          int result, const Tensor& g) {
  const Val va(n, A_), vb(n, B_);
  [[maybe_unused]] const Operand &a = va.o, &b = vb.o;
  [[maybe_unused]] const Tensor &at = va.t, &bt = vb.t;
  [[maybe_unused]] const bool a_tensor = A_.tensor, b_tensor = B_.tensor;
  [[maybe_unused]] const Tensor r = result >= 0 ? n.saved_tensor(result) : Tensor();
  Tensor ga, gb;
  switch (op) {
#define EMBER_BINARY_GRAD(op, node, reads_a, reads_b, ...) \
  case BinaryOp::op:                                       \
    if (n.needs(0)) ga = EMBER_BINARY_GRAD_A(__VA_ARGS__); \
    if (n.needs(1)) gb = EMBER_BINARY_GRAD_B(__VA_ARGS__); \
    break;
#include "ember/autograd/binary_derivatives.def"
#undef EMBER_BINARY_GRAD
    default: break;
  }
  return {ga, gb};
}

// ---- ternary

struct TernaryGrad {
  uint8_t reads[3];
};

constexpr TernaryGrad ternary_grad(TernaryOp op) {
  switch (op) {
#define EMBER_TERNARY_GRAD(op, node, reads_a, reads_b, reads_c, ...) \
  case TernaryOp::op:                                                \
    return {{reads_a, reads_b, reads_c}};
#include "ember/autograd/ternary_derivatives.def"
#undef EMBER_TERNARY_GRAD
  }
  return {{0, 0, 0}};
}

const char* ternary_node(TernaryOp op, [[maybe_unused]] bool a_tensor, [[maybe_unused]] bool b_tensor,
                         [[maybe_unused]] bool c_tensor) {
  switch (op) {
#define EMBER_TERNARY_GRAD(op, node, ...) \
  case TernaryOp::op:                     \
    return node;
#include "ember/autograd/ternary_derivatives.def"
#undef EMBER_TERNARY_GRAD
  }
  return nullptr;
}

#define EMBER_TERNARY_GRAD_A(grad_a, grad_b, grad_c) grad_a
#define EMBER_TERNARY_GRAD_B(grad_a, grad_b, grad_c) grad_b
#define EMBER_TERNARY_GRAD_C(grad_a, grad_b, grad_c) grad_c

TensorList ternary_formula(TernaryOp op, const Scalar& value, const FormulaNode& n, const Arg (&args)[3],
                           const Tensor& g) {
  const Val va(n, args[0]), vb(n, args[1]), vc(n, args[2]);
  [[maybe_unused]] const Operand &a = va.o, &b = vb.o, &c = vc.o;
  [[maybe_unused]] const Tensor &at = va.t, &bt = vb.t, &ct = vc.t;
  [[maybe_unused]] const bool a_tensor = args[0].tensor, b_tensor = args[1].tensor, c_tensor = args[2].tensor;
  Tensor ga, gb, gc;
  switch (op) {
#define EMBER_TERNARY_GRAD(op, node, reads_a, reads_b, reads_c, ...) \
  case TernaryOp::op:                                                \
    if (n.needs(0)) ga = EMBER_TERNARY_GRAD_A(__VA_ARGS__);          \
    if (n.needs(1)) gb = EMBER_TERNARY_GRAD_B(__VA_ARGS__);          \
    if (n.needs(2)) gc = EMBER_TERNARY_GRAD_C(__VA_ARGS__);          \
    break;
#include "ember/autograd/ternary_derivatives.def"
#undef EMBER_TERNARY_GRAD
  }
  return {ga, gb, gc};
}

// Plans what a node saves: the operands (and the result) that the formulas of the inputs needing a gradient read.
// Fills each operand's Arg (its saved index, in operand order) and returns the mask of what is read.
template <size_t N>
uint8_t plan_saves(const Operand* const (&ops)[N], const uint8_t (&reads)[N], Arg (&args)[N]) {
  uint8_t read = 0;
  for (size_t i = 0; i < N; ++i)
    if (ops[i]->t && ops[i]->t->requires_grad()) read |= reads[i];  // the inputs that get a gradient edge
  int k = 0;
  for (size_t i = 0; i < N; ++i) {
    args[i].tensor = ops[i]->t != nullptr;
    if (!ops[i]->t)
      args[i].s = ops[i]->s;
    else if (read & (1 << i))
      args[i].saved = k++;
  }
  return read;
}

template <size_t N>
void save_planned(FormulaNode& n, const Operand* const (&ops)[N], const Arg (&args)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (args[i].saved >= 0) n.save(*ops[i]->t);
}

}  // namespace

void record_binary(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out, const Scalar& alpha) {
  const Tensor* in[] = {a.t, b.t};
  if (!needs_grad(in)) [[likely]]
    return;
  const BinaryGrad grad = binary_grad(op);
  if (!grad.defined || !is_inexact(out.dtype())) return;
  Arg args[2];
  const Operand* ops[] = {&a, &b};
  const uint8_t read = plan_saves(ops, {grad.reads_a, grad.reads_b}, args);
  const int result = read & R ? (args[0].saved >= 0) + (args[1].saved >= 0) : -1;  // saved after the operands
  auto n = make_node(binary_node(op, a.t, b.t), in,
                     [op, alpha, A_ = args[0], B_ = args[1], result](FormulaNode& n, TensorList& g) {
                       if (!is_complex(g[0].dtype())) return binary_formula(op, alpha, n, A_, B_, result, g[0]);
                       // Note [Complex gradients]: conj(formula(conj(g))) is g * conj(df/dz) for these holomorphic ops
                       TensorList r = binary_formula(op, alpha, n, A_, B_, result, conj_physical(g[0]));
                       for (Tensor& t : r)
                         if (t.defined()) t = conj_physical(t);
                       return r;
                     });
  save_planned(*n, ops, args);
  set_history(out, n);
  if (result >= 0) n->save_output(out);
}

void record_ternary(TernaryOp op, const Operand& a, const Operand& b, const Operand& c, const Tensor& out,
                    const Scalar& value) {
  const Tensor* in[] = {a.t, b.t, c.t};
  if (!needs_grad(in) || !is_inexact(out.dtype())) [[likely]]
    return;
  const TernaryGrad grad = ternary_grad(op);
  Arg args[3];
  const Operand* ops[] = {&a, &b, &c};
  plan_saves(ops, grad.reads, args);
  auto n = make_node(ternary_node(op, a.t, b.t, c.t), in, [op, value, args](FormulaNode& n, TensorList& g) {
    if (!is_complex(g[0].dtype())) return ternary_formula(op, value, n, args, g[0]);
    TensorList r = ternary_formula(op, value, n, args, conj_physical(g[0]));  // Note [Complex gradients]
    for (Tensor& t : r)
      if (t.defined()) t = conj_physical(t);
    return r;
  });
  save_planned(*n, ops, args);
  set_history(out, n);
}

}  // namespace ember::autograd
