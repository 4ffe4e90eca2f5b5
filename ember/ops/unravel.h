// torch.unravel_index (ops/unravel.cpp): flat indices to coordinates.
#pragma once

#include <vector>

#include "ember/tensor.h"

namespace ember {

// The coordinates of the flat `indices` in a tensor of `shape`, one int64 tensor per dim of shape, each of
// indices' shape. As PyTorch's, indices are taken modulo the sizes (no bounds check; negative ones wrap Python's way).
std::vector<Tensor> unravel_index(const Tensor& indices, IntArrayRef shape);

}  // namespace ember
