// Channel conversions shared by the decoders, and decode_image (format told by the first bytes).
#include <cstring>

#include "ember/ops.h"
#include "ember/vision/detail/image_util.h"

namespace ember::vision {

namespace detail {

void check_mode(int mode_value) {
  EMBER_CHECK_VALUE(mode_value >= 0 && mode_value <= 4, "[vision] unknown image read mode ", mode_value,
                    " (expected ImageReadMode.UNCHANGED 0, GRAY 1, GRAY_ALPHA "
                    "2, RGB 3 or RGB_ALPHA 4)");
}

Tensor convert_channels(const uint8_t* src, int64_t h, int64_t w, int src_c, ImageMode mode) {
  const int dst_c = mode_channels(mode, src_c);
  Tensor out = empty({{h, w, static_cast<int64_t>(dst_c)}}, TensorOptions(ScalarType::UInt8));
  uint8_t* dst = static_cast<uint8_t*>(out.data_ptr());
  const int64_t n = h * w;
  if (dst_c == src_c) {
    std::memcpy(dst, src, static_cast<size_t>(n) * src_c);
    return out;
  }
  const bool src_color = src_c >= 3, src_alpha = src_c == 2 || src_c == 4;
  const bool dst_color = dst_c >= 3, dst_alpha = dst_c == 2 || dst_c == 4;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* p = src + i * src_c;
    uint8_t* q = dst + i * dst_c;
    const uint8_t alpha = src_alpha ? p[src_c - 1] : 255;
    if (dst_color) {
      if (src_color) {
        q[0] = p[0], q[1] = p[1], q[2] = p[2];
      } else {
        q[0] = q[1] = q[2] = p[0];
      }
    } else {
      q[0] = src_color ? static_cast<uint8_t>((19595u * p[0] + 38470u * p[1] + 7471u * p[2] + 0x8000u) >> 16) : p[0];
    }
    if (dst_alpha) q[dst_c - 1] = alpha;
  }
  return out;
}

}  // namespace detail

Tensor decode_image(const uint8_t* data, size_t size, ImageMode mode, const std::string& what) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size >= 8 && std::memcmp(data, kPng, 8) == 0) return decode_png(data, size, mode, what);
  if (is_jpeg(data, size)) return decode_jpeg(data, size, mode, what);
  if (size >= 2 && data[0] == 'P' && (data[1] == '5' || data[1] == '6')) return decode_pnm(data, size, mode, what);
  fail<Error>("[vision] ", what,
              " is not a supported image: ember.vision reads JPEG, PNG and binary "
              "PGM/PPM (P5/P6) files");
}

}  // namespace ember::vision
