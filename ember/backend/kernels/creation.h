// The kernels of the range constructors (ops/creation.cpp: arange, linspace, logspace).
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// dst is contiguous: dst[i] = start + i * step.
EMBER_DECLARE_KERNEL(arange, const Tensor& dst, const Scalar& start, const Scalar& step)
// dst is contiguous with n elements: evenly spaced from start to end; with log_scale, base ** that.
EMBER_DECLARE_KERNEL(linspace, const Tensor& dst, double start, double end, bool log_scale, double base)

}  // namespace ember
