// The C++ frontend's optimizers, as libtorch's torch::optim: param groups with their own options, step(),
// zero_grad(), and a state dict of named tensors that ember::save can write. The update math is the same fused
// code ember.optim (Python) calls (ember/optim/fused.h).
//
//   ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
//   opt.zero_grad(); loss.backward(); opt.step();
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ember/optim/options.h"
#include "ember/tensor.h"

namespace ember::optim {

using LossClosure = std::function<Tensor()>;
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // Runs `closure` (if any) with grad enabled, then updates every parameter that has a gradient; returns the
  // closure's loss (or an undefined tensor).
  Tensor step(const LossClosure& closure = nullptr);
  void zero_grad(bool set_to_none = true);

  // What the schedulers need: the groups' learning rates.
  virtual size_t num_groups() const = 0;
  virtual double lr(size_t group) const = 0;
  virtual void set_lr(size_t group, double lr) = 0;
  virtual std::vector<Tensor> params(size_t group) const = 0;

  // The per-parameter state as named tensors, "state.<i>.<name>", parameters numbered across groups as in
  // PyTorch's state_dict, plus "param_groups.<g>.lr" (a 0-d float64 tensor).
  NamedTensors state_dict() const;
  // Restores what state_dict() returned; every entry is checked (names, parameter indices, shapes) before
  // anything changes, and all problems are reported in one error.
  void load_state_dict(const NamedTensors& state);

 protected:
  virtual void update_group(size_t group) = 0;
  // The parameter's state tensors by name.
  std::map<std::string, Tensor>& state_of(const Tensor& param);
  // The parameters of a group that have a gradient, with their gradients.
  std::pair<std::vector<Tensor>, std::vector<Tensor>> with_grads(size_t group) const;
  // For each name, the state tensor of each parameter in `params`, made by `make(param)` on first use.
  std::vector<Tensor> state_list(const std::vector<Tensor>& params, const std::string& name,
                                 const std::function<Tensor(const Tensor&)>& make);

 private:
  std::map<const void*, std::map<std::string, Tensor>> state_;  // keyed by the parameter's TensorImpl
};

// Param groups of one options type.
template <class Options>
class OptimizerWith : public Optimizer {
 public:
  struct Group {
    std::vector<Tensor> params;
    Options options;
  };

  OptimizerWith(std::vector<Tensor> params, Options defaults) : defaults_(std::move(defaults)) {
    add_param_group(std::move(params));
  }
  // A group with its own options (the optimizer's defaults when none are given).
  void add_param_group(std::vector<Tensor> params, const std::optional<Options>& options = std::nullopt) {
    check_group(params);
    groups_.push_back({std::move(params), options.value_or(defaults_)});
  }
  std::vector<Group>& param_groups() { return groups_; }
  const Options& defaults() const { return defaults_; }

  size_t num_groups() const override { return groups_.size(); }
  double lr(size_t g) const override { return groups_.at(g).options.lr(); }
  void set_lr(size_t g, double lr) override { groups_.at(g).options.lr(lr); }
  std::vector<Tensor> params(size_t g) const override { return groups_.at(g).params; }

 protected:
  std::vector<Group> groups_;
  Options defaults_;

 private:
  void check_group(const std::vector<Tensor>& params) const;
};

void check_param_group(const std::vector<Tensor>& params, const std::vector<std::vector<Tensor>>& existing);

template <class Options>
void OptimizerWith<Options>::check_group(const std::vector<Tensor>& params) const {
  std::vector<std::vector<Tensor>> existing;
  for (const Group& g : groups_) existing.push_back(g.params);
  check_param_group(params, existing);
}

class SGD : public OptimizerWith<SGDOptions> {
 public:
  using OptimizerWith::OptimizerWith;

 protected:
  void update_group(size_t group) override;
};

class Adam : public OptimizerWith<AdamOptions> {
 public:
  explicit Adam(std::vector<Tensor> params, AdamOptions o = AdamOptions()) : OptimizerWith(std::move(params), o) {}

 protected:
  void update_group(size_t group) override;
};

class AdamW : public OptimizerWith<AdamWOptions> {
 public:
  explicit AdamW(std::vector<Tensor> params, AdamWOptions o = AdamWOptions()) : OptimizerWith(std::move(params), o) {}

 protected:
  void update_group(size_t group) override;
};

class RMSprop : public OptimizerWith<RMSpropOptions> {
 public:
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions o = RMSpropOptions())
      : OptimizerWith(std::move(params), o) {}

 protected:
  void update_group(size_t group) override;
};

class Adagrad : public OptimizerWith<AdagradOptions> {
 public:
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions o = AdagradOptions())
      : OptimizerWith(std::move(params), o) {}

 protected:
  void update_group(size_t group) override;
};

}  // namespace ember::optim
