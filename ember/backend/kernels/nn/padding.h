// The kernel of reflect, replicate and circular padding (nn/functional/padding.cpp).
#pragma once

#include <cstdint>

#include "ember/backend/kernels.h"
#include "ember/macros.h"

namespace ember {

// Note [Padding as a map of indices]
// Along each padded dim, output i reads source index c + f(i - lo) of the input, where f folds [-lo, m + hi) into
// [0, m): reflect mirrors about the ends (without repeating them), replicate clamps, circular wraps. Circular padding
// with a negative side crops first and wraps what is left (m is then smaller than the dim, c the cropped front);
// otherwise c = 0 and m is the dim's size. The map is separable, so an output element's source is found per dim and the
// gradient is the adjoint of each dim's map in turn (an index_add per dim).
enum class PadMode : uint8_t { Reflect, Replicate, Circular };

struct PadDim {
  int64_t lo = 0, m = 1, c = 0;
};

struct PadArgs {
  PadMode mode = PadMode::Reflect;
  int k = 0;       // padded dims: the last k of the input (1 to 3)
  PadDim dims[3];  // dims[0] is the innermost
};

EMBER_HOST_DEVICE int64_t pad_source(PadMode mode, const PadDim& d, int64_t i) {
  int64_t j = i - d.lo;
  if (mode == PadMode::Reflect)
    j = j < 0 ? -j : (j >= d.m ? 2 * (d.m - 1) - j : j);
  else if (mode == PadMode::Replicate)
    j = j < 0 ? 0 : (j >= d.m ? d.m - 1 : j);
  else
    j = ((j % d.m) + d.m) % d.m;
  return d.c + j;
}

// out (contiguous) = x padded along its last a.k dims; every other dim has x's size.
EMBER_DECLARE_KERNEL(pad, const Tensor& out, const Tensor& x, const PadArgs& a)

}  // namespace ember
