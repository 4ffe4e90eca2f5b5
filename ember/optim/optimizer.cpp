#include "ember/optim/optimizer.h"

#include <set>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/ops.h"
#include "ember/optim/fused.h"

namespace ember::optim {

Tensor Optimizer::step(const LossClosure& closure) {
  Tensor loss;
  if (closure) {
    autograd::GradModeGuard grad(true);
    loss = closure();
  }
  autograd::NoGradGuard no_grad;
  for (size_t g = 0; g < num_groups(); ++g) update_group(g);
  return loss;
}

void Optimizer::zero_grad(bool set_to_none) {
  autograd::NoGradGuard no_grad;
  for (size_t g = 0; g < num_groups(); ++g)
    for (const Tensor& p : params(g)) {
      const Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none)
        p.set_grad(Tensor());
      else
        fill_(grad, Scalar(0.0));
    }
}

std::map<std::string, Tensor>& Optimizer::state_of(const Tensor& param) { return state_[param.impl()]; }

std::pair<std::vector<Tensor>, std::vector<Tensor>> Optimizer::with_grads(size_t group) const {
  std::vector<Tensor> ps, gs;
  for (const Tensor& p : params(group)) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    ps.push_back(p);
    gs.push_back(g);
  }
  return {ps, gs};
}

std::vector<Tensor> Optimizer::state_list(const std::vector<Tensor>& ps, const std::string& name,
                                          const std::function<Tensor(const Tensor&)>& make) {
  std::vector<Tensor> r;
  for (const Tensor& p : ps) {
    Tensor& t = state_of(p)[name];
    if (!t.defined()) t = make(p);
    r.push_back(t);
  }
  return r;
}

NamedTensors Optimizer::state_dict() const {
  NamedTensors out;
  size_t index = 0;
  for (size_t g = 0; g < num_groups(); ++g) {
    out.emplace_back("param_groups." + std::to_string(g) + ".lr", full({}, Scalar(lr(g)), ScalarType::Float64));
    for (const Tensor& p : params(g)) {
      auto it = state_.find(p.impl());
      if (it != state_.end())
        for (const auto& [name, t] : it->second) out.emplace_back("state." + std::to_string(index) + "." + name, t);
      ++index;
    }
  }
  return out;
}

void Optimizer::load_state_dict(const NamedTensors& state) {
  std::vector<Tensor> all;
  for (size_t g = 0; g < num_groups(); ++g)
    for (const Tensor& p : params(g)) all.push_back(p);
  std::vector<std::string> problems;
  std::vector<std::pair<size_t, double>> lrs;
  std::vector<std::tuple<size_t, std::string, Tensor>> entries;
  for (const auto& [key, t] : state) {
    std::istringstream in(key);
    std::string kind, index, name;
    std::getline(in, kind, '.');
    std::getline(in, index, '.');
    std::getline(in, name);
    size_t i = 0;
    const bool numeric = !index.empty() && index.find_first_not_of("0123456789") == std::string::npos;
    if (numeric) i = std::stoul(index);
    if (kind == "param_groups" && numeric && name == "lr" && i < num_groups() && t.numel() == 1) {
      lrs.emplace_back(i, item(t).to<double>());
    } else if (kind == "state" && numeric && !name.empty() && i < all.size()) {
      if (t.dim() > 0 && !std::ranges::equal(t.sizes(), all[i].sizes()))
        problems.push_back("'" + key + "' has shape " + shape_str(t.sizes()) + " but parameter " + index +
                           " has shape " + shape_str(all[i].sizes()));
      else
        entries.emplace_back(i, name, t);
    } else {
      problems.push_back("unexpected key '" + key + "'");
    }
  }
  if (!problems.empty()) {
    std::string msg = "Optimizer::load_state_dict: error(s) in the state dict:";
    for (const std::string& p : problems) msg += "\n\t" + p;
    throw ValueError(msg);
  }
  for (const auto& [g, v] : lrs) set_lr(g, v);
  state_.clear();
  for (const auto& [i, name, t] : entries) {
    const Tensor& p = all[i];
    state_[p.impl()][name] = name == "step" ? t.clone() : to(t, p.dtype(), /*copy=*/true);
  }
}

void check_param_group(const std::vector<Tensor>& params, const std::vector<std::vector<Tensor>>& existing) {
  EMBER_CHECK_VALUE(!params.empty(), "optimizer got an empty parameter list");
  std::set<const void*> seen;
  for (const auto& g : existing)
    for (const Tensor& p : g) seen.insert(p.impl());
  for (const Tensor& p : params) {
    EMBER_CHECK_VALUE(p.defined(), "optimizer got an undefined tensor as a parameter");
    EMBER_CHECK_VALUE(p.is_leaf(), "can't optimize a non-leaf Tensor");
    EMBER_CHECK_VALUE(!seen.count(p.impl()), "some parameters appear in more than one parameter group");
  }
}

namespace {
Tensor zeros_of(const Tensor& p) { return zeros_like(p); }
Tensor counter(const Tensor&) { return zeros({}, ScalarType::Float32); }
}  // namespace

void SGD::update_group(size_t g) {
  auto [ps, gs] = with_grads(g);
  if (ps.empty()) return;
  const SGDOptions& o = groups_[g].options;
  std::vector<Tensor> bufs;
  if (o.momentum() != 0)
    for (const Tensor& p : ps) bufs.push_back(state_of(p)["momentum_buffer"]);
  sgd_step(ps, gs, bufs, o);
  for (size_t i = 0; i < bufs.size(); ++i) state_of(ps[i])["momentum_buffer"] = bufs[i];
}

void Adam::update_group(size_t g) {
  auto [ps, gs] = with_grads(g);
  if (ps.empty()) return;
  const AdamOptions& o = groups_[g].options;
  adam_step(ps, gs, state_list(ps, "exp_avg", zeros_of), state_list(ps, "exp_avg_sq", zeros_of),
            o.amsgrad() ? state_list(ps, "max_exp_avg_sq", zeros_of) : std::vector<Tensor>{},
            state_list(ps, "step", counter), o, /*decoupled=*/false);
}

void AdamW::update_group(size_t g) {
  auto [ps, gs] = with_grads(g);
  if (ps.empty()) return;
  const AdamOptions o(groups_[g].options);
  adam_step(ps, gs, state_list(ps, "exp_avg", zeros_of), state_list(ps, "exp_avg_sq", zeros_of),
            o.amsgrad() ? state_list(ps, "max_exp_avg_sq", zeros_of) : std::vector<Tensor>{},
            state_list(ps, "step", counter), o, /*decoupled=*/true);
}

void RMSprop::update_group(size_t g) {
  auto [ps, gs] = with_grads(g);
  if (ps.empty()) return;
  const RMSpropOptions& o = groups_[g].options;
  rmsprop_step(ps, gs, state_list(ps, "square_avg", zeros_of),
               o.centered() ? state_list(ps, "grad_avg", zeros_of) : std::vector<Tensor>{},
               o.momentum() > 0 ? state_list(ps, "momentum_buffer", zeros_of) : std::vector<Tensor>{},
               state_list(ps, "step", counter), o);
}

void Adagrad::update_group(size_t g) {
  auto [ps, gs] = with_grads(g);
  if (ps.empty()) return;
  const AdagradOptions& o = groups_[g].options;
  const double init = o.initial_accumulator_value();
  adagrad_step(ps, gs, state_list(ps, "sum", [init](const Tensor& p) { return full_like(p, Scalar(init)); }),
               state_list(ps, "step", counter), o);
}

}  // namespace ember::optim
