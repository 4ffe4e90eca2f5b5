#include "ember/optim/scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "ember/error.h"

namespace ember::optim {

namespace lr_factor {

namespace {

// Python's float floor division a // b (CPython's float_floordiv), so that a fractional epoch rounds as it does.
double floor_div(double a, double b) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double floordiv = std::floor(div);
  if (div - floordiv > 0.5) floordiv += 1.0;
  return floordiv;
}

}  // namespace

double step(double epoch, double step_size, double gamma) { return std::pow(gamma, floor_div(epoch, step_size)); }

double multi_step(double epoch, const std::vector<int64_t>& milestones, double gamma) {
  const auto passed = std::upper_bound(milestones.begin(), milestones.end(), epoch,
                                       [](double e, int64_t m) { return e < static_cast<double>(m); }) -
                      milestones.begin();
  return std::pow(gamma, static_cast<double>(passed));
}

double constant(double epoch, double factor, double total_iters) {
  const double done = epoch >= total_iters ? 1.0 : 0.0;
  return factor + done * (1 - factor);
}

double linear(double epoch, double start_factor, double end_factor, double total_iters) {
  return start_factor + (end_factor - start_factor) * std::min(total_iters, epoch) / total_iters;
}

double exponential(double epoch, double gamma) { return std::pow(gamma, epoch); }

double polynomial(double epoch, double total_iters, double power) {
  return std::pow(1.0 - std::min(total_iters, epoch) / total_iters, power);
}

double cosine(double epoch, double T_max) { return (1 + std::cos(std::numbers::pi * epoch / T_max)) / 2; }

}  // namespace lr_factor

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
double StepLR::lr_at(double base, int64_t e) const {
  return base * lr_factor::step(double(e), double(step_size_), gamma_);
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  apply();
}
double MultiStepLR::lr_at(double base, int64_t e) const {
  return base * lr_factor::multi_step(double(e), milestones_, gamma_);
}

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer), factor_(factor), total_(total_iters) {
  EMBER_CHECK_VALUE(factor >= 0 && factor <= 1,
                    "ConstantLR: Constant multiplicative factor expected to be between 0 "
                    "and 1, got ",
                    factor);
  apply();
}
double ConstantLR::lr_at(double base, int64_t e) const {
  return base * lr_factor::constant(double(e), factor_, double(total_));
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer), gamma_(gamma) { apply(); }
double ExponentialLR::lr_at(double base, int64_t e) const { return base * lr_factor::exponential(double(e), gamma_); }

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  apply();
}
double CosineAnnealingLR::lr_at(double base, int64_t e) const {
  return eta_min_ + (base - eta_min_) * lr_factor::cosine(double(e), double(T_max_));
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer), start_(start_factor), end_(end_factor), total_(total_iters) {
  EMBER_CHECK_VALUE(start_factor > 0 && start_factor <= 1,
                    "LinearLR: starting multiplicative factor expected to be "
                    "greater than 0 and less or equal to 1, got ",
                    start_factor);
  EMBER_CHECK_VALUE(end_factor >= 0 && end_factor <= 1,
                    "LinearLR: ending multiplicative factor expected to be "
                    "between 0 and 1, got ",
                    end_factor);
  apply();
}
double LinearLR::lr_at(double base, int64_t e) const {
  return base * lr_factor::linear(double(e), start_, end_, double(total_));
}

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power)
    : LRScheduler(optimizer), total_(total_iters), power_(power) {
  EMBER_CHECK_VALUE(total_iters > 0, "PolynomialLR: total_iters must be positive, got ", total_iters);
  apply();
}
double PolynomialLR::lr_at(double base, int64_t e) const {
  return base * lr_factor::polynomial(double(e), double(total_), power_);
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer), lambda_(std::move(lr_lambda)) {
  apply();
}
double LambdaLR::lr_at(double base, int64_t e) const { return base * lambda_(e); }

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, Mode mode, double factor, int64_t patience, double threshold,
                                     ThresholdMode threshold_mode, int64_t cooldown, double min_lr, double eps)
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
