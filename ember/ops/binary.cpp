// Binary elementwise ops: validation, promotion, broadcasting, output allocation (from the table,
// ember/ops/binary.def); the math is in the device kernels (backend/cpu/binary*.cpp, backend/cuda/).
#include "ember/ops/binary.h"

#include "ember/autocast.h"
#include "ember/autograd/formulas.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/binary.h"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/unary.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/elementwise_layout.h"

namespace ember {

namespace {

// A Python number as a 0-d tensor of the compute dtype on the device of the op.
Tensor wrap(const Operand& x, ScalarType dtype, Device device) {
  if (x.t) return elementwise_operand(*x.t, device);
  return scalar_tensor(x.s, dtype, device.is_cpu() ? device : kCPU);
}

// The row's CUDA autocast policy (Note [Autocast]): pow and a number divided by a tensor run in float32, atan2 in
// the widest input dtype.
autocast::OpPolicy autocast_policy(uint8_t flags, const Operand& a) {
  using namespace binary_flag;
  if ((flags & kAutocastFp32) || ((flags & kAutocastFp32Number) && !a.t)) return autocast::kFp32Cuda;
  if (flags & kAutocastPromote) return autocast::kPromoteCuda;
  return {autocast::Policy::None, autocast::Policy::None};
}

// Note [Pow by a number]
// A float tensor raised to a number exponent that PyTorch computes without pow (aten's pow_tensor_scalar: 0 and 1
// as a fill and a copy, 2, 3, 0.5, -0.5, -1, -2 as products, roots and reciprocals) runs those kernels, so the bits are
// PyTorch's on every device and layout, and 64K floats take 7 us where the vector pow took 155 (x^3 is one pass of
// its own op, Cube: two multiplication passes took 10 us, PyTorch 7). False for other
// operands and exponents (the binary kernel then runs pow).
bool pow_by_number(BinaryOp op, const Operand& b, const Tensor& r, const Tensor& x, ScalarType compute) {
  if (op != BinaryOp::Pow || b.t || !is_floating(compute) || b.s.is_complex()) return false;
  const double e = b.s.to_double();
  if (e != 0 && e != 1 && e != 2 && e != 3 && e != 0.5 && e != -0.5 && e != -1 && e != -2) return false;
  // x^-2 takes two passes here, which 16-bit floats would round twice (PyTorch rounds once)
  if (e == -2 && compute != ScalarType::Float32 && compute != ScalarType::Float64) return false;
  const Device d = r.device();
  auto unary = [&](UnaryOp u, const Tensor& in) { unary_kernel[d](u, r, in, compute, UnaryArgs{}); };
  if (e == 0) {  // 1 everywhere, NaN included
    fill_kernel[d](r, Scalar(1.0));
  } else if (e == 1) {
    copy_kernel[d](r, x);
  } else if (e == 0.5) {
    unary(UnaryOp::Sqrt, x);
  } else if (e == -0.5) {
    unary(UnaryOp::Rsqrt, x);
  } else if (e == -1) {
    unary(UnaryOp::Reciprocal, x);
  } else if (e == 3) {  // (x * x) * x in one pass
    unary(UnaryOp::Cube, x);
  } else {
    binary_kernel[d](BinaryOp::Mul, r, x, x, compute, Scalar(1));
    if (e == -2) unary(UnaryOp::Reciprocal, r);
  }
  return true;
}

}  // namespace

Tensor elementwise_operand(const Tensor& t, Device device) {
  if (t.device() == device || (!device.is_cpu() && t.device().is_cpu() && t.dim() == 0)) return t;
  return to(t, device);
}

BinaryOp rounded(BinaryOp op, std::optional<std::string_view> mode) {
  if (!mode) return op;
  if (*mode == "trunc") return BinaryOp::DivTrunc;
  if (*mode == "floor") return BinaryOp::DivFloor;
  fail<Error>("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}

dispatch::Value operand_value(const Operand& o) { return o.t ? dispatch::value(*o.t) : dispatch::Value(o.s); }

// Offers a functional binary op to __torch_dispatch__ (Note [Python dispatch]) under PyTorch's overload names.
std::optional<Tensor> python_dispatch(BinaryOp op, const BinaryOpInfo& info, const Operand& a, const Operand& b,
                                      const Scalar& alpha, bool inplace) {
  std::string name = "aten.";
  if (inplace) {  // a.add_(b): aten.add_.Tensor
    if (op != BinaryOp::Add && op != BinaryOp::Sub && op != BinaryOp::Mul && op != BinaryOp::Div) return std::nullopt;
    ((name += info.name) += "_") += ".Tensor";
    std::vector<dispatch::Value> v{operand_value(a), operand_value(b)};
    if (op == BinaryOp::Add || op == BinaryOp::Sub) v.push_back(dispatch::value(alpha));
    auto r = dispatch::call(name.c_str(), std::move(v));
    if (!r) return std::nullopt;
    return *a.t;
  }
  std::optional<std::vector<Tensor>> r;
  // A number first (2 * x, 1 - x from Python's reflected operators) as PyTorch's schemas take it: the operands of
  // mul and add (alpha 1) swapped, sub as rsub.Scalar (x.__rsub__(1) is rsub(x, 1)).
  const bool number_first = !a.t && b.t;
  if (number_first &&
      (op == BinaryOp::Mul || (op == BinaryOp::Add && !alpha.is_complex() && alpha.to_double() == 1.0))) {
    (name += info.name) += ".Tensor";
    if (op == BinaryOp::Mul)
      r = dispatch::call(name.c_str(), {operand_value(b), operand_value(a)});
    else
      r = dispatch::call(name.c_str(), {operand_value(b), operand_value(a), dispatch::value(alpha)});
  } else if (number_first && op == BinaryOp::Sub) {
    r = dispatch::call("aten.rsub.Scalar", {operand_value(b), operand_value(a), dispatch::value(alpha)});
  } else if (op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor) {
    name += "div.Tensor_mode";
    r = dispatch::call(name.c_str(), {operand_value(a), operand_value(b),
                                      dispatch::value(std::string(op == BinaryOp::DivTrunc ? "trunc" : "floor"))});
  } else if (op == BinaryOp::Add || op == BinaryOp::Sub) {
    (name += info.name) += ".Tensor";
    r = dispatch::call(name.c_str(), {operand_value(a), operand_value(b), dispatch::value(alpha)});
  } else if (op == BinaryOp::Pow) {
    name += !a.t ? "pow.Scalar" : b.t ? "pow.Tensor_Tensor" : "pow.Tensor_Scalar";
    r = dispatch::call(name.c_str(), {operand_value(a), operand_value(b)});
  } else if (op == BinaryOp::OrthogonalPolynomial || op == BinaryOp::SmoothL1 || op == BinaryOp::Huber) {
    return std::nullopt;  // no aten op of their own (the losses offered theirs)
  } else {
    const bool scalar = !b.t && (info.kind == BinaryKind::Compare || info.kind == BinaryKind::Logical);
    ((name += info.name) += ".") += scalar ? "Scalar" : "Tensor";
    r = dispatch::call(name.c_str(), {operand_value(a), operand_value(b)});
  }
  if (!r) return std::nullopt;
  return dispatch::result<Tensor>(std::move(*r));
}

Tensor binary_op(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out, const Scalar& alpha) {
  const BinaryOpInfo& info = binary_info(op);
  if (dispatch::enabled()) [[unlikely]] {
    const bool inplace = out.defined() && a.t && out.is_same(*a.t);
    if (!out.defined() || inplace)
      if (auto r = python_dispatch(op, info, a, b, alpha, inplace)) return std::move(*r);
  }
  if (!out.defined() && autocast::any_active()) [[unlikely]] {
    const autocast::OpPolicy p = autocast_policy(info.flags, a);
    const Tensor ta = a.t ? *a.t : Tensor(), tb = b.t ? *b.t : Tensor();
    if (auto pol = autocast::policy_for(p, ta, tb); pol.first != autocast::Policy::None)
      return autocast::run(
          pol,
          [&](const Tensor& x, const Tensor& y) {
            return binary_op(op, x.defined() ? Operand(x) : a, y.defined() ? Operand(y) : b, out, alpha);
          },
          ta, tb);
  }
  const char* name = info.name;
  // Device: tensors share one device, except that a 0-d CPU tensor may join any device (as in PyTorch).
  Device device = kCPU;
  if (a.t && b.t) {
    const Tensor &x = *a.t, &y = *b.t;
    if (x.device() != y.device()) {
      const bool x_scalar = x.dim() == 0 && x.device().is_cpu(), y_scalar = y.dim() == 0 && y.device().is_cpu();
      EMBER_CHECK(x_scalar || y_scalar, name,
                  ": Expected all tensors to be on the same device, but found at least "
                  "two devices, ",
                  x.device(), " and ", y.device(), "!");
      device = x_scalar ? y.device() : x.device();
    } else {
      device = x.device();
    }
  } else {
    EMBER_CHECK(a.t || b.t, name, ": expected at least one tensor operand");
    // The row's numbers: PyTorch's overloads (the Python bindings raise its TypeError first).
    EMBER_CHECK_TYPE(a.t || info.numbers == BinaryNumbers::Both, name,
                     "(): argument 'input' must be a Tensor, not a "
                     "number");
    EMBER_CHECK_TYPE(b.t || info.numbers != BinaryNumbers::Neither, name,
                     "(): argument 'other' must be a Tensor, "
                     "not a number");
    device = (a.t ? *a.t : *b.t).device();
  }

  ResultTypeState rs;
  a.t ? rs.update(*a.t) : rs.update(a.s);
  b.t ? rs.update(*b.t) : rs.update(b.s);
  ScalarType compute = rs.result(), result = compute;
  if (is_complex(compute)) [[unlikely]] {  // the ops PyTorch has complex kernels for
    const bool supported = op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div ||
                           op == BinaryOp::Pow || op == BinaryOp::Eq || op == BinaryOp::Ne;
    EMBER_CHECK_T(NotImplementedError, supported, "\"", name, "_cpu\" not implemented for '", type_label(compute), "'");
    if (compute == ScalarType::ComplexHalf) {  // Note [complex32]: PyTorch has no complex32 div or pow
      if (op == BinaryOp::Pow) fail_complex_half("pow");
      if (op == BinaryOp::Div) fail_complex_half("div_cpu");
    }
    if (info.kind == BinaryKind::Compare) result = ScalarType::Bool;
  } else {
    switch (info.kind) {
      case BinaryKind::TrueDiv:
      case BinaryKind::FloatMath:
        if (!is_floating(compute)) compute = result = default_dtype();
        break;
      case BinaryKind::FloatOnly:
        EMBER_CHECK(is_floating(compute), "\"", name, "_cpu\" not implemented for '", type_label(compute), "' (", name,
                    " needs floating point tensors)");
        break;
      case BinaryKind::Integer:
        EMBER_CHECK(is_integral(compute, false), "\"", name, "_cpu\" not implemented for '", type_label(compute), "' (",
                    name, " needs integer tensors)");
        break;
      case BinaryKind::SameDtype: {
        const ScalarType ta = a.t ? a.t->dtype() : compute, tb = b.t ? b.t->dtype() : compute;
        EMBER_CHECK(ta == tb, name, " is not yet implemented for tensors with different dtypes.");
        break;
      }
      case BinaryKind::Compare:
      case BinaryKind::Logical: result = ScalarType::Bool; break;
      case BinaryKind::Bitwise:
        EMBER_CHECK(is_integral(compute, true), "\"", name, "_cpu\" not implemented for '", type_label(compute), "' (",
                    name, " needs integer or bool tensors, got ", compute, ")");
        break;
      case BinaryKind::Shift:
        EMBER_CHECK(is_integral(compute, false), "\"", name, "_cpu\" not implemented for '", type_label(compute), "' (",
                    name, " needs integer tensors, got ", compute, ")");
        break;
      case BinaryKind::Arith:
        if (op == BinaryOp::Sub) {  // PyTorch's sub_check: a bool operand (tensor or number) is an error
          const bool a_bool = a.t ? a.t->dtype() == ScalarType::Bool : a.s.is_bool();
          const bool b_bool = b.t ? b.t->dtype() == ScalarType::Bool : b.s.is_bool();
          EMBER_CHECK(!(a_bool && b_bool),
                      "Subtraction, the `-` operator, with two bool tensors is not supported. "
                      "Use the `^` or `logical_xor()` operator instead.");
          EMBER_CHECK(!a_bool && !b_bool,
                      "Subtraction, the `-` operator, with a bool tensor is not supported. "
                      "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        }
        if (compute == ScalarType::Bool && (info.flags & binary_flag::kBoolInt64))
          compute = result = ScalarType::Int64;  // e.g. floor_divide of bools computes in integers
        break;
    }
  }
  if (op == BinaryOp::Add || op == BinaryOp::Sub) {  // PyTorch's alpha_check (the rows with alpha), on the result
    EMBER_CHECK(!alpha.is_bool() || result == ScalarType::Bool, "Boolean alpha only supported for Boolean results.");
    EMBER_CHECK(is_complex(result) || !alpha.is_complex(),
                "For non-complex input tensors, argument alpha must not be a complex number.");
    EMBER_CHECK(is_inexact(result) || !alpha.is_floating(),
                "For integral input tensors, argument alpha must not be a floating point number.");
  }
  if (op == BinaryOp::Pow && is_integral(compute, false) && !b.t && b.s.is_integral())
    EMBER_CHECK(b.s.to_int() >= 0, "Integers to negative integer powers are not allowed.");

  // complex32 (Note [complex32]) computes in complex64, rounding once; operands round to complex32 first (numbers and
  // 0-d tensors of wider dtypes too, as PyTorch casts every operand to the common dtype), and so does alpha * b
  // (PyTorch's complex<Half> arithmetic).
  const bool chalf = compute == ScalarType::ComplexHalf;
  if (chalf) compute = ScalarType::ComplexFloat;
  Tensor x = wrap(a, chalf ? ScalarType::ComplexHalf : compute, device),
         y = wrap(b, chalf ? ScalarType::ComplexHalf : compute, device);
  Scalar alpha_ = alpha;
  if (chalf) [[unlikely]] {
    autograd::GradModeGuard no_grad(false);  // the node recorded below has the gradients
    // The dtypes complex32 holds exactly.
    auto exact = [](ScalarType t) {
      return t == ScalarType::ComplexHalf || t == ScalarType::Float16 || t == ScalarType::Bool ||
             t == ScalarType::UInt8 || t == ScalarType::Int8;
    };
    if (!exact(x.dtype())) x = to(x, ScalarType::ComplexHalf);
    if (!exact(y.dtype())) y = to(y, ScalarType::ComplexHalf);
    if ((op == BinaryOp::Add || op == BinaryOp::Sub) && alpha.to_complex() != Complex<double>(1)) {
      y = binary_op(BinaryOp::Mul, y, scalar_tensor(alpha, ScalarType::ComplexHalf, kCPU), {}, Scalar(1));
      alpha_ = Scalar(1);
    }
  }
  DimVector shape = broadcast_shapes(x.sizes(), y.sizes(), name);

  if (!out.defined()) {
    Tensor r = empty_like_operands(shape, TensorOptions(result).device(device), {a.t, b.t});
    if (r.numel() && !pow_by_number(op, b, r, x, compute)) binary_kernel[device](op, r, x, y, compute, alpha_);
    autograd::record_binary(op, a, b, r, alpha);
    return r;
  }
  if (const Tensor * in[] = {a.t, b.t, &out}; autograd::needs_grad(in)) {
    EMBER_CHECK(a.t && a.t->is_same(out), name,
                "(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad.");
    return autograd::inplace_with_grad(out, name, [&] { return binary_op(op, a, b, {}, alpha); });
  }
  EMBER_CHECK(out.device() == device, name,
              ": Expected all tensors to be on the same device, but found at least two "
              "devices, ",
              device, " and ", out.device(), "! (output)");
  EMBER_CHECK(can_cast(result, out.dtype()), name, ": result type ", type_label(result),
              " can't be cast to the desired output type ", type_label(out.dtype()));
  EMBER_CHECK(std::ranges::equal(out.sizes(), shape), name, ": output with shape ", shape_str(out.sizes()),
              " doesn't match the broadcast shape ", shape_str(shape));
  EMBER_CHECK(!has_internal_overlap(out), name,
              ": unsupported operation: more than one element of the written-to "
              "tensor refers to a single memory location. Please clone() the tensor before performing the operation.");
  if (out.numel()) {
    auto same_layout = [&](const Tensor& t) {
      return t.data_ptr() == out.data_ptr() && std::ranges::equal(t.strides(), out.strides()) &&
             std::ranges::equal(t.sizes(), out.sizes());
    };
    // an operand laid out exactly as out (a += b's a) is safe: checked first, as the cheaper test
    if ((!same_layout(x) && may_overlap(out, x)) || (!same_layout(y) && may_overlap(out, y))) {
      Tensor tmp = empty(shape, TensorOptions(result).device(device));
      if (!pow_by_number(op, b, tmp, x, compute)) binary_kernel[device](op, tmp, x, y, compute, alpha_);
      copy_into(out, tmp);
    } else if (!pow_by_number(op, b, out, x, compute)) {
      binary_kernel[device](op, out, x, y, compute, alpha_);
    }
  }
  out.bump_version();
  return out;
}

// The table's functions (their parameter types come from the row's numbers: ember/ops/binary.h).
#define EMBER_BINARY_ARG_none
#define EMBER_BINARY_ARG_alpha , const Scalar& alpha
#define EMBER_BINARY_ARG_rounding_mode , std::optional<std::string_view> rounding_mode
#define EMBER_BINARY_CALL_none(op) binary_op(BinaryOp::op, input, other)
#define EMBER_BINARY_CALL_alpha(op) binary_op(BinaryOp::op, input, other, {}, alpha)
#define EMBER_BINARY_CALL_rounding_mode(op) binary_op(rounded(BinaryOp::op, rounding_mode), input, other)
#define EMBER_BINARY_OP(op, name, kind, flags, numbers, keyword, ...)                                              \
  Tensor name(EMBER_BINARY_INPUT_##numbers input, EMBER_BINARY_OTHER_##numbers other EMBER_BINARY_ARG_##keyword) { \
    return EMBER_BINARY_CALL_##keyword(op);                                                                        \
  }
#define EMBER_BINARY_SPECIAL(op, name, kind, formula, numbers, ...)                     \
  Tensor name(EMBER_BINARY_INPUT_##numbers input, EMBER_BINARY_OTHER_##numbers other) { \
    return binary_op(BinaryOp::op, input, other);                                       \
  }
#define EMBER_BINARY_CUSTOM(...)
#define EMBER_BINARY_ALIAS(...)
#define EMBER_BINARY_POLYNOMIAL(family, name, ...) \
  Tensor special_##name(const Operand& x, const Operand& n) { return special_polynomial(Polynomial::family, x, n); }
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_SPECIAL
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL

Tensor special_polynomial(Polynomial family, const Operand& x, const Operand& n) {
  return binary_op(BinaryOp::OrthogonalPolynomial, x, n, {}, Scalar(static_cast<int64_t>(family)));
}

}  // namespace ember
