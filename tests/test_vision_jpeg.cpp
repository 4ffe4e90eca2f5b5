// ember::vision's JPEG codec (ember/vision/jpeg.cpp) through the C++ API: a flat image survives encode/decode
// exactly (a constant block has only a DC coefficient, which quantization keeps), decode_image finds JPEG by its
// first bytes, and truncated or malformed data raises instead of decoding to something.
#include <gtest/gtest.h>

#include <vector>

#include "ember/ops.h"
#include "ember/vision/vision.h"

using namespace ember;

namespace {

Tensor flat_rgb(int64_t h, int64_t w, uint8_t r, uint8_t g, uint8_t b) {
  std::vector<uint8_t> v(static_cast<size_t>(3 * h * w));
  for (int64_t i = 0; i < h * w; ++i) {
    v[static_cast<size_t>(i)] = r;
    v[static_cast<size_t>(h * w + i)] = g;
    v[static_cast<size_t>(2 * h * w + i)] = b;
  }
  const int64_t shape[3] = {3, h, w};
  return from_blob_copy(v.data(), ScalarType::UInt8, IntArrayRef(shape, 3), TensorOptions(ScalarType::UInt8));
}

}  // namespace

TEST(VisionJpeg, FlatImageRoundTripsAndModes) {
  // Gray (128, 128, 128): Y = 128, Cb = Cr = 128 exactly, so every pixel decodes back to 128.
  const std::vector<uint8_t> file = vision::encode_jpeg(flat_rgb(16, 24, 128, 128, 128), 90);
  ASSERT_GT(file.size(), 100u);
  EXPECT_TRUE(vision::is_jpeg(file.data(), file.size()));
  const Tensor rgb = vision::decode_jpeg(file.data(), file.size(), vision::ImageMode::Unchanged);
  EXPECT_EQ(std::vector<int64_t>(rgb.sizes().begin(), rgb.sizes().end()), (std::vector<int64_t>{16, 24, 3}));
  const uint8_t* p = static_cast<const uint8_t*>(rgb.data_ptr());
  for (int64_t i = 0; i < rgb.numel(); ++i) ASSERT_EQ(p[i], 128) << i;
  const Tensor gray = vision::decode_image(file.data(), file.size(), vision::ImageMode::Gray);
  EXPECT_EQ(gray.size(2), 1);
  EXPECT_EQ(static_cast<const uint8_t*>(gray.data_ptr())[7], 128);
  EXPECT_THROW(vision::decode_jpeg(file.data(), file.size(), vision::ImageMode::RGBA), Error);
}

TEST(VisionJpeg, BadDataRaises) {
  const std::vector<uint8_t> file = vision::encode_jpeg(flat_rgb(32, 32, 10, 200, 30), 75);
  for (size_t cut : {size_t(2), size_t(20), file.size() / 2, file.size() - 3})
    EXPECT_THROW(vision::decode_jpeg(file.data(), cut, vision::ImageMode::Unchanged), Error) << cut;
  std::vector<uint8_t> junk(file.begin(), file.begin() + 3);
  junk.resize(200, 0x5a);
  EXPECT_THROW(vision::decode_jpeg(junk.data(), junk.size(), vision::ImageMode::Unchanged), Error);
  EXPECT_THROW(vision::encode_jpeg(flat_rgb(4, 4, 0, 0, 0), 0), Error);
  EXPECT_THROW(vision::encode_jpeg(zeros({{2, 4, 4}}, TensorOptions(ScalarType::UInt8)), 75), Error);
}
