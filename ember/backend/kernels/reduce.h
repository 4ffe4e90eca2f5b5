// The reduction kernels (ops/reduce.cpp; Note [Reductions] in backend/cpu/reduce.cpp).
#pragma once

#include <cstdint>

#include "ember/backend/kernels.h"

namespace ember {

enum class ReduceOp : uint8_t { Sum, NanSum, Prod, Max, Min, All, Any, CountNonzero };

// The op's name, as its user knows it (errors, profiler events).
constexpr const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::NanSum: return "nansum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "amax";
    case ReduceOp::Min: return "amin";
    case ReduceOp::All: return "all";
    case ReduceOp::Any: return "any";
    case ReduceOp::CountNonzero: return "count_nonzero";
  }
  return "?";
}

// out has in's rank with size 1 on the reduced dims (keepdim form). Sums of 16-bit floats accumulate
// in float32 and float32 sums are pairwise (error O(log n)); integer sums accumulate in int64.
EMBER_DECLARE_KERNEL(reduce, ReduceOp op, const Tensor& out, const Tensor& in)
// Max or Min along one dim: values and int64 indices, both in keepdim form. NaN wins, first occurrence.
EMBER_DECLARE_KERNEL(reduce_with_index, ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in,
                     int64_t dim)

}  // namespace ember
