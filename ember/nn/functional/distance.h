// Distances and similarities between vectors (torch.nn.functional's pairwise_distance, cosine_similarity, pdist,
// and torch.cdist): compositions of ember ops, so their gradients come from the ops' formulas, except cdist's and
// pdist's pairs of rows, which kernels walk (Note [Distances by kernel] in distance.cpp).
#pragma once

#include <string_view>

#include "ember/tensor.h"

namespace ember {

// ||x1 - x2 + eps||_p over the last dim of the broadcast inputs.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2, double eps = 1e-6, bool keepdim = false);
// sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim of the broadcast inputs.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
// x1 [*, P, M], x2 [*, R, M] -> [*, P, R] of p-norm distances (batch dims broadcast). compute_mode:
// "use_mm_for_euclid_dist_if_necessary" (p = 2 and P or R > 25 go through a matrix product), "use_mm_for_euclid_dist"
// or "donot_use_mm_for_euclid_dist".
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2,
             std::string_view compute_mode = "use_mm_for_euclid_dist_if_necessary");
// The distances between the rows of x [N, M], i < j, in row-major order: N * (N - 1) / 2 values.
Tensor pdist(const Tensor& x, double p = 2);

}  // namespace ember
