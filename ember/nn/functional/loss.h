// The loss functions of torch.nn.functional. Most are compositions of ember ops (their gradients, and second
// gradients, come from the ops' formulas); cross_entropy over class indices and ctc_loss have kernels of their
// own (backend/kernels/nn/loss.h) with recorded formulas (Note [Fused cross entropy] in loss.cpp).
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

enum class Reduction : uint8_t { None, Mean, Sum };
// "none", "mean" or "sum" (ValueError otherwise, as PyTorch: "xyz is not a valid value for reduction").
Reduction reduction_from(std::string_view s);
// loss reduced as asked.
Tensor apply_reduction(const Tensor& loss, Reduction r);

// Class-index targets (integral, input's shape without dim 1) or class probabilities (floating, input's shape).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                     Reduction reduction = Reduction::Mean, double label_smoothing = 0.0);
// input holds log-probabilities [N, C, d1...] or [C].
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                Reduction reduction = Reduction::Mean);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean,
                      double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean, double delta = 1.0);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            Reduction reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                        Reduction reduction = Reduction::Mean, const Tensor& pos_weight = {});
// reduction "batchmean" divides the sum by input.size(0); pass batchmean = true with Reduction::Sum.
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean, bool log_target = false,
              bool batchmean = false);
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true, bool full = false,
                        double eps = 1e-8, Reduction reduction = Reduction::Mean);
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full = false,
                         double eps = 1e-6, Reduction reduction = Reduction::Mean);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                             Reduction reduction = Reduction::Mean);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                           Reduction reduction = Reduction::Mean);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin = 1.0,
                           double p = 2, double eps = 1e-6, bool swap = false, Reduction reduction = Reduction::Mean);
// distance(a, b) -> per-sample distances; empty: pairwise_distance.
using DistanceFn = std::function<Tensor(const Tensor&, const Tensor&)>;
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFn& distance = {}, double margin = 1.0, bool swap = false,
                                         Reduction reduction = Reduction::Mean);
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            Reduction reduction = Reduction::Mean);
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                   Reduction reduction = Reduction::Mean);
// target: class indices per sample, ended by the first -1 (the rest is ignored).
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1, double margin = 1.0,
                         const Tensor& weight = {}, Reduction reduction = Reduction::Mean);
// log_probs [T, N, C] or [T, C]; targets [N, S] (padded) or 1-d (concatenated); lengths int64 tensors of N values.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, Reduction reduction = Reduction::Mean,
                bool zero_infinity = false);

}  // namespace ember
