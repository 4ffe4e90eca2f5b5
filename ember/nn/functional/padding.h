// Padding (torch.nn.functional.pad). `pad` lists (before, after) pairs starting from the last dim, as PyTorch's;
// negative entries crop.
#pragma once

#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

// mode: "constant" (with value, default 0), "reflect", "replicate" or "circular" (these pad the last 1, 2 or 3 dims
// of an input with 1 or 2 more dims than that).
Tensor pad(const Tensor& x, IntArrayRef pad, std::string_view mode = "constant", std::optional<double> value = {});
Tensor constant_pad_nd(const Tensor& x, IntArrayRef pad, const Scalar& value = 0);

}  // namespace ember
