// Reshaping layers: Flatten and Unflatten.
#pragma once

#include <string>
#include <utility>

#include "ember/nn/modules/module.h"

namespace ember::nn {

class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t start_dim, end_dim;
};

// Splits dim into unflattened_size (one entry may be -1).
class Unflatten : public Module {
 public:
  Unflatten(int64_t dim, DimVector unflattened_size)
      : Module("Unflatten"), dim(dim), unflattened_size(std::move(unflattened_size)) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t dim;
  DimVector unflattened_size;
};

}  // namespace ember::nn
