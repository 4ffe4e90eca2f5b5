// Scalar types, their C++ representations, and PyTorch's type promotion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ember/complex.h"
#include "ember/error.h"
#include "ember/half.h"

namespace ember {

// The macro lists keep every per-dtype table in one place: X(C++ type, enum name, python name). EMBER_FORALL_DTYPES
// lists the real dtypes, those most kernels are instantiated for; complex ones come last in the enum, so that the
// real ones keep their numbers (docs/dtypes.md, "Complex numbers"). EMBER_FORALL_COMPLEX_DTYPES lists the complex
// dtypes kernels compute in; complex32 comes after them (a storage type: Note [complex32] in ember/dtype.cpp).
#define EMBER_FORALL_DTYPES(X)             \
  X(bool, Bool, bool)                      \
  X(uint8_t, UInt8, uint8)                 \
  X(int8_t, Int8, int8)                    \
  X(int16_t, Int16, int16)                 \
  X(int32_t, Int32, int32)                 \
  X(int64_t, Int64, int64)                 \
  X(::ember::Half, Float16, float16)       \
  X(::ember::BFloat16, BFloat16, bfloat16) \
  X(float, Float32, float32)               \
  X(double, Float64, float64)
#define EMBER_FORALL_COMPLEX_DTYPES(X)                \
  X(::ember::Complex<float>, ComplexFloat, complex64) \
  X(::ember::Complex<double>, ComplexDouble, complex128)
#define EMBER_FORALL_ALL_DTYPES(X) \
  EMBER_FORALL_DTYPES(X) EMBER_FORALL_COMPLEX_DTYPES(X) X(::ember::Complex<::ember::Half>, ComplexHalf, complex32)

// Generated from the list, so every table below that the list generates is in the enum's order by construction.
enum class ScalarType : int8_t {
#define EMBER_ENUM(T, N, P) N,
  EMBER_FORALL_ALL_DTYPES(EMBER_ENUM)
#undef EMBER_ENUM
};
constexpr int kNumScalarTypes = 13;
static_assert(sizeof(Complex<Half>) == 4 && alignof(Complex<Half>) == 4);  // complex32: PyTorch's layout

template <class T>
struct CppToScalarType;
#define EMBER_CPP_TO_ST(T, N, _)                       \
  template <>                                          \
  struct CppToScalarType<T> {                          \
    static constexpr ScalarType value = ScalarType::N; \
  };
EMBER_FORALL_ALL_DTYPES(EMBER_CPP_TO_ST)
#undef EMBER_CPP_TO_ST
template <class T>
constexpr ScalarType scalar_type_of = CppToScalarType<T>::value;

inline size_t element_size(ScalarType t) {
#define EMBER_SIZE(T, N, P) sizeof(T),
  static constexpr size_t sizes[] = {EMBER_FORALL_ALL_DTYPES(EMBER_SIZE)};
#undef EMBER_SIZE
  return sizes[static_cast<int>(t)];
}
std::string_view dtype_name(ScalarType t);  // "float32"
// PyTorch's C++ type names ("Float", "Long", "Byte"), as its messages print them.
const char* type_label(ScalarType t);
// The C++ element type ("int64_t", "float"), as PyTorch's overflow messages print it.
const char* cpp_element_name(ScalarType t);
// Real floating point (torch's is_floating_point: false for complex dtypes).
inline bool is_floating(ScalarType t) { return t >= ScalarType::Float16 && t <= ScalarType::Float64; }
inline bool is_complex(ScalarType t) { return t >= ScalarType::ComplexFloat; }
// Floating or complex: the dtypes of "inexact" math (PyTorch's isFloatingType || isComplexType).
inline bool is_inexact(ScalarType t) { return t >= ScalarType::Float16; }
inline bool is_integral(ScalarType t, bool include_bool) {
  return t == ScalarType::Bool ? include_bool : t < ScalarType::Float16;
}
inline bool is_signed(ScalarType t) { return t != ScalarType::Bool && t != ScalarType::UInt8; }
// dtype.to_complex() and to_real(): float16 <-> complex32, float32 <-> complex64, float64 <-> complex128 (bfloat16
// goes to complex64: ember has no bcomplex32). to_complex raises for integral dtypes; to_real returns real dtypes as
// they are.
ScalarType to_complex(ScalarType t);
ScalarType to_real(ScalarType t);
// The default complex dtype: that of the default dtype's precision (complex64 for bfloat16).
ScalarType default_complex_dtype();

// Binary promotion between two tensors' dtypes (torch.promote_types).
ScalarType promote_types(ScalarType a, ScalarType b);
// torch.can_cast: whether a casting of from -> to is allowed by PyTorch's "same kind" rule.
bool can_cast(ScalarType from, ScalarType to);

// The default floating dtype (ember.set_default_dtype); float32 unless changed.
ScalarType default_dtype();
void set_default_dtype(ScalarType t);

std::ostream& operator<<(std::ostream& os, ScalarType t);

[[noreturn]] void dispatch_unsupported(ScalarType t);
// Ops PyTorch has no complex32 kernel for raise its NotImplementedError, naming the kernel as PyTorch does:
// "\"sum_cpu\" not implemented for 'ComplexHalf'" (Note [complex32] in ember/dtype.cpp).
[[noreturn]] void fail_complex_half(std::string_view kernel);
inline void refuse_complex_half(std::string_view kernel, ScalarType t) {
  if (t == ScalarType::ComplexHalf) [[unlikely]]
    fail_complex_half(kernel);
}

// Calls f(T{}) with the C++ type for t, over the real dtypes: kernels are instantiated for complex ones only where
// an op supports them (dispatch_with_complex); a complex dtype reaching a real-only kernel raises PyTorch's
// "not implemented for 'ComplexFloat'" instead of computing garbage.
#define EMBER_DISPATCH_CASE(T, N, _) \
  case ::ember::ScalarType::N: return f(T{});
template <class F>
decltype(auto) dispatch_all(ScalarType t, F&& f) {
  switch (t) {
    EMBER_FORALL_DTYPES(EMBER_DISPATCH_CASE)
    default: dispatch_unsupported(t);
  }
}
// dispatch_all and the complex dtypes kernels compute in (complex64, complex128) too.
template <class F>
decltype(auto) dispatch_with_complex(ScalarType t, F&& f) {
  switch (t) {
    EMBER_FORALL_DTYPES(EMBER_DISPATCH_CASE)
    EMBER_FORALL_COMPLEX_DTYPES(EMBER_DISPATCH_CASE)
    default: dispatch_unsupported(t);
  }
}
// Every dtype, complex32 included: only for conversions and element access (copies, item, fill values).
template <class F>
decltype(auto) dispatch_any(ScalarType t, F&& f) {
  switch (t) {
    EMBER_FORALL_ALL_DTYPES(EMBER_DISPATCH_CASE)
    default: dispatch_unsupported(t);
  }
}
// Only the complex dtypes (the complex kernels).
template <class F>
decltype(auto) dispatch_complex(ScalarType t, F&& f) {
  switch (t) {
    EMBER_FORALL_COMPLEX_DTYPES(EMBER_DISPATCH_CASE)
    default: dispatch_unsupported(t);
  }
}
#undef EMBER_DISPATCH_CASE

}  // namespace ember
