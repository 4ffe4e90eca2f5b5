// Note [Fused optimizer steps]
// PyTorch's default CPU optimizers run a Python loop over parameters, and for each one ~10 tensor ops that each
// read and write the whole parameter (Adam: grad + wd*p, lerp, mul, addcmul, sqrt, div, add, addcdiv...). Here one
// call takes all parameters of a group: this file checks the lists and computes each parameter's coefficients
// (bias corrections depend on its step count); the device kernel then makes one pass over memory, reading the
// parameter, its gradient and its state once and writing them once, with the work of all parameters split across
// threads together (so a group of many small tensors still uses every core). Tensors laid out unlike their
// parameter (a dense parameter's strides, else row-major) or in float16/bfloat16 go through float temporaries in that
// layout, copied back afterwards: correct for every layout, fast for row-major and channels-last parameters. Parameters
// on a CUDA device take the same path into that device's optim_step kernel (one multi-tensor launch per group,
// ember/backend/cuda/optim.cu); the step counters stay CPU tensors, as PyTorch keeps them for its default (not
// capturable) optimizers, so a step computes its coefficients without reading the device.
#include "ember/optim/fused.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/backend/kernels/optim.h"
#include "ember/ops.h"

namespace ember::optim {

namespace {

struct List {
  const char* name;
  const TensorVec* tensors;
};

void check_tensor(const char* op, const char* what, size_t i, const Tensor& p, const Tensor& t) {
  EMBER_CHECK(t.defined(), op, ": ", what, " of parameter ", i, " is missing");
  EMBER_CHECK(std::ranges::equal(t.sizes(), p.sizes()), op, ": ", what, " of parameter ", i, " has shape ",
              shape_str(t.sizes()), " but the parameter has shape ", shape_str(p.sizes()));
  EMBER_CHECK(t.dtype() == p.dtype(), op, ": ", what, " of parameter ", i, " has dtype ", dtype_name(t.dtype()),
              " but the parameter has dtype ", dtype_name(p.dtype()));
  EMBER_CHECK(t.device() == p.device(), op, ": ", what, " of parameter ", i, " is on ", t.device().str(),
              " but the parameter is on ", p.device().str());
}

// Every list has one tensor per parameter, each like its parameter (steps: 0-d floating counters).
void check(const char* op, const TensorVec& params, const TensorVec& grads, std::initializer_list<List> states,
           const TensorVec* steps) {
  EMBER_CHECK(grads.size() == params.size(), op, ": got ", params.size(), " parameters but ", grads.size(),
              " gradients");
  for (const List& l : states)
    EMBER_CHECK(l.tensors->size() == params.size(), op, ": got ", params.size(), " parameters but ", l.tensors->size(),
                " ", l.name, " tensors");
  if (steps)
    EMBER_CHECK(steps->size() == params.size(), op, ": got ", params.size(), " parameters but ", steps->size(),
                " step counters");
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    EMBER_CHECK_TYPE(is_floating(p.dtype()), op, ": parameter ", i, " has dtype ", dtype_name(p.dtype()),
                     "; optimizers update floating-point parameters only");
    check_tensor(op, "gradient", i, p, grads[i]);
    for (const List& l : states) check_tensor(op, l.name, i, p, (*l.tensors)[i]);
    if (steps) {
      const Tensor& s = (*steps)[i];
      EMBER_CHECK(s.defined() && s.numel() == 1 && is_floating(s.dtype()) && !s.device().is_cuda(), op,
                  ": the step counter of parameter ", i, " must be a one-element floating-point CPU tensor");
    }
  }
}

// Increments a step counter and returns its new value.
double bump(const Tensor& step) {
  const double s = item(step).to<double>() + 1;
  fill_(step, Scalar(s));
  return s;
}

Work work_of(std::initializer_list<Tensor> tensors) {
  Work w;
  int k = 0;
  for (const Tensor& t : tensors) w.t[k++] = t;
  return w;
}

// Runs the kernel; layouts and dtypes it does not take go through temporaries (Note [Fused optimizer steps]).
void launch(Algo algo, std::vector<Work>& work) {
  std::vector<std::pair<Tensor, Tensor>> write_back;  // (original, temporary)
  for (Work& w : work) {
    const ScalarType st = w.t[0].dtype();
    const ScalarType compute = st == ScalarType::Float64 ? st : ScalarType::Float32;
    // The kernel walks each tensor's memory flat, so a parameter's tensors must be dense with one layout: the
    // parameter's own when it is dense (row-major, or channels-last with its gradient and state: PyTorch's layout
    // contract gives .grad the parameter's strides), else row-major.
    const Tensor p = w.t[0];
    const bool p_dense = is_contiguous(p, MemoryFormat::Preserve);
    auto in_layout = [&](const Tensor& t) {
      if (!p_dense) return t.is_contiguous();
      if (t.is_contiguous() && p.is_contiguous()) return true;
      for (int64_t d = 0; d < t.dim(); ++d)
        if (t.size(d) != 1 && t.stride(d) != p.stride(d)) return false;
      return is_contiguous(t, MemoryFormat::Preserve);
    };
    for (int k = 0; k < kSlots; ++k) {
      Tensor& t = w.t[k];
      if (!t.defined()) continue;
      if (t.dtype() == compute && std::ranges::equal(t.sizes(), p.sizes()) && in_layout(t)) {
        if (k != 1) t.bump_version();
        continue;
      }
      Tensor tmp = p_dense ? empty_like(p, TensorOptions(compute).device(p.device()))
                           : empty(p.sizes(), TensorOptions(compute).device(p.device()));
      copy_(tmp, t);
      if (k != 1) write_back.emplace_back(t, tmp);  // slot 1, the gradient, is only read
      t = tmp;
    }
  }
  // Parameters on the CPU run here; those on each CUDA device in one multi-tensor launch there. Step counters stay
  // on the CPU (as PyTorch keeps them for non-capturable optimizers), so a CUDA step reads nothing back.
  std::vector<Work> cpu_work;
  std::vector<std::pair<Device, std::vector<Work>>> device_work;
  for (Work& w : work) {
    const Device d = w.t[0].device();
    if (d.is_cpu()) {
      cpu_work.push_back(std::move(w));
      continue;
    }
    auto it = std::ranges::find_if(device_work, [&](const auto& e) { return e.first == d; });
    if (it == device_work.end()) it = device_work.insert(device_work.end(), {d, {}});
    it->second.push_back(std::move(w));
  }
  if (!cpu_work.empty()) cpu::optim_step(algo, cpu_work);
  for (auto& [d, items] : device_work) optim_step_kernel[d](algo, items);
  for (auto& [orig, tmp] : write_back) copy_(orig, tmp);
}

double direction(bool maximize) { return maximize ? -1.0 : 1.0; }

}  // namespace

