// Unary elementwise ops: dtype rules and output handling (from the table, ember/ops/unary.def); the math is in the
// device kernels.
#include "ember/ops/unary.h"

#include <cmath>
#include <limits>

#include "ember/autocast.h"
#include "ember/autograd/formulas.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/unary.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

// The dtype checks PyTorch makes before it looks for a kernel (its messages name the kernel, "<op>_cpu").
void check_input(UnaryOp op, const UnaryOpInfo& info, ScalarType t, const UnaryArgs& args) {
  const char* name = info.name;
  switch (info.input) {
    case UnaryInput::Any: break;
    case UnaryInput::Floating:
      EMBER_CHECK(is_floating(t), "\"", name, "_cpu\" not implemented for '", type_label(t), "' (", name,
                  " needs a floating point tensor)");
      break;
    case UnaryInput::Integral:
      EMBER_CHECK(is_integral(t, true), "\"", name, "_cpu\" not implemented for '", type_label(t), "' (", name,
                  " needs integer or bool tensors)");
      break;
  }
  if (op == UnaryOp::Neg)
    EMBER_CHECK(t != ScalarType::Bool,
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  if (op == UnaryOp::Round)  // integers are integral already; to tens or hundreds PyTorch has no kernel
    EMBER_CHECK(args.a == 0 || is_floating(t), "\"round_cpu\" not implemented for '", type_label(t),
                "' (round with decimals=", args.a, " needs a floating point tensor)");
  if (op == UnaryOp::Polygamma) EMBER_CHECK(args.a >= 0, "polygamma(n, x) does not support negative n.");
}

// A complex input's result dtype: the ops PyTorch has complex kernels for (abs gives the real dtype, predicates
// bool), and its errors for the others.
ScalarType complex_result(UnaryOp op, const char* name, ScalarType t) {
  switch (op) {
    case UnaryOp::Abs: return to_real(t);
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite:
    case UnaryOp::LogicalNot: return ScalarType::Bool;
    case UnaryOp::Neg:
    case UnaryOp::Sgn:
    case UnaryOp::Square:
    case UnaryOp::Reciprocal:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Exp:
    case UnaryOp::Exp2:
    case UnaryOp::Expm1:
    case UnaryOp::Log:
    case UnaryOp::Log2:
    case UnaryOp::Log10:
    case UnaryOp::Log1p:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tan:
    case UnaryOp::Asin:
    case UnaryOp::Acos:
    case UnaryOp::Atan:
    case UnaryOp::Sinh:
    case UnaryOp::Cosh:
    case UnaryOp::Tanh:
    case UnaryOp::Asinh:
    case UnaryOp::Acosh:
    case UnaryOp::Atanh:
    case UnaryOp::Sigmoid: return t;
    case UnaryOp::Sign:
      fail<NotImplementedError>(
          "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.");
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Trunc:
    case UnaryOp::Round:
    case UnaryOp::Frac: fail<NotImplementedError>(name, " is not supported for complex inputs");
    case UnaryOp::Relu: fail<NotImplementedError>("clamp is not supported for complex types");
    default: fail<NotImplementedError>("\"", name, "_cpu\" not implemented for '", type_label(t), "'");
  }
}

// complex32 (Note [complex32]): the few ops PyTorch's CPU has a ComplexHalf kernel for run the complex64 kernel,
// casting on load and store; the others raise its error, naming its kernel.
void check_complex_half(UnaryOp op, const char* name) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Abs:
    case UnaryOp::Sgn:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsFinite: return;
    case UnaryOp::Square: fail_complex_half("pow");
    case UnaryOp::Exp2: fail_complex_half("exp2");
    case UnaryOp::Sqrt:
    case UnaryOp::Exp:
    case UnaryOp::Expm1:
    case UnaryOp::Log:
    case UnaryOp::Log2:
    case UnaryOp::Log10:
    case UnaryOp::Log1p:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tan:
    case UnaryOp::Asin:
    case UnaryOp::Acos:
    case UnaryOp::Atan:
    case UnaryOp::Tanh: fail_complex_half(std::string(name) + "_vml_cpu");
    default: fail_complex_half(std::string(name) + "_cpu");
  }
}

}  // namespace

// "aten.<name>.default" for the rows that take only their tensor (the others are parts of functions with parameters,
// offered to __torch_dispatch__ by those functions or not at all); null for the rest.
struct UnaryDispatchNames {
  std::string names[std::size(unary_detail::kUnaryInfo)];
  UnaryDispatchNames() {
    int i = 0;
#define EMBER_UNARY_OP(op, name, ...) names[i++] = "aten." #name ".default";
#define EMBER_UNARY_SPECIAL(op, name, ...) names[i++] = "aten." #name ".default";
#define EMBER_UNARY_CUSTOM(...) ++i;
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_SPECIAL
#undef EMBER_UNARY_CUSTOM
  }
};

