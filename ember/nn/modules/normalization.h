// Normalization layers: BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, LocalResponseNorm.
#pragma once

#include <optional>
#include <string>

#include "ember/nn/modules/module.h"

namespace ember::nn {

// What BatchNorm and InstanceNorm share (torch.nn's _NormBase): weight (ones) and bias (zeros) when affine;
// running_mean (zeros), running_var (ones) and num_batches_tracked (0, int64) when track_running_stats.
// momentum empty: the cumulative moving average (momentum=None).
class NormBase : public Module {
 public:
  std::string extra_repr() const override;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
  int64_t num_features;
  double eps;
  std::optional<double> momentum;

 protected:
  NormBase(const char* name, DimVector ranks, int64_t num_features, double eps, std::optional<double> momentum,
           bool affine, bool track_running_stats);
  // ValueError "expected 2D or 3D input (got 4D input)" unless x has one of the ranks.
  void check_rank(const Tensor& x) const;
  // The running averages' factor for this step; counts the step while training.
  double step_momentum();
  DimVector ranks_;
};

class BatchNormNd : public NormBase {
 public:
  Tensor forward(const Tensor& x) override;

 protected:
  using NormBase::NormBase;
};

// Input [N, C] or [N, C, L].
class BatchNorm1d : public BatchNormNd {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true)
      : BatchNormNd("BatchNorm1d", {2, 3}, num_features, eps, momentum, affine, track_running_stats) {}
};
class BatchNorm2d : public BatchNormNd {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true)
      : BatchNormNd("BatchNorm2d", {4}, num_features, eps, momentum, affine, track_running_stats) {}
};
class BatchNorm3d : public BatchNormNd {
 public:
  explicit BatchNorm3d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true)
      : BatchNormNd("BatchNorm3d", {5}, num_features, eps, momentum, affine, track_running_stats) {}
};

// Normalizes each sample's channels over their spatial dims; an unbatched input (one dim fewer) works too.
// Defaults as torch.nn's: affine=false, track_running_stats=false.
template <size_t D>
class InstanceNormNd : public NormBase {
 public:
  explicit InstanceNormNd(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = false,
                          bool track_running_stats = false);
  Tensor forward(const Tensor& x) override;
};
extern template class InstanceNormNd<1>;
extern template class InstanceNormNd<2>;
extern template class InstanceNormNd<3>;
using InstanceNorm1d = InstanceNormNd<1>;
using InstanceNorm2d = InstanceNormNd<2>;
using InstanceNorm3d = InstanceNormNd<3>;

class LayerNorm : public Module {
 public:
  explicit LayerNorm(DimVector normalized_shape, double eps = 1e-5, bool elementwise_affine = true, bool bias = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  DimVector normalized_shape;
  double eps;
  bool elementwise_affine;
};

class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t num_groups, num_channels;
  double eps;
};

class LocalResponseNorm : public Module {
 public:
  explicit LocalResponseNorm(int64_t size, double alpha = 1e-4, double beta = 0.75, double k = 1.0)
      : Module("LocalResponseNorm"), size(size), alpha(alpha), beta(beta), k(k) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t size;
  double alpha, beta, k;
};

}  // namespace ember::nn
