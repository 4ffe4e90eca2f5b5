// ember::vision's RoI pooling and NMS (ember/vision/ops.h) through the C++ API: values against closed forms on a
// linear feature map (bilinear sampling reproduces a linear function exactly), the gradient's total, and the checks.
#include <gtest/gtest.h>

#include <vector>

#include "ember/ops.h"
#include "ember/vision/ops.h"

using namespace ember;

namespace {

Tensor f64(std::vector<double> v, std::vector<int64_t> shape) {
  return from_blob_copy(v.data(), ScalarType::Float64, IntArrayRef(shape.data(), shape.size()),
                        TensorOptions(ScalarType::Float64));
}

std::vector<double> values(const Tensor& t) {
  const Tensor c = contiguous(t);
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

// f(y, x) = 4 y + x on a 4x4 map.
Tensor linear_map() { return reshape(arange(16, TensorOptions(ScalarType::Float64)), {{1, 1, 4, 4}}); }

TEST(VisionOps, RoiAlignSamplesBilinearly) {
  // aligned: the box [0.5, 2.5]^2 becomes [0, 2]^2, bins of one pixel, 2x2 samples at 0.25 and 0.75 past each corner.
  const Tensor out = vision::roi_align(linear_map(), f64({0, 0.5, 0.5, 2.5, 2.5}, {1, 5}), 1.0, 2, 2, 2, true);
  EXPECT_EQ(std::vector<int64_t>(out.sizes().begin(), out.sizes().end()), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(values(out), (std::vector<double>{2.5, 3.5, 6.5, 7.5}));
  // Legacy (not aligned), one sample at the centre of the 3x3 box: f(1.5, 1.5).
  const Tensor one = vision::roi_align(linear_map(), f64({0, 0, 0, 3, 3}, {1, 5}), 1.0, 1, 1, 1, false);
  EXPECT_EQ(values(one), (std::vector<double>{7.5}));
}

TEST(VisionOps, RoiAlignGradientSumsTheOutputGradient) {
  Tensor x = linear_map().detach();
  x.set_requires_grad(true);
  const Tensor out = vision::roi_align(x, f64({0, 0.5, 0.5, 2.5, 2.5}, {1, 5}), 1.0, 2, 2, 2, true);
  sum(out).backward();
  // Every sample is inside the map, so each bin hands its gradient out with weights summing to one.
  EXPECT_DOUBLE_EQ(sum(x.grad()).item<double>(), 4.0);
}

TEST(VisionOps, RoiPoolTakesTheBinMaximum) {
  // The box [0, 3]^2 rounded covers pixels 0..3 (roi_pool's box includes its end): 2x2 bins of 2x2 pixels.
  const Tensor out = vision::roi_pool(linear_map(), f64({0, 0, 0, 3, 3}, {1, 5}), 1.0, 2, 2);
  EXPECT_EQ(values(out), (std::vector<double>{5, 7, 13, 15}));
}

TEST(VisionOps, NmsKeepsTheBestOfEachCluster) {
  const Tensor boxes = f64({0, 0, 10, 10, 1, 1, 11, 11, 20, 20, 30, 30}, {3, 4});
  const Tensor keep = vision::nms(boxes, f64({0.8, 0.9, 0.7}, {3}), 0.5);  // IoU(0, 1) = 81 / 119
  const Tensor c = contiguous(keep);
  EXPECT_EQ(std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel()), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(vision::nms(boxes, f64({0.8, 0.9, 0.7}, {3}), 0.7).numel(), 3);
}

TEST(VisionOps, BadArgumentsRaise) {
  EXPECT_THROW(vision::roi_align(linear_map(), f64({0, 0, 0, 1}, {1, 4}), 1.0, 2, 2, -1, false), Error);
  EXPECT_THROW(vision::roi_align(linear_map(), f64({1, 0, 0, 1, 1}, {1, 5}), 1.0, 2, 2, -1, false), IndexError);
  EXPECT_THROW(vision::ps_roi_pool(linear_map(), f64({0, 0, 0, 1, 1}, {1, 5}), 1.0, 2, 2), Error);
  EXPECT_THROW(vision::nms(f64({0, 0, 1, 1}, {1, 4}), f64({1, 2}, {2}), 0.5), Error);
}

}  // namespace
