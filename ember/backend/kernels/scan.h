// The scan kernel of cumsum, cumprod, cummax, cummin and logcumsumexp (ops/scan.cpp).
#pragma once

#include <cstdint>

#include "ember/backend/kernels.h"

namespace ember {

enum class ScanOp : uint8_t { Sum, Prod, Max, Min, LogSumExp };

constexpr const char* scan_op_name(ScanOp op) {
  switch (op) {
    case ScanOp::Sum: return "cumsum";
    case ScanOp::Prod: return "cumprod";
    case ScanOp::Max: return "cummax";
    case ScanOp::Min: return "cummin";
    case ScanOp::LogSumExp: return "logcumsumexp";
  }
  return "?";
}

// out and in have one shape and dtype, in.dim() >= 1. Sum and Prod accumulate as PyTorch's CPU kernels do (int64
// for integers and bool, double for float32, float for 16-bit floats); Max and Min also write int64 indices (the
// latest position of the running extremum; a NaN sticks), the other ops get an undefined `indices`.
EMBER_DECLARE_KERNEL(scan, ScanOp op, const Tensor& out, const Tensor& indices, const Tensor& in, int64_t dim)

}  // namespace ember
