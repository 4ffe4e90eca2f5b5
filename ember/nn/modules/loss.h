// Losses as layers. One template per arity over a table of specs, as the activations: each names the loss, its
// options (an aggregate with torch.nn's constructor arguments in its order, less the deprecated size_average and
// reduce, with its defaults) and the functional op. So
//   nn::SmoothL1Loss(Reduction::Sum, 0.5), nn::SmoothL1Loss({.beta = 0.5}), nn::CrossEntropyLoss(weight)
// construct as in Python. Class weights are buffers ("weight", "pos_weight"), as torch.nn registers them.
#pragma once

#include <string>
#include <utility>

#include "ember/nn/functional/loss.h"
#include "ember/nn/modules/module.h"

namespace ember::nn {

// What a training loop calls through a pointer to any (input, target) loss.
class LossModule : public Module {
 public:
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  using Module::forward;  // the one-input forward, which a loss does not have (NotImplementedError)

 protected:
  using Module::Module;
};

// The options and the weights registered as buffers, shared by the loss templates.
template <class Spec, class Base>
class LossWithOptions : public Base {
 public:
  using Options = typename Spec::Options;
  explicit LossWithOptions(Options o) : Base(Spec::name), options(std::move(o)) {
    if constexpr (requires { options.weight; })
      if (options.weight.defined()) options.weight = this->register_buffer("weight", options.weight);
    if constexpr (requires { options.pos_weight; })
      if (options.pos_weight.defined()) options.pos_weight = this->register_buffer("pos_weight", options.pos_weight);
  }
  template <class... A>
  explicit LossWithOptions(A&&... a) : LossWithOptions(Options(std::forward<A>(a)...)) {}
  Options options;
};

// forward(input, target).
template <class Spec>
class Loss : public LossWithOptions<Spec, LossModule> {
 public:
  using LossWithOptions<Spec, LossModule>::LossWithOptions;
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return Spec::forward(this->options, input, target);
  }
  using LossModule::forward;
};

// forward(a, b, c): CosineEmbeddingLoss(x1, x2, y), MarginRankingLoss(x1, x2, y), TripletMarginLoss(a, p, n).
template <class Spec>
class Loss3 : public LossWithOptions<Spec, Module> {
 public:
  using LossWithOptions<Spec, Module>::LossWithOptions;
  Tensor forward(const Tensor& a, const Tensor& b, const Tensor& c) { return Spec::forward(this->options, a, b, c); }
  Tensor operator()(const Tensor& a, const Tensor& b, const Tensor& c) { return forward(a, b, c); }
  using Module::forward;
};

