// ember.vision's C++ side: dataset file readers (IDX, gzip), image codecs (PNG through libpng, JPEG through libjpeg,
// binary PPM/PGM) and the per-pixel color kernels that have no ember op (grayscale, hue). docs/vision.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::vision {

// A file that cannot be opened, read or written; errno_value is the C errno (the bindings raise OSError with it, so a
// missing file is a FileNotFoundError).
struct FileError : Error {
  FileError(const std::string& msg, int err, std::string path, std::string reason)
      : Error(msg), errno_value(err), path(std::move(path)), reason(std::move(reason)) {}
  int errno_value;
  std::string path;
  std::string reason;  // "cannot open: No such file or directory", the message without the path
};

// ---- files
std::vector<uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, const uint8_t* data, size_t size);
bool is_gzip(const uint8_t* data, size_t size);
// The decompressed content of gzip data (several members are concatenated, as gunzip does). Raises when the output
// would exceed max_size bytes; memory grows only as decompressed data arrives.
std::vector<uint8_t> gunzip(const uint8_t* data, size_t size, size_t max_size, const std::string& what);

// ---- IDX (MNIST's format): magic 0 0 <type> <ndim>, ndim big-endian uint32 sizes, big-endian data
// Parses IDX bytes (already decompressed) into a tensor of the file's dtype and shape (uint8, int8, int16, int32,
// float32, float64). `what` names the source in errors.
Tensor parse_idx(const uint8_t* data, size_t size, const std::string& what);
// Reads an IDX file, gzipped or not (told by its first bytes). The header's sizes are checked against the data the file
// really holds before anything of that size is allocated.
Tensor read_idx(const std::string& path);

// ---- images. Decoders return uint8 [H, W, C] (interleaved, as the files store them).
enum class ImageMode : int { Unchanged = 0, Gray = 1, GrayAlpha = 2, RGB = 3, RGBA = 4 };  // torchvision's values
Tensor decode_png(const uint8_t* data, size_t size, ImageMode mode, const std::string& what = "PNG data");
// Binary PGM (P5, gray) and PPM (P6, RGB), maxval 1..65535; samples are rescaled to 0..255 when maxval != 255.
Tensor decode_pnm(const uint8_t* data, size_t size, ImageMode mode, const std::string& what = "PNM data");
// Baseline and progressive JPEG through libjpeg (libjpeg-turbo): gray files decode to 1 channel, YCbCr/RGB ones to 3
// (Gray asks libjpeg for the Y plane, as torchvision does; the alpha modes are refused, as torchvision refuses them).
// Truncated or corrupt data raises; CMYK is refused.
bool is_jpeg(const uint8_t* data, size_t size);
Tensor decode_jpeg(const uint8_t* data, size_t size, ImageMode mode, const std::string& what = "JPEG data");
// image: uint8 [C, H, W] with C = 1 or 3; quality 1..100. The JPEG file's bytes (libjpeg's defaults, 4:2:0 for RGB).
std::vector<uint8_t> encode_jpeg(const Tensor& image, int quality = 75);
// Any of the above, told by the first bytes.
Tensor decode_image(const uint8_t* data, size_t size, ImageMode mode, const std::string& what = "image data");
// image: uint8 [C, H, W] with C = 1 (gray), 2 (gray + alpha), 3 (RGB) or 4 (RGBA); any strides. The PNG file's bytes.
std::vector<uint8_t> encode_png(const Tensor& image, int compression_level = 6);

// ---- color kernels on [..., 3, H, W] tensors (uint8, float32 or float64; CPU), torchvision's formulas:
// gray = 0.2989 r + 0.587 g + 0.114 b (uint8: computed in float32 and truncated), num_output_channels 1 or 3.
Tensor rgb_to_grayscale(const Tensor& image, int64_t num_output_channels);
// RGB -> HSV, h = (h + hue_factor) mod 1, -> RGB. hue_factor in [-0.5, 0.5]. uint8 goes through float32 x / 255 and
// back as (x * 255) truncated, as torchvision does.
Tensor adjust_hue(const Tensor& image, double hue_factor);

}  // namespace ember::vision
