// Note [Shared elementwise math]
// The scalar formulas of the elementwise ops are written once, here under backend/math/, and compiled by both
// backends: g++ for the CPU kernels (ember/backend/cpu/) and nvcc for the CUDA ones (ember/backend/cuda/). So a
// formula's NaN handling, rounding and edge cases are the same on both devices by construction, and the CPU test
// suite exercises the code the GPU runs. Each op family is a function template over a Runner K that supplies the
// loop:
//   k.template kernel<Out, In, N>(f)   runs out = f(in_1, ..., in_N) over the operands with casting on load
//                                      (Note [Casting on load]); f takes In values and returns Out;
//   k.errors()                         an ErrorSink value that the formulas capture (integer division by zero).
// Formulas are lambdas marked EMBER_LAMBDA (__host__ __device__ under nvcc, which needs --extended-lambda) that
// capture by value only and name what they capture: nvcc refuses init-captures, by-reference captures and implicit
// captures inside `if constexpr` in such lambdas, so parameters are copied into locals first.
#pragma once

#include <cmath>
#include <type_traits>

#include "ember/half.h"
#include "ember/macros.h"

#if defined(__CUDACC__)
#define EMBER_LAMBDA __host__ __device__
#else
#define EMBER_LAMBDA
#endif

namespace ember::math {

// The type the math of T runs in: float for the 16-bit floating types (each op rounds once).
template <class T>
using Acc = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
template <class T>
constexpr bool is_fp = std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Adapters from a formula over Acc<T> to the kernel's element types.
template <class T, class F>
struct Same1 {  // T -> T
  F f;
  EMBER_HOST_DEVICE T operator()(T a) const { return static_cast<T>(f(Acc<T>(a))); }
};
template <class T, class F>
struct Pred1 {  // T -> bool
  F f;
  EMBER_HOST_DEVICE bool operator()(T a) const { return f(Acc<T>(a)); }
};
template <class T, class F>
struct Same2 {  // (T, T) -> T
  F f;
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(f(Acc<T>(a), Acc<T>(b))); }
};
template <class T, class F>
struct Pred2 {  // (T, T) -> bool
  F f;
  EMBER_HOST_DEVICE bool operator()(T a, T b) const { return f(Acc<T>(a), Acc<T>(b)); }
};
template <class T, class F>
struct Same3 {  // (T, T, T) -> T
  F f;
  EMBER_HOST_DEVICE T operator()(T a, T b, T c) const { return static_cast<T>(f(Acc<T>(a), Acc<T>(b), Acc<T>(c))); }
};

}  // namespace ember::math
