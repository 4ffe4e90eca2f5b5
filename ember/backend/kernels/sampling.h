// The kernels of the distributions' samplers (ops/sampling.cpp; formulas in ember/backend/math/sampling.h).
#pragma once

#include "ember/backend/kernels.h"
#include "ember/generator.h"

namespace ember {

// dst: contiguous float64. kind: an rnd::SampleKind. Parameters a, b: contiguous float64 tensors of dst's shape
// where defined, else the numbers sa, sb. tiny: the floor of gamma's results (the smallest normal number of the
// dtype they go to). Tensor parameters outside the sampler's domain are reported by the CUDA kernels
// (Note [Deferred device errors]); the CPU ones are checked before the kernel runs.
EMBER_DECLARE_KERNEL(sample, const Tensor& dst, int kind, const Tensor& a, const Tensor& b, double sa, double sb,
                     double tiny, PhiloxState s)
// dst, alpha, x: contiguous float64 of one shape; dst = d x / d alpha for x ~ Gamma(alpha, 1).
EMBER_DECLARE_KERNEL(standard_gamma_grad, const Tensor& dst, const Tensor& alpha, const Tensor& x)

}  // namespace ember
