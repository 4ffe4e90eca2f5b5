// Scalar types, their C++ representations, and PyTorch's type promotion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ember/error.h"
#include "ember/half.h"

namespace ember {

// The macro list keeps every per-dtype table in one place: X(C++ type, enum name, python name).
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

// Generated from the list, so every table below that the list generates is in the enum's order by construction.
enum class ScalarType : int8_t {
#define EMBER_ENUM(T, N, P) N,
  EMBER_FORALL_DTYPES(EMBER_ENUM)
#undef EMBER_ENUM
};
constexpr int kNumScalarTypes = 10;

template <class T>
struct CppToScalarType;
#define EMBER_CPP_TO_ST(T, N, _)                       \
  template <>                                          \
  struct CppToScalarType<T> {                          \
    static constexpr ScalarType value = ScalarType::N; \
  };
EMBER_FORALL_DTYPES(EMBER_CPP_TO_ST)
#undef EMBER_CPP_TO_ST
template <class T>
constexpr ScalarType scalar_type_of = CppToScalarType<T>::value;

inline size_t element_size(ScalarType t) {
#define EMBER_SIZE(T, N, P) sizeof(T),
  static constexpr size_t sizes[] = {EMBER_FORALL_DTYPES(EMBER_SIZE)};
#undef EMBER_SIZE
  return sizes[static_cast<int>(t)];
}
std::string_view dtype_name(ScalarType t);  // "float32"
// PyTorch's C++ type names ("Float", "Long", "Byte"), as its messages print them.
const char* type_label(ScalarType t);
// The C++ element type ("int64_t", "float"), as PyTorch's overflow messages print it.
const char* cpp_element_name(ScalarType t);
inline bool is_floating(ScalarType t) { return t >= ScalarType::Float16; }
inline bool is_integral(ScalarType t, bool include_bool) {
  return t == ScalarType::Bool ? include_bool : t < ScalarType::Float16;
}
inline bool is_signed(ScalarType t) { return t != ScalarType::Bool && t != ScalarType::UInt8; }

// Binary promotion between two tensors' dtypes (torch.promote_types).
ScalarType promote_types(ScalarType a, ScalarType b);
// torch.can_cast: whether a casting of from -> to is allowed by PyTorch's "same kind" rule.
bool can_cast(ScalarType from, ScalarType to);

// The default floating dtype (ember.set_default_dtype); float32 unless changed.
ScalarType default_dtype();
void set_default_dtype(ScalarType t);

std::ostream& operator<<(std::ostream& os, ScalarType t);

// Calls f(T{}) with the C++ type for t. Only the types listed in the caller's set are instantiated.
#define EMBER_DISPATCH_CASE(T, N, _) \
  case ::ember::ScalarType::N: return f(T{});
template <class F>
decltype(auto) dispatch_all(ScalarType t, F&& f) {
  switch (t) { EMBER_FORALL_DTYPES(EMBER_DISPATCH_CASE) }
  fail<Error>("unknown dtype");
}
#undef EMBER_DISPATCH_CASE

}  // namespace ember
