#include "ember/nn/modules/loss.h"

#include "ember/nn/functional/loss.h"

namespace ember::nn {

namespace loss {

// One row per loss: the functional op it calls with its options.
#define LOSS2(Name, expr) \
  Tensor Name##Spec::forward(const Options& o, const Tensor& input, const Tensor& target) { return expr; }
#define LOSS3(Name, expr) \
  Tensor Name##Spec::forward(const Options& o, const Tensor& a, const Tensor& b, const Tensor& c) { return expr; }

LOSS2(CrossEntropyLoss, cross_entropy(input, target, o.weight, o.ignore_index, o.reduction, o.label_smoothing))
LOSS2(NLLLoss, nll_loss(input, target, o.weight, o.ignore_index, o.reduction))
LOSS2(MSELoss, mse_loss(input, target, o.reduction))
LOSS2(L1Loss, l1_loss(input, target, o.reduction))
LOSS2(BCELoss, binary_cross_entropy(input, target, o.weight, o.reduction))
LOSS2(BCEWithLogitsLoss, binary_cross_entropy_with_logits(input, target, o.weight, o.reduction, o.pos_weight))
LOSS2(SmoothL1Loss, smooth_l1_loss(input, target, o.reduction, o.beta))
LOSS2(HuberLoss, huber_loss(input, target, o.reduction, o.delta))
LOSS2(KLDivLoss, o.batchmean ? kl_div(input, target, Reduction::Sum, o.log_target, true)
                             : kl_div(input, target, o.reduction, o.log_target))
LOSS2(PoissonNLLLoss, poisson_nll_loss(input, target, o.log_input, o.full, o.eps, o.reduction))
LOSS2(HingeEmbeddingLoss, hinge_embedding_loss(input, target, o.margin, o.reduction))
LOSS2(SoftMarginLoss, soft_margin_loss(input, target, o.reduction))
LOSS2(MultiLabelSoftMarginLoss, multilabel_soft_margin_loss(input, target, o.weight, o.reduction))
LOSS2(MultiMarginLoss, multi_margin_loss(input, target, o.p, o.margin, o.weight, o.reduction))
LOSS3(CosineEmbeddingLoss, cosine_embedding_loss(a, b, c, o.margin, o.reduction))
LOSS3(MarginRankingLoss, margin_ranking_loss(a, b, c, o.margin, o.reduction))
LOSS3(TripletMarginLoss, triplet_margin_loss(a, b, c, o.margin, o.p, o.eps, o.swap, o.reduction))
#undef LOSS2
#undef LOSS3

}  // namespace loss

Tensor CTCLoss::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                        const Tensor& target_lengths) {
  return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity);
}

}  // namespace ember::nn
