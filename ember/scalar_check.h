// Checks that a Python number fits the dtype it is stored as (Note [Checked scalar conversion], scalar_check.cpp).
#pragma once

#include "ember/dtype.h"
#include "ember/scalar.h"

namespace ember {

// Which numbers a conversion rejects: fills (fill_, full, masked_fill, index_fill, t[i] = v) also reject finite
// numbers out of float32's range, as PyTorch's; tensor(data) checks integer dtypes only.
enum class ScalarCheck { Fill, Tensor };

// RuntimeError "`op`: value cannot be converted to type int8_t without overflow" when `v` does not fit `t`.
void check_scalar_fits(const Scalar& v, ScalarType t, const char* op, ScalarCheck kind = ScalarCheck::Fill);

}  // namespace ember
