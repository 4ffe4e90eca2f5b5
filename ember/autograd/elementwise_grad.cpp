// Gradient formulas of the elementwise op families (binary, unary, ternary): one table per family, written with
// ember ops so that they are differentiable themselves. g is the output's gradient; the engine reduces
// broadcast gradients to each input's shape.
#include <cmath>
#include <iterator>
#include <numbers>

#include "ember/autograd/formulas.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/ops/detail/unary_backward.h"
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

const char* const kUnaryBackward[] = {
    "NegBackward0", "AbsBackward0", "SignBackward0", "PowBackward0", "ReluBackward0", "FloorBackward0",
    "CeilBackward0", "RoundBackward0", "TruncBackward0", nullptr, "ClampBackward1", "NanToNumBackward0",
    "ReciprocalBackward0", "SqrtBackward0", "RsqrtBackward0", "ExpBackward0", "Exp2Backward0", "Expm1Backward0",
    "LogBackward0", "Log2Backward0", "Log10Backward0", "Log1PBackward0", "SinBackward0", "CosBackward0",
    "TanBackward0", "AsinBackward0", "AcosBackward0", "AtanBackward0", "SinhBackward0", "CoshBackward0",
    "TanhBackward0", "AsinhBackward0", "AcoshBackward0", "AtanhBackward0", "SigmoidBackward0", "LogitBackward0",
    "GeluBackward0", "GeluBackward0", "SiluBackward0", "SoftplusBackward0", "MishBackward0", "ErfBackward0",
    "ErfcBackward0", "ErfinvBackward0", "FracBackward0", "LgammaBackward0", "DigammaBackward0", "PolygammaBackward0",
    "I0Backward0", "SpecialI0EBackward0", "SpecialI1Backward0", "SpecialI1EBackward0", "SincBackward0",
    "Deg2RadBackward0", "Rad2DegBackward0", "SpecialErfcxBackward0", "SpecialNdtrBackward0", "SpecialNdtriBackward0",
    "SpecialLogNdtrBackward0", "SpecialEntrBackward0", "FrexpBackward0", "HardtanhBackward0", "LeakyReluBackward0",
    "EluBackward0",
    "HardswishBackward0", "HardsigmoidBackward0", "SoftsignBackward0", "TanhshrinkBackward0", "ThresholdBackward0",
    "LogSigmoidBackward0", "HardshrinkBackward0", "SoftshrinkBackward0"};
static_assert(std::size(kUnaryBackward) == static_cast<size_t>(UnaryOp::LogicalNot), "one name per float UnaryOp");

enum class Saves : uint8_t { Nothing, Input, Output };

Saves unary_saves(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
    case UnaryOp::Frac: return Saves::Nothing;
    case UnaryOp::Relu:  // Chainer's retain_outputs: these formulas read only the result
    case UnaryOp::Reciprocal:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Exp:
    case UnaryOp::Exp2:
    case UnaryOp::Expm1:
    case UnaryOp::Tan:
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::Erfinv:
    case UnaryOp::Ndtri: return Saves::Output;
    case UnaryOp::Deg2Rad:
    case UnaryOp::Rad2Deg: return Saves::Nothing;
    default: return Saves::Input;
  }
}

