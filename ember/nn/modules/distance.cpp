#include "ember/nn/modules/distance.h"

#include "ember/nn/functional/distance.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

Tensor CosineSimilarity::forward(const Tensor& x1, const Tensor& x2) { return cosine_similarity(x1, x2, dim, eps); }

Tensor PairwiseDistance::forward(const Tensor& x1, const Tensor& x2) {
  return pairwise_distance(x1, x2, norm, eps, keepdim);
}

}  // namespace ember::nn
