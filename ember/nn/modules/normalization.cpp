#include "ember/nn/modules/normalization.h"

#include <algorithm>

#include "ember/nn/functional/normalization.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::bool_str;
using detail::float_str;

NormBase::NormBase(const char* name, DimVector ranks, int64_t n, double eps, std::optional<double> momentum,
                   bool affine, bool track)
    : Module(name), num_features(n), eps(eps), momentum(momentum), ranks_(std::move(ranks)) {
  if (affine) {
    weight = register_parameter("weight", ones(DimVector{n}));
    bias = register_parameter("bias", zeros(DimVector{n}));
  }
  if (track) {
    running_mean = register_buffer("running_mean", zeros(DimVector{n}));
    running_var = register_buffer("running_var", ones(DimVector{n}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros(DimVector{}, ScalarType::Int64));
  }
}

void NormBase::check_rank(const Tensor& x) const {
  if (std::ranges::find(ranks_, x.dim()) != ranks_.end()) return;
  std::string expected;
  for (size_t i = 0; i < ranks_.size(); ++i) expected += (i ? " or " : "") + std::to_string(ranks_[i]) + "D";
  fail<ValueError>(name(), ": expected ", expected, " input (got ", x.dim(), "D input)");
}

double NormBase::step_momentum() {
  if (!is_training() || !num_batches_tracked.defined()) return momentum.value_or(0.0);
  autograd::NoGradGuard no_grad;
  binary_op(BinaryOp::Add, num_batches_tracked, 1, num_batches_tracked);
  return momentum ? *momentum : 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>());
}

std::string NormBase::extra_repr() const {
  return std::to_string(num_features) + ", eps=" + float_str(eps) +
         ", momentum=" + (momentum ? float_str(*momentum) : "None") + ", affine=" + bool_str(weight.defined()) +
         ", track_running_stats=" + bool_str(running_mean.defined());
}

Tensor BatchNormNd::forward(const Tensor& x) {
  check_rank(x);
  const double factor = step_momentum();
  return batch_norm(x, running_mean, running_var, weight, bias, is_training() || !running_mean.defined(), factor, eps);
}

template <size_t D>
InstanceNormNd<D>::InstanceNormNd(int64_t n, double eps, double momentum, bool affine, bool track)
    : NormBase(D == 1   ? "InstanceNorm1d"
               : D == 2 ? "InstanceNorm2d"
                        : "InstanceNorm3d",
               {static_cast<int64_t>(D) + 1, static_cast<int64_t>(D) + 2}, n, eps, momentum, affine, track) {}

template <size_t D>
Tensor InstanceNormNd<D>::forward(const Tensor& x) {
  check_rank(x);
  const bool unbatched = x.dim() == static_cast<int64_t>(D) + 1;
  const Tensor in = unbatched ? x.unsqueeze(0) : x;
  if (in.size(1) != num_features && weight.defined())
    fail<ValueError>(name(), ": expected input's size at dim=", unbatched ? 0 : 1, " to match num_features (",
                     num_features, "), but got: ", in.size(1), " (input ", shape_str(x.sizes()), ")");
  Tensor y = instance_norm(in, running_mean, running_var, weight, bias, is_training() || !running_mean.defined(),
                           momentum.value_or(0.1), eps);
  return unbatched ? y.squeeze(0) : y;
}

template class InstanceNormNd<1>;
template class InstanceNormNd<2>;
template class InstanceNormNd<3>;

LayerNorm::LayerNorm(DimVector shape, double eps, bool affine, bool with_bias)
    : Module("LayerNorm"), normalized_shape(shape), eps(eps), elementwise_affine(affine) {
  if (affine) {
    weight = register_parameter("weight", ones(shape));
    if (with_bias) bias = register_parameter("bias", zeros(shape));
  }
}

Tensor LayerNorm::forward(const Tensor& x) { return layer_norm(x, normalized_shape, weight, bias, eps); }

std::string LayerNorm::extra_repr() const {
  return detail::tuple_str(normalized_shape) + ", eps=" + float_str(eps) +
         ", elementwise_affine=" + bool_str(elementwise_affine);
}

GroupNorm::GroupNorm(int64_t groups, int64_t channels, double eps, bool affine)
    : Module("GroupNorm"), num_groups(groups), num_channels(channels), eps(eps) {
  EMBER_CHECK_VALUE(groups > 0 && channels % groups == 0, "GroupNorm: num_channels (", channels,
                    ") must be divisible by num_groups (", groups, ")");
  if (affine) {
    weight = register_parameter("weight", ones(DimVector{channels}));
    bias = register_parameter("bias", zeros(DimVector{channels}));
  }
}

Tensor GroupNorm::forward(const Tensor& x) { return group_norm(x, num_groups, weight, bias, eps); }

std::string GroupNorm::extra_repr() const {
  return std::to_string(num_groups) + ", " + std::to_string(num_channels) + ", eps=" + float_str(eps) +
         ", affine=" + bool_str(weight.defined());
}

Tensor LocalResponseNorm::forward(const Tensor& x) { return local_response_norm(x, size, alpha, beta, k); }

std::string LocalResponseNorm::extra_repr() const {
  return std::to_string(size) + ", alpha=" + float_str(alpha) + ", beta=" + float_str(beta) + ", k=" + float_str(k);
}

}  // namespace ember::nn
