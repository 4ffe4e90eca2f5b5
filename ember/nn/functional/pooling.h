// Pooling (torch.nn.functional.max_pool*d, avg_pool*d, adaptive_*_pool*d, max_unpool*d) with gradients of any
// order; their kernels are declared in backend/kernels/nn/pooling.h.
#pragma once

#include <optional>
#include <utility>

#include "ember/tensor.h"

namespace ember {

// ---- the public ops; inputs [N, C, *in] or unbatched [C, *in]. Size arguments take one value per spatial dim or
// one for all; an empty stride means stride = kernel_size. float16 and bfloat16 compute in float32.
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  IntArrayRef dilation = {}, bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  IntArrayRef dilation = {}, bool ceil_mode = false);
Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  IntArrayRef dilation = {}, bool ceil_mode = false);
// (values, indices): indices as max_unpool takes them.
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                  IntArrayRef padding = {}, IntArrayRef dilation = {},
                                                  bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                  IntArrayRef padding = {}, IntArrayRef dilation = {},
                                                  bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                  IntArrayRef padding = {}, IntArrayRef dilation = {},
                                                  bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool3d(const Tensor& input, IntArrayRef output_size);
// output_size: the spatial sizes, or the full output shape (its last dims are used); empty: the default
// (in - 1) * stride - 2 * padding + kernel_size.
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {}, IntArrayRef output_size = {});
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {}, IntArrayRef output_size = {});
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {}, IntArrayRef output_size = {});

}  // namespace ember
