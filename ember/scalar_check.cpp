// Note [Checked scalar conversion]
// Storing a Python number in a tensor of a narrower dtype must not wrap silently: ember.tensor([300],
// dtype=uint8) would hold 44, and a NaN stored as int64 is undefined behaviour in C++ (INT64_MIN on x86). PyTorch
// (c10::checked_convert) raises "value cannot be converted to type uint8_t without overflow" instead; these are
// its rules, measured on PyTorch 2.15:
// - bool takes any number;
// - an integer dtype takes integers in [lowest, max], and for unsigned dtypes also negative integers down to -max
//   (they wrap: fill_(-1) on uint8 gives 255), and floats in [lowest, max + 1), which truncate into the range
//   (uint8 takes 255.9 but not -0.5; NaN and inf never);
// - float32 takes infinities and NaN but no finite number beyond its range, in fills only (tensor() rounds
//   to inf); float16, bfloat16 and float64 take anything (out of range rounds to inf);
// - complex32 takes in fills only parts within float16's range, or infinite or NaN (tensor() rounds to inf).
// Arithmetic with a number (add(int8_tensor, 1000)) wraps in PyTorch and in ember: the check is for stores.
#include "ember/scalar_check.h"

#include <cmath>
#include <limits>

#include "ember/error.h"

namespace ember {

namespace {

template <class T>
bool int_fits(const Scalar& v) {
  using L = std::numeric_limits<T>;
  if (v.is_floating()) {
    const double d = v.to_double();
    if (std::isnan(d)) return false;
    return d >= static_cast<double>(L::lowest()) && d < static_cast<double>(L::max()) + 1.0;  // max + 1 is exact
  }
  const int64_t i = v.to_int();
  if constexpr (std::is_unsigned_v<T>)
    return i <= static_cast<int64_t>(L::max()) && i >= -static_cast<int64_t>(L::max());
  return i >= static_cast<int64_t>(L::lowest()) && i <= static_cast<int64_t>(L::max());
}

const char* dtype_short_name(ScalarType t) {
  switch (t) {
#define EMBER_SHORT_NAME(T, N, P) \
  case ScalarType::N: return #P;
    EMBER_FORALL_ALL_DTYPES(EMBER_SHORT_NAME)
#undef EMBER_SHORT_NAME
  }
  return "?";
}

bool fits(const Scalar& v, ScalarType t, ScalarCheck kind) {
  if (t == ScalarType::ComplexHalf && kind == ScalarCheck::Fill && !v.is_bool()) {  // each part in float16's range
    const Complex<double> z = v.to_complex();
    auto part_fits = [](double d) { return !std::isfinite(d) || std::fabs(d) <= 65504.0; };
    return part_fits(z.re) && part_fits(z.im);
  }
  if (v.is_bool() || is_complex(t)) return true;
  if (v.is_complex()) {  // into a real dtype: only a complex number without imaginary part (PyTorch's rule)
    const Complex<double> z = v.to_complex();
    return t == ScalarType::Bool || (z.im == 0 && fits(Scalar(z.re), t, kind));
  }
  switch (t) {
    case ScalarType::UInt8: return int_fits<uint8_t>(v);
    case ScalarType::Int8: return int_fits<int8_t>(v);
    case ScalarType::Int16: return int_fits<int16_t>(v);
    case ScalarType::Int32: return int_fits<int32_t>(v);
    case ScalarType::Int64: return int_fits<int64_t>(v);
    case ScalarType::Float32: {
      if (kind != ScalarCheck::Fill) return true;
      const double d = v.to_double();
      return !std::isfinite(d) || std::fabs(d) <= std::numeric_limits<float>::max();
    }
    default: return true;
  }
}

}  // namespace

void check_scalar_fits(const Scalar& v, ScalarType t, const char* op, ScalarCheck kind) {
  if (!fits(v, t, kind)) [[unlikely]]
    // PyTorch names the C++ type for fills ("int8_t") and the dtype for tensor() ("int8").
    fail<Error>(op, ": value cannot be converted to type ",
                kind == ScalarCheck::Fill ? cpp_element_name(t) : dtype_short_name(t), " without overflow");
}

}  // namespace ember
