// JPEG decoding and encoding through libjpeg (libjpeg-turbo's libjpeg API, jpeglib.h).
//
// libjpeg reports fatal errors through error_exit, which must not return: it longjmps back to the setjmp point of the
// stage that called libjpeg. As for libpng (Note [libpng errors] in png.cpp), each stretch of libjpeg calls runs in a
// small function (jpeg_*_stage) whose locals are trivially destructible; the C++ caller owns every buffer and the
// libjpeg state (released by a guard) and turns a failed status into an exception with libjpeg's message.
//
// A truncated file is an error: libjpeg only warns (JWRN_JPEG_EOF) and pads the image with gray; the warning hook
// turns that warning into a failure, so a cut-off file never decodes to an image with a gray bottom.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// jpeglib.h needs size_t and FILE declared first.
#include <jerror.h>
#include <jpeglib.h>

#include "ember/ops.h"
#include "ember/vision/detail/image_util.h"

namespace ember::vision {

namespace {

struct JpegErr {
  jpeg_error_mgr mgr;  // first member: libjpeg passes a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX + 64] = {0};
};

void on_error_exit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErr*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings are ignored except the end of the data arriving early, which fails the decode.
void on_emit_message(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
    auto* err = reinterpret_cast<JpegErr*>(cinfo->err);
    std::snprintf(err->message, sizeof err->message, "the data ends early (truncated file)");
    std::longjmp(err->jump, 1);
  }
}

struct JpegHeader {
  JDIMENSION width = 0, height = 0;
  int channels = 0;  // of the output (1 or 3)
  bool cmyk = false;
};

// Reads the header and chooses the output color space: gray stays gray (or the Y plane when gray is asked for),
// everything else becomes RGB.
int jpeg_header_stage(jpeg_decompress_struct* cinfo, JpegErr* err, const uint8_t* data, size_t size, bool want_gray,
                      JpegHeader* h) {
  if (setjmp(err->jump)) return 1;
  jpeg_create_decompress(cinfo);
  jpeg_mem_src(cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(cinfo, TRUE);
  h->cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
  if (h->cmyk) return 0;
  if (want_gray || cinfo->jpeg_color_space == JCS_GRAYSCALE) {
    cinfo->out_color_space = JCS_GRAYSCALE;
  } else {
    cinfo->out_color_space = JCS_RGB;
  }
  jpeg_calc_output_dimensions(cinfo);
  h->width = cinfo->output_width;
  h->height = cinfo->output_height;
  h->channels = cinfo->output_components;
  return 0;
}

int jpeg_rows_stage(jpeg_decompress_struct* cinfo, JpegErr* err, uint8_t* pixels, size_t rowbytes) {
  if (setjmp(err->jump)) return 1;
  jpeg_start_decompress(cinfo);
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = pixels + static_cast<size_t>(cinfo->output_scanline) * rowbytes;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return 0;
}

struct DecompressGuard {
  jpeg_decompress_struct cinfo{};
  bool created = false;
  ~DecompressGuard() {
    if (created) jpeg_destroy_decompress(&cinfo);
  }
};

int jpeg_write_stage(jpeg_compress_struct* cinfo, JpegErr* err, unsigned char** out, unsigned long* out_size,
                     const uint8_t* pixels, JDIMENSION w, JDIMENSION h, int c, int quality) {
  if (setjmp(err->jump)) return 1;
  jpeg_create_compress(cinfo);
  jpeg_mem_dest(cinfo, out, out_size);
  cinfo->image_width = w;
  cinfo->image_height = h;
  cinfo->input_components = c;
  cinfo->in_color_space = c == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  jpeg_set_quality(cinfo, quality, TRUE);
  jpeg_start_compress(cinfo, TRUE);
  const size_t rowbytes = static_cast<size_t>(w) * c;
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row = const_cast<uint8_t*>(pixels) + static_cast<size_t>(cinfo->next_scanline) * rowbytes;
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
  return 0;
}

struct CompressGuard {
  jpeg_compress_struct cinfo{};
  bool created = false;
  unsigned char* out = nullptr;
  ~CompressGuard() {
    if (created) jpeg_destroy_compress(&cinfo);
    std::free(out);
  }
};

}  // namespace

bool is_jpeg(const uint8_t* data, size_t size) {
  return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

Tensor decode_jpeg(const uint8_t* data, size_t size, ImageMode mode, const std::string& what) {
  detail::check_mode(static_cast<int>(mode));
  EMBER_CHECK(mode == ImageMode::Unchanged || mode == ImageMode::Gray || mode == ImageMode::RGB,
              "[vision] cannot decode ", what,
              ": the provided mode is not supported for JPEG files (JPEG has no alpha channel: use "
              "ImageReadMode.UNCHANGED, GRAY or RGB, as torchvision)");
  EMBER_CHECK(is_jpeg(data, size), "[vision] ", what, " is not a JPEG file (no SOI marker FF D8 FF)");
  DecompressGuard g;
  JpegErr err;
  g.cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = on_error_exit;
  err.mgr.emit_message = on_emit_message;
  g.created = true;  // jpeg_create_decompress runs first thing in the stage; destroying a zeroed struct is harmless
  const bool want_gray = mode == ImageMode::Gray;
  JpegHeader h;
  if (jpeg_header_stage(&g.cinfo, &err, data, size, want_gray, &h) != 0)
    fail<Error>("[vision] cannot decode ", what, ": ", err.message);
  EMBER_CHECK(!h.cmyk, "[vision] cannot decode ", what,
              ": CMYK/YCCK JPEG files are not supported (ember.vision decodes gray and YCbCr/RGB JPEGs)");
  EMBER_CHECK(h.channels == 1 || h.channels == 3, "[vision] cannot decode ", what, ": unexpected ", h.channels,
              " output components");
  // A hostile header can claim up to 65500 x 65500 pixels. Entropy-coded data needs some bits per 8x8 block (a
  // progressive file's end-of-band runs far fewer), so a header claiming far more pixels than the file can describe
  // is refused before anything of that size is allocated.
  const uint64_t pixels_claimed = uint64_t(h.width) * h.height;
  EMBER_CHECK(pixels_claimed <= (uint64_t(1) << 24) || pixels_claimed / 4096 <= size, "[vision] cannot decode ", what,
              ": its header declares a ", h.width, " x ", h.height, " image, more than a ", size,
              "-byte file can hold");
  const size_t rowbytes = size_t(h.width) * h.channels;
  if (detail::mode_channels(mode, h.channels) == h.channels) {  // no conversion: decode straight into the result
    Tensor out = empty({{int64_t(h.height), int64_t(h.width), int64_t(h.channels)}}, TensorOptions(ScalarType::UInt8));
    if (jpeg_rows_stage(&g.cinfo, &err, static_cast<uint8_t*>(out.data_ptr()), rowbytes) != 0)
      fail<Error>("[vision] cannot decode ", what, ": ", err.message);
    return out;
  }
  std::vector<uint8_t> pixels(rowbytes * h.height);
  if (jpeg_rows_stage(&g.cinfo, &err, pixels.data(), rowbytes) != 0)
    fail<Error>("[vision] cannot decode ", what, ": ", err.message);
  return detail::convert_channels(pixels.data(), h.height, h.width, h.channels, mode);
}

std::vector<uint8_t> encode_jpeg(const Tensor& image, int quality) {
  EMBER_CHECK_TYPE(image.dtype() == ScalarType::UInt8, "[encode_jpeg] expected a uint8 image tensor, got ",
                   image.dtype());
  EMBER_CHECK_VALUE(image.dim() == 3 && (image.size(0) == 1 || image.size(0) == 3),
                    "[encode_jpeg] expected an image of shape [C, H, W] with C = 1 or 3 channels, got ",
                    shape_str(image.sizes()));
  EMBER_CHECK_VALUE(quality >= 1 && quality <= 100, "[encode_jpeg] quality must be in [1, 100], got ", quality);
  const int64_t c = image.size(0), h = image.size(1), w = image.size(2);
  EMBER_CHECK_VALUE(h > 0 && w > 0 && h <= JPEG_MAX_DIMENSION && w <= JPEG_MAX_DIMENSION,
                    "[encode_jpeg] cannot encode a ", h, " x ", w, " image (JPEG needs 1 to ", JPEG_MAX_DIMENSION,
                    " pixels per side)");
  EMBER_CHECK(image.device().is_cpu(), "[encode_jpeg] expected a CPU tensor, got one on ", image.device());
  Tensor hwc = contiguous(permute(image, {{1, 2, 0}}));
  CompressGuard g;
  JpegErr err;
  g.cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = on_error_exit;
  g.created = true;
  unsigned long out_size = 0;
  if (jpeg_write_stage(&g.cinfo, &err, &g.out, &out_size, static_cast<const uint8_t*>(hwc.data_ptr()), JDIMENSION(w),
                       JDIMENSION(h), int(c), quality) != 0)
    fail<Error>("[encode_jpeg] libjpeg failed: ", err.message);
  return std::vector<uint8_t>(g.out, g.out + out_size);
}

}  // namespace ember::vision