Tensor unary_op(UnaryOp op, const Tensor& x, const Tensor& out, const UnaryArgs& args) {
  const UnaryOpInfo info = unary_info(op);
  if (dispatch::enabled() && (!out.defined() || out.is_same(x))) [[unlikely]] {
    static const UnaryDispatchNames names;
    std::string name = names.names[static_cast<int>(op)];
    if (!name.empty()) {
      if (out.defined()) name.insert(name.size() - std::string_view(".default").size(), "_");  // x.relu_()
      if (auto r = dispatch::call(name.c_str(), dispatch::values(x)))
        return out.defined() ? out : dispatch::result<Tensor>(std::move(*r));
    }
  }
  if (!out.defined() && (info.flags & unary_flag::kAutocastFp32))
    EMBER_AUTOCAST(autocast::kFp32Cuda, unary_op, op, x, out, args);
  const char* name = info.name;
  ScalarType compute = x.dtype(), result = compute;
  if (is_complex(compute)) [[unlikely]] {
    result = complex_result(op, name, compute);
    EMBER_CHECK(!(op == UnaryOp::Abs && out.defined() && out.is_same(x)),
                "In-place abs is not supported for complex tensors.");
    if (compute == ScalarType::ComplexHalf) {
      check_complex_half(op, name);
      compute = ScalarType::ComplexFloat;
    }
  } else {
    check_input(op, info, x.dtype(), args);
    switch (info.result) {
      case UnaryResult::Same:
        if (op == UnaryOp::Square && compute == ScalarType::Bool) compute = result = ScalarType::Int64;
        break;
      case UnaryResult::Float:
        if (!is_floating(compute)) compute = result = default_dtype();
        break;
      case UnaryResult::Bool: result = ScalarType::Bool; break;
      case UnaryResult::Int32: result = ScalarType::Int32; break;
    }
  }
  if (!out.defined()) {
    Tensor r = empty_like(x, TensorOptions(result).device(x.device()));
    if (r.numel()) unary_kernel[x.device()](op, r, x, compute, args);
    autograd::record_unary(op, x, r, args);
    return r;
  }
  if (const Tensor * in[] = {&x, &out}; autograd::needs_grad(in)) {
    EMBER_CHECK(x.is_same(out), name,
                "(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad.");
    if (!has_internal_overlap(out) && result == out.dtype() && out.numel() &&
        autograd::inplace_unary_reading_result(
            op, name, out, args, [&](const Tensor& r) { unary_kernel[x.device()](op, r, x, compute, args); }))
      return out;
    // A gradient that reads the input is computed from a copy, which the write below leaves intact (PyTorch keeps
    // the original self of such in-place ops the same way).
    return autograd::inplace_with_grad(
        out, name, [&] { return unary_op(op, autograd::unary_grad_reads_input(op) ? x.clone() : x, {}, args); });
  }
  EMBER_CHECK(out.device() == x.device(), name,
              ": Expected all tensors to be on the same device, but found at least "
              "two devices, ",
              x.device(), " and ", out.device(), "! (output)");
  EMBER_CHECK(can_cast(result, out.dtype()), name, ": result type ", type_label(result),
              " can't be cast to the desired output type ", type_label(out.dtype()));
  EMBER_CHECK(std::ranges::equal(out.sizes(), x.sizes()), name, ": output with shape ", shape_str(out.sizes()),
              " doesn't match the input shape ", shape_str(x.sizes()));
  EMBER_CHECK(!has_internal_overlap(out), name,
              ": unsupported operation: more than one element of the written-to "
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

// The table's functions without parameters.
#define EMBER_UNARY_OP(op, name, ...) \
  Tensor name(const Tensor& x) { return unary_op(UnaryOp::op, x); }
#define EMBER_UNARY_SPECIAL(op, name, ...) \
  Tensor name(const Tensor& x) { return unary_op(UnaryOp::op, x); }
#define EMBER_UNARY_CUSTOM(...)
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_SPECIAL
#undef EMBER_UNARY_CUSTOM

Tensor round(const Tensor& x, int64_t decimals) {
  return unary_op(UnaryOp::Round, x, {}, UnaryArgs{static_cast<double>(decimals)});
}
Tensor gelu(const Tensor& x, bool tanh_approximation) {
  EMBER_PY_DISPATCH(Tensor, "aten.gelu.default", x, std::string(tanh_approximation ? "tanh" : "none"));
  return unary_op(tanh_approximation ? UnaryOp::GeluTanh : UnaryOp::Gelu, x);
}
Tensor softplus(const Tensor& x, double beta, double threshold) {
  return unary_op(UnaryOp::Softplus, x, {}, UnaryArgs{beta, threshold});
}
Tensor logit(const Tensor& x, std::optional<double> eps) {
  return unary_op(UnaryOp::Logit, x, {}, UnaryArgs{eps.value_or(-1.0)});
}
Tensor polygamma(int64_t n, const Tensor& x) {
  return unary_op(UnaryOp::Polygamma, x, {}, UnaryArgs{static_cast<double>(n)});
}

Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf, const Tensor& out) {
  // Defaults: the dtype's largest and lowest finite values.
  double hi = dispatch_all(is_floating(x.dtype()) ? x.dtype() : ScalarType::Float64, [](auto v) -> double {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, Half>)
      return 65504.0;
    else if constexpr (std::is_same_v<T, BFloat16>)
      return 3.3895313892515355e38;
    else
      return static_cast<double>(std::numeric_limits<T>::max());
  });
  return unary_op(UnaryOp::NanToNum, x, out, UnaryArgs{nan.value_or(0.0), posinf.value_or(hi), neginf.value_or(-hi)});
}