void sgd_step(const TensorVec& params, const TensorVec& grads, TensorVec& momentum_buffers, const SGDOptions& o) {
  constexpr const char* op = "sgd_step";
  autograd::NoGradGuard no_grad;
  const bool has_momentum = o.momentum() != 0;
  if (has_momentum && momentum_buffers.empty()) momentum_buffers.resize(params.size());
  check(op, params, grads, {}, nullptr);
  EMBER_CHECK(!has_momentum || momentum_buffers.size() == params.size(), op, ": got ", params.size(),
              " parameters but ", momentum_buffers.size(), " momentum buffers");
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    Work w = work_of({params[i], grads[i]});
    bool fresh = false;  // (not `init`: that names a coefficient below)
    if (has_momentum) {
      Tensor& buf = momentum_buffers[i];
      if (!buf.defined()) {
        buf = empty_like(params[i]);
        fresh = true;
      } else {
        check_tensor(op, "momentum buffer", i, params[i], buf);
      }
      w.t[2] = buf;
    }
    using namespace sgd;
    w.c[lr] = o.lr(), w.c[wd] = o.weight_decay(), w.c[momentum] = o.momentum(), w.c[dampening] = o.dampening();
    w.c[nesterov] = o.nesterov(), w.c[dir] = direction(o.maximize()), w.c[init] = fresh;
    work.push_back(w);
  }
  launch(Algo::SGD, work);
}

