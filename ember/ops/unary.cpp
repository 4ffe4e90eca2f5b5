// Unary elementwise ops: dtype rules and output handling; the math is in the device kernels.
#include "ember/ops/unary.h"

#include <cmath>
#include <iterator>
#include <limits>

#include "ember/autocast.h"
#include "ember/autograd/formulas.h"
#include "ember/autograd/node.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

enum class Kind : uint8_t { Same, Float, Bool };

Kind kind(UnaryOp op) {
  if (op >= UnaryOp::LogicalNot) return Kind::Bool;
  if (op >= UnaryOp::Reciprocal) return Kind::Float;
  return Kind::Same;
}


const char* const kNames[] = {
    "neg", "abs", "sign", "square", "relu", "floor", "ceil", "round", "trunc", "bitwise_not", "clamp", "nan_to_num",
    "reciprocal", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "logit", "gelu", "gelu",
    "silu", "softplus", "mish", "erf", "erfc", "erfinv", "frac", "lgamma", "digamma", "polygamma", "i0",
    "special_i0e", "special_i1", "special_i1e", "sinc", "deg2rad", "rad2deg", "special_erfcx", "special_ndtr",
    "special_ndtri", "special_log_ndtr", "special_entr", "frexp", "hardtanh", "leaky_relu", "elu", "hardswish",
    "hardsigmoid", "softsign", "tanhshrink", "threshold", "log_sigmoid", "hardshrink", "softshrink", "logical_not",
    "isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit", "frexp"};
static_assert(std::size(kNames) == static_cast<size_t>(UnaryOp::FrexpExponent) + 1, "one name per UnaryOp");

}  // namespace

const char* unary_op_name(UnaryOp op) { return kNames[static_cast<int>(op)]; }

namespace {
// The unary ops CUDA autocast runs in float32 (Note [Autocast]).
bool autocast_fp32(UnaryOp op) {
  switch (op) {
    case UnaryOp::Acos: case UnaryOp::Asin: case UnaryOp::Cosh: case UnaryOp::Sinh: case UnaryOp::Tan:
    case UnaryOp::Erfinv: case UnaryOp::Exp: case UnaryOp::Expm1: case UnaryOp::Log: case UnaryOp::Log2:
    case UnaryOp::Log10: case UnaryOp::Log1p: case UnaryOp::Reciprocal: case UnaryOp::Rsqrt: case UnaryOp::Softplus:
      return true;
    default:
      return false;
  }
}
}  // namespace

