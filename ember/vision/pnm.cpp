// Binary PGM (P5) and PPM (P6): "P5|P6 <ws> width <ws> height <ws> maxval <one ws> data", '#' comments in the header.
#include <vector>

#include "ember/ops.h"
#include "ember/vision/detail/image_util.h"

namespace ember::vision {

namespace {

bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Reads the next unsigned decimal field of the header, skipping whitespace and comments.
int64_t header_number(const uint8_t* data, size_t size, size_t* pos, const char* field, const std::string& what) {
  for (;;) {
    while (*pos < size && is_space(data[*pos])) ++*pos;
    if (*pos < size && data[*pos] == '#') {
      while (*pos < size && data[*pos] != '\n' && data[*pos] != '\r') ++*pos;
      continue;
    }
    break;
  }
  EMBER_CHECK(*pos < size, "[vision] ", what, " is truncated: the PNM header ends before its ", field);
  EMBER_CHECK(data[*pos] >= '0' && data[*pos] <= '9', "[vision] ", what, " has a malformed PNM header: expected the ",
              field, " (a decimal number) at byte ", *pos);
  int64_t v = 0;
  while (*pos < size && data[*pos] >= '0' && data[*pos] <= '9') {
    v = v * 10 + (data[*pos] - '0');
    EMBER_CHECK(v <= (int64_t(1) << 31), "[vision] ", what, " has a PNM ", field, " that is too large");
    ++*pos;
  }
  return v;
}

}  // namespace

Tensor decode_pnm(const uint8_t* data, size_t size, ImageMode mode, const std::string& what) {
  EMBER_CHECK(size >= 2 && data[0] == 'P' && (data[1] == '5' || data[1] == '6'), "[vision] ", what,
              " is not a binary PGM/PPM file (expected the magic number P5 or P6)");
  const int channels = data[1] == '5' ? 1 : 3;
  size_t pos = 2;
  EMBER_CHECK(pos < size && (is_space(data[pos]) || data[pos] == '#'), "[vision] ", what,
              " has a malformed PNM header: no whitespace after the magic number");
  const int64_t width = header_number(data, size, &pos, "width", what);
  const int64_t height = header_number(data, size, &pos, "height", what);
  const int64_t maxval = header_number(data, size, &pos, "maxval", what);
  EMBER_CHECK(width > 0 && height > 0, "[vision] ", what, " declares an empty image (", width, " x ", height, ")");
  EMBER_CHECK(maxval >= 1 && maxval <= 65535, "[vision] ", what, " has maxval ", maxval, " (must be 1..65535)");
  EMBER_CHECK(pos < size && is_space(data[pos]), "[vision] ", what,
              " has a malformed PNM header: expected one whitespace byte after maxval");
  ++pos;
  const size_t sample_bytes = maxval > 255 ? 2 : 1;
  const size_t available = size - pos;
  const size_t row = static_cast<size_t>(width) * channels * sample_bytes;  // width < 2^31: no overflow
  EMBER_CHECK(static_cast<size_t>(height) <= available / row, "[vision] ", what, " is truncated: a ", width, " x ",
              height, " image needs ", row, " x ", height, " bytes of samples but the file holds ", available);
  const int64_t n = width * height * channels;
  std::vector<uint8_t> pixels(static_cast<size_t>(n));
  const uint8_t* src = data + pos;
  if (sample_bytes == 1 && maxval == 255) {
    std::copy(src, src + n, pixels.begin());
  } else {
    // Rescale to 0..255, rounding to nearest; a sample above maxval is clamped.
    for (int64_t i = 0; i < n; ++i) {
      uint32_t v = sample_bytes == 2 ? (uint32_t(src[2 * i]) << 8) | src[2 * i + 1] : src[i];
      if (v > uint32_t(maxval)) v = uint32_t(maxval);
      pixels[i] = static_cast<uint8_t>((v * 255u * 2 + uint32_t(maxval)) / (2 * uint32_t(maxval)));
    }
  }
  return detail::convert_channels(pixels.data(), height, width, channels, mode);
}

}  // namespace ember::vision
