// Convolution layers: Conv1d/2d/3d (ConvNd<D>) and ConvTranspose1d/2d/3d (ConvTransposeNd<D>), one template each
// over ConvOptions<D>.
#pragma once

#include <string>
#include <utility>

#include "ember/nn/modules/module.h"

namespace ember::nn {

// Options of a D-dimensional convolution. Sizes given as one value apply to every spatial dim. padding may be
// "same" or "valid" (ConvNd only); padding_mode "zeros", "reflect", "replicate" or "circular" (ConvNd only);
// output_padding is for ConvTransposeNd.
template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in, int64_t out, int64_t kernel) : in_channels(in), out_channels(out), kernel_size(D, kernel) {}
  ConvOptions(int64_t in, int64_t out, DimVector kernel) : in_channels(in), out_channels(out), kernel_size(kernel) {}
  ConvOptions& stride(int64_t s) {
    stride_ = DimVector(D, s);
    return *this;
  }
  ConvOptions& stride(DimVector s) {
    stride_ = std::move(s);
    return *this;
  }
  ConvOptions& padding(int64_t p) {
    padding_ = DimVector(D, p);
    padding_str_.clear();
    return *this;
  }
  ConvOptions& padding(DimVector p) {
    padding_ = std::move(p);
    padding_str_.clear();
    return *this;
  }
  ConvOptions& padding(const char* p) {
    padding_str_ = p;
    return *this;
  }
  ConvOptions& output_padding(int64_t p) {
    output_padding_ = DimVector(D, p);
    return *this;
  }
  ConvOptions& output_padding(DimVector p) {
    output_padding_ = std::move(p);
    return *this;
  }
  ConvOptions& dilation(int64_t d) {
    dilation_ = DimVector(D, d);
    return *this;
  }
  ConvOptions& dilation(DimVector d) {
    dilation_ = std::move(d);
    return *this;
  }
  ConvOptions& groups(int64_t g) {
    groups_ = g;
    return *this;
  }
  ConvOptions& bias(bool b) {
    bias_ = b;
    return *this;
  }
  ConvOptions& padding_mode(std::string m) {
    padding_mode_ = std::move(m);
    return *this;
  }
  int64_t in_channels, out_channels;
  DimVector kernel_size, stride_ = DimVector(D, 1), padding_ = DimVector(D, 0), output_padding_ = DimVector(D, 0),
                         dilation_ = DimVector(D, 1);
  std::string padding_str_;  // "same" / "valid", or empty: padding_ holds the sizes
  std::string padding_mode_ = "zeros";
  int64_t groups_ = 1;
  bool bias_ = true;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;
using ConvTranspose1dOptions = ConvOptions<1>;
using ConvTranspose2dOptions = ConvOptions<2>;
using ConvTranspose3dOptions = ConvOptions<3>;

// Conv1d/2d/3d: weight [out, in / groups, k...], bias [out].
template <size_t D>
class ConvNd : public Module {
 public:
  explicit ConvNd(const ConvOptions<D>& options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  ConvOptions<D> options;

 private:
  DimVector reversed_padding_twice_;  // F.pad's argument when padding_mode is not "zeros"
};
extern template class ConvNd<1>;
extern template class ConvNd<2>;
extern template class ConvNd<3>;
using Conv1d = ConvNd<1>;
using Conv2d = ConvNd<2>;
using Conv3d = ConvNd<3>;

// ConvTranspose1d/2d/3d: weight [in, out / groups, k...], bias [out]. forward(x, output_size) picks the
// output_padding that gives output_size (its last D entries), as torch.nn.ConvTranspose*d does.
template <size_t D>
class ConvTransposeNd : public Module {
 public:
  explicit ConvTransposeNd(const ConvOptions<D>& options);
  Tensor forward(const Tensor& x) override { return forward(x, {}); }
  Tensor forward(const Tensor& x, IntArrayRef output_size);
  std::string extra_repr() const override;
  Tensor weight, bias;
  ConvOptions<D> options;
};
extern template class ConvTransposeNd<1>;
extern template class ConvTransposeNd<2>;
extern template class ConvTransposeNd<3>;
using ConvTranspose1d = ConvTransposeNd<1>;
using ConvTranspose2d = ConvTransposeNd<2>;
using ConvTranspose3d = ConvTransposeNd<3>;

}  // namespace ember::nn