Tensor unary_formula(UnaryOp op, const UnaryArgs& args, const Tensor& g, const Tensor& v) {
  // v: the saved input x, or the saved result r (unary_saves).
  const Tensor& x = v;
  const Tensor& r = v;
  constexpr double kSqrtPi = 1.7724538509055160273, kInvSqrt2 = 0.70710678118654752440;
  switch (op) {
    case UnaryOp::Neg: return neg(g);
    case UnaryOp::Abs: return mul(g, sign(x));
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc: return zeros_like(g);
    case UnaryOp::Frac: return g;
    case UnaryOp::Square: return mul(g, mul(x, 2.0));
    case UnaryOp::Relu: return mul(g, gt(r, 0));
    case UnaryOp::Clamp: {
      Tensor keep = ones_like(x, ScalarType::Bool);
      if (!std::isnan(args.a)) keep = logical_and(keep, ge(x, args.a));
      if (!std::isnan(args.b)) keep = logical_and(keep, le(x, args.b));
      return mul(g, keep);
    }
    case UnaryOp::NanToNum: return mul(g, isfinite(x));
    case UnaryOp::Reciprocal: return neg(mul(g, mul(r, r)));
    case UnaryOp::Sqrt: return div(g, mul(r, 2.0));
    case UnaryOp::Rsqrt: return mul(g, mul(pow(r, 3.0), -0.5));
    case UnaryOp::Exp: return mul(g, r);
    case UnaryOp::Exp2: return mul(g, mul(r, std::numbers::ln2));
    case UnaryOp::Expm1: return mul(g, add(r, 1.0));
    case UnaryOp::Log: return div(g, x);
    case UnaryOp::Log2: return div(g, mul(x, std::numbers::ln2));
    case UnaryOp::Log10: return div(g, mul(x, std::numbers::ln10));
    case UnaryOp::Log1p: return div(g, add(x, 1.0));
    case UnaryOp::Sin: return mul(g, cos(x));
    case UnaryOp::Cos: return neg(mul(g, sin(x)));
    case UnaryOp::Tan: return mul(g, add(mul(r, r), 1.0));
    case UnaryOp::Asin: return mul(g, rsqrt(sub(1.0, mul(x, x))));
    case UnaryOp::Acos: return neg(mul(g, rsqrt(sub(1.0, mul(x, x)))));
    case UnaryOp::Atan: return div(g, add(mul(x, x), 1.0));
    case UnaryOp::Sinh: return mul(g, unary_op(UnaryOp::Cosh, x));
    case UnaryOp::Cosh: return mul(g, unary_op(UnaryOp::Sinh, x));
    case UnaryOp::Tanh: return mul(g, sub(1.0, mul(r, r)));
    case UnaryOp::Asinh: return mul(g, rsqrt(add(mul(x, x), 1.0)));
    case UnaryOp::Acosh: return mul(g, rsqrt(sub(mul(x, x), 1.0)));
    case UnaryOp::Atanh: return div(g, sub(1.0, mul(x, x)));
    case UnaryOp::Sigmoid: return mul(g, mul(r, sub(1.0, r)));
    case UnaryOp::Logit: {
      Tensor d = div(g, mul(x, sub(1.0, x)));
      if (args.a < 0) return where(logical_or(lt(x, 0.0), gt(x, 1.0)), std::nan(""), d);
      return where(logical_or(lt(x, args.a), gt(x, 1.0 - args.a)), 0.0, d);
    }
    case UnaryOp::Gelu: {  // Phi(x) + x phi(x)
      Tensor cdf = mul(add(unary_op(UnaryOp::Erf, mul(x, kInvSqrt2)), 1.0), 0.5);
      Tensor pdf = mul(exp(mul(mul(x, x), -0.5)), 1.0 / (kSqrtPi * std::numbers::sqrt2));
      return mul(g, add(cdf, mul(x, pdf)));
    }
    case UnaryOp::GeluTanh: {
      const double k = std::numbers::sqrt2 / kSqrtPi, c = 0.044715;
      Tensor x2 = mul(x, x);
      Tensor t = tanh(mul(add(x, mul(mul(x2, x), c)), k));
      Tensor left = mul(add(t, 1.0), 0.5);
      Tensor right = mul(mul(mul(x, sub(1.0, mul(t, t))), add(mul(x2, 3 * c), 1.0)), 0.5 * k);
      return mul(g, add(left, right));
    }
    case UnaryOp::Silu: {
      Tensor s = sigmoid(x);
      return mul(g, mul(s, add(mul(x, sub(1.0, s)), 1.0)));
    }
    case UnaryOp::Softplus: {  // beta = args.a, threshold = args.b: linear above the threshold
      Tensor bx = mul(x, args.a);
      return where(gt(bx, args.b), g, mul(g, sigmoid(bx)));
    }
    case UnaryOp::Mish: {
      Tensor t = tanh(softplus(x));
      return mul(g, add(t, mul(mul(x, sigmoid(x)), sub(1.0, mul(t, t)))));
    }
    case UnaryOp::Erf: return mul(g, mul(exp(neg(mul(x, x))), 2.0 / kSqrtPi));
    case UnaryOp::Erfc: return mul(g, mul(exp(neg(mul(x, x))), -2.0 / kSqrtPi));
    case UnaryOp::Erfinv: return mul(g, mul(exp(mul(r, r)), kSqrtPi / 2.0));
    // Special functions (math/special.h). Each derivative is again an op with a gradient.
    case UnaryOp::Lgamma: return mul(g, unary_op(UnaryOp::Digamma, x));
    case UnaryOp::Digamma: return mul(g, unary_op(UnaryOp::Polygamma, x, {}, UnaryArgs{1}));
    case UnaryOp::Polygamma: return mul(g, unary_op(UnaryOp::Polygamma, x, {}, UnaryArgs{args.a + 1}));
    case UnaryOp::I0: return mul(g, unary_op(UnaryOp::I1, x));
    case UnaryOp::I0e:  // i1e(x) - sgn(x) i0e(x)
      return mul(g, sub(unary_op(UnaryOp::I1e, x), mul(sign(x), unary_op(UnaryOp::I0e, x))));
    case UnaryOp::I1:  // i0(x) - i1(x) / x, and 1/2 at 0
      return mul(g, where(eq(x, 0.0), 0.5, sub(unary_op(UnaryOp::I0, x), div(unary_op(UnaryOp::I1, x), x))));
    case UnaryOp::I1e:  // i0e(x) - i1e(x) (sgn(x) + 1/x), and 1/2 at 0
      return mul(g, where(eq(x, 0.0), 0.5,
                          sub(unary_op(UnaryOp::I0e, x), mul(unary_op(UnaryOp::I1e, x), add(sign(x), reciprocal(x))))));
    case UnaryOp::Sinc: {  // (cos(pi x) pi x - sin(pi x)) / (pi x^2), and 0 at 0
      Tensor px = mul(x, std::numbers::pi);
      Tensor d = div(sub(mul(cos(px), px), sin(px)), mul(px, x));
      return mul(g, where(eq(x, 0.0), 0.0, d));
    }
    case UnaryOp::Deg2Rad: return mul(g, std::numbers::pi / 180.0);
    case UnaryOp::Rad2Deg: return mul(g, 180.0 / std::numbers::pi);
    case UnaryOp::Erfcx: return mul(g, sub(mul(mul(x, unary_op(UnaryOp::Erfcx, x)), 2.0), 2.0 / kSqrtPi));
    case UnaryOp::Ndtr: return mul(g, mul(exp(mul(mul(x, x), -0.5)), 1.0 / (kSqrtPi * std::numbers::sqrt2)));
    case UnaryOp::Ndtri: return mul(g, mul(exp(mul(mul(r, r), 0.5)), kSqrtPi * std::numbers::sqrt2));
    case UnaryOp::LogNdtr:  // pdf(x) / ndtr(x) = 1 / (sqrt(pi/2) erfcx(-x/sqrt2)): no cancellation in the left tail
      return div(g, mul(unary_op(UnaryOp::Erfcx, mul(x, -kInvSqrt2)), kSqrtPi * kInvSqrt2));
    case UnaryOp::Entr: return mul(g, neg(add(log(x), 1.0)));
    // Activations; the kinks follow PyTorch's backward kernels (e.g. hardtanh passes no gradient at its bounds).
    case UnaryOp::Hardtanh: return mul(g, logical_and(gt(x, args.a), lt(x, args.b)));
    case UnaryOp::LeakyRelu: return where(gt(x, 0.0), g, mul(g, args.a));
    case UnaryOp::Elu:  // args: alpha, scale, input_scale
      return where(gt(x, 0.0), mul(g, args.b), mul(g, mul(exp(mul(x, args.c)), args.a * args.b * args.c)));
    case UnaryOp::Hardswish: return where(lt(x, -3.0), 0.0, where(le(x, 3.0), mul(g, add(div(x, 3.0), 0.5)), g));
    case UnaryOp::Hardsigmoid: return div(mul(g, logical_and(gt(x, -3.0), lt(x, 3.0))), 6.0);
    case UnaryOp::Softsign: return div(g, square(add(abs(x), 1.0)));
    case UnaryOp::Tanhshrink: return mul(g, square(tanh(x)));
    case UnaryOp::Threshold: return where(le(x, args.a), 0.0, g);
    case UnaryOp::LogSigmoid: return mul(g, sigmoid(neg(x)));
    case UnaryOp::Hardshrink:
    case UnaryOp::Softshrink: return where(logical_and(ge(x, -args.a), le(x, args.a)), 0.0, g);
    default: return {};
  }
}

}  // namespace

bool unary_grad_reads_input(UnaryOp op) { return unary_saves(op) == Saves::Input; }

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

void record_unary(UnaryOp op, const Tensor& x, const Tensor& out, const UnaryArgs& args) {
  const Tensor* in[] = {&x};
  if (!needs_grad(in)) [[likely]]
    return;
  if (op >= UnaryOp::LogicalNot || op == UnaryOp::BitNot || !is_floating(out.dtype())) return;
  const Saves saves = unary_saves(op);
  auto n = make_node(kUnaryBackward[static_cast<int>(op)], in, [op, args, saves](FormulaNode& n, TensorList& g) {
    const Tensor v = saves == Saves::Nothing ? Tensor() : n.saved_tensor(0);
    if (!is_grad_enabled())  // Note [Fused activation backward]
      if (Tensor fused = fused_unary_backward(op, g[0], v, args); fused.defined()) return TensorList{fused};
    return TensorList{unary_formula(op, args, g[0], v)};
  });
  if (saves == Saves::Input) n->save(x);
  set_history(out, n);
  if (saves == Saves::Output) n->save_output(out);
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