void adam_step(const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs, const TensorVec& exp_avg_sqs,
               const TensorVec& max_exp_avg_sqs, const TensorVec& steps, const AdamOptions& o, bool decoupled) {
  const char* op = decoupled ? "adamw_step" : "adam_step";
  autograd::NoGradGuard no_grad;
  if (o.amsgrad())
    check(op, params, grads,
          {{"exp_avg", &exp_avgs}, {"exp_avg_sq", &exp_avg_sqs}, {"max_exp_avg_sq", &max_exp_avg_sqs}}, &steps);
  else
    check(op, params, grads, {{"exp_avg", &exp_avgs}, {"exp_avg_sq", &exp_avg_sqs}}, &steps);
  const auto [beta1, beta2] = o.betas();
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    Work w = work_of({params[i], grads[i], exp_avgs[i], exp_avg_sqs[i]});
    if (o.amsgrad()) w.t[4] = max_exp_avg_sqs[i];
    const double s = bump(steps[i]);
    using namespace adam;
    w.c[lr] = o.lr(), w.c[b1] = beta1, w.c[b2] = beta2, w.c[eps] = o.eps(), w.c[wd] = o.weight_decay();
    w.c[adam::decoupled] = decoupled, w.c[dir] = direction(o.maximize()), w.c[amsgrad] = o.amsgrad();
    w.c[step_size] = o.lr() / (1 - std::pow(beta1, s));
    w.c[bc2_sqrt] = std::sqrt(1 - std::pow(beta2, s));
    work.push_back(w);
  }
  launch(Algo::Adam, work);
}

void rmsprop_step(const TensorVec& params, const TensorVec& grads, const TensorVec& square_avgs,
                  const TensorVec& grad_avgs, const TensorVec& momentum_buffers, const TensorVec& steps,
                  const RMSpropOptions& o) {
  constexpr const char* op = "rmsprop_step";
  autograd::NoGradGuard no_grad;
  check(op, params, grads,
        {{"square_avg", &square_avgs},
         {"grad_avg", o.centered() ? &grad_avgs : &params},
         {"momentum_buffer", o.momentum() > 0 ? &momentum_buffers : &params}},
        &steps);
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    Work w = work_of({params[i], grads[i], square_avgs[i]});
    if (o.centered()) w.t[3] = grad_avgs[i];
    if (o.momentum() > 0) w.t[4] = momentum_buffers[i];
    bump(steps[i]);
    using namespace rmsprop;
    w.c[lr] = o.lr(), w.c[alpha] = o.alpha(), w.c[eps] = o.eps(), w.c[wd] = o.weight_decay();
    w.c[momentum] = o.momentum(), w.c[centered] = o.centered(), w.c[dir] = direction(o.maximize());
    work.push_back(w);
  }
  launch(Algo::RMSprop, work);
}

void adagrad_step(const TensorVec& params, const TensorVec& grads, const TensorVec& state_sums, const TensorVec& steps,
                  const AdagradOptions& o) {
  autograd::NoGradGuard no_grad;
  check("adagrad_step", params, grads, {{"sum", &state_sums}}, &steps);
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    Work w = work_of({params[i], grads[i], state_sums[i]});
    const double s = bump(steps[i]);
    using namespace adagrad;
    w.c[clr] = o.lr() / (1 + (s - 1) * o.lr_decay()), w.c[wd] = o.weight_decay(), w.c[eps] = o.eps();
    w.c[dir] = direction(o.maximize());
    work.push_back(w);
  }
  launch(Algo::Adagrad, work);
}

