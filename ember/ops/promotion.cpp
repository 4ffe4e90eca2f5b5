// torch.result_type: Note [Type promotion] in docs/dtypes.md states the rules.
#include "ember/ops.h"

namespace ember {

namespace {
// PyTorch's combine_categories: the higher-priority group wins unless the lower one is of a higher
// category (bool < integral < floating < complex). A complex lower group over a floating higher one gives the complex
// type of the floating one's precision (float64 tensor * 1j is complex128, float32 tensor * 1j complex64).
ScalarType combine(bool has_hi, ScalarType hi, bool has_lo, ScalarType lo) {
  if (!has_hi) return lo;
  if (!has_lo || is_complex(hi)) return hi;
  if (is_complex(lo)) return is_floating(hi) ? to_complex(hi) : lo;
  if (is_floating(hi)) return hi;
  if (hi == ScalarType::Bool || is_floating(lo)) return promote_types(hi, lo);
  return hi;
}
}  // namespace

void ResultTypeState::update(const Tensor& t) {
  if (t.dim() == 0) {
    zero_dim_result = has_zero_dim ? promote_types(zero_dim_result, t.dtype()) : t.dtype();
    has_zero_dim = true;
  } else {
    dim_result = has_dim ? promote_types(dim_result, t.dtype()) : t.dtype();
    has_dim = true;
  }
}

void ResultTypeState::update(const Scalar& s) {
  const ScalarType t = s.default_dtype();
  wrapped_result = has_wrapped ? promote_types(wrapped_result, t) : t;
  has_wrapped = true;
}

ScalarType ResultTypeState::result() const {
  const ScalarType lo = combine(has_zero_dim, zero_dim_result, has_wrapped, wrapped_result);
  return combine(has_dim, dim_result, has_zero_dim || has_wrapped, lo);
}

ScalarType result_type(const Tensor& a, const Tensor& b) {
  ResultTypeState s;
  s.update(a);
  s.update(b);
  return s.result();
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  ResultTypeState s;
  s.update(a);
  s.update(b);
  return s.result();
}

}  // namespace ember
