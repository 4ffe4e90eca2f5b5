// Bindings of the fused optimizer steps (ember/optim/fused.h), in ember._C._optim. ember.optim's classes gather a
// group's tensors and hyper-parameters and make one call per group; the GIL is released while it runs.
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/optim/fused.h"

namespace ember::py {

void init_optim_lr(nb::module_& o);  // optim_lr.cpp: the schedulers' closed forms

namespace {

using optim::TensorVec;

// A list of tensors where None stands for "not created yet" (an undefined tensor).
TensorVec tensors_or_none(const nb::list& l) {
  TensorVec r;
  r.reserve(l.size());
  for (nb::handle h : l) r.push_back(h.is_none() ? Tensor() : nb::cast<Tensor>(h));
  return r;
}

optim::Betas betas(nb::handle h) { return {nb::cast<double>(h[0]), nb::cast<double>(h[1])}; }

}  // namespace

void init_optim(nb::module_& m) {
  nb::module_ o = m.def_submodule("_optim", "the fused optimizer steps behind ember.optim");
  init_optim_lr(o);
  o.def(
      "sgd_step",
      [](const TensorVec& params, const TensorVec& grads, const nb::list& bufs, double lr, double momentum,
         double dampening, double weight_decay, bool nesterov, bool maximize) {
        TensorVec b = tensors_or_none(bufs);
        {
          nb::gil_scoped_release nogil;
          optim::sgd_step(params, grads, b,
                          optim::SGDOptions(lr)
                              .momentum(momentum)
                              .dampening(dampening)
                              .weight_decay(weight_decay)
                              .nesterov(nesterov)
                              .maximize(maximize));
        }
        return b;
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("bufs"), nb::arg("lr"), nb::arg("momentum"), nb::arg("dampening"),
      nb::arg("weight_decay"), nb::arg("nesterov"), nb::arg("maximize"));
  o.def(
      "adam_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs, const TensorVec& exp_avg_sqs,
         const TensorVec& max_exp_avg_sqs, const TensorVec& steps, double lr, nb::handle bs, double eps,
         double weight_decay, bool amsgrad, bool maximize, bool decoupled) {
        const auto opts = optim::AdamOptions(lr)
                              .betas(betas(bs))
                              .eps(eps)
                              .weight_decay(weight_decay)
                              .amsgrad(amsgrad)
                              .maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::adam_step(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, opts, decoupled);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"), nb::arg("max_exp_avg_sqs"),
      nb::arg("steps"), nb::arg("lr"), nb::arg("betas"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("amsgrad"),
      nb::arg("maximize"), nb::arg("decoupled"));
  o.def(
      "rmsprop_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& square_avgs, const TensorVec& grad_avgs,
         const TensorVec& momentum_buffers, const TensorVec& steps, double lr, double alpha, double eps,
         double weight_decay, double momentum, bool centered, bool maximize) {
        const auto opts = optim::RMSpropOptions(lr)
                              .alpha(alpha)
                              .eps(eps)
                              .weight_decay(weight_decay)
                              .momentum(momentum)
                              .centered(centered)
                              .maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::rmsprop_step(params, grads, square_avgs, grad_avgs, momentum_buffers, steps, opts);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("square_avgs"), nb::arg("grad_avgs"), nb::arg("momentum_buffers"),
      nb::arg("steps"), nb::arg("lr"), nb::arg("alpha"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("momentum"),
      nb::arg("centered"), nb::arg("maximize"));
  o.def(
      "adagrad_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& sums, const TensorVec& steps, double lr,
         double lr_decay, double weight_decay, double eps, bool maximize) {
        const auto opts =
            optim::AdagradOptions(lr).lr_decay(lr_decay).weight_decay(weight_decay).eps(eps).maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::adagrad_step(params, grads, sums, steps, opts);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("sums"), nb::arg("steps"), nb::arg("lr"), nb::arg("lr_decay"),
      nb::arg("weight_decay"), nb::arg("eps"), nb::arg("maximize"));
  o.def(
      "adadelta_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& square_avgs, const TensorVec& acc_deltas,
         const TensorVec& steps, double lr, double rho, double eps, double weight_decay, bool maximize) {
        const auto opts = optim::AdadeltaOptions(lr).rho(rho).eps(eps).weight_decay(weight_decay).maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::adadelta_step(params, grads, square_avgs, acc_deltas, steps, opts);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("square_avgs"), nb::arg("acc_deltas"), nb::arg("steps"),
      nb::arg("lr"), nb::arg("rho"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("maximize"));
  o.def(
      "adamax_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs, const TensorVec& exp_infs,
         const TensorVec& steps, double lr, nb::handle bs, double eps, double weight_decay, bool maximize) {
        const auto opts =
            optim::AdamaxOptions(lr).betas(betas(bs)).eps(eps).weight_decay(weight_decay).maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::adamax_step(params, grads, exp_avgs, exp_infs, steps, opts);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_infs"), nb::arg("steps"), nb::arg("lr"),
      nb::arg("betas"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("maximize"));
  o.def(
      "nadam_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs, const TensorVec& exp_avg_sqs,
         const TensorVec& mu_products, const TensorVec& steps, double lr, nb::handle bs, double eps,
         double weight_decay, double momentum_decay, bool decoupled, bool maximize) {
        const auto opts = optim::NAdamOptions(lr)
                              .betas(betas(bs))
                              .eps(eps)
                              .weight_decay(weight_decay)
                              .momentum_decay(momentum_decay)
                              .decoupled_weight_decay(decoupled)
                              .maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::nadam_step(params, grads, exp_avgs, exp_avg_sqs, mu_products, steps, opts);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"), nb::arg("mu_products"),
      nb::arg("steps"), nb::arg("lr"), nb::arg("betas"), nb::arg("eps"), nb::arg("weight_decay"),
      nb::arg("momentum_decay"), nb::arg("decoupled"), nb::arg("maximize"));
  o.def(
      "radam_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs, const TensorVec& exp_avg_sqs,
         const TensorVec& steps, double lr, nb::handle bs, double eps, double weight_decay, bool decoupled,
         bool maximize) {
        const auto opts = optim::RAdamOptions(lr)
                              .betas(betas(bs))
                              .eps(eps)
                              .weight_decay(weight_decay)
                              .decoupled_weight_decay(decoupled)
                              .maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::radam_step(params, grads, exp_avgs, exp_avg_sqs, steps, opts);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"), nb::arg("steps"), nb::arg("lr"),
      nb::arg("betas"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("decoupled"), nb::arg("maximize"));
  o.def(
      "rprop_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& prevs, const TensorVec& step_sizes,
         const TensorVec& steps, double lr, nb::handle etas, nb::handle step_sizes_range, bool maximize) {
        const auto opts =
            optim::RpropOptions(lr).etas(betas(etas)).step_sizes(betas(step_sizes_range)).maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::rprop_step(params, grads, prevs, step_sizes, steps, opts);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("prevs"), nb::arg("step_sizes"), nb::arg("steps"), nb::arg("lr"),
      nb::arg("etas"), nb::arg("step_sizes_range"), nb::arg("maximize"));
  o.def(
      "asgd_step",
      [](const TensorVec& params, const TensorVec& grads, const TensorVec& axs, const TensorVec& mus,
         const TensorVec& etas, const TensorVec& steps, double lr, double lambd, double alpha, double t0,
         double weight_decay, bool maximize) {
        const auto opts =
            optim::ASGDOptions(lr).lambd(lambd).alpha(alpha).t0(t0).weight_decay(weight_decay).maximize(maximize);
        nb::gil_scoped_release nogil;
        optim::asgd_step(params, grads, axs, mus, etas, steps, opts);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("axs"), nb::arg("mus"), nb::arg("etas"), nb::arg("steps"),
      nb::arg("lr"), nb::arg("lambd"), nb::arg("alpha"), nb::arg("t0"), nb::arg("weight_decay"), nb::arg("maximize"));
}

}  // namespace ember::py
