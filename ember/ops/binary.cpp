// Binary elementwise ops: validation, promotion, broadcasting, output allocation; the math is in the
// device kernels (backend/cpu/binary*.cpp, backend/cuda/).
#include "ember/ops/binary.h"

#include <iterator>

#include "ember/autocast.h"
#include "ember/autograd/formulas.h"
#include "ember/autograd/node.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

// FloatOnly: floating operands only (no integer kernels, as PyTorch); SameDtype: both operands of one dtype.
enum class Kind : uint8_t {
  Arith, TrueDiv, FloatMath, FloatOnly, Compare, Logical, Bitwise, Shift, Integer, SameDtype
};

struct OpInfo {
  const char* name;
  Kind kind;
};

const OpInfo& info(BinaryOp op) {
  static const OpInfo table[] = {
      {"add", Kind::Arith},         {"sub", Kind::Arith},          {"mul", Kind::Arith},
      {"div", Kind::TrueDiv},       {"div", Kind::Arith},          {"floor_divide", Kind::Arith},
      {"remainder", Kind::Arith},   {"fmod", Kind::Arith},         {"pow", Kind::Arith},
      {"atan2", Kind::FloatMath},   {"maximum", Kind::Arith},      {"minimum", Kind::Arith},
      {"fmax", Kind::Arith},        {"fmin", Kind::Arith},         {"hypot", Kind::FloatMath},
      {"copysign", Kind::FloatMath}, {"bitwise_and", Kind::Bitwise}, {"bitwise_or", Kind::Bitwise},
      {"bitwise_xor", Kind::Bitwise}, {"bitwise_left_shift", Kind::Shift}, {"bitwise_right_shift", Kind::Shift},
      {"logical_and", Kind::Logical}, {"logical_or", Kind::Logical}, {"logical_xor", Kind::Logical},
      {"eq", Kind::Compare},        {"ne", Kind::Compare},         {"lt", Kind::Compare},
      {"le", Kind::Compare},        {"gt", Kind::Compare},         {"ge", Kind::Compare},
      {"logaddexp", Kind::FloatOnly}, {"logaddexp2", Kind::FloatOnly}, {"xlogy", Kind::FloatMath},
      {"special_xlog1py", Kind::FloatMath}, {"heaviside", Kind::SameDtype}, {"gcd", Kind::Integer},
      {"lcm", Kind::Integer},       {"nextafter", Kind::FloatOnly}, {"igamma", Kind::FloatOnly},
      {"igammac", Kind::FloatOnly}, {"special_zeta", Kind::FloatMath}, {"orthogonal_polynomial", Kind::FloatMath},
  };
  static_assert(std::size(table) == static_cast<size_t>(BinaryOp::OrthogonalPolynomial) + 1,
                "one entry per BinaryOp");
  return table[static_cast<int>(op)];
}


// A Python number as a 0-d tensor of the compute dtype on the device of the op.
Tensor wrap(const Operand& x, ScalarType dtype, Device device) {
  if (x.t) return elementwise_operand(*x.t, device);
  return scalar_tensor(x.s, dtype, device.is_cuda() ? kCPU : device);
}

}  // namespace

Tensor elementwise_operand(const Tensor& t, Device device) {
  if (t.device() == device || (device.is_cuda() && t.device().is_cpu() && t.dim() == 0)) return t;
  return to(t, device);
}

const char* binary_op_name(BinaryOp op) { return info(op).name; }

namespace {
// Under CUDA autocast pow and scalar / tensor run in float32, atan2 in the widest input dtype (Note [Autocast]).
autocast::OpPolicy binary_autocast_policy(BinaryOp op, const Operand& a) {
  if (op == BinaryOp::Pow || (op == BinaryOp::Div && !a.t)) return autocast::kFp32Cuda;
  if (op == BinaryOp::Atan2) return autocast::kPromoteCuda;
  return {autocast::Policy::None, autocast::Policy::None};
}
}  // namespace

