// Gradient formulas of the binary and ternary elementwise ops (the unary ones: unary_grad.cpp), written with
// ember ops so that they are differentiable themselves. g is the output's gradient; the engine reduces
// broadcast gradients to each input's shape.
#include <cmath>
#include <iterator>
#include <numbers>

#include "ember/autograd/formulas.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/ops.h"

namespace ember::autograd {

namespace {

// A binary operand inside a formula: a saved tensor or the number the op was called with.
struct Arg {
  int saved = -1;  // index into the node's saved tensors, -1 for a number
  Scalar s;
  Tensor get(const FormulaNode& n) const { return saved >= 0 ? n.saved_tensor(saved) : Tensor(); }
};

// Operand access: `t` holds the unpacked tensor so the Operand's pointer stays valid.
struct Val {
  Tensor t;
  Scalar s;
  bool is_tensor;
  Val(const FormulaNode& n, const Arg& a) : t(a.get(n)), s(a.s), is_tensor(a.saved >= 0) {}
  Operand op() const { return is_tensor ? Operand(t) : Operand(s); }
};

const char* binary_backward_name(BinaryOp op, bool a_tensor, bool b_tensor) {
  switch (op) {
    case BinaryOp::Add: return "AddBackward0";
    case BinaryOp::Sub: return a_tensor ? "SubBackward0" : "RsubBackward1";
    case BinaryOp::Mul: return "MulBackward0";
    case BinaryOp::Div: return "DivBackward0";
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor: return "DivBackward1";
    case BinaryOp::Remainder: return "RemainderBackward0";
    case BinaryOp::Fmod: return "FmodBackward0";
    case BinaryOp::Pow: return !b_tensor ? "PowBackward0" : a_tensor ? "PowBackward1" : "PowBackward2";
    case BinaryOp::Atan2: return "Atan2Backward0";
    case BinaryOp::Maximum: return "MaximumBackward0";
    case BinaryOp::Minimum: return "MinimumBackward0";
    case BinaryOp::Fmax: return "FmaxBackward0";
    case BinaryOp::Fmin: return "FminBackward0";
    case BinaryOp::Hypot: return "HypotBackward0";
    case BinaryOp::Copysign: return "CopysignBackward0";
    case BinaryOp::Logaddexp: return "LogaddexpBackward0";
    case BinaryOp::Logaddexp2: return "Logaddexp2Backward0";
    case BinaryOp::Xlogy: return "XlogyBackward0";
    case BinaryOp::Xlog1py: return "SpecialXlog1PyBackward0";
    case BinaryOp::Heaviside: return "HeavisideBackward0";
    case BinaryOp::Nextafter: return "NextafterBackward0";
    case BinaryOp::Igamma: return "IgammaBackward0";
    case BinaryOp::Igammac: return "IgammacBackward0";
    case BinaryOp::Zeta: return "SpecialZetaBackward0";
    default: return nullptr;  // comparisons, logical and bitwise ops: no gradient (integer or bool results)
  }
}

// Which of (a, b, out) a binary formula reads.
void binary_needs(BinaryOp op, bool& a, bool& b, bool& out) {
  a = b = out = false;
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor: break;
    case BinaryOp::Mul:
    case BinaryOp::Remainder:
    case BinaryOp::Fmod:
    case BinaryOp::Atan2:
    case BinaryOp::Maximum:
    case BinaryOp::Minimum:
    case BinaryOp::Fmax:
    case BinaryOp::Fmin: a = b = true; break;
    case BinaryOp::Div: b = true; a = true; break;
    case BinaryOp::Pow:
    case BinaryOp::Hypot: a = b = out = true; break;
    case BinaryOp::Copysign: a = out = true; break;
    case BinaryOp::Logaddexp:
    case BinaryOp::Logaddexp2:
    case BinaryOp::Xlogy:
    case BinaryOp::Xlog1py:
    case BinaryOp::Igamma:
    case BinaryOp::Igammac:
    case BinaryOp::Zeta: a = b = true; break;
    default: break;
  }
}

TensorList binary_formula(BinaryOp op, const Scalar& alpha, const FormulaNode& n, const Arg& A, const Arg& B,
                          int out_idx, const Tensor& g) {
  const bool na = n.needs(0), nb = n.needs(1);
  Val a(n, A), b(n, B);
  Tensor r = out_idx >= 0 ? n.saved_tensor(out_idx) : Tensor();
  Tensor ga, gb;
  auto alpha_one = [&] { return alpha.to_double() == 1.0; };
  switch (op) {
    case BinaryOp::Add:
      if (na) ga = g;
      if (nb) gb = alpha_one() ? g : mul(g, alpha);
      break;
    case BinaryOp::Sub:
      if (na) ga = g;
      if (nb) gb = alpha_one() ? neg(g) : mul(g, -alpha.to_double());
      break;
    case BinaryOp::Mul:
      if (na) ga = mul(g, b.op());
      if (nb) gb = mul(g, a.op());
      break;
    case BinaryOp::Div:
      if (na) ga = div(g, b.op());
      if (nb) gb = neg(div(mul(g, a.op()), mul(b.op(), b.op())));
      break;
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor:  // piecewise constant
      if (na) ga = zeros_like(g);
      if (nb) gb = zeros_like(g);
      break;
    case BinaryOp::Remainder:
      if (na) ga = g;
      if (nb) gb = neg(mul(g, div(a.op(), b.op(), "floor")));
      break;
    case BinaryOp::Fmod:
      if (na) ga = g;
      if (nb) gb = neg(mul(g, div(a.op(), b.op(), "trunc")));
      break;
    case BinaryOp::Pow:
      if (na) {  // b * a^(b-1), and 0 where b == 0
        if (!b.is_tensor && b.s.to_double() == 0.0)
          ga = zeros_like(g);
        else if (!b.is_tensor)
          ga = mul(g, mul(pow(a.op(), b.s.to_double() - 1.0), b.s));
        else
          ga = mul(g, where(eq(b.t, 0), 0.0, mul(b.t, pow(a.op(), sub(b.t, 1)))));
      }
      if (nb) {  // a^b * log(a), and 0 where a == 0 and b >= 0
        Tensor lg = a.is_tensor ? log(a.t) : full({}, std::log(a.s.to_double()), TensorOptions(r.dtype()));
        Tensor v = mul(r, lg);
        if (a.is_tensor)
          v = where(logical_and(eq(a.t, 0), ge(b.t, 0)), 0.0, v);
        else if (a.s.to_double() == 0.0)
          v = where(ge(b.t, 0), 0.0, v);
        gb = mul(g, v);
      }
      break;
    case BinaryOp::Atan2: {
      Tensor d = add(mul(a.op(), a.op()), mul(b.op(), b.op()));
      if (na) ga = mul(g, div(b.op(), d));
      if (nb) gb = mul(g, div(neg(a.t.defined() ? a.t : full({}, a.s, TensorOptions(d.dtype()))), d));
      break;
    }
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {  // ties split the gradient evenly, as PyTorch
      Tensor tie = eq(a.op(), b.op());
      Tensor a_wins = op == BinaryOp::Maximum ? gt(a.op(), b.op()) : lt(a.op(), b.op());
      Tensor half = mul(g, 0.5);
      if (na) ga = where(tie, half, where(a_wins, g, 0.0));
      if (nb) gb = where(tie, half, where(logical_or(a_wins, tie), 0.0, g));
      break;
    }
    case BinaryOp::Fmax:
    case BinaryOp::Fmin: {  // the non-NaN operand wins; a wins ties
      Tensor a_wins = op == BinaryOp::Fmax ? ge(a.op(), b.op()) : le(a.op(), b.op());
      a_wins = logical_or(a_wins, isnan(b.t));
      if (na) ga = where(a_wins, g, 0.0);
      if (nb) gb = where(a_wins, 0.0, g);
      break;
    }
    case BinaryOp::Hypot:
      if (na) ga = mul(g, div(a.op(), r));
      if (nb) gb = mul(g, div(b.op(), r));
      break;
    case BinaryOp::Copysign:
      if (na) ga = mul(g, where(eq(a.t, 0), 0.0, div(r, a.t)));
      if (nb) gb = zeros_like(g);
      break;
    case BinaryOp::Logaddexp:
    case BinaryOp::Logaddexp2: {  // d/da = 1 / (1 + base^(b - a))
      const UnaryOp e = op == BinaryOp::Logaddexp ? UnaryOp::Exp : UnaryOp::Exp2;
      if (na) ga = div(g, add(unary_op(e, sub(b.op(), a.op())), 1.0));
      if (nb) gb = div(g, add(unary_op(e, sub(a.op(), b.op())), 1.0));
      break;
    }
    case BinaryOp::Xlogy:
    case BinaryOp::Xlog1py: {  // d/dx = xlogy(x != 0, y), d/dy = x / y (x / (y + 1))
      if (na) ga = mul(g, binary_op(op, ne(a.t, 0), b.op()));
      if (nb) gb = mul(g, div(a.op(), op == BinaryOp::Xlogy ? b.t : add(b.t, 1.0)));
      break;
    }
    case BinaryOp::Igamma:
    case BinaryOp::Igammac: {  // d/dx P(a, x) = x^(a-1) e^-x / Gamma(a); none for a, as PyTorch
      if (na) fail<NotImplementedError>("the derivative for '", binary_op_name(op), ": input' is not implemented.");
      if (nb) {
        Tensor d = exp(sub(sub(mul(sub(a.op(), 1.0), log(b.t)), b.t), unary_op(UnaryOp::Lgamma, a.t)));
        gb = op == BinaryOp::Igamma ? mul(g, d) : neg(mul(g, d));
      }
      break;
    }
    case BinaryOp::Zeta:  // d/dq zeta(s, q) = -s zeta(s + 1, q); none for s, as PyTorch
      if (na) fail<NotImplementedError>("the derivative for 'zeta' is not implemented.");
      if (nb) {
        Tensor s1 = a.is_tensor ? add(a.t, 1.0) : full({}, a.s.to_double() + 1.0, TensorOptions(g.dtype()));
        gb = neg(mul(g, mul(binary_op(BinaryOp::Zeta, s1, b.t), a.op())));
      }
      break;
    case BinaryOp::Heaviside:
    case BinaryOp::Nextafter:
      fail<NotImplementedError>("the derivative for '", binary_op_name(op), "' is not implemented.");
    default: break;
  }
  return {ga, gb};
}

}  // namespace

