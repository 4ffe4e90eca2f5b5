// Hyper-parameters of the optimizers, with PyTorch's defaults, in libtorch's style:
// `SGDOptions(0.1).momentum(0.9).nesterov(true)`.
#pragma once

#include <utility>

#include "ember/arg.h"

namespace ember::optim {

using Betas = std::pair<double, double>;

struct SGDOptions {
  explicit SGDOptions(double lr = 1e-3) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  EMBER_ARG(bool, maximize) = false;
};

// Adam and AdamW differ only in weight decay's default (and in how it is applied: adam_step's `decoupled`).
template <bool W>
struct AdamFamilyOptions {
  explicit AdamFamilyOptions(double lr = 1e-3) : lr_(lr) {}
  template <bool V>
  explicit AdamFamilyOptions(const AdamFamilyOptions<V>& o)
      : lr_(o.lr()), betas_(o.betas()), eps_(o.eps()), weight_decay_(o.weight_decay()), amsgrad_(o.amsgrad()),
        maximize_(o.maximize()) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = {0.9, 0.999};
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = W ? 1e-2 : 0.0;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;
};
using AdamOptions = AdamFamilyOptions<false>;
using AdamWOptions = AdamFamilyOptions<true>;

struct RMSpropOptions {
  explicit RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;
  EMBER_ARG(bool, maximize) = false;
};

struct AdagradOptions {
  explicit AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;
  EMBER_ARG(double, eps) = 1e-10;
  EMBER_ARG(bool, maximize) = false;
};

struct AdadeltaOptions {
  explicit AdadeltaOptions(double lr = 1.0) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, rho) = 0.9;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;
};

struct AdamaxOptions {
  explicit AdamaxOptions(double lr = 2e-3) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = {0.9, 0.999};
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;
};

struct NAdamOptions {
  explicit NAdamOptions(double lr = 2e-3) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = {0.9, 0.999};
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum_decay) = 4e-3;
  EMBER_ARG(bool, decoupled_weight_decay) = false;
  EMBER_ARG(bool, maximize) = false;
};

struct RAdamOptions {
  explicit RAdamOptions(double lr = 1e-3) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, betas) = {0.9, 0.999};
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, decoupled_weight_decay) = false;
  EMBER_ARG(bool, maximize) = false;
};

struct RpropOptions {
  explicit RpropOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(Betas, etas) = {0.5, 1.2};          // (etaminus, etaplus)
  EMBER_ARG(Betas, step_sizes) = {1e-6, 50.0};  // (min, max)
  EMBER_ARG(bool, maximize) = false;
};

struct ASGDOptions {
  explicit ASGDOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_ARG(double, lr);
  EMBER_ARG(double, lambd) = 1e-4;
  EMBER_ARG(double, alpha) = 0.75;
  EMBER_ARG(double, t0) = 1e6;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, maximize) = false;
};

}  // namespace ember::optim
