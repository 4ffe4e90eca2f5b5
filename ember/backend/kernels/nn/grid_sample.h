// The kernel of grid_sample's 2-d bilinear and nearest sampling (nn/functional/spatial.cpp), for the calls that record
// nothing (Note [Sampling kernel without a gradient] there).
#pragma once

#include <cmath>
#include <cstdint>

#include "ember/backend/kernels.h"
#include "ember/macros.h"

namespace ember {

enum class GridMode : uint8_t { Bilinear, Nearest };
enum class GridPadding : uint8_t { Zeros, Border, Reflection };

struct GridSampleArgs {
  GridMode mode = GridMode::Bilinear;
  GridPadding padding = GridPadding::Zeros;
  bool align_corners = false;
};

// PyTorch's GridSampler.h, in T: the normalized coordinate g in [-1, 1] as a pixel coordinate along a dim of `size`
// pixels, moved inside as the padding says (clip_coordinates and reflect_coordinates, their std::min and std::max
// included: a NaN clips to size - 1).
template <class T>
EMBER_HOST_DEVICE T grid_source(T g, int64_t size, const GridSampleArgs& a) {
  T c = a.align_corners ? (g + T(1)) / T(2) * T(size - 1) : ((g + T(1)) * T(size) - T(1)) / T(2);
  if (a.padding == GridPadding::Zeros) return c;
  if (a.padding == GridPadding::Reflection) {
    const int64_t twice_low = a.align_corners ? 0 : -1, twice_high = a.align_corners ? 2 * (size - 1) : 2 * size - 1;
    if (twice_low == twice_high) {
      c = T(0);
    } else {
      const T low = T(twice_low) / T(2), span = T(twice_high - twice_low) / T(2);
      const T in = std::fabs(c - low), extra = std::fmod(in, span);
      const T flips = std::floor(in / span);
      c = std::fmod(flips, T(2)) == T(0) ? extra + low : span - extra + low;
    }
  }
  const T lo = c < T(0) ? T(0) : c, hi = T(size - 1);  // std::max(c, 0): NaN stays
  return lo < hi ? lo : hi;                            // std::min(size - 1, lo): NaN gives size - 1
}

// The pixel index of a coordinate already rounded (floor or nearbyint), or -2 (outside any image, and its neighbour
// at +1 too) where it is NaN or too large to convert.
template <class T>
EMBER_HOST_DEVICE int64_t grid_index(T rounded) {
  return rounded >= T(-1e9) && rounded <= T(1e9) ? static_cast<int64_t>(rounded) : -2;
}

// out [N, C, Ho, Wo] (contiguous) = input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, then y); input and grid of
// out's dtype (float32 or float64), any strides.
EMBER_DECLARE_KERNEL(grid_sample_2d, const Tensor& out, const Tensor& input, const Tensor& grid,
                     const GridSampleArgs& a)

}  // namespace ember
