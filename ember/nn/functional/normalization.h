// Normalization layers' functional forms: batch, layer, group, instance and local response normalization, and
// normalize. Kernels run in float32 or float64 (16-bit floats are computed in float32).
#pragma once

#include <optional>

#include "ember/backend/kernels.h"
#include "ember/tensor.h"

namespace ember {

// Layer norm of the rows of contiguous x [M, N]: y = (x - mean) * rstd * w + b with w, b [N] or undefined;
// mean and rstd [M] of x's dtype (rstd = 1 / sqrt(biased var + eps)).
EMBER_DECLARE_KERNEL(layer_norm, const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                     const Tensor& w, const Tensor& b, double eps)
// Its gradients for g [M, N]; each of dx, dw, db may be undefined (not wanted).
EMBER_DECLARE_KERNEL(layer_norm_backward, const Tensor& dx, const Tensor& dw, const Tensor& db, const Tensor& g,
                     const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& w)
// Per-channel sums over contiguous [A, C, B] tensors of one dtype: s1[c] = sum of g, s2[c] = sum of g * (x - m[c]);
// s1 and s2 are float64 [C], m is float64 [C] (or undefined: 0).
EMBER_DECLARE_KERNEL(channel_moments, const Tensor& s1, const Tensor& s2, const Tensor& g, const Tensor& x,
                     const Tensor& m, IntArrayRef acb)
// out = a * ka[c] + x * kx[c] + k0[c] over contiguous [A, C, B] tensors; coefficients float64 [C]; x and kx may be
// undefined.
EMBER_DECLARE_KERNEL(channel_affine, const Tensor& out, const Tensor& a, const Tensor& ka, const Tensor& x,
                     const Tensor& kx, const Tensor& k0, IntArrayRef acb)

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
