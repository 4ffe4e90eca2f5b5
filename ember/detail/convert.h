// Element conversion shared by the CPU and CUDA kernels.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ember/complex.h"
#include "ember/half.h"
#include "ember/macros.h"

namespace ember {

// Converts between element types with PyTorch's rules: to bool is "!= 0"; floating to a narrow
// integer goes through int64 so that out-of-range values wrap instead of being undefined. Complex to real keeps the
// real part (PyTorch warns in Python; the C++ cast is silent); to bool is "either part != 0".
template <class To, class From>
EMBER_HOST_DEVICE To convert(From v) {
  if constexpr (std::is_same_v<To, From>)
    return v;
  else if constexpr (is_complex_v<From> && is_complex_v<To>)
    return To(v);
  else if constexpr (is_complex_v<From> && std::is_same_v<To, bool>)
    return v.re != 0 || v.im != 0;
  else if constexpr (is_complex_v<From>)
    return convert<To>(v.re);
  else if constexpr (is_complex_v<To>)
    return To(convert<typename To::value_type>(v), typename To::value_type(0));
  else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>)
    return convert<To>(static_cast<float>(v));
  else if constexpr (std::is_same_v<To, bool>)
    return v != From(0);
  else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>)
    return static_cast<To>(static_cast<int64_t>(v));
  else
    return static_cast<To>(v);
}

}  // namespace ember
