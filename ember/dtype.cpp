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
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

void dispatch_unsupported(ScalarType t) { fail<NotImplementedError>("not implemented for '", type_label(t), "'"); }

ScalarType to_complex(ScalarType t) {
  if (t == ScalarType::Float64) return ScalarType::ComplexDouble;
  if (is_complex(t)) return t;
  EMBER_CHECK(is_floating(t), "Unknown Complex ScalarType for ", type_label(t));
  return ScalarType::ComplexFloat;
}
ScalarType to_real(ScalarType t) {
  if (t == ScalarType::ComplexDouble) return ScalarType::Float64;
  return t == ScalarType::ComplexFloat ? ScalarType::Float32 : t;
}
ScalarType default_complex_dtype() {
  return g_default_dtype == ScalarType::Float64 ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  if (is_complex(a) || is_complex(b)) {  // the wider of the complex type and the complex of the other's float type
    if (a == S::ComplexDouble || b == S::ComplexDouble || a == S::Float64 || b == S::Float64) return S::ComplexDouble;
    return S::ComplexFloat;
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
