// Dropout (torch.nn.functional's dropout family).
#pragma once

#include <optional>
#include <utility>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember {

// Zeroes each element with probability p (from the Philox generator) and scales the rest by 1 / (1 - p); the
// gradient is g times the same mask. Not training, or p = 0: x itself. inplace: writes x.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true, bool inplace = false, Generator* gen = nullptr);
// One draw per channel: x is [N, C, *], the mask [N, C, 1, ...].
Tensor feature_dropout(const Tensor& x, double p = 0.5, bool training = true, bool inplace = false,
                       Generator* gen = nullptr);
// torch.nn.functional.dropout1d/2d/3d: feature_dropout over whole channels of [N, C, *spatial] or unbatched
// [C, *spatial] (dropout2d reads a 3-d input as [N, C, L], as PyTorch does; dropout1d takes only 2-d or 3-d inputs).
// The C++ Dropout1d/2d/3d modules and the Python functions call these (the Python ones add PyTorch's warnings).
Tensor dropout1d(const Tensor& x, double p = 0.5, bool training = true, bool inplace = false, Generator* gen = nullptr);
Tensor dropout2d(const Tensor& x, double p = 0.5, bool training = true, bool inplace = false, Generator* gen = nullptr);
Tensor dropout3d(const Tensor& x, double p = 0.5, bool training = true, bool inplace = false, Generator* gen = nullptr);
// Dropout for SELU networks: dropped elements take SELU's negative saturation value, and an affine map keeps the
// mean and variance (Klambauer et al., 2017).
Tensor alpha_dropout(const Tensor& x, double p = 0.5, bool training = false, bool inplace = false,
                     Generator* gen = nullptr);
Tensor feature_alpha_dropout(const Tensor& x, double p = 0.5, bool training = false, bool inplace = false,
                             Generator* gen = nullptr);

// torch.native_dropout: (output, bool mask) in one pass; the gradient saves only the mask. train = false (or an
// empty x) follows PyTorch: (a copy of x, all-true mask) (resp. (x, an empty tensor of x's dtype)).
std::pair<Tensor, Tensor> native_dropout(const Tensor& x, double p, std::optional<bool> train = std::nullopt,
                                         Generator* gen = nullptr);
// torch.native_dropout_backward: g * mask * scale in one pass; differentiable (its gradient is itself).
Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, double scale);

}  // namespace ember
