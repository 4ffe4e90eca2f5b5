// The layout of an elementwise op's output (PyTorch's TensorIterator rule).
#pragma once

#include <initializer_list>

#include "ember/tensor.h"

namespace ember {

// The output of an elementwise op over `operands` (each of `shape` or broadcasting to it; null ones skipped), laid out
// as PyTorch's TensorIterator lays it out: dims in the order the operands' strides give them (the first operand that
// tells two dims apart decides; a broadcast dim tells nothing; equal strides put the smaller dim inner), packed. So
// a channels-last or transposed input gives an output in the same layout, and row-major inputs a row-major one.
Tensor empty_like_operands(IntArrayRef shape, TensorOptions opts, std::initializer_list<const Tensor*> operands);

}  // namespace ember
