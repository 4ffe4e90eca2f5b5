// Shared by the image decoders: channel conversions between gray, gray + alpha, RGB and RGBA.
#pragma once

#include <cstdint>

#include "ember/vision/vision.h"

namespace ember::vision::detail {

// The channel count a mode asks for (Unchanged: the source's own).
inline int mode_channels(ImageMode mode, int source_channels) {
  switch (mode) {
    case ImageMode::Gray: return 1;
    case ImageMode::GrayAlpha: return 2;
    case ImageMode::RGB: return 3;
    case ImageMode::RGBA: return 4;
    default: return source_channels;
  }
}

// Returns a uint8 [h, w, mode's channels] tensor from interleaved 8-bit pixels with src_c channels (1..4). RGB -> gray
// uses PIL's "L" conversion (ITU-R 601-2 luma, L = (19595 R + 38470 G + 7471 B + 2^15) >> 16); a missing alpha channel
// becomes 255 (opaque); a dropped one is discarded.
Tensor convert_channels(const uint8_t* src, int64_t h, int64_t w, int src_c, ImageMode mode);

void check_mode(int mode_value);

}  // namespace ember::vision::detail
