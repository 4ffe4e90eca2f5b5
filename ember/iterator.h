// Note [Strided iteration]
// Every elementwise kernel (copy, cast, fill, and issue 3's arithmetic) walks its operands through one
// StridedIter, the role PyTorch's TensorIterator plays. Given operands already broadcast to one shape
// (operand 0 is the output), it computes byte strides (0 on broadcast dims), orders dims so the
// innermost has the smallest output stride (a transposed output is walked in memory order), drops
// size-1 dims and merges dims that are contiguous for every operand. A fully contiguous case becomes a
// single dim, which kernels run as a flat loop the compiler vectorizes. The result is plain data, so
// the CPU loops and the CUDA launcher share it.
#pragma once

#include <array>

#include "ember/tensor.h"

namespace ember {

struct StridedIter {
  static constexpr int kMaxOperands = 5;
  int ntensors = 0;
  int ndim = 0;                                 // after coalescing; dim 0 is the innermost
  DimVector shape;                              // inner-first
  std::array<DimVector, kMaxOperands> strides;  // in bytes, inner-first
  std::array<char*, kMaxOperands> data{};
  std::array<ScalarType, kMaxOperands> dtypes{};
  int64_t numel = 0;

  // `ops[0]` is written; the others are read. All must have `shape` or broadcast to it.
  static StridedIter make(std::initializer_list<const Tensor*> ops, IntArrayRef shape);

  // True when every operand is contiguous along the single remaining dim.
  bool is_contiguous() const {
    if (ndim > 1) return false;
    if (ndim == 0) return true;
    for (int i = 0; i < ntensors; ++i)
      if (strides[i][0] != static_cast<int64_t>(element_size(dtypes[i]))) return false;
    return true;
  }
};

}  // namespace ember
