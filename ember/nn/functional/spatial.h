// Spatial functional ops: interpolate (upsampling and resizing), grid_sample and affine_grid, pixel_shuffle and
// pixel_unshuffle, and unfold/fold (im2col/col2im), with PyTorch's semantics.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/backend/kernels.h"
#include "ember/tensor.h"

namespace ember {

// Note [Separable resampling]
// Every interpolate mode (nearest, nearest-exact, linear, cubic, area, and the antialiased filters) is a linear map
// along each spatial dim separately: output o along the dim is sum_k weight[o][k] * input[index[o][k]]. So one
// kernel pair serves all modes and ranks: `resample` applies the map along one dim, `resample_adjoint` its transpose
// (the gradient), each recorded as the other's formula (so gradients of any order exist). Applying the last dim
// first reproduces PyTorch's nested evaluation order for bilinear and bicubic.
struct ResampleTaps {
  int64_t in_size = 0, out_size = 0, width = 0;  // width: taps per output (unused ones have weight 0)
  std::vector<int64_t> index;                    // [out_size * width], in [0, in_size)
  std::vector<double> weight;                    // [out_size * width]
};
// out [outer, out_size, inner] = the map applied to in [outer, in_size, inner]; both contiguous, float32/float64.
EMBER_DECLARE_KERNEL(resample, const Tensor& out, const Tensor& in, const ResampleTaps& taps)
// out [outer, in_size, inner] = the transposed map applied to in [outer, out_size, inner].
EMBER_DECLARE_KERNEL(resample_adjoint, const Tensor& out, const Tensor& in, const ResampleTaps& taps)

// The geometry of sliding 2-d blocks (unfold/fold).
struct Im2ColArgs {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;  // kernel size, dilation, padding, stride
  int64_t height, width;                   // of the image
  int64_t out_h, out_w;                    // blocks along each dim
};
// cols [B, C * kh * kw, out_h * out_w] from im [B, C, height, width] (zeros outside); both contiguous.
EMBER_DECLARE_KERNEL(im2col, const Tensor& cols, const Tensor& im, const Im2ColArgs& a)
// im [B, C, height, width] = the sum of the blocks in cols (the adjoint of im2col).
EMBER_DECLARE_KERNEL(col2im, const Tensor& im, const Tensor& cols, const Im2ColArgs& a)

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
