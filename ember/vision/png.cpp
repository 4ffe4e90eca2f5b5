// PNG decoding and encoding through libpng.
//
// Note [libpng errors]
// libpng reports errors by longjmp to the setjmp point of the caller. A longjmp that skips C++ frames with live
// destructors is undefined, so each stretch of libpng calls runs in a small function (png_*_stage) that holds only
// trivially destructible locals, sets its own setjmp point, and returns a status; the C++ caller owns every buffer and
// the libpng structs (released by a guard) and turns a failed status into an exception with libpng's message. The I/O
// callbacks use plain memory (a bounds-checked reader; a malloc'd output buffer) and report through png_error.
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ember/ops.h"
#include "ember/vision/detail/image_util.h"

namespace ember::vision {

namespace {

struct PngIo {
  const uint8_t* in = nullptr;  // reading: the file's bytes
  size_t in_size = 0, in_pos = 0;
  uint8_t* out = nullptr;  // writing: a malloc'd buffer
  size_t out_size = 0, out_cap = 0;
  char message[256] = {0};
};

void on_error(png_structp png, png_const_charp msg) {
  auto* io = static_cast<PngIo*>(png_get_error_ptr(png));
  std::snprintf(io->message, sizeof io->message, "%s", msg ? msg : "unknown error");
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

void on_read(png_structp png, png_bytep dst, png_size_t n) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  if (n > io->in_size - io->in_pos) png_error(png, "the data ends early (truncated file)");
  std::memcpy(dst, io->in + io->in_pos, n);
  io->in_pos += n;
}

void on_write(png_structp png, png_bytep src, png_size_t n) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  if (n > io->out_cap - io->out_size) {
    size_t cap = io->out_cap ? io->out_cap * 2 : 65536;
    while (cap - io->out_size < n) cap *= 2;
    auto* grown = static_cast<uint8_t*>(std::realloc(io->out, cap));
    if (!grown) png_error(png, "out of memory while encoding");
    io->out = grown;
    io->out_cap = cap;
  }
  std::memcpy(io->out + io->out_size, src, n);
  io->out_size += n;
}
void on_flush(png_structp) {}

struct PngHeader {
  png_uint_32 width = 0, height = 0;
  int channels = 0;  // after the transforms: 1..4, 8 bits each
  size_t rowbytes = 0;
  // The filtered image data's size before compression (a bound on what the file can hold).
  size_t raw_bytes = 0;
};

// Reads the header and sets the transforms to 8-bit gray, gray+alpha, RGB or RGBA. Note [libpng errors].
int png_header_stage(png_structp png, png_infop info, PngHeader* h) {
  if (setjmp(png_jmpbuf(png))) return 1;
  png_read_info(png, info);
  const int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
  const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  const int src_channels = png_get_channels(png, info);
  const size_t bits_per_row = size_t(width) * src_channels * depth;
  h->raw_bytes = size_t(height) * (1 + (bits_per_row + 7) / 8);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (depth == 16) png_set_scale_16(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  h->width = width;
  h->height = height;
  h->channels = png_get_channels(png, info);
  h->rowbytes = png_get_rowbytes(png, info);
  return 0;
}

int png_rows_stage(png_structp png, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return 1;
  png_read_image(png, rows);
  return 0;
}

int png_write_stage(png_structp png, png_infop info, png_uint_32 w, png_uint_32 h, int color, int level,
                    png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return 1;
  png_set_compression_level(png, level);
  png_set_IHDR(png, info, w, h, 8, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return 0;
}

struct ReadGuard {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~ReadGuard() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};
struct WriteGuard {
  png_structp png = nullptr;
  png_infop info = nullptr;
  PngIo* io = nullptr;
  ~WriteGuard() {
    png_destroy_write_struct(&png, info ? &info : nullptr);
    std::free(io->out);
  }
};

}  // namespace

Tensor decode_png(const uint8_t* data, size_t size, ImageMode mode, const std::string& what) {
  detail::check_mode(static_cast<int>(mode));
  EMBER_CHECK(size >= 8 && png_sig_cmp(const_cast<png_bytep>(data), 0, 8) == 0, "[vision] ", what,
              " is not a PNG file (no PNG signature)");
  PngIo io;
  io.in = data;
  io.in_size = size;
  ReadGuard g;
  g.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
  EMBER_CHECK(g.png, "[vision] libpng could not allocate its read state");
  g.info = png_create_info_struct(g.png);
  EMBER_CHECK(g.info, "[vision] libpng could not allocate its info state");
  png_set_read_fn(g.png, &io, on_read);
  PngHeader h;
  if (png_header_stage(g.png, g.info, &h) != 0) fail<Error>("[vision] cannot decode ", what, ": ", io.message);
  // Deflate expands at most ~1032:1, so a header claiming far more pixels than the file can hold is refused before
  // anything of that size is allocated.
  EMBER_CHECK(h.raw_bytes / 1100 <= size, "[vision] cannot decode ", what, ": its header declares a ", h.width, " x ",
              h.height, " image, more than a ", size, "-byte file can hold");
  EMBER_CHECK(h.channels >= 1 && h.channels <= 4 && h.rowbytes == size_t(h.width) * h.channels,
              "[vision] cannot decode ", what, ": unexpected pixel layout after conversion to 8 bits (", h.channels,
              " channels)");
  std::vector<uint8_t> pixels(h.rowbytes * h.height);
  std::vector<png_bytep> rows(h.height);
  for (png_uint_32 y = 0; y < h.height; ++y) rows[y] = pixels.data() + y * h.rowbytes;
  if (png_rows_stage(g.png, rows.data()) != 0) fail<Error>("[vision] cannot decode ", what, ": ", io.message);
  return detail::convert_channels(pixels.data(), h.height, h.width, h.channels, mode);
}

std::vector<uint8_t> encode_png(const Tensor& image, int compression_level) {
  EMBER_CHECK_TYPE(image.dtype() == ScalarType::UInt8, "[encode_png] expected a uint8 image tensor, got ",
                   image.dtype());
  EMBER_CHECK_VALUE(image.dim() == 3 && image.size(0) >= 1 && image.size(0) <= 4,
                    "[encode_png] expected an image of "
                    "shape [C, H, W] with C = 1, 2, 3 or 4 channels, got ",
                    shape_str(image.sizes()));
  EMBER_CHECK_VALUE(compression_level >= 0 && compression_level <= 9,
                    "[encode_png] compression_level must be in "
                    "[0, 9], got ",
                    compression_level);
  const int64_t c = image.size(0), h = image.size(1), w = image.size(2);
  EMBER_CHECK_VALUE(h > 0 && w > 0 && h <= 0x7fffffff && w <= 0x7fffffff, "[encode_png] cannot encode a ", h, " x ", w,
                    " image (PNG needs 1 to 2^31-1 pixels per side)");
  EMBER_CHECK(image.device().is_cpu(), "[encode_png] expected a CPU tensor, got one on ", image.device());
  // Interleave: [C, H, W] -> [H, W, C], contiguous.
  Tensor hwc = contiguous(permute(image, {{1, 2, 0}}));
  const uint8_t* pixels = static_cast<const uint8_t*>(hwc.data_ptr());
  static const int kColor[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGB_ALPHA};
  PngIo io;
  WriteGuard g;
  g.io = &io;
  g.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
  EMBER_CHECK(g.png, "[encode_png] libpng could not allocate its write state");
  g.info = png_create_info_struct(g.png);
  EMBER_CHECK(g.info, "[encode_png] libpng could not allocate its info state");
  png_set_write_fn(g.png, &io, on_write, on_flush);
  std::vector<png_bytep> rows(h);
  for (int64_t y = 0; y < h; ++y) rows[y] = const_cast<png_bytep>(pixels + y * w * c);
  if (png_write_stage(g.png, g.info, png_uint_32(w), png_uint_32(h), kColor[c], compression_level, rows.data()) != 0)
    fail<Error>("[encode_png] libpng failed: ", io.message);
  return std::vector<uint8_t>(io.out, io.out + io.out_size);
}

}  // namespace ember::vision
