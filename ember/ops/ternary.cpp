// Ternary elementwise ops: validation, promotion and broadcasting (from the table, ember/ops/ternary.def); the math
// is in the device kernels.
#include "ember/ops/ternary.h"

#include <limits>

#include "ember/autocast.h"
#include "ember/autograd/formulas.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/ternary.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/elementwise_layout.h"
#include "ember/scalar_check.h"

namespace ember {

Tensor ternary_op(TernaryOp op, const Operand& a, const Operand& b, const Operand& c, const Tensor& out,
                  const Scalar& value) {
  const TernaryOpInfo& info = ternary_info(op);
  if (op == TernaryOp::Where && !out.defined() && a.t && b.t && c.t)
    EMBER_PY_DISPATCH(Tensor, "aten.where.self", *a.t, *b.t, *c.t);
  if (!out.defined() && (info.flags & ternary_flag::kAutocastPromote) && autocast::any_active()) [[unlikely]] {
    const Tensor ta = a.t ? *a.t : Tensor(), tb = b.t ? *b.t : Tensor(), tc = c.t ? *c.t : Tensor();
    if (auto pol = autocast::policy_for(autocast::kPromoteCuda, ta, tb, tc); pol.first != autocast::Policy::None)
      return autocast::run(
          pol,
          [&](const Tensor& x, const Tensor& y, const Tensor& z) {
            return ternary_op(op, x.defined() ? Operand(x) : a, y.defined() ? Operand(y) : b,
                              z.defined() ? Operand(z) : c, out, value);
          },
          ta, tb, tc);
  }
  const char* name = info.name;
  const Operand* ops[3] = {&a, &b, &c};
  // The device of the first dimensioned tensor; 0-d CPU tensors and numbers may join it.
  Device device = kCPU;
  bool found = false;
  for (const Operand* o : ops)
    if (o->t && (!found || (o->t->dim() > 0 && !o->t->device().is_cpu()))) {
      if (!found || !o->t->device().is_cpu()) device = o->t->device();
      found = true;
    }
  EMBER_CHECK(found, name, ": expected at least one tensor operand");
  for (const Operand* o : ops)
    if (o->t)
      EMBER_CHECK(o->t->device() == device || (o->t->dim() == 0 && o->t->device().is_cpu()), name,
                  ": Expected all tensors to be on the same device, but found at least two devices, ", device, " and ",
                  o->t->device(), "!");

  ResultTypeState rs;
  const int first = info.flags & ternary_flag::kCondition ? 1 : 0;  // a condition takes no part in promotion
  for (int i = first; i < 3; ++i) ops[i]->t ? rs.update(*ops[i]->t) : rs.update(ops[i]->s);
  ScalarType compute = rs.result();
  switch (op) {
    case TernaryOp::Where:
      EMBER_CHECK(a.t && (a.t->dtype() == ScalarType::Bool || a.t->dtype() == ScalarType::UInt8),
                  "where expected condition to be a boolean tensor, but got a tensor with dtype ",
                  a.t ? dtype_name(a.t->dtype()) : "(number)");
      // As PyTorch: a number branch the result's dtype can't hold is an error (Note [Checked scalar conversion]).
      for (const Operand* o : {&b, &c})
        if (!o->t) check_scalar_fits(o->s, compute, "where");
      break;
    case TernaryOp::Lerp:
      refuse_complex_half(c.t ? "lerp_kernel_tensor" : "lerp_kernel_scalar", a.t->dtype());  // Note [complex32]
      EMBER_CHECK(is_floating(a.t->dtype()) && a.t->dtype() == b.t->dtype(),
                  "lerp: expected start and end to have the "
                  "same floating point dtype, got ",
                  a.t->dtype(), " and ", b.t->dtype());
      EMBER_CHECK(!c.t || c.t->dtype() == a.t->dtype(), "lerp: expected dtype ", a.t->dtype(),
                  " for `weight` but got dtype ", c.t->dtype());
      compute = a.t->dtype();
      break;
    case TernaryOp::AddCDiv:  // as PyTorch, the check is on tensor1 and tensor2 (input may be an integer)
      refuse_complex_half("addcdiv_cpu_out", compute);
      EMBER_CHECK(is_floating(compute) && !(is_integral(b.t->dtype(), true) && is_integral(c.t->dtype(), true)),
                  "Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
                  "perform a true division of tensor1 and tensor2. (got dtypes ",
                  b.t->dtype(), " and ", c.t->dtype(), ")");
      break;
    case TernaryOp::AddCMul: break;
  }
  if (const Tensor * in[] = {a.t, b.t, c.t, &out}; out.defined() && autograd::needs_grad(in)) {
    const Tensor* self = info.flags & ternary_flag::kCondition ? b.t : a.t;  // where's self: the input branch
    EMBER_CHECK(self && self->is_same(out), name,
                "(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad.");
    return autograd::inplace_with_grad(out, name, [&] { return ternary_op(op, a, b, c, {}, value); });
  }
  if (op == TernaryOp::AddCMul && is_complex(compute)) [[unlikely]] {
    // No complex addcmul kernel: PyTorch's input + value * tensor1 * tensor2, in that order, as a composition.
    Tensor r = add(*a.t, mul(mul(*b.t, value), *c.t));
    if (!out.defined()) return r;
    copy_(out, r);
    return out;
  }
  Tensor t[3];
  for (int i = 0; i < 3; ++i) {
    t[i] = ops[i]->t ? elementwise_operand(*ops[i]->t, device)
                     : scalar_tensor(ops[i]->s, compute, device.is_cpu() ? device : kCPU);
  }
  DimVector shape = broadcast_shapes(broadcast_shapes(t[0].sizes(), t[1].sizes(), name), t[2].sizes(), name);
  Tensor r = out.defined()
                 ? out
                 : empty_like_operands(shape, TensorOptions(compute).device(device), {ops[0]->t, ops[1]->t, ops[2]->t});
  if (out.defined()) {
    EMBER_CHECK(std::ranges::equal(out.sizes(), shape), name, ": output with shape ", shape_str(out.sizes()),
                " doesn't match the broadcast shape ", shape_str(shape));
    EMBER_CHECK(can_cast(compute, out.dtype()), name, ": result type ", type_label(compute),
                " can't be cast to the desired output type ", type_label(out.dtype()));
    EMBER_CHECK(
        !has_internal_overlap(out), name,
        ": unsupported operation: more than one element of the written-to "
        "tensor refers to a single memory location. Please clone() the tensor before performing the operation.");
  }
  const bool narrow = compute == ScalarType::Float16 || compute == ScalarType::BFloat16;
  // complex32 runs the complex64 kernels, cast on load and store (Note [complex32]).
  const ScalarType kernel_dtype = compute == ScalarType::ComplexHalf ? ScalarType::ComplexFloat : compute;
  if (r.numel() && op == TernaryOp::Lerp && !c.t && narrow) {
    // A number weight is used at float precision (PyTorch's opmath), not rounded to the 16-bit dtype
    // the kernel loads its operands in: lerp in float32, rounded once.
    copy_into(r, to(lerp(to(t[0], ScalarType::Float32), to(t[1], ScalarType::Float32), c.s), compute));
  } else if (r.numel()) {
    bool overlap = false;
    for (const Tensor& x : t)  // only an input laid out exactly as out is safe (the cheaper test first)
      overlap |= out.defined() &&
                 !(x.data_ptr() == out.data_ptr() && std::ranges::equal(x.strides(), out.strides()) &&
                   std::ranges::equal(x.sizes(), out.sizes())) &&
                 may_overlap(out, x);
    if (overlap) {
      Tensor tmp = empty(shape, TensorOptions(compute).device(device));
      ternary_kernel[device](op, tmp, t[0], t[1], t[2], kernel_dtype, value);
      copy_into(r, tmp);
    } else {
      ternary_kernel[device](op, r, t[0], t[1], t[2], kernel_dtype, value);
    }
  }
  if (out.defined())
    out.bump_version();
  else
    autograd::record_ternary(op, a, b, c, r, value);
  return r;
}

// The table's functions.
#define EMBER_TERNARY_KEYWORD_ARG_none
#define EMBER_TERNARY_KEYWORD_ARG_value , const Scalar& value
#define EMBER_TERNARY_KEYWORD_CALL_none
#define EMBER_TERNARY_KEYWORD_CALL_value , {}, value
#define EMBER_TERNARY_OP(op, name, flags, A, B, C, keyword, ...)                        \
  Tensor name(const A& a, const B& b, const C& c EMBER_TERNARY_KEYWORD_ARG_##keyword) { \
    return ternary_op(TernaryOp::op, a, b, c EMBER_TERNARY_KEYWORD_CALL_##keyword);     \
  }
#include "ember/ops/ternary.def"
#undef EMBER_TERNARY_OP

}  // namespace ember