void adadelta_step(const TensorVec& params, const TensorVec& grads, const TensorVec& square_avgs,
                   const TensorVec& acc_deltas, const TensorVec& steps, const AdadeltaOptions& o) {
  autograd::NoGradGuard no_grad;
  check("adadelta_step", params, grads, {{"square_avg", &square_avgs}, {"acc_delta", &acc_deltas}}, &steps);
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    Work w = work_of({params[i], grads[i], square_avgs[i], acc_deltas[i]});
    bump(steps[i]);
    using namespace adadelta;
    w.c[lr] = o.lr(), w.c[rho] = o.rho(), w.c[eps] = o.eps(), w.c[wd] = o.weight_decay();
    w.c[dir] = direction(o.maximize());
    work.push_back(w);
  }
  launch(Algo::Adadelta, work);
}

void adamax_step(const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs, const TensorVec& exp_infs,
                 const TensorVec& steps, const AdamaxOptions& o) {
  autograd::NoGradGuard no_grad;
  check("adamax_step", params, grads, {{"exp_avg", &exp_avgs}, {"exp_inf", &exp_infs}}, &steps);
  const auto [beta1, beta2] = o.betas();
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    Work w = work_of({params[i], grads[i], exp_avgs[i], exp_infs[i]});
    const double s = bump(steps[i]);
    using namespace adamax;
    w.c[clr] = o.lr() / (1 - std::pow(beta1, s)), w.c[b1] = beta1, w.c[b2] = beta2, w.c[eps] = o.eps();
    w.c[wd] = o.weight_decay(), w.c[dir] = direction(o.maximize());
    work.push_back(w);
  }
  launch(Algo::Adamax, work);
}

void nadam_step(const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs,
                const TensorVec& exp_avg_sqs, const TensorVec& mu_products, const TensorVec& steps,
                const NAdamOptions& o) {
  constexpr const char* op = "nadam_step";
  autograd::NoGradGuard no_grad;
  check(op, params, grads, {{"exp_avg", &exp_avgs}, {"exp_avg_sq", &exp_avg_sqs}}, &steps);
  EMBER_CHECK(mu_products.size() == params.size(), op, ": got ", params.size(), " parameters but ", mu_products.size(),
              " mu_product tensors");
  const auto [beta1, beta2] = o.betas();
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& mp = mu_products[i];
    EMBER_CHECK(mp.defined() && mp.numel() == 1 && is_floating(mp.dtype()), op, ": the mu_product of parameter ", i,
                " must be a one-element floating-point tensor");
    Work w = work_of({params[i], grads[i], exp_avgs[i], exp_avg_sqs[i]});
    const double s = bump(steps[i]);
    const double mu = beta1 * (1 - 0.5 * std::pow(0.96, s * o.momentum_decay()));
    const double mu_next = beta1 * (1 - 0.5 * std::pow(0.96, (s + 1) * o.momentum_decay()));
    // mu_product is a float32 tensor in PyTorch (`mu_product *= mu` multiplies in float32): round the same way.
    const double old = item(mp).to<double>();
    const double prod = mp.dtype() == ScalarType::Float32 ? double(float(old) * float(mu)) : old * mu;
    fill_(mp, Scalar(prod));
    using namespace nadam;
    w.c[lr] = o.lr(), w.c[b1] = beta1, w.c[b2] = beta2, w.c[eps] = o.eps(), w.c[wd] = o.weight_decay();
    w.c[decoupled] = o.decoupled_weight_decay(), w.c[dir] = direction(o.maximize());
    w.c[bc2] = 1 - std::pow(beta2, s);
    w.c[coef_grad] = o.lr() * (1 - mu) / (1 - prod);
    w.c[coef_avg] = o.lr() * mu_next / (1 - prod * mu_next);
    work.push_back(w);
  }
  launch(Algo::NAdam, work);
}

