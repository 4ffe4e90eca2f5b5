// Resampling and rearranging layers: Upsample, PixelShuffle, PixelUnshuffle, ChannelShuffle, Fold and Unfold.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/modules/module.h"

namespace ember::nn {

// F.interpolate with a fixed size or scale_factor (one value for every spatial dim, or one per dim); mode
// "nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact".
class Upsample : public Module {
 public:
  struct Options {
    std::vector<int64_t> size;
    std::vector<double> scale_factor;
    std::string mode = "nearest";
    std::optional<bool> align_corners;
    std::optional<bool> recompute_scale_factor;
  };
  explicit Upsample(Options options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Options options;
};

class PixelShuffle : public Module {
 public:
  explicit PixelShuffle(int64_t upscale_factor) : Module("PixelShuffle"), upscale_factor(upscale_factor) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t upscale_factor;
};

class PixelUnshuffle : public Module {
 public:
  explicit PixelUnshuffle(int64_t downscale_factor) : Module("PixelUnshuffle"), downscale_factor(downscale_factor) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t downscale_factor;
};

// [N, C, *] -> [N, C, *] with the channels in groups interleaved.
class ChannelShuffle : public Module {
 public:
  explicit ChannelShuffle(int64_t groups) : Module("ChannelShuffle"), groups(groups) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t groups;
};

// Sizes: one value (both spatial dims) or two.
struct FoldOptions {
  DimVector kernel_size, dilation = {1}, padding = {0}, stride = {1};
};

// Sliding blocks [N, C * prod(k), L] -> the image [N, C, output_size] (overlaps summed).
class Fold : public Module {
 public:
  Fold(DimVector output_size, FoldOptions options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  DimVector output_size;
  FoldOptions options;
};

// The image [N, C, H, W] -> its sliding blocks [N, C * prod(k), L].
class Unfold : public Module {
 public:
  explicit Unfold(FoldOptions options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  FoldOptions options;
};

}  // namespace ember::nn
