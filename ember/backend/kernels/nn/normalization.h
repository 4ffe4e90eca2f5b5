// The normalization kernels: layer norm and the per-channel passes of batch norm (nn/functional/normalization.cpp).
#pragma once

#include "ember/backend/kernels.h"

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
// Batch norm's per-channel coefficients, float64 [C], from the running statistics in evaluation and the batch's in
// training: invstd = 1 / sqrt(var + eps), scale = invstd * w, shift = b - mean * scale, from contiguous [C] tensors of
// one dtype, float32 or float64 (w and b may be undefined: 1 and 0). One kernel for what took ten ops, each a few
// microseconds on [C] (a third of MobileNetV3's batch norms).
EMBER_DECLARE_KERNEL(channel_coefficients, const Tensor& scale, const Tensor& shift, const Tensor& invstd,
                     const Tensor& mean, const Tensor& var, const Tensor& w, const Tensor& b, double eps)
// out = a * ka[c] + x * kx[c] + k0[c] over contiguous [A, C, B] tensors; coefficients float64 [C]; x and kx may be
// undefined.
EMBER_DECLARE_KERNEL(channel_affine, const Tensor& out, const Tensor& a, const Tensor& ka, const Tensor& x,
                     const Tensor& kx, const Tensor& k0, IntArrayRef acb)

}  // namespace ember
