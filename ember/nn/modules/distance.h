// Distance layers: CosineSimilarity and PairwiseDistance.
#pragma once

#include <string>

#include "ember/nn/modules/module.h"

namespace ember::nn {

class CosineSimilarity : public Module {
 public:
  explicit CosineSimilarity(int64_t dim = 1, double eps = 1e-8) : Module("CosineSimilarity"), dim(dim), eps(eps) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  Tensor operator()(const Tensor& x1, const Tensor& x2) { return forward(x1, x2); }
  using Module::forward;
  int64_t dim;
  double eps;
};

class PairwiseDistance : public Module {
 public:
  explicit PairwiseDistance(double p = 2.0, double eps = 1e-6, bool keepdim = false)
      : Module("PairwiseDistance"), norm(p), eps(eps), keepdim(keepdim) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  Tensor operator()(const Tensor& x1, const Tensor& x2) { return forward(x1, x2); }
  using Module::forward;
  double norm, eps;
  bool keepdim;
};

}  // namespace ember::nn
