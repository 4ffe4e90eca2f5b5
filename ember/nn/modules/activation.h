// Activation layers. The parameter-free ones are one template, Activation<Spec>, over a table of specs: each names
// the layer, its options (an aggregate with torch.nn's constructor arguments, in its order, with its defaults), the
// functional op it calls and torch.nn's extra_repr. So
//   nn::Hardtanh(-2, 2), nn::Hardtanh({.min_val = -2, .max_val = 2}), nn::ReLU(), nn::Softmax(1)
// all construct as in Python. PReLU (a learned slope) is a class of its own.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "ember/nn/modules/module.h"

namespace ember::nn {

template <class Spec>
class Activation : public Module {
 public:
  using Options = typename Spec::Options;
  explicit Activation(Options o) : Module(Spec::name), options(std::move(o)) { Spec::check(options); }
  // The options' fields positionally, as torch.nn's constructor takes them (none: the defaults).
  template <class... A>
  explicit Activation(A&&... a) : Activation(Options(std::forward<A>(a)...)) {}
  Tensor forward(const Tensor& x) override { return Spec::forward(x, options); }
  std::string extra_repr() const override { return Spec::repr(options); }
  Options options;
};

namespace act {

struct NoOptions {};
struct InplaceOptions {
  bool inplace = false;
};
struct ELUOptions {
  double alpha = 1.0;
  bool inplace = false;
};
struct LeakyReLUOptions {
  double negative_slope = 0.01;
  bool inplace = false;
};
struct HardtanhOptions {
  double min_val = -1.0, max_val = 1.0;
  bool inplace = false;
};
struct ThresholdOptions {
  double threshold = 0, value = 0;  // torch.nn.Threshold requires both
  bool inplace = false;
};
struct SoftplusOptions {
  double beta = 1.0, threshold = 20.0;
};
struct ShrinkOptions {
  double lambd = 0.5;
};
struct GLUOptions {
  int64_t dim = -1;
};
struct GELUOptions {
  std::string approximate = "none";  // or "tanh"
};
struct SoftmaxOptions {
  std::optional<int64_t> dim;  // empty: PyTorch's legacy implicit choice (softmax_default_dim)
};

// The table: X(layer name, options type).
#define EMBER_NN_ACTIVATIONS(X)  \
  X(ReLU, InplaceOptions)        \
  X(ReLU6, InplaceOptions)       \
  X(SELU, InplaceOptions)        \
  X(SiLU, InplaceOptions)        \
  X(Mish, InplaceOptions)        \
  X(Hardswish, InplaceOptions)   \
  X(Hardsigmoid, InplaceOptions) \
  X(Sigmoid, NoOptions)          \
  X(Tanh, NoOptions)             \
  X(Softsign, NoOptions)         \
  X(Tanhshrink, NoOptions)       \
  X(LogSigmoid, NoOptions)       \
  X(ELU, ELUOptions)             \
  X(CELU, ELUOptions)            \
  X(LeakyReLU, LeakyReLUOptions) \
  X(Hardtanh, HardtanhOptions)   \
  X(Threshold, ThresholdOptions) \
  X(Softplus, SoftplusOptions)   \
  X(Hardshrink, ShrinkOptions)   \
  X(Softshrink, ShrinkOptions)   \
  X(GLU, GLUOptions)             \
  X(GELU, GELUOptions)           \
  X(Softmax, SoftmaxOptions)     \
  X(LogSoftmax, SoftmaxOptions)  \
  X(Softmin, SoftmaxOptions)

#define EMBER_NN_ACTIVATION_SPEC(Name, Opts)                  \
  struct Name##Spec {                                         \
    static constexpr const char* name = #Name;                \
    using Options = Opts;                                     \
    static void check(const Options& o);                      \
    static Tensor forward(const Tensor& x, const Options& o); \
    static std::string repr(const Options& o);                \
  };
EMBER_NN_ACTIVATIONS(EMBER_NN_ACTIVATION_SPEC)
#undef EMBER_NN_ACTIVATION_SPEC

}  // namespace act

#define EMBER_NN_ACTIVATION_ALIAS(Name, Opts) using Name = Activation<act::Name##Spec>;
EMBER_NN_ACTIVATIONS(EMBER_NN_ACTIVATION_ALIAS)
#undef EMBER_NN_ACTIVATION_ALIAS

// max(0, x) + weight * min(0, x); weight [num_parameters] (one slope, or one per channel), filled with init.
class PReLU : public Module {
 public:
  explicit PReLU(int64_t num_parameters = 1, double init = 0.25);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight;
  int64_t num_parameters;
  double init;
};

}  // namespace ember::nn