namespace {

Tensor clamp_scalars(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max, const Tensor& out) {
  ResultTypeState rs;
  rs.update(x);
  if (min) rs.update(*min);
  if (max) rs.update(*max);
  const ScalarType t = rs.result();
  // The kernel reads a NaN bound as "none": a NaN bound gives NaN everywhere, as NaN propagates through
  // maximum and minimum (the tensor-bound form).
  const bool nan_bound = (min && std::isnan(min->to_double())) || (max && std::isnan(max->to_double()));
  if (nan_bound) {
    Tensor r = full(x.sizes(), std::numeric_limits<double>::quiet_NaN(), TensorOptions(t).device(x.device()));
    return out.defined() ? copy_(out, r) : r;
  }
  if (is_integral(t, false)) {  // as PyTorch: a bound the integer dtype can't hold is an error, not a wrap
    const auto [lo, hi] = dispatch_all(t, [](auto v) -> std::pair<double, double> {
      using T = decltype(v);
      if constexpr (std::is_integral_v<T>)
        return {static_cast<double>(std::numeric_limits<T>::lowest()),
                static_cast<double>(std::numeric_limits<T>::max())};
      else
        return {0, 0};
    });
    for (const auto& b : {min, max})
      if (b) {
        EMBER_CHECK(b->to_double() >= lo && b->to_double() <= hi, "value cannot be converted to type ",
                    cpp_element_name(t), " without overflow");
      }
  }
  Tensor in = t == x.dtype() ? x : to(x, t);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return unary_op(UnaryOp::Clamp, in, out, UnaryArgs{min ? min->to_double() : nan, max ? max->to_double() : nan});
}

}  // namespace

Tensor clamp(const Tensor& x, const std::optional<Operand>& min, const std::optional<Operand>& max, const Tensor& out) {
  EMBER_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  const bool tensors = (min && min->t) || (max && max->t);
  if (!tensors)
    return clamp_scalars(x, min ? std::optional<Scalar>(min->s) : std::nullopt,
                         max ? std::optional<Scalar>(max->s) : std::nullopt, out);
  // A number beside a tensor bound is a 0-d tensor of the number's kind, so that it promotes like a Python number
  // (clamp(int_tensor, tensor_min, 2.5) is float, as clamp(int_tensor, 0, 2.5)); a float is held in float64 beside
  // a floating x, so that its value is not rounded before x's dtype reads it.
  auto bound = [&](const std::optional<Operand>& b) -> Tensor {
    if (!b) return {};
    if (b->t) return *b->t;
    const ScalarType st = b->s.is_floating() ? (is_floating(x.dtype()) ? ScalarType::Float64 : default_dtype())
                          : b->s.is_bool()   ? ScalarType::Bool
                                             : ScalarType::Int64;
    return full({}, b->s, TensorOptions(st).device(x.device()));
  };
  Tensor r = x;
  if (Tensor lo = bound(min); lo.defined()) r = maximum(r, lo);
  if (Tensor hi = bound(max); hi.defined()) r = minimum(r, hi);
  return out.defined() ? copy_(out, r) : r;
}

}  // namespace ember
