// Normalization layers' functional forms: batch, layer, group, instance and local response normalization, and
// normalize. Kernels run in float32 or float64 (16-bit floats are computed in float32).
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

// Normalizes over the trailing dims given by normalized_shape; weight and bias (optional) have that shape.
Tensor layer_norm(const Tensor& x, IntArrayRef normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
// Root-mean-square normalization over the trailing dims (nn.RMSNorm); weight (optional) has normalized_shape;
// eps defaults to the machine epsilon of x's dtype.
Tensor rms_norm(const Tensor& x, IntArrayRef normalized_shape, const Tensor& weight = {},
                std::optional<double> eps = std::nullopt);
// Input [N, C, *]: statistics per channel over N and the spatial dims (training: the batch's, which also update
// running_mean and running_var in place with `momentum`, the variance unbiased; eval: the running ones).
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight = {},
                  const Tensor& bias = {}, bool training = false, double momentum = 0.1, double eps = 1e-5);
// Input [N, C, *]: statistics per sample and per group of C / num_groups channels; weight and bias [C].
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
// Input [N, C, *]: statistics per sample and channel (use_input_stats), or the running ones.
Tensor instance_norm(const Tensor& x, const Tensor& running_mean = {}, const Tensor& running_var = {},
                     const Tensor& weight = {}, const Tensor& bias = {}, bool use_input_stats = true,
                     double momentum = 0.1, double eps = 1e-5);
// x / (k + alpha / size * sum of x^2 over `size` neighbouring channels)^beta.
Tensor local_response_norm(const Tensor& x, int64_t size, double alpha = 1e-4, double beta = 0.75, double k = 1.0);
// x / max(||x||_p over dim, eps).
Tensor normalize(const Tensor& x, double p = 2.0, int64_t dim = 1, double eps = 1e-12);

}  // namespace ember
