#include "ember/nn/modules/spatial.h"

#include "ember/nn/functional/spatial.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::float_str;
using detail::int_or_tuple_str;
using detail::tuple_str;

Upsample::Upsample(Options o) : Module("Upsample"), options(std::move(o)) {
  EMBER_CHECK_VALUE(options.size.empty() != options.scale_factor.empty(),
                    "Upsample: exactly one of size and scale_factor must be given");
}

Tensor Upsample::forward(const Tensor& x) {
  const auto& o = options;
  return interpolate(x, o.size, o.scale_factor, o.mode, o.align_corners, o.recompute_scale_factor);
}

// PyTorch 1.13 prints the mode unquoted.
std::string Upsample::extra_repr() const {
  std::string s;
  if (!options.scale_factor.empty()) {
    if (options.scale_factor.size() == 1) {
      s = "scale_factor=" + float_str(options.scale_factor[0]);
    } else {
      s = "scale_factor=(";
      for (size_t i = 0; i < options.scale_factor.size(); ++i)
        s += (i ? ", " : "") + float_str(options.scale_factor[i]);
      s += ")";
    }
  } else {
    s = "size=" + int_or_tuple_str(options.size);
  }
  return s + ", mode=" + options.mode;
}

Tensor PixelShuffle::forward(const Tensor& x) { return pixel_shuffle(x, upscale_factor); }
std::string PixelShuffle::extra_repr() const { return "upscale_factor=" + std::to_string(upscale_factor); }

Tensor PixelUnshuffle::forward(const Tensor& x) { return pixel_unshuffle(x, downscale_factor); }
std::string PixelUnshuffle::extra_repr() const { return "downscale_factor=" + std::to_string(downscale_factor); }

Tensor ChannelShuffle::forward(const Tensor& x) {
  EMBER_CHECK_VALUE(x.dim() >= 3, "ChannelShuffle: expected an input of at least 3 dims [N, C, *], got ",
                    shape_str(x.sizes()));
  EMBER_CHECK_VALUE(groups > 0 && x.size(1) % groups == 0, "ChannelShuffle: number of channels (", x.size(1),
                    ") must be divisible by groups (", groups, ")");
  DimVector split{x.size(0), groups, x.size(1) / groups}, merged{x.size(0), x.size(1)};
  for (int64_t d = 2; d < x.dim(); ++d) {
    split.push_back(x.size(d));
    merged.push_back(x.size(d));
  }
  return x.reshape(split).transpose(1, 2).reshape(merged);
}
std::string ChannelShuffle::extra_repr() const { return "groups=" + std::to_string(groups); }

namespace {
std::vector<int64_t> vec(const DimVector& v) { return {v.data(), v.data() + v.size()}; }
}  // namespace

Fold::Fold(DimVector output_size, FoldOptions o) : Module("Fold"), output_size(std::move(output_size)), options(o) {}

Tensor Fold::forward(const Tensor& x) {
  const auto& o = options;
  return col2im(x, vec(output_size), vec(o.kernel_size), vec(o.dilation), vec(o.padding), vec(o.stride));
}

std::string Fold::extra_repr() const {
  const auto& o = options;
  return "output_size=" + int_or_tuple_str(output_size) + ", kernel_size=" + int_or_tuple_str(o.kernel_size) +
         ", dilation=" + int_or_tuple_str(o.dilation) + ", padding=" + int_or_tuple_str(o.padding) +
         ", stride=" + int_or_tuple_str(o.stride);
}

Unfold::Unfold(FoldOptions o) : Module("Unfold"), options(std::move(o)) {}

Tensor Unfold::forward(const Tensor& x) {
  const auto& o = options;
  return im2col(x, vec(o.kernel_size), vec(o.dilation), vec(o.padding), vec(o.stride));
}

std::string Unfold::extra_repr() const {
  const auto& o = options;
  return "kernel_size=" + int_or_tuple_str(o.kernel_size) + ", dilation=" + int_or_tuple_str(o.dilation) +
         ", padding=" + int_or_tuple_str(o.padding) + ", stride=" + int_or_tuple_str(o.stride);
}

}  // namespace ember::nn
