// Spatial functional ops: interpolate (upsampling and resizing), grid_sample and affine_grid, pixel_shuffle and
// pixel_unshuffle, and unfold/fold (im2col/col2im), with PyTorch's semantics.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// input [N, C, d1...dk], k = 1, 2 or 3. size or scale_factor (one value for all dims, or one per dim). mode:
// "nearest", "nearest-exact", "linear" (k = 1), "bilinear" (2), "bicubic" (2), "trilinear" (3), "area";
// antialias for bilinear and bicubic.
Tensor interpolate(const Tensor& input, const std::vector<int64_t>& size, const std::vector<double>& scale_factor,
                   std::string_view mode = "nearest", std::optional<bool> align_corners = {},
                   std::optional<bool> recompute_scale_factor = {}, bool antialias = false);
// input [N, C, H, W] (grid [N, Ho, Wo, 2]) or [N, C, D, H, W] (grid [N, Do, Ho, Wo, 3]); grid holds (x, y[, z]) in
// [-1, 1]. mode: "bilinear", "nearest", "bicubic" (4-d only); padding_mode: "zeros", "border", "reflection".
Tensor grid_sample(const Tensor& input, const Tensor& grid, std::string_view mode = "bilinear",
                   std::string_view padding_mode = "zeros", bool align_corners = false);
// theta [N, 2, 3] with size (N, C, H, W) -> [N, H, W, 2]; theta [N, 3, 4] with size (N, C, D, H, W) -> [N, D, H, W, 3].
Tensor affine_grid(const Tensor& theta, const std::vector<int64_t>& size, bool align_corners = false);
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
// torch.nn.functional.unfold: input [N, C, H, W] or [C, H, W] -> [N, C * kh * kw, L] (or without N).
Tensor im2col(const Tensor& input, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
              const std::vector<int64_t>& padding, const std::vector<int64_t>& stride);
// torch.nn.functional.fold: input [N, C * kh * kw, L] or [C * kh * kw, L] -> [N, C, H, W] (or without N).
Tensor col2im(const Tensor& input, const std::vector<int64_t>& output_size, const std::vector<int64_t>& kernel_size,
              const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& stride);

}  // namespace ember
