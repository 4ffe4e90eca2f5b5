// Ternary elementwise ops: validation, promotion and broadcasting; the math is in the device kernels.
#include "ember/ops/ternary.h"

#include "ember/ops.h"
#include "ember/ops/util.h"

namespace ember {

namespace {
const char* name_of(TernaryOp op) {
  static const char* names[] = {"where", "lerp", "addcmul", "addcdiv"};
  return names[static_cast<int>(op)];
}
}  // namespace

Tensor ternary_op(TernaryOp op, const Operand& a, const Operand& b, const Operand& c, const Tensor& out,
                  const Scalar& value) {
  const char* name = name_of(op);
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
                  ": Expected all tensors to be on the same device, but found at least two devices, ", device,
                  " and ", o->t->device(), "!");

  ResultTypeState rs;
  const int first = op == TernaryOp::Where ? 1 : 0;  // where's condition does not take part in promotion
  for (int i = first; i < 3; ++i) ops[i]->t ? rs.update(*ops[i]->t) : rs.update(ops[i]->s);
  ScalarType compute = rs.result();
  switch (op) {
    case TernaryOp::Where:
      EMBER_CHECK(a.t && (a.t->dtype() == ScalarType::Bool || a.t->dtype() == ScalarType::UInt8),
                  "where expected condition to be a boolean tensor, but got a tensor with dtype ",
                  a.t ? dtype_name(a.t->dtype()) : "(number)");
      break;
    case TernaryOp::Lerp:
      EMBER_CHECK(is_floating(a.t->dtype()) && a.t->dtype() == b.t->dtype(), "lerp: expected start and end to have the "
                  "same floating point dtype, got ", a.t->dtype(), " and ", b.t->dtype());
      EMBER_CHECK(!c.t || c.t->dtype() == a.t->dtype(), "lerp: expected dtype ", a.t->dtype(),
                  " for `weight` but got dtype ", c.t->dtype());
      compute = a.t->dtype();
      break;
    case TernaryOp::AddCDiv:
      EMBER_CHECK(is_floating(compute), "Integer division with addcdiv is no longer supported, and in a future release "
                  "addcdiv will perform a true division of tensor1 and tensor2. (got dtype ", compute, ")");
      break;
    case TernaryOp::AddCMul:
      break;
  }
  Tensor t[3];
  for (int i = 0; i < 3; ++i) {
    t[i] = ops[i]->t ? *ops[i]->t : scalar_tensor(ops[i]->s, compute, device);
    if (t[i].device() != device) t[i] = to(t[i], device);
  }
  DimVector shape = broadcast_shapes(broadcast_shapes(t[0].sizes(), t[1].sizes(), name), t[2].sizes(), name);
  Tensor r = out.defined() ? out : empty(shape, TensorOptions(compute).device(device));
  if (out.defined()) {
    EMBER_CHECK(std::ranges::equal(out.sizes(), shape), name, ": output with shape ", shape_str(out.sizes()),
                " doesn't match the broadcast shape ", shape_str(shape));
    EMBER_CHECK(can_cast(compute, out.dtype()), name, ": result type ", compute,
                " can't be cast to the desired output type ", out.dtype());
  }
  if (r.numel()) {
    bool overlap = false;
    for (const Tensor& x : t)
      overlap |= out.defined() && may_overlap(out, x) &&
                 !(x.data_ptr() == out.data_ptr() && std::ranges::equal(x.strides(), out.strides()));
    if (overlap) {
      Tensor tmp = empty(shape, TensorOptions(compute).device(device));
      ternary_kernel[device](op, tmp, t[0], t[1], t[2], compute, value);
      copy_into(r, tmp);
    } else {
      ternary_kernel[device](op, r, t[0], t[1], t[2], compute, value);
    }
  }
  if (out.defined()) out.bump_version();
  return r;
}

Tensor where(const Tensor& condition, const Operand& x, const Operand& y) {
  return ternary_op(TernaryOp::Where, condition, x, y);
}
Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight) {
  return ternary_op(TernaryOp::Lerp, start, end, weight);
}
Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ternary_op(TernaryOp::AddCMul, input, t1, t2, {}, value);
}
Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ternary_op(TernaryOp::AddCDiv, input, t1, t2, {}, value);
}

}  // namespace ember
