// Casting copies between contiguous runs that the plain element loop leaves scalar (backend/cpu/cast.cpp).
#pragma once

#include "ember/dtype.h"
#include "ember/iterator.h"

namespace ember::cpu {

// dst = src cast, over `it` (operand 0 of dtype `to`, operand 1 of `from`), when the pair is one cast.cpp speeds up
// and both innermost strides are unit; false, having done nothing, otherwise.
bool cast_runs(const StridedIter& it, ScalarType to, ScalarType from);

}  // namespace ember::cpu