namespace loss {

struct ReductionOptions {
  Reduction reduction = Reduction::Mean;
};
struct CrossEntropyOptions {
  Tensor weight;
  int64_t ignore_index = -100;
  Reduction reduction = Reduction::Mean;
  double label_smoothing = 0.0;
};
struct NLLOptions {
  Tensor weight;
  int64_t ignore_index = -100;
  Reduction reduction = Reduction::Mean;
};
struct WeightedOptions {  // BCELoss, MultiLabelSoftMarginLoss
  Tensor weight;
  Reduction reduction = Reduction::Mean;
};
struct BCEWithLogitsOptions {
  Tensor weight;
  Reduction reduction = Reduction::Mean;
  Tensor pos_weight;
};
struct SmoothL1Options {
  Reduction reduction = Reduction::Mean;
  double beta = 1.0;
};
struct HuberOptions {
  Reduction reduction = Reduction::Mean;
  double delta = 1.0;
};
// batchmean: reduction='batchmean' (the sum divided by the batch size).
struct KLDivOptions {
  Reduction reduction = Reduction::Mean;
  bool log_target = false;
  bool batchmean = false;
};
struct PoissonNLLOptions {
  bool log_input = true, full = false;
  double eps = 1e-8;
  Reduction reduction = Reduction::Mean;
};
struct HingeEmbeddingOptions {
  double margin = 1.0;
  Reduction reduction = Reduction::Mean;
};
struct ZeroMarginOptions {  // CosineEmbeddingLoss, MarginRankingLoss
  double margin = 0.0;
  Reduction reduction = Reduction::Mean;
};
struct MultiMarginOptions {
  int64_t p = 1;
  double margin = 1.0;
  Tensor weight;
  Reduction reduction = Reduction::Mean;
};
struct TripletMarginOptions {
  double margin = 1.0, p = 2.0, eps = 1e-6;
  bool swap = false;
  Reduction reduction = Reduction::Mean;
};
// The table: X(loss name, options type, number of inputs).
#define EMBER_NN_LOSSES(X)                        \
  X(CrossEntropyLoss, CrossEntropyOptions, 2)     \
  X(NLLLoss, NLLOptions, 2)                       \
  X(MSELoss, ReductionOptions, 2)                 \
  X(L1Loss, ReductionOptions, 2)                  \
  X(BCELoss, WeightedOptions, 2)                  \
  X(BCEWithLogitsLoss, BCEWithLogitsOptions, 2)   \
  X(SmoothL1Loss, SmoothL1Options, 2)             \
  X(HuberLoss, HuberOptions, 2)                   \
  X(KLDivLoss, KLDivOptions, 2)                   \
  X(PoissonNLLLoss, PoissonNLLOptions, 2)         \
  X(HingeEmbeddingLoss, HingeEmbeddingOptions, 2) \
  X(SoftMarginLoss, ReductionOptions, 2)          \
  X(MultiLabelSoftMarginLoss, WeightedOptions, 2) \
  X(MultiMarginLoss, MultiMarginOptions, 2)       \
  X(CosineEmbeddingLoss, ZeroMarginOptions, 3)    \
  X(MarginRankingLoss, ZeroMarginOptions, 3)      \
  X(TripletMarginLoss, TripletMarginOptions, 3)

#define EMBER_NN_LOSS_SPEC_2(Name, Opts)                                                \
  struct Name##Spec {                                                                   \
    static constexpr const char* name = #Name;                                          \
    using Options = Opts;                                                               \
    static Tensor forward(const Options& o, const Tensor& input, const Tensor& target); \
  };
#define EMBER_NN_LOSS_SPEC_3(Name, Opts)                                                        \
  struct Name##Spec {                                                                           \
    static constexpr const char* name = #Name;                                                  \
    using Options = Opts;                                                                       \
    static Tensor forward(const Options& o, const Tensor& a, const Tensor& b, const Tensor& c); \
  };
#define EMBER_NN_LOSS_SPEC(Name, Opts, N) EMBER_NN_LOSS_SPEC_##N(Name, Opts)
EMBER_NN_LOSSES(EMBER_NN_LOSS_SPEC)
#undef EMBER_NN_LOSS_SPEC
#undef EMBER_NN_LOSS_SPEC_2
#undef EMBER_NN_LOSS_SPEC_3

}  // namespace loss

#define EMBER_NN_LOSS_ALIAS_2(Name) using Name = Loss<loss::Name##Spec>;
#define EMBER_NN_LOSS_ALIAS_3(Name) using Name = Loss3<loss::Name##Spec>;
#define EMBER_NN_LOSS_ALIAS(Name, Opts, N) EMBER_NN_LOSS_ALIAS_##N(Name)
EMBER_NN_LOSSES(EMBER_NN_LOSS_ALIAS)
#undef EMBER_NN_LOSS_ALIAS
#undef EMBER_NN_LOSS_ALIAS_2
#undef EMBER_NN_LOSS_ALIAS_3

// forward(log_probs [T, N, C], targets, input_lengths, target_lengths) (int64 length tensors).
class CTCLoss : public Module {
 public:
  explicit CTCLoss(int64_t blank = 0, Reduction reduction = Reduction::Mean, bool zero_infinity = false)
      : Module("CTCLoss"), blank(blank), reduction(reduction), zero_infinity(zero_infinity) {}
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  Tensor operator()(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                    const Tensor& target_lengths) {
    return forward(log_probs, targets, input_lengths, target_lengths);
  }
  using Module::forward;
  int64_t blank;
  Reduction reduction;
  bool zero_infinity;
};

}  // namespace ember::nn
