// The optimizers' update math: one call updates every parameter of a group (Note [Fused optimizer steps]).
// Both ember.optim (Python) and ember::optim's C++ classes call these; they follow PyTorch's single-tensor
// algorithms (torch/optim/*.py) formula for formula, so trajectories agree with PyTorch's to rounding.
//
// Each list holds one entry per parameter. State tensors have the parameter's shape, dtype and device; `steps`
// are 0-d float32 tensors (PyTorch's state['step']) that the call increments. The hyper-parameters are the
// option structs of the C++ frontend (ember/optim/options.h), so one definition serves both APIs.
#pragma once

#include <vector>

#include "ember/optim/options.h"
#include "ember/tensor.h"

namespace ember::optim {

using TensorVec = std::vector<Tensor>;

// momentum_buffers[i] may be undefined (the parameter's first step with momentum): it is created as a copy of the
// update direction, as PyTorch does. Without momentum the list may be empty.
void sgd_step(const TensorVec& params, const TensorVec& grads, TensorVec& momentum_buffers, const SGDOptions& o);
// max_exp_avg_sqs is used (and must be full) only with amsgrad. `decoupled`: AdamW's weight decay.
void adam_step(const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs, const TensorVec& exp_avg_sqs,
               const TensorVec& max_exp_avg_sqs, const TensorVec& steps, const AdamOptions& o, bool decoupled);
// grad_avgs only when centered, momentum_buffers only when momentum > 0.
void rmsprop_step(const TensorVec& params, const TensorVec& grads, const TensorVec& square_avgs,
                  const TensorVec& grad_avgs, const TensorVec& momentum_buffers, const TensorVec& steps,
                  const RMSpropOptions& o);
void adagrad_step(const TensorVec& params, const TensorVec& grads, const TensorVec& state_sums, const TensorVec& steps,
                  const AdagradOptions& o);
void adadelta_step(const TensorVec& params, const TensorVec& grads, const TensorVec& square_avgs,
                   const TensorVec& acc_deltas, const TensorVec& steps, const AdadeltaOptions& o);
void adamax_step(const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs, const TensorVec& exp_infs,
                 const TensorVec& steps, const AdamaxOptions& o);
// mu_products: 0-d float32 tensors (PyTorch's state['mu_product']), updated in place.
void nadam_step(const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs,
                const TensorVec& exp_avg_sqs, const TensorVec& mu_products, const TensorVec& steps,
                const NAdamOptions& o);
void radam_step(const TensorVec& params, const TensorVec& grads, const TensorVec& exp_avgs,
                const TensorVec& exp_avg_sqs, const TensorVec& steps, const RAdamOptions& o);

// prevs and step_sizes: Rprop's state['prev'] and state['step_size'], like the parameter.
void rprop_step(const TensorVec& params, const TensorVec& grads, const TensorVec& prevs, const TensorVec& step_sizes,
                const TensorVec& steps, const RpropOptions& o);
// axs: the averages, like the parameter; etas and mus: 0-d floating CPU tensors (PyTorch's state['eta'] and
// state['mu']), read for this step and then set for the next one.
void asgd_step(const TensorVec& params, const TensorVec& grads, const TensorVec& axs, const TensorVec& mus,
               const TensorVec& etas, const TensorVec& steps, const ASGDOptions& o);

}  // namespace ember::optim
