#include "ember/nn/modules/flatten.h"

#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

Tensor Flatten::forward(const Tensor& x) { return x.flatten(start_dim, end_dim); }

std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

Tensor Unflatten::forward(const Tensor& x) { return unflatten(x, dim, unflattened_size); }

std::string Unflatten::extra_repr() const {
  return "dim=" + std::to_string(dim) + ", unflattened_size=" + detail::tuple_str(unflattened_size);
}

}  // namespace ember::nn
