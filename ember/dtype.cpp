#include "ember/dtype.h"

#include <ostream>

namespace ember {

namespace {
ScalarType g_default_dtype = ScalarType::Float32;

// Rank among floating types for promotion; Float16 and BFloat16 share a rank and meet at Float32.
int float_rank(ScalarType t) { return t == ScalarType::Float32 ? 2 : t == ScalarType::Float64 ? 3 : 1; }
}  // namespace

std::string_view dtype_name(ScalarType t) {
  switch (t) {
#define EMBER_NAME(T, N, P) \
  case ScalarType::N: return #P;
    EMBER_FORALL_ALL_DTYPES(EMBER_NAME)
#undef EMBER_NAME
  }
  return "?";
}

const char* cpp_element_name(ScalarType t) {
  switch (t) {
#define EMBER_C_NAME(T, N, P) \
  case ScalarType::N: return #T;
    EMBER_FORALL_DTYPES(EMBER_C_NAME)
#undef EMBER_C_NAME
    case ScalarType::ComplexFloat: return "c10::complex<float>";  // PyTorch's names, as its messages print them
    case ScalarType::ComplexDouble: return "c10::complex<double>";
    case ScalarType::ComplexHalf: return "c10::complex<c10::Half>";
  }
  return "?";
}

const char* type_label(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "Bool";
    case ScalarType::UInt8: return "Byte";
    case ScalarType::Int8: return "Char";
    case ScalarType::Int16: return "Short";
    case ScalarType::Int32: return "Int";
    case ScalarType::Int64: return "Long";
    case ScalarType::Float16: return "Half";
    case ScalarType::BFloat16: return "BFloat16";
    case ScalarType::Float32: return "Float";
    case ScalarType::Float64: return "Double";
    case ScalarType::ComplexFloat: return "ComplexFloat";
    case ScalarType::ComplexDouble: return "ComplexDouble";
    case ScalarType::ComplexHalf: return "ComplexHalf";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

void dispatch_unsupported(ScalarType t) { fail<NotImplementedError>("not implemented for '", type_label(t), "'"); }

// Note [complex32]
// complex32 (ComplexHalf) is a storage type, as on PyTorch's CPU: pairs of float16, with the layout of complex64 at
// half the width. No kernel is instantiated for Complex<Half>: the conversions (ember/backend/cpu/convert.cpp) and the
// byte-moving kernels (copies, indexing, cat, where by element size) carry it, and the few arithmetic ops PyTorch's CPU
// has for it (add, sub, mul, neg, abs, sgn, eq, ne, isnan/isinf/isfinite) run their complex64 kernels with complex32
// operands cast on load and store: each element is computed in complex64 and rounded once, as PyTorch computes
// c10::complex<Half> through c10::complex<float>. Every other op raises PyTorch's NotImplementedError, naming the
// kernel PyTorch names ("\"div_cpu\" not implemented for 'ComplexHalf'"); the set is in docs/dtypes.md.
void fail_complex_half(std::string_view kernel) {
  fail<NotImplementedError>("\"", kernel, "\" not implemented for 'ComplexHalf'");
}

ScalarType to_complex(ScalarType t) {
  if (t == ScalarType::Float64) return ScalarType::ComplexDouble;
  if (t == ScalarType::Float16) return ScalarType::ComplexHalf;
  if (is_complex(t)) return t;
  EMBER_CHECK(is_floating(t), "Unknown Complex ScalarType for ", type_label(t));
  return ScalarType::ComplexFloat;
}
ScalarType to_real(ScalarType t) {
  if (t == ScalarType::ComplexDouble) return ScalarType::Float64;
  if (t == ScalarType::ComplexHalf) return ScalarType::Float16;
  return t == ScalarType::ComplexFloat ? ScalarType::Float32 : t;
}
ScalarType default_complex_dtype() { return to_complex(g_default_dtype); }  // bfloat16: complex64

ScalarType promote_types(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  if (is_complex(a) || is_complex(b)) {  // the complex type of the promoted real parts (complex32 with bfloat16:
    return to_complex(promote_types(to_real(a), to_real(b)));  // float32, so complex64)
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    int ra = float_rank(a), rb = float_rank(b);
    if (ra == rb) return S::Float32;  // float16 with bfloat16
    return ra > rb ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integral and different. uint8 with a signed type needs a signed type that holds 0..255.
  if (a == S::UInt8 || b == S::UInt8) {
    S other = a == S::UInt8 ? b : a;
    return other == S::Int8 ? S::Int16 : other;
  }
  return element_size(a) > element_size(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

ScalarType default_dtype() { return g_default_dtype; }
void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(
      t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::Float16 || t == ScalarType::BFloat16,
      "set_default_dtype: only floating-point types are supported as the default type, got ", t);
  g_default_dtype = t;
}

}  // namespace ember
