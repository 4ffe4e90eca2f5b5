// CPU binary kernels, split over two files by op group to keep compile units small.
#pragma once

#include <type_traits>

#include "ember/backend/cpu/loops.h"
#include "ember/ops/binary.h"

namespace ember::cpu {

// The type the math of T runs in: float for the 16-bit floating types (each op rounds once).
template <class T>
using Acc = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
template <class T>
constexpr bool is_fp = std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Each returns false when the op is not in its group.
bool binary_arith(BinaryOp op, const StridedIter& it, ScalarType compute, const Scalar& alpha);
bool binary_logic(BinaryOp op, const StridedIter& it, ScalarType compute);

[[noreturn]] void zero_division(const char* op);

}  // namespace ember::cpu
