#include "ember/nn/modules/conv.h"

#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::check_conv;
using detail::conv_repr;
using detail::default_init;
using detail::prod;

namespace {

template <size_t D>
Tensor conv_nd(const Tensor& x, const Tensor& w, const Tensor& b, const ConvOptions<D>& o, IntArrayRef padding,
               std::string_view padding_str) {
  using IntConv = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef,
                             int64_t);
  using StrConv = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, std::string_view, IntArrayRef,
                             int64_t);
  constexpr IntConv int_fns[] = {&conv1d, &conv2d, &conv3d};
  constexpr StrConv str_fns[] = {&conv1d, &conv2d, &conv3d};
  if (!padding_str.empty()) return str_fns[D - 1](x, w, b, o.stride_, padding_str, o.dilation_, o.groups_);
  return int_fns[D - 1](x, w, b, o.stride_, padding, o.dilation_, o.groups_);
}

}  // namespace

template <size_t D>
ConvNd<D>::ConvNd(const ConvOptions<D>& o) : Module("Conv" + std::to_string(D) + "d"), options(o) {
  check_conv(name().c_str(), o);
  EMBER_CHECK_VALUE(o.padding_str_ != "same" || detail::all_eq(o.stride_, 1), name(),
                    ": padding='same' is not supported for strided convolutions");
  DimVector shape{o.out_channels, o.in_channels / o.groups_};
  for (int64_t k : o.kernel_size) shape.push_back(k);
  weight = register_parameter("weight", empty(shape));
  if (o.bias_) bias = register_parameter("bias", empty(DimVector{o.out_channels}));
  default_init(weight, bias, o.in_channels / o.groups_ * prod(o.kernel_size));
  // F.pad's argument, last spatial dim first; for 'same', the total padding d * (k - 1) split left-heavy-right.
  reversed_padding_twice_ = DimVector(2 * D, 0);
  for (size_t i = 0; i < D; ++i) {
    const size_t r = 2 * (D - 1 - i);
    if (o.padding_str_ == "same") {
      const int64_t total = o.dilation_[i] * (o.kernel_size[i] - 1);
      reversed_padding_twice_[r] = total / 2;
      reversed_padding_twice_[r + 1] = total - total / 2;
    } else if (o.padding_str_.empty()) {
      reversed_padding_twice_[r] = reversed_padding_twice_[r + 1] = o.padding_[i];
    }
  }
}

template <size_t D>
Tensor ConvNd<D>::forward(const Tensor& x) {
  const auto& o = options;
  if (o.padding_mode_ != "zeros")
    return conv_nd<D>(pad(x, reversed_padding_twice_, o.padding_mode_), weight, bias, o, DimVector(D, 0), "");
  return conv_nd<D>(x, weight, bias, o, o.padding_, o.padding_str_);
}

template <size_t D>
std::string ConvNd<D>::extra_repr() const {
  return conv_repr(options, bias.defined());
}

template <size_t D>
ConvTransposeNd<D>::ConvTransposeNd(const ConvOptions<D>& o)
    : Module("ConvTranspose" + std::to_string(D) + "d"), options(o) {
  check_conv(name().c_str(), o);
  EMBER_CHECK_VALUE(o.padding_mode_ == "zeros", "Only \"zeros\" padding mode is supported for ", name());
  EMBER_CHECK_VALUE(o.padding_str_.empty(), name(), ": padding must be sizes, not '", o.padding_str_, "'");
  DimVector shape{o.in_channels, o.out_channels / o.groups_};
  for (int64_t k : o.kernel_size) shape.push_back(k);
  weight = register_parameter("weight", empty(shape));
  if (o.bias_) bias = register_parameter("bias", empty(DimVector{o.out_channels}));
  // PyTorch's fan_in is computed from the weight's dim 1: out_channels / groups times the kernel's size.
  default_init(weight, bias, o.out_channels / o.groups_ * prod(o.kernel_size));
}

template <size_t D>
Tensor ConvTransposeNd<D>::forward(const Tensor& x, IntArrayRef output_size) {
  const auto& o = options;
  DimVector output_padding = o.output_padding_;
  if (!output_size.empty()) {
    // torch.nn.ConvTranspose*d._output_padding: the sizes the output may have, and the padding that picks one.
    EMBER_CHECK_VALUE(output_size.size() == D || output_size.size() == D + 2, name(), ": for ", x.dim(),
                      "D input, output_size must have ", D, " or ", D + 2, " elements (got ", output_size.size(), ")");
    EMBER_CHECK_VALUE(x.dim() >= static_cast<int64_t>(D), name(), ": expected an input with at least ", D,
                      " dims, got ", shape_str(x.sizes()));
    const size_t skip = output_size.size() - D;
    for (size_t d = 0; d < D; ++d) {
      const int64_t in = x.size(x.dim() - static_cast<int64_t>(D) + static_cast<int64_t>(d));
      const int64_t lo = (in - 1) * o.stride_[d] - 2 * o.padding_[d] + o.dilation_[d] * (o.kernel_size[d] - 1) + 1;
      const int64_t hi = lo + o.stride_[d] - 1, want = output_size[skip + d];
      EMBER_CHECK_VALUE(want >= lo && want <= hi, name(), ": requested an output size of ", shape_str(output_size),
                        ", but valid sizes range from ", lo, " to ", hi, " (for an input of ", shape_str(x.sizes()),
                        ")");
      output_padding[d] = want - lo;
    }
  }
  using Fn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, int64_t,
                        IntArrayRef);
  constexpr Fn fns[] = {&conv_transpose1d, &conv_transpose2d, &conv_transpose3d};
  return fns[D - 1](x, weight, bias, o.stride_, o.padding_, output_padding, o.groups_, o.dilation_);
}

template <size_t D>
std::string ConvTransposeNd<D>::extra_repr() const {
  return conv_repr(options, bias.defined());
}

template class ConvNd<1>;
template class ConvNd<2>;
template class ConvNd<3>;
template class ConvTransposeNd<1>;
template class ConvTransposeNd<2>;
template class ConvTransposeNd<3>;

}  // namespace ember::nn
