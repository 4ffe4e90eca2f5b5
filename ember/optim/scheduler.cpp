#include "ember/optim/scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "ember/error.h"

namespace ember::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (size_t g = 0; g < optimizer.num_groups(); ++g) base_lrs_.push_back(optimizer.lr(g));
}

void LRScheduler::apply() {
  last_lr_.clear();
  for (size_t g = 0; g < base_lrs_.size(); ++g) {
    const double lr = lr_at(base_lrs_[g], last_epoch_);
    optimizer_.set_lr(g, lr);
    last_lr_.push_back(lr);
  }
}

void LRScheduler::step() {
  ++last_epoch_;
  apply();
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  apply();
}
double StepLR::lr_at(double base, int64_t e) const { return base * std::pow(gamma_, double(e / step_size_)); }

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  apply();
}
double MultiStepLR::lr_at(double base, int64_t e) const {
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), e) - milestones_.begin();
  return base * std::pow(gamma_, double(passed));
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer), gamma_(gamma) { apply(); }
double ExponentialLR::lr_at(double base, int64_t e) const { return base * std::pow(gamma_, double(e)); }

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  apply();
}
double CosineAnnealingLR::lr_at(double base, int64_t e) const {
  return eta_min_ + (base - eta_min_) * (1 + std::cos(std::numbers::pi * double(e) / double(T_max_))) / 2;
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer), start_(start_factor), end_(end_factor), total_(total_iters) {
  EMBER_CHECK_VALUE(start_factor > 0 && start_factor <= 1, "LinearLR: starting multiplicative factor expected to be "
                    "greater than 0 and less or equal to 1, got ", start_factor);
  EMBER_CHECK_VALUE(end_factor >= 0 && end_factor <= 1, "LinearLR: ending multiplicative factor expected to be "
                    "between 0 and 1, got ", end_factor);
  apply();
}
double LinearLR::lr_at(double base, int64_t e) const {
  return base * (start_ + (end_ - start_) * double(std::min(total_, e)) / double(total_));
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer), lambda_(std::move(lr_lambda)) {
  apply();
}
double LambdaLR::lr_at(double base, int64_t e) const { return base * lambda_(e); }

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, Mode mode, double factor, int64_t patience,
                                     double threshold, ThresholdMode threshold_mode, int64_t cooldown, double min_lr,
                                     double eps)
    : optimizer_(optimizer), mode_(mode), factor_(factor), patience_(patience), threshold_(threshold),
      threshold_mode_(threshold_mode), cooldown_(cooldown), min_lr_(min_lr), eps_(eps),
      best_(mode == Mode::Min ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity()) {
  EMBER_CHECK_VALUE(factor < 1.0, "Factor should be < 1.0.");
}

bool ReduceLROnPlateau::better(double a, double best) const {
  const bool rel = threshold_mode_ == ThresholdMode::Rel;
  if (mode_ == Mode::Min) return a < (rel ? best * (1 - threshold_) : best - threshold_);
  return a > (rel ? best * (threshold_ + 1) : best + threshold_);
}

void ReduceLROnPlateau::step(double metric) {
  if (better(metric, best_)) {
    best_ = metric;
    bad_epochs_ = 0;
  } else {
    ++bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    bad_epochs_ = 0;
  }
  if (bad_epochs_ > patience_) {
    for (size_t g = 0; g < optimizer_.num_groups(); ++g) {
      const double old = optimizer_.lr(g), lr = std::max(old * factor_, min_lr_);
      if (old - lr > eps_) optimizer_.set_lr(g, lr);
    }
    cooldown_counter_ = cooldown_;
    bad_epochs_ = 0;
  }
}

std::vector<double> ReduceLROnPlateau::get_last_lr() const {
  std::vector<double> r;
  for (size_t g = 0; g < optimizer_.num_groups(); ++g) r.push_back(optimizer_.lr(g));
  return r;
}

}  // namespace ember::optim