void radam_step(const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs,
                const TensorVec& exp_avg_sqs, const TensorVec& steps, const RAdamOptions& o) {
  autograd::NoGradGuard no_grad;
  check("radam_step", params, grads, {{"exp_avg", &exp_avgs}, {"exp_avg_sq", &exp_avg_sqs}}, &steps);
  const auto [beta1, beta2] = o.betas();
  const double rho_inf = 2 / (1 - beta2) - 1;
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    Work w = work_of({params[i], grads[i], exp_avgs[i], exp_avg_sqs[i]});
    const double s = bump(steps[i]);
    const double bias2 = 1 - std::pow(beta2, s);
    const double rho_t = rho_inf - 2 * s * std::pow(beta2, s) / bias2;
    using namespace radam;
    w.c[lr] = o.lr(), w.c[b1] = beta1, w.c[b2] = beta2, w.c[eps] = o.eps(), w.c[wd] = o.weight_decay();
    w.c[decoupled] = o.decoupled_weight_decay(), w.c[dir] = direction(o.maximize());
    w.c[bc1] = 1 - std::pow(beta1, s), w.c[bc2_sqrt] = std::sqrt(bias2);
    w.c[rect] = rho_t > 5 ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                          : 0;
    work.push_back(w);
  }
  launch(Algo::RAdam, work);
}

void rprop_step(const TensorVec& params, const TensorVec& grads, const TensorVec& prevs, const TensorVec& step_sizes,
                const TensorVec& steps, const RpropOptions& o) {
  autograd::NoGradGuard no_grad;
  check("rprop_step", params, grads, {{"prev", &prevs}, {"step_size", &step_sizes}}, &steps);
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    Work w = work_of({params[i], grads[i], prevs[i], step_sizes[i]});
    bump(steps[i]);
    using namespace rprop;
    w.c[etaminus] = o.etas().first, w.c[etaplus] = o.etas().second;
    w.c[lo] = o.step_sizes().first, w.c[hi] = o.step_sizes().second, w.c[dir] = direction(o.maximize());
    work.push_back(w);
  }
  launch(Algo::Rprop, work);
}

void asgd_step(const TensorVec& params, const TensorVec& grads, const TensorVec& axs, const TensorVec& mus,
               const TensorVec& etas, const TensorVec& steps, const ASGDOptions& o) {
  constexpr const char* op = "asgd_step";
  autograd::NoGradGuard no_grad;
  check(op, params, grads, {{"ax", &axs}}, &steps);
  EMBER_CHECK(mus.size() == params.size() && etas.size() == params.size(), op, ": got ", params.size(),
              " parameters but ", mus.size(), " mu and ", etas.size(), " eta tensors");
  std::vector<Work> work;
  for (size_t i = 0; i < params.size(); ++i) {
    for (const Tensor* t : {&mus[i], &etas[i]})
      EMBER_CHECK(t->defined() && t->numel() == 1 && is_floating(t->dtype()) && !t->device().is_cuda(), op,
                  ": the eta and mu of parameter ", i, " must be one-element floating-point CPU tensors");
    Work w = work_of({params[i], grads[i], axs[i]});
    const double s = bump(steps[i]);
    // This step uses eta and mu as stored (float32 tensors in PyTorch, so rounded), then sets the next step's.
    const double eta_v = item(etas[i]).to<double>(), mu_v = item(mus[i]).to<double>();
    using namespace asgd;
    w.c[decay] = 1 - o.lambd() * eta_v, w.c[neg_eta] = -eta_v, w.c[wd] = o.weight_decay();
    w.c[dir] = direction(o.maximize()), w.c[mu] = mu_v, w.c[average] = mu_v != 1;
    fill_(etas[i], Scalar(o.lr() / std::pow(1 + o.lambd() * o.lr() * s, o.alpha())));
    fill_(mus[i], Scalar(1 / std::max(1.0, s - o.t0())));
    work.push_back(w);
  }
  launch(Algo::ASGD, work);
}

}  // namespace ember::optim