void record_binary(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out, const Scalar& alpha) {
  const Tensor* in[] = {a.t, b.t};
  if (!needs_grad(in)) [[likely]]
    return;
  const char* name = binary_backward_name(op, a.t != nullptr, b.t != nullptr);
  if (!name || !is_floating(out.dtype())) return;
  bool sa, sb, so;
  binary_needs(op, sa, sb, so);
  // mul and div: an operand is needed only for the other's gradient (x * 2 keeps nothing).
  const bool a_grad = a.t && a.t->requires_grad(), b_grad = b.t && b.t->requires_grad();
  if (op == BinaryOp::Mul) sa = b_grad, sb = a_grad;
  if (op == BinaryOp::Div) sa = b_grad;
  int k = 0;
  Arg A{sa && a.t ? k++ : -1, a.t ? Scalar() : a.s}, B{sb && b.t ? k++ : -1, b.t ? Scalar() : b.s};
  const int io = so ? k++ : -1;
  auto n = make_node(name, in, [op, alpha, A, B, io](FormulaNode& n, TensorList& g) {
    return binary_formula(op, alpha, n, A, B, io, g[0]);
  });
  if (A.saved >= 0) n->save(*a.t);
  if (B.saved >= 0) n->save(*b.t);
  set_history(out, n);
  if (io >= 0) n->save_output(out);
}