Tensor unary_op(UnaryOp op, const Tensor& x, const Tensor& out, const UnaryArgs& args) {
  if (!out.defined() && autocast_fp32(op)) EMBER_AUTOCAST(autocast::kFp32Cuda, unary_op, op, x, out, args);
  const char* name = unary_op_name(op);
  ScalarType compute = x.dtype(), result = compute;
  switch (kind(op)) {
    case Kind::Float:
      if (!is_floating(compute)) compute = result = default_dtype();
      break;
    case Kind::Bool:
      result = ScalarType::Bool;
      break;
    case Kind::Same:
      if (op == UnaryOp::Neg)
        EMBER_CHECK(compute != ScalarType::Bool, "Negation, the `-` operator, on a bool tensor is not supported. If you "
                    "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
      if (op == UnaryOp::BitNot)
        EMBER_CHECK(is_integral(compute, true), "\"bitwise_not_cpu\" not implemented for '", type_label(compute),
                    "' (bitwise_not needs integer or bool tensors)");
      if (op == UnaryOp::Square && compute == ScalarType::Bool) compute = result = ScalarType::Int64;
      break;
  }
  if (op == UnaryOp::Round)  // integers are integral already; to tens or hundreds PyTorch has no kernel
    EMBER_CHECK(args.a == 0 || is_floating(x.dtype()), "\"round_cpu\" not implemented for '", type_label(x.dtype()),
                "' (round with decimals=", args.a, " needs a floating point tensor)");
  if (op >= UnaryOp::Hardtanh && op < UnaryOp::LogicalNot)  // as PyTorch: no integer kernels for these
    EMBER_CHECK(is_floating(x.dtype()), "\"", name, "_cpu\" not implemented for '", type_label(x.dtype()), "'");
  if (op == UnaryOp::Polygamma) EMBER_CHECK(args.a >= 0, "polygamma(n, x) does not support negative n.");
  if (op == UnaryOp::Frac)
    EMBER_CHECK(is_floating(x.dtype()), "\"frac_cpu\" not implemented for '", type_label(x.dtype()),
                "' (frac needs a floating point tensor)");
  if (!out.defined()) {
    Tensor r = empty_like(x, TensorOptions(result).device(x.device()));
    if (r.numel()) unary_kernel[x.device()](op, r, x, compute, args);
    autograd::record_unary(op, x, r, args);
    return r;
  }
  if (const Tensor* in[] = {&x, &out}; autograd::needs_grad(in)) {
    EMBER_CHECK(x.is_same(out), name, "(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad.");
    // A gradient that reads the input is computed from a copy, which the write below leaves intact (PyTorch keeps
    // the original self of such in-place ops the same way).
    return autograd::inplace_with_grad(out, name, [&] {
      return unary_op(op, autograd::unary_grad_reads_input(op) ? x.clone() : x, {}, args);
    });
  }
  EMBER_CHECK(out.device() == x.device(), name, ": Expected all tensors to be on the same device, but found at least "
              "two devices, ", x.device(), " and ", out.device(), "! (output)");
  EMBER_CHECK(can_cast(result, out.dtype()), name, ": result type ", type_label(result),
              " can't be cast to the desired output type ", type_label(out.dtype()));
  EMBER_CHECK(std::ranges::equal(out.sizes(), x.sizes()), name, ": output with shape ", shape_str(out.sizes()),
              " doesn't match the input shape ", shape_str(x.sizes()));
  EMBER_CHECK(!has_internal_overlap(out), name, ": unsupported operation: more than one element of the written-to "
              "tensor refers to a single memory location. Please clone() the tensor before performing the operation.");
  if (out.numel()) {
    const bool same_layout = out.data_ptr() == x.data_ptr() && std::ranges::equal(out.strides(), x.strides());
    if (may_overlap(out, x) && !same_layout) {
      Tensor tmp = unary_op(op, x, {}, args);
      copy_into(out, tmp);
    } else {
      unary_kernel[x.device()](op, out, x, compute, args);
    }
  }
  out.bump_version();
  return out;
}

#define EMBER_UNARY(fn, OP) \
  Tensor fn(const Tensor& x) { return unary_op(UnaryOp::OP, x); }
EMBER_UNARY(neg, Neg)
EMBER_UNARY(abs, Abs)
EMBER_UNARY(sign, Sign)
EMBER_UNARY(square, Square)
EMBER_UNARY(relu, Relu)
EMBER_UNARY(floor, Floor)
EMBER_UNARY(ceil, Ceil)
EMBER_UNARY(trunc, Trunc)
EMBER_UNARY(frac, Frac)
EMBER_UNARY(reciprocal, Reciprocal)
EMBER_UNARY(sqrt, Sqrt)
EMBER_UNARY(rsqrt, Rsqrt)
EMBER_UNARY(exp, Exp)
EMBER_UNARY(log, Log)
EMBER_UNARY(sin, Sin)
EMBER_UNARY(cos, Cos)
EMBER_UNARY(tanh, Tanh)
EMBER_UNARY(sigmoid, Sigmoid)
EMBER_UNARY(silu, Silu)
EMBER_UNARY(logical_not, LogicalNot)
EMBER_UNARY(isnan, IsNan)
EMBER_UNARY(isinf, IsInf)
EMBER_UNARY(isfinite, IsFinite)
#undef EMBER_UNARY

Tensor round(const Tensor& x, int64_t decimals) {
  return unary_op(UnaryOp::Round, x, {}, UnaryArgs{static_cast<double>(decimals)});
}
Tensor gelu(const Tensor& x, bool tanh_approximation) {
  return unary_op(tanh_approximation ? UnaryOp::GeluTanh : UnaryOp::Gelu, x);
}
Tensor softplus(const Tensor& x, double beta, double threshold) {
  return unary_op(UnaryOp::Softplus, x, {}, UnaryArgs{beta, threshold});
}

Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  // Defaults: the dtype's largest and lowest finite values.
  double hi = dispatch_all(is_floating(x.dtype()) ? x.dtype() : ScalarType::Float64, [](auto v) -> double {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, Half>) return 65504.0;
    else if constexpr (std::is_same_v<T, BFloat16>) return 3.3895313892515355e38;
    else return static_cast<double>(std::numeric_limits<T>::max());
  });
  return unary_op(UnaryOp::NanToNum, x, {}, UnaryArgs{nan.value_or(0.0), posinf.value_or(hi), neginf.value_or(-hi)});
}

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  EMBER_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  ResultTypeState rs;
  rs.update(x);
  if (min) rs.update(*min);
  if (max) rs.update(*max);
  const ScalarType t = rs.result();
  // The kernel reads a NaN bound as "none": a NaN bound gives NaN everywhere, as NaN propagates through
  // maximum and minimum (the tensor-bound form).
  const bool nan_bound = (min && std::isnan(min->to_double())) || (max && std::isnan(max->to_double()));
  if (nan_bound) return full(x.sizes(), std::numeric_limits<double>::quiet_NaN(), TensorOptions(t).device(x.device()));
  if (is_integral(t, false)) {  // as PyTorch: a bound the integer dtype can't hold is an error, not a wrap
    const auto [lo, hi] = dispatch_all(t, [](auto v) -> std::pair<double, double> {
      using T = decltype(v);
      if constexpr (std::is_integral_v<T>)
        return {static_cast<double>(std::numeric_limits<T>::lowest()), static_cast<double>(std::numeric_limits<T>::max())};
      else
        return {0, 0};
    });
    for (const auto& b : {min, max})
      if (b) {
        static const char* ctypes[] = {"bool", "uint8_t", "int8_t", "int16_t", "int32_t", "int64_t"};
        EMBER_CHECK(b->to_double() >= lo && b->to_double() <= hi, "value cannot be converted to type ",
                    ctypes[static_cast<int>(t)], " without overflow");
      }
  }
  Tensor in = t == x.dtype() ? x : to(x, t);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return unary_op(UnaryOp::Clamp, in, {}, UnaryArgs{min ? min->to_double() : nan, max ? max->to_double() : nan});
}

Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max) {
  Tensor r = x;
  if (min.defined()) r = maximum(r, min);
  if (max.defined()) r = minimum(r, max);
  return r;
}

}  // namespace ember
