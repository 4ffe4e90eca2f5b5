// Checked size arithmetic: every element count and storage extent goes through these (Note [Checked size
// arithmetic], sizes.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/small_vector.h"

namespace ember {

// The product of sizes; RuntimeError naming `op` for a negative size or when it overflows int64.
int64_t checked_numel(IntArrayRef size, const char* op);
// The bytes of storage a tensor of `size` and `stride` starting at element `offset` reaches:
// (offset + sum((size[i] - 1) * stride[i]) + 1) * itemsize, or 0 when it has no elements.
// RuntimeError "Storage size calculation overflowed" when that does not fit in int64, or for negative
// sizes, strides or offset.
int64_t storage_nbytes(IntArrayRef size, IntArrayRef stride, int64_t offset, size_t itemsize, const char* op);
// The same for a contiguous tensor of `size`.
int64_t storage_nbytes(IntArrayRef size, size_t itemsize, const char* op);
// a * b for sizes an op derives from its arguments (a kernel area, a scale factor squared); RuntimeError
// "`op`: `what` overflowed (a * b)" when the product overflows int64.
int64_t checked_mul(int64_t a, int64_t b, const char* op, const char* what);
// a + b, the same way (the length of a concatenation, a sum of repeat counts).
int64_t checked_add(int64_t a, int64_t b, const char* op, const char* what);

}  // namespace ember