void record_ternary(TernaryOp op, const Operand& a, const Operand& b, const Operand& c, const Tensor& out,
                    const Scalar& value) {
  const Tensor* in[] = {a.t, b.t, c.t};
  if (!needs_grad(in) || !is_floating(out.dtype())) [[likely]]
    return;
  // Operands as saved tensors or numbers, in order a, b, c.
  int k = 0;
  Arg A{a.t ? k++ : -1, a.t ? Scalar() : a.s}, B{b.t ? k++ : -1, b.t ? Scalar() : b.s},
      C{c.t ? k++ : -1, c.t ? Scalar() : c.s};
  static const char* names[] = {"WhereBackward0", "LerpBackward0", "AddcmulBackward0", "AddcdivBackward0"};
  auto n = make_node(names[static_cast<int>(op)], in, [op, value, A, B, C](FormulaNode& n, TensorList& gs) {
    const Tensor& g = gs[0];
    Val a(n, A), b(n, B), c(n, C);
    Tensor ga, gb, gc;
    const double v = value.to_double();
    switch (op) {
      case TernaryOp::Where:  // a is the condition
        if (n.needs(1)) gb = where(a.t, g, 0.0);
        if (n.needs(2)) gc = where(a.t, 0.0, g);
        break;
      case TernaryOp::Lerp:  // a + c * (b - a)
        if (n.needs(0)) ga = c.is_tensor ? mul(g, sub(1.0, c.t)) : mul(g, 1.0 - c.s.to_double());
        if (n.needs(1)) gb = mul(g, c.op());
        if (n.needs(2)) gc = mul(g, sub(b.t, a.t));
        break;
      case TernaryOp::AddCMul:  // a + v * b * c
        if (n.needs(0)) ga = g;
        if (n.needs(1)) gb = mul(g, mul(c.op(), v));
        if (n.needs(2)) gc = mul(g, mul(b.op(), v));
        break;
      case TernaryOp::AddCDiv:  // a + v * b / c
        if (n.needs(0)) ga = g;
        if (n.needs(1)) gb = mul(g, div(v, c.op()));
        if (n.needs(2)) gc = neg(mul(g, div(mul(b.op(), v), mul(c.op(), c.op()))));
        break;
    }
    return TensorList{ga, gb, gc};
  });
  // Only what the formula reads: where keeps the condition; addcmul/addcdiv do not need a.
  if (a.t && op != TernaryOp::AddCMul && op != TernaryOp::AddCDiv) n->save(*a.t);
  else if (a.t) n->save(Tensor());
  if (b.t) n->save(op == TernaryOp::Where ? Tensor() : *b.t);
  if (c.t) n->save(op == TernaryOp::Where ? Tensor() : *c.t);
  set_history(out, n);
}

}  // namespace ember::autograd
