// torch.gradient (ops/gradient.cpp): derivatives of sampled functions by central differences, with first- or
// second-order one-sided differences at the edges.
#pragma once

#include <optional>
#include <vector>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

// One tensor per dim of `dim` (every dim of x when not given): the derivative of x along it for samples `spacing`
// apart (one number per dim) ...
std::vector<Tensor> gradient(const Tensor& x, const std::vector<Scalar>& spacing,
                             const std::optional<DimVector>& dim = {}, int64_t edge_order = 1);
// ... or at the 1-d sample coordinates `coordinates` (one tensor per dim, of that dim's size).
std::vector<Tensor> gradient(const Tensor& x, const std::vector<Tensor>& coordinates,
                             const std::optional<DimVector>& dim = {}, int64_t edge_order = 1);

}  // namespace ember
