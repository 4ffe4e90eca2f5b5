// The conjugate bit's helpers for the op sources (Note [The conjugate bit] in ember/ops/conj_bit.cpp).
#pragma once

#include "ember/tensor.h"

namespace ember::conj_bit {

// A tensor sharing t's storage and geometry without the bit: its memory as it is.
Tensor physical(const Tensor& t);
// copy_ when dst or src has the bit: one copy of the memory and, when the bits differ, one negation of dst's
// imaginary parts. dst is writable (no internal overlap) and does not partly overlap src.
void copy(const Tensor& dst, const Tensor& src);

}  // namespace ember::conj_bit
