// The loss kernels: cross entropy over class indices and CTC (nn/functional/loss.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ember/backend/kernels.h"

namespace ember {

// Per position of `target`: logsumexp of x over the class dim and logsumexp minus x at the target class (0 where
// target == ignore_index). x: contiguous [outer, C, inner], float32 or float64; target: int64 [outer, inner];
// nll and lse: [outer, inner] of x's dtype. IndexError "Target 7 is out of bounds." for a class outside [0, C).
EMBER_DECLARE_KERNEL(cross_entropy_logits, const Tensor& nll, const Tensor& lse, const Tensor& x, const Tensor& target,
                     int64_t ignore_index)
// Its gradient for rows of classes (Note [Fused cross entropy]): gx = softmax(x) * coef - onehot(target) * gnll, per
// row r: gx[r, c] = exp(x[r, c] - lse[r]) * coef[r], less gnll[r] at c = target[r] (gnll undefined: nothing less).
// x, gx: contiguous [N, C], float32 or float64; lse, coef, gnll: [N] of that dtype; target: int64 [N].
EMBER_DECLARE_KERNEL(cross_entropy_logits_backward, const Tensor& gx, const Tensor& x, const Tensor& lse,
                     const Tensor& coef, const Tensor& target, const Tensor& gnll)

// CTC: the batch's geometry on the host. Targets of sample n are targets[offsets[n] .. + target_lengths[n]).
struct CtcArgs {
  std::vector<int64_t> input_lengths, target_lengths, offsets;
  int64_t max_target_length = 0;
  int64_t blank = 0;
};
// log_probs: contiguous [T, N, C] (float32/float64); targets: contiguous int64. Writes nll [N] and
// log_alpha [N, T, 2 * max_target_length + 1] (the forward variables, kept for the backward).
EMBER_DECLARE_KERNEL(ctc_loss_forward, const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs,
                     const Tensor& targets, const CtcArgs& args)
// grad [T, N, C]: d nll[n] / d log_probs[t, n, c] by the beta recursion; zero for t >= input_lengths[n], and for
// samples of infinite loss when zero_infinity.
EMBER_DECLARE_KERNEL(ctc_loss_backward, const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                     const Tensor& nll, const Tensor& log_alpha, const CtcArgs& args, bool zero_infinity)

}  // namespace ember
