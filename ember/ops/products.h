// Products and combinations (ops/products.cpp): cross, kron, cartesian_prod, combinations, and the Vandermonde
// matrices.
#pragma once

#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// torch.cross: dim nullopt picks the first dim of size 3 (of the broadcast shape); torch.linalg.cross: dim -1.
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = {});
Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
Tensor kron(const Tensor& a, const Tensor& b);
Tensor cartesian_prod(const std::vector<Tensor>& tensors);
Tensor combinations(const Tensor& t, int64_t r = 2, bool with_replacement = false);
// torch.vander: decreasing powers unless increasing; linalg.vander: increasing powers over the last dim.
Tensor vander(const Tensor& x, std::optional<int64_t> n = {}, bool increasing = false);
Tensor linalg_vander(const Tensor& x, std::optional<int64_t> n = {});

}  // namespace ember
