// Pooling layers, one template per family over the number of spatial dims D: MaxPool1d/2d/3d, AvgPool1d/2d/3d,
// AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d, MaxUnpool1d/2d/3d. Sizes given as one value apply to every
// spatial dim (and print as one value, as the Python modules keep them).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "ember/nn/modules/module.h"

namespace ember::nn {

template <size_t D>
struct PoolOptions {
  explicit PoolOptions(int64_t kernel) : kernel_size{kernel} {}
  explicit PoolOptions(DimVector kernel) : kernel_size(std::move(kernel)) {}
  PoolOptions& stride(int64_t s) {
    stride_ = {s};
    return *this;
  }
  PoolOptions& stride(DimVector s) {
    stride_ = std::move(s);
    return *this;
  }
  PoolOptions& padding(int64_t p) {
    padding_ = {p};
    return *this;
  }
  PoolOptions& padding(DimVector p) {
    padding_ = std::move(p);
    return *this;
  }
  PoolOptions& dilation(int64_t d) {
    dilation_ = {d};
    return *this;
  }
  PoolOptions& dilation(DimVector d) {
    dilation_ = std::move(d);
    return *this;
  }
  PoolOptions& ceil_mode(bool c) {
    ceil_mode_ = c;
    return *this;
  }
  PoolOptions& count_include_pad(bool c) {
    count_include_pad_ = c;
    return *this;
  }
  PoolOptions& divisor_override(int64_t d) {
    divisor_override_ = d;
    return *this;
  }
  DimVector kernel_size, stride_ /* empty: kernel_size */, padding_ = {0}, dilation_ = {1};
  bool ceil_mode_ = false, count_include_pad_ = true;
  std::optional<int64_t> divisor_override_;
  const DimVector& stride_or_kernel() const { return stride_.empty() ? kernel_size : stride_; }
};

// forward: the maxima; forward_with_indices: (maxima, flat indices into each input plane), what MaxUnpool takes.
template <size_t D>
class MaxPoolNd : public Module {
 public:
  explicit MaxPoolNd(PoolOptions<D> options);
  explicit MaxPoolNd(int64_t kernel_size, std::optional<int64_t> stride = {}, int64_t padding = 0, int64_t dilation = 1,
                     bool ceil_mode = false);
  Tensor forward(const Tensor& x) override;
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  std::string extra_repr() const override;
  PoolOptions<D> options;
};

template <size_t D>
class AvgPoolNd : public Module {
 public:
  explicit AvgPoolNd(PoolOptions<D> options);
  explicit AvgPoolNd(int64_t kernel_size, std::optional<int64_t> stride = {}, int64_t padding = 0,
                     bool ceil_mode = false, bool count_include_pad = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  PoolOptions<D> options;
};

// output_size: one value (every spatial dim) or D values.
template <size_t D>
class AdaptiveAvgPoolNd : public Module {
 public:
  explicit AdaptiveAvgPoolNd(DimVector output_size);
  explicit AdaptiveAvgPoolNd(int64_t output_size) : AdaptiveAvgPoolNd(DimVector{output_size}) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  DimVector output_size;
};

template <size_t D>
class AdaptiveMaxPoolNd : public Module {
 public:
  explicit AdaptiveMaxPoolNd(DimVector output_size);
  explicit AdaptiveMaxPoolNd(int64_t output_size) : AdaptiveMaxPoolNd(DimVector{output_size}) {}
  Tensor forward(const Tensor& x) override;
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  std::string extra_repr() const override;
  DimVector output_size;
};

// The inverse of MaxPoolNd given its indices; output_size (D or D + 2 values, optional) picks among the sizes
// that pool to the input's.
template <size_t D>
class MaxUnpoolNd : public Module {
 public:
  explicit MaxUnpoolNd(PoolOptions<D> options);
  explicit MaxUnpoolNd(int64_t kernel_size, std::optional<int64_t> stride = {}, int64_t padding = 0);
  Tensor forward(const Tensor& x, const Tensor& indices, IntArrayRef output_size = {});
  Tensor operator()(const Tensor& x, const Tensor& indices, IntArrayRef output_size = {}) {
    return forward(x, indices, output_size);
  }
  using Module::forward;  // one input: NotImplementedError
  std::string extra_repr() const override;
  PoolOptions<D> options;
};

#define EMBER_NN_POOL_ALIASES(D)                      \
  extern template class MaxPoolNd<D>;                 \
  extern template class AvgPoolNd<D>;                 \
  extern template class AdaptiveAvgPoolNd<D>;         \
  extern template class AdaptiveMaxPoolNd<D>;         \
  extern template class MaxUnpoolNd<D>;               \
  using MaxPool##D##d = MaxPoolNd<D>;                 \
  using AvgPool##D##d = AvgPoolNd<D>;                 \
  using AdaptiveAvgPool##D##d = AdaptiveAvgPoolNd<D>; \
  using AdaptiveMaxPool##D##d = AdaptiveMaxPoolNd<D>; \
  using MaxUnpool##D##d = MaxUnpoolNd<D>;
EMBER_NN_POOL_ALIASES(1)
EMBER_NN_POOL_ALIASES(2)
EMBER_NN_POOL_ALIASES(3)
#undef EMBER_NN_POOL_ALIASES

}  // namespace ember::nn
