// The kernels of cdist and pdist (nn/functional/distance.cpp): p-norm distances between rows, computed pair by pair
// (math/distance.h) without the [*, P, R, M] differences a composition would hold.
#pragma once

#include "ember/backend/kernels.h"

namespace ember {

// out [B, P, R] = ||x1[b, i] - x2[b, j]||_p for x1 [B, P, M] and x2 [B, R, M]; all contiguous, of one dtype (float32
// or float64); p >= 0 or inf.
EMBER_DECLARE_KERNEL(cdist_forward, const Tensor& out, const Tensor& x1, const Tensor& x2, double p)
// out [N (N - 1) / 2] = ||x[i] - x[j]||_p for the rows i < j of x [N, M], in row-major order of the pairs; contiguous,
// of one dtype (float32 or float64).
EMBER_DECLARE_KERNEL(pdist_forward, const Tensor& out, const Tensor& x, double p)

}  // namespace ember