Tensor binary_op(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out, const Scalar& alpha) {
  if (!out.defined() && autocast::any_active()) [[unlikely]] {
    const autocast::OpPolicy p = binary_autocast_policy(op, a);
    const Tensor ta = a.t ? *a.t : Tensor(), tb = b.t ? *b.t : Tensor();
    if (auto pol = autocast::policy_for(p, ta, tb); pol.first != autocast::Policy::None)
      return autocast::run(
          pol,
          [&](const Tensor& x, const Tensor& y) {
            return binary_op(op, x.defined() ? Operand(x) : a, y.defined() ? Operand(y) : b, out, alpha);
          },
          ta, tb);
  }
  const OpInfo& oi = info(op);
  const char* name = oi.name;
  // Device: tensors share one device, except that a 0-d CPU tensor may join any device (as in PyTorch).
  Device device = kCPU;
  if (a.t && b.t) {
    const Tensor &x = *a.t, &y = *b.t;
    if (x.device() != y.device()) {
      const bool x_scalar = x.dim() == 0 && x.device().is_cpu(), y_scalar = y.dim() == 0 && y.device().is_cpu();
      EMBER_CHECK(x_scalar || y_scalar, name, ": Expected all tensors to be on the same device, but found at least "
                  "two devices, ", x.device(), " and ", y.device(), "!");
      device = x_scalar ? y.device() : x.device();
    } else {
      device = x.device();
    }
  } else {
    EMBER_CHECK(a.t || b.t, name, ": expected at least one tensor operand");
    device = (a.t ? *a.t : *b.t).device();
  }

  ResultTypeState rs;
  a.t ? rs.update(*a.t) : rs.update(a.s);
  b.t ? rs.update(*b.t) : rs.update(b.s);
  ScalarType compute = rs.result(), result = compute;
  switch (oi.kind) {
    case Kind::TrueDiv:
    case Kind::FloatMath:
      if (!is_floating(compute)) compute = result = default_dtype();
      break;
    case Kind::FloatOnly:
      EMBER_CHECK(is_floating(compute), "\"", name, "_cpu\" not implemented for '", type_label(compute), "' (", name,
                  " needs floating point tensors)");
      break;
    case Kind::Integer:
      EMBER_CHECK(is_integral(compute, false), "\"", name, "_cpu\" not implemented for '", type_label(compute),
                  "' (", name, " needs integer tensors)");
      break;
    case Kind::SameDtype: {
      const ScalarType ta = a.t ? a.t->dtype() : compute, tb = b.t ? b.t->dtype() : compute;
      EMBER_CHECK(ta == tb, name, " is not yet implemented for tensors with different dtypes.");
      break;
    }
    case Kind::Compare:
    case Kind::Logical:
      result = ScalarType::Bool;
      break;
    case Kind::Bitwise:
      EMBER_CHECK(is_integral(compute, true), "\"", name, "_cpu\" not implemented for '", type_label(compute),
                  "' (", name, " needs integer or bool tensors, got ", compute, ")");
      break;
    case Kind::Shift:
      EMBER_CHECK(is_integral(compute, false), "\"", name, "_cpu\" not implemented for '", type_label(compute),
                  "' (", name, " needs integer tensors, got ", compute, ")");
      break;
    case Kind::Arith:
      if (op == BinaryOp::Sub) {  // PyTorch's sub_check: a bool operand (tensor or number) is an error
        const bool a_bool = a.t ? a.t->dtype() == ScalarType::Bool : a.s.is_bool();
        const bool b_bool = b.t ? b.t->dtype() == ScalarType::Bool : b.s.is_bool();
        EMBER_CHECK(!(a_bool && b_bool), "Subtraction, the `-` operator, with two bool tensors is not supported. "
                    "Use the `^` or `logical_xor()` operator instead.");
        EMBER_CHECK(!a_bool && !b_bool, "Subtraction, the `-` operator, with a bool tensor is not supported. "
                    "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
      }
      if (compute == ScalarType::Bool) {
        if (op != BinaryOp::Add && op != BinaryOp::Mul && op != BinaryOp::Maximum && op != BinaryOp::Minimum &&
            op != BinaryOp::Fmax && op != BinaryOp::Fmin)
          compute = result = ScalarType::Int64;  // e.g. floor_divide of bools computes in integers
      }
      break;
  }
  if (op == BinaryOp::Add || op == BinaryOp::Sub) {  // PyTorch's alpha_check, on the result dtype
    EMBER_CHECK(!alpha.is_bool() || result == ScalarType::Bool, "Boolean alpha only supported for Boolean results.");
    EMBER_CHECK(is_floating(result) || !alpha.is_floating(),
                "For integral input tensors, argument alpha must not be a floating point number.");
  }
  if (op == BinaryOp::Pow && is_integral(compute, false) && !b.t && b.s.is_integral())
    EMBER_CHECK(b.s.to_int() >= 0, "Integers to negative integer powers are not allowed.");

  Tensor x = wrap(a, compute, device), y = wrap(b, compute, device);
  DimVector shape = broadcast_shapes(x.sizes(), y.sizes(), name);

  if (!out.defined()) {
    Tensor r = empty(shape, TensorOptions(result).device(device));
    if (r.numel()) binary_kernel[device](op, r, x, y, compute, alpha);
    autograd::record_binary(op, a, b, r, alpha);
    return r;
  }
  if (const Tensor* in[] = {a.t, b.t, &out}; autograd::needs_grad(in)) {
    EMBER_CHECK(a.t && a.t->is_same(out), name, "(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad.");
    return autograd::inplace_with_grad(out, name, [&] { return binary_op(op, a, b, {}, alpha); });
  }
  EMBER_CHECK(out.device() == device, name, ": Expected all tensors to be on the same device, but found at least two "
              "devices, ", device, " and ", out.device(), "! (output)");
  EMBER_CHECK(can_cast(result, out.dtype()), name, ": result type ", type_label(result),
              " can't be cast to the desired output type ", type_label(out.dtype()));
  EMBER_CHECK(std::ranges::equal(out.sizes(), shape), name, ": output with shape ", shape_str(out.sizes()),
              " doesn't match the broadcast shape ", shape_str(shape));
  EMBER_CHECK(!has_internal_overlap(out), name, ": unsupported operation: more than one element of the written-to "
              "tensor refers to a single memory location. Please clone() the tensor before performing the operation.");
  if (out.numel()) {
    auto same_layout = [&](const Tensor& t) {
      return t.data_ptr() == out.data_ptr() && std::ranges::equal(t.strides(), out.strides()) &&
             std::ranges::equal(t.sizes(), out.sizes());
    };
    if ((may_overlap(out, x) && !same_layout(x)) || (may_overlap(out, y) && !same_layout(y))) {
      Tensor tmp = empty(shape, TensorOptions(result).device(device));
      binary_kernel[device](op, tmp, x, y, compute, alpha);
      copy_into(out, tmp);
    } else {
      binary_kernel[device](op, out, x, y, compute, alpha);
    }
  }
  out.bump_version();
  return out;
}

Tensor add(const Operand& a, const Operand& b, const Scalar& alpha) { return binary_op(BinaryOp::Add, a, b, {}, alpha); }
Tensor sub(const Operand& a, const Operand& b, const Scalar& alpha) { return binary_op(BinaryOp::Sub, a, b, {}, alpha); }
Tensor mul(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Mul, a, b); }
Tensor div(const Operand& a, const Operand& b, std::optional<std::string_view> mode) {
  if (!mode) return binary_op(BinaryOp::Div, a, b);
  if (*mode == "trunc") return binary_op(BinaryOp::DivTrunc, a, b);
  if (*mode == "floor") return binary_op(BinaryOp::DivFloor, a, b);
  fail<Error>("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}
Tensor floor_divide(const Operand& a, const Operand& b) { return binary_op(BinaryOp::DivFloor, a, b); }
Tensor remainder(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Remainder, a, b); }
Tensor fmod(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Fmod, a, b); }
Tensor pow(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Pow, a, b); }
Tensor atan2(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Atan2, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Maximum, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Minimum, a, b); }
Tensor fmax(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Fmax, a, b); }
Tensor fmin(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Fmin, a, b); }
Tensor hypot(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Hypot, a, b); }
Tensor copysign(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Copysign, a, b); }
Tensor bitwise_and(const Operand& a, const Operand& b) { return binary_op(BinaryOp::BitAnd, a, b); }
Tensor bitwise_or(const Operand& a, const Operand& b) { return binary_op(BinaryOp::BitOr, a, b); }
Tensor bitwise_xor(const Operand& a, const Operand& b) { return binary_op(BinaryOp::BitXor, a, b); }
Tensor bitwise_left_shift(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Shl, a, b); }
Tensor bitwise_right_shift(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Shr, a, b); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::LogicalAnd, a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::LogicalOr, a, b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::LogicalXor, a, b); }
Tensor eq(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Eq, a, b); }
Tensor ne(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Ne, a, b); }
Tensor lt(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Lt, a, b); }
Tensor le(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Le, a, b); }
Tensor gt(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Gt, a, b); }
Tensor ge(const Operand& a, const Operand& b) { return binary_op(BinaryOp::Ge, a, b); }

}  // namespace ember
