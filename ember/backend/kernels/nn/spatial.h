// The kernels of the spatial ops (nn/functional/spatial.cpp): separable resampling (interpolate and its gradient)
// and im2col/col2im (unfold, fold).
#pragma once

#include <cstdint>
#include <vector>

#include "ember/backend/kernels.h"

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
  // uint8 only (Note [Fixed-point uint8 resampling] in nn/functional/spatial.cpp): the weights as int16 with
  // `precision` fraction bits.
  std::vector<int16_t> fixed;
  int precision = 0;
};
// out [outer, out_size, inner] = the map applied to in [outer, in_size, inner]; both contiguous, float32/float64, or
// uint8 on the CPU with `fixed` weights (rounded and clamped to [0, 255]).
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

}  // namespace ember
