// Complex tensors' views and helpers. The parts of a complex tensor are strided views of its memory (view_as_real's
// last dim of 2), so real/imag are writable and most helpers are compositions of real ops over those views.
#include "ember/ops/complex.h"

#include <limits>
#include <numbers>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/ops.h"
#include "ember/ops/detail/conj_bit.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

// The dtype check of complex() and polar(): both real floating of one dtype (PyTorch's messages).
ScalarType parts_dtype(const Tensor& a, const Tensor& b) {
  auto ok = [](ScalarType t) { return is_floating(t) && t != ScalarType::BFloat16; };
  EMBER_CHECK_T(NotImplementedError, ok(a.dtype()) && ok(b.dtype()),
                "Expected both inputs to be Half, Float or Double tensors but got ", type_label(a.dtype()), " and ",
                type_label(b.dtype()));
  EMBER_CHECK(a.dtype() == b.dtype(), "Expected object of scalar type ", type_label(a.dtype()), " but got scalar type ",
              type_label(b.dtype()), " for second argument");
  return to_complex(a.dtype());
}

}  // namespace

Tensor view_as_real(const Tensor& t) {
  EMBER_CHECK_TYPE(is_complex(t.dtype()), "view_as_real is only supported for complex tensors");
  EMBER_CHECK(!t.is_conj(),
              "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you can "
              "view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT alias "
              "the original.");
  DimVector sizes(t.sizes()), strides(t.strides());
  for (int64_t& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  Tensor v = make_view(t, sizes, strides, t.storage_offset() * 2, to_real(t.dtype()));
  if (auto n = autograd::make_node("ViewAsRealBackward0", {&t}, [](FormulaNode&, TensorList& g) {
        return TensorList{view_as_complex(g[0].contiguous())};
      }))
    autograd::set_history(v, n, 0, /*is_view=*/true);
  return v;
}

Tensor view_as_complex(const Tensor& t) {
  const ScalarType dt = t.dtype();
  EMBER_CHECK_T(NotImplementedError, is_floating(dt) && dt != ScalarType::BFloat16,
                "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar "
                "type: ",
                type_label(dt));
  EMBER_CHECK(t.dim() > 0, "Input tensor must have one or more dimensions");
  EMBER_CHECK(t.sizes().back() == 2, "Tensor must have a last dimension of size 2");
  EMBER_CHECK(t.strides().back() == 1, "Tensor must have a last dimension with stride 1");
  DimVector sizes(t.sizes().first(t.dim() - 1)), strides(t.strides().first(t.dim() - 1));
  for (int64_t& s : strides) {
    EMBER_CHECK(s % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
    s /= 2;
  }
  EMBER_CHECK(t.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  Tensor v = make_view(t, sizes, strides, t.storage_offset() / 2, to_complex(dt));
  if (auto n = autograd::make_node("ViewAsComplexBackward0", {&t},
                                   [](FormulaNode&, TensorList& g) { return TensorList{view_as_real(g[0])}; }))
    autograd::set_history(v, n, 0, /*is_view=*/true);
  return v;
}

// The real parts of a conjugate view are its memory's: a view of conj(t), which has no bit.
Tensor real(const Tensor& t) {
  if (!is_complex(t.dtype())) return t;
  return select(view_as_real(t.is_conj() ? conj(t) : t), -1, 0);
}

// A conjugate view's imaginary parts are its memory's negated: ember has no negative bit, so they are a new tensor
// (Note [The conjugate bit]).
Tensor imag(const Tensor& t) {
  EMBER_CHECK_TYPE(is_complex(t.dtype()), "imag is not implemented for tensors with non-complex dtypes.");
  if (t.is_conj()) return neg(select(view_as_real(conj(t)), -1, 1));
  return select(view_as_real(t), -1, 1);
}

Tensor complex(const Tensor& re, const Tensor& im) {
  const ScalarType dt = parts_dtype(re, im);
  check_same_device("complex", {&re, &im});
  Tensor out = empty(broadcast_shapes(re.sizes(), im.sizes(), "complex"), TensorOptions(dt).device(re.device()));
  {
    autograd::NoGradGuard no_grad;
    Tensor parts = view_as_real(out);
    select(parts, -1, 0).copy_(re);
    select(parts, -1, 1).copy_(im);
  }
  if (auto n = autograd::make_node("ComplexBackward0", {&re, &im}, [](FormulaNode&, TensorList& g) {
        return TensorList{real(g[0]), imag(g[0])};
      }))
    autograd::set_history(out, n);
  return out;
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  parts_dtype(abs, angle);
  return complex(mul(abs, cos(angle)), mul(abs, sin(angle)));
}

Tensor conj_physical(const Tensor& t) {
  if (!is_complex(t.dtype())) return t;
  Tensor r = empty_like(t);
  {
    // r's memory takes the conjugates of t's elements: copied into r read through the bit.
    autograd::NoGradGuard no_grad;
    Tensor rc = alias(r);
    rc.impl()->set_conj(true);
    copy_into(rc, t);
  }
  if (auto n = autograd::make_node("ConjPhysicalBackward0", {&t},
                                   [](FormulaNode&, TensorList& g) { return TensorList{conj_physical(g[0])}; }))
    autograd::set_history(r, n);
  return r;
}

const Tensor& conj_physical_(const Tensor& t) {
  if (is_complex(t.dtype())) copy_(t, conj_physical(t));
  return t;
}

// Note [The conjugate bit]: a view with the bit flipped; conj(conj(t)) is a view without it.
Tensor conj(const Tensor& t) {
  if (!is_complex(t.dtype())) return t;
  Tensor v = make_view(t, t.sizes(), t.strides(), t.storage_offset());
  v.impl()->set_conj(!t.is_conj());
  // The gradient is conjugated in memory, so that a leaf's .grad never has the bit.
  if (auto n = autograd::make_node("ConjBackward0", {&t},
                                   [](FormulaNode&, TensorList& g) { return TensorList{conj_physical(g[0])}; }))
    autograd::set_history(v, n, 0, /*is_view=*/true);
  return v;
}

Tensor resolve_conj(const Tensor& t) { return t.is_conj() ? clone(t) : t; }

Tensor angle(const Tensor& t) {
  refuse_complex_half("angle_cpu", t.dtype());  // Note [complex32]
  if (is_complex(t.dtype())) return atan2(imag(t), real(t));
  // Real: 0 for x >= 0, pi for x < 0, NaN for NaN; the gradient is zero (a zero that depends on x, finite elements
  // only so that inf * 0 makes no NaN), as PyTorch's for real inputs.
  const Tensor x = is_floating(t.dtype()) ? t : to(t, default_dtype());
  Tensor r = zeros_like(x);
  {
    autograd::NoGradGuard no_grad;
    masked_fill_(r, lt(x, 0), std::numbers::pi);
    masked_fill_(r, isnan(x), std::numeric_limits<double>::quiet_NaN());
  }
  if (x.requires_grad() && autograd::is_grad_enabled()) r = add(r, mul(where(isfinite(x), x, zeros_like(x)), 0.0));
  return r;
}

Tensor isreal(const Tensor& t) {
  if (!is_complex(t.dtype())) return ones_like(t, ScalarType::Bool);
  return eq(imag(t), 0);
}

}  // namespace ember
