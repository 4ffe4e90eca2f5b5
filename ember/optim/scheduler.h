// The C++ frontend's learning-rate schedulers: each sets its optimizer's group learning rates to PyTorch's closed
// form for the epoch count (torch.optim.lr_scheduler's _get_closed_form_lr). The closed forms are written once, in
// namespace lr_factor below, which the Python schedulers' _get_closed_form_lr call too; the Python step() follows
// PyTorch's chainable (recursive) forms, which agree with these to rounding (docs/architecture.md, "Behaviour
// written once").
//
//   ember::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (epoch...) { train(); sched.step(); }
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

// The closed forms of torch.optim.lr_scheduler: the factor on a group's initial lr at `epoch` (a double: Python's
// step(epoch) may pass a fractional one), with PyTorch's operations in PyTorch's order, so that Python's
// initial_lr * factor is bit-identical to PyTorch's own formula. Bound as ember._C._optim._lr_factor_*.
namespace lr_factor {
// gamma ** (epoch // step_size), with Python's floor division.
double step(double epoch, double step_size, double gamma);
// gamma ** (number of milestones <= epoch); milestones sorted, a repeated one counts each time.
double multi_step(double epoch, const std::vector<int64_t>& milestones, double gamma);
// factor before total_iters, then 1 (as factor + (1 - factor)).
double constant(double epoch, double factor, double total_iters);
// start_factor + (end_factor - start_factor) * min(total_iters, epoch) / total_iters.
double linear(double epoch, double start_factor, double end_factor, double total_iters);
double exponential(double epoch, double gamma);  // gamma ** epoch
// (1 - min(total_iters, epoch) / total_iters) ** power.
double polynomial(double epoch, double total_iters, double power);
// (1 + cos(pi * epoch / T_max)) / 2: lr = eta_min + (initial_lr - eta_min) * factor.
double cosine(double epoch, double T_max);
}  // namespace lr_factor

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  // Advances one epoch and sets the optimizer's learning rates.
  void step();
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }

 protected:
  // The learning rate of a group whose initial rate is `base` at epoch `epoch`.
  virtual double lr_at(double base, int64_t epoch) const = 0;
  // Sets the learning rates for last_epoch_ (derived constructors call it once, as PyTorch's do).
  void apply();

  Optimizer& optimizer_;
  std::vector<double> base_lrs_, last_lr_;
  int64_t last_epoch_ = 0;
};

class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  double lr_at(double base, int64_t epoch) const override;
  int64_t step_size_;
  double gamma_;
};

class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  double lr_at(double base, int64_t epoch) const override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

// The factor on the initial lr is `factor` for the first total_iters epochs, then 1.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  double lr_at(double base, int64_t epoch) const override;
  double factor_;
  int64_t total_;
};

class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  double lr_at(double base, int64_t epoch) const override;
  double gamma_;
};

class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  double lr_at(double base, int64_t epoch) const override;
  int64_t T_max_;
  double eta_min_;
};

class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5);

 protected:
  double lr_at(double base, int64_t epoch) const override;
  double start_, end_;
  int64_t total_;
};

// lr = initial_lr * (1 - min(epoch, total_iters) / total_iters) ** power.
class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0);

 protected:
  double lr_at(double base, int64_t epoch) const override;
  int64_t total_;
  double power_;
};

class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda);

 protected:
  double lr_at(double base, int64_t epoch) const override;
  std::function<double(int64_t)> lambda_;
};

// Reduces the learning rates by `factor` when a metric has stopped improving for `patience` epochs.
class ReduceLROnPlateau {
 public:
  enum class Mode { Min, Max };
  enum class ThresholdMode { Rel, Abs };
  explicit ReduceLROnPlateau(Optimizer& optimizer, Mode mode = Mode::Min, double factor = 0.1, int64_t patience = 10,
                             double threshold = 1e-4, ThresholdMode threshold_mode = ThresholdMode::Rel,
                             int64_t cooldown = 0, double min_lr = 0, double eps = 1e-8);
  void step(double metric);
  std::vector<double> get_last_lr() const;

 private:
  bool better(double a, double best) const;
  Optimizer& optimizer_;
  Mode mode_;
  double factor_;
  int64_t patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int64_t cooldown_, cooldown_counter_ = 0, bad_epochs_ = 0;
  double min_lr_, eps_;
  double best_;
};

}  // namespace ember::optim
