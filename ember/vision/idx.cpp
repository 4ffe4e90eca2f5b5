// IDX files (MNIST, Fashion-MNIST): magic bytes 0 0 <type> <ndim>, then ndim big-endian uint32 sizes, then the data in
// big-endian order. Every size in the header is checked against the bytes the file really holds.
#include <cstring>

#include "ember/ops.h"
#include "ember/vision/vision.h"

namespace ember::vision {

namespace {

uint32_t load_be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

struct IdxType {
  ScalarType dtype;
  size_t size;
};

bool idx_type(uint8_t code, IdxType* out) {
  switch (code) {
    case 0x08: *out = {ScalarType::UInt8, 1}; return true;
    case 0x09: *out = {ScalarType::Int8, 1}; return true;
    case 0x0B: *out = {ScalarType::Int16, 2}; return true;
    case 0x0C: *out = {ScalarType::Int32, 4}; return true;
    case 0x0D: *out = {ScalarType::Float32, 4}; return true;
    case 0x0E: *out = {ScalarType::Float64, 8}; return true;
    default: return false;
  }
}

// Copies n big-endian items of `width` bytes into native order.
void copy_swapped(uint8_t* dst, const uint8_t* src, size_t n, size_t width) {
  if (width == 1) {
    std::memcpy(dst, src, n);
    return;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t b = 0; b < width; ++b) dst[i * width + b] = src[i * width + (width - 1 - b)];
}

}  // namespace

Tensor parse_idx(const uint8_t* data, size_t size, const std::string& what) {
  EMBER_CHECK(size >= 4, "[vision] ", what, " is not an IDX file: ", size,
              " bytes, fewer than the 4-byte magic number");
  EMBER_CHECK(data[0] == 0 && data[1] == 0, "[vision] ", what, " is not an IDX file: its magic number starts with ",
              int(data[0]), " ", int(data[1]), " instead of 0 0");
  IdxType type;
  EMBER_CHECK(idx_type(data[2], &type), "[vision] ", what, " has an unknown IDX data type code 0x", std::hex,
              int(data[2]), std::dec, " (known: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, ",
              "0x0E float64)");
  const size_t ndim = data[3];
  EMBER_CHECK(ndim >= 1, "[vision] ", what, " declares 0 dimensions");
  const size_t header = 4 + 4 * ndim;
  EMBER_CHECK(size >= header, "[vision] ", what, " is truncated: its header declares ", ndim, " dimensions (", header,
              " bytes) but the file has ", size, " bytes");
  std::vector<int64_t> shape(ndim);
  // The product is bounded by the bytes present, so it is computed with an overflow-safe bound check per factor.
  const size_t available = (size - header) / type.size;
  size_t numel = 1;
  bool too_big = false;
  for (size_t d = 0; d < ndim; ++d) {
    const uint32_t n = load_be32(data + 4 + 4 * d);
    shape[d] = n;
    if (n == 0) {
      numel = 0;
    } else if (!too_big && numel != 0) {
      if (numel > available / n)
        too_big = true;
      else
        numel *= n;
    }
  }
  std::ostringstream dims;
  for (size_t d = 0; d < ndim; ++d) dims << (d ? " x " : "") << shape[d];
  EMBER_CHECK(!too_big && numel <= available, "[vision] ", what, " is truncated: its header declares ", dims.str(),
              " items of ", type.size, " bytes but the file holds ", size - header, " bytes of data");
  EMBER_CHECK(header + numel * type.size == size, "[vision] ", what, " has ", size - header - numel * type.size,
              " bytes after the ", dims.str(), " items its header declares");
  Tensor out = empty(shape, TensorOptions(type.dtype));
  copy_swapped(static_cast<uint8_t*>(out.data_ptr()), data + header, numel, type.size);
  return out;
}

Tensor read_idx(const std::string& path) {
  std::vector<uint8_t> bytes = read_file(path);
  if (is_gzip(bytes.data(), bytes.size())) {
    // Deflate expands at most ~1032:1; the limit only stops a corrupt stream early, memory grows with real output.
    const size_t limit = bytes.size() > (SIZE_MAX >> 11) ? SIZE_MAX : bytes.size() * 1100 + 65536;
    bytes = gunzip(bytes.data(), bytes.size(), limit, "'" + path + "'");
  }
  return parse_idx(bytes.data(), bytes.size(), "'" + path + "'");
}

}  // namespace ember::vision
