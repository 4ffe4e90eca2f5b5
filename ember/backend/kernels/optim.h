// The fused optimizer kernels, between ember/optim/fused.cpp (validation, per-parameter coefficients) and the device
// kernels (the per-element update formulas; Note [Fused optimizer steps] in backend/cpu/optim.cpp).
#pragma once

#include <vector>

#include "ember/backend/kernels.h"
#include "ember/tensor.h"

namespace ember::optim {

enum class Algo { SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD };

constexpr int kSlots = 5;  // parameter, gradient, up to three state tensors
constexpr int kCoefs = 12;

// One parameter's work: its tensors (contiguous, one floating dtype, same numel; slots an algorithm does not use
// are undefined) and the coefficients of its update (ember/optim/fused.cpp says which index holds what).
struct Work {
  Tensor t[kSlots];
  double c[kCoefs] = {};
};

// Where each algorithm keeps its coefficients in Work::c, and its tensors in Work::t. `dir` (direction) is -1 with
// maximize; flags are 0 or 1.
namespace sgd {
enum { lr, wd, momentum, dampening, nesterov, dir, init };  // t: param, grad, momentum buffer
}
namespace adam {
enum { lr, b1, b2, eps, wd, decoupled, dir, step_size, bc2_sqrt, amsgrad };  // t: param, grad, m, v, max v
}
namespace rmsprop {
enum { lr, alpha, eps, wd, momentum, centered, dir };  // t: param, grad, square avg, grad avg, momentum buffer
}
namespace adagrad {
enum { clr, wd, eps, dir };  // t: param, grad, sum
}
namespace adadelta {
enum { lr, rho, eps, wd, dir };  // t: param, grad, square avg, acc delta
}
namespace adamax {
enum { clr, b1, b2, eps, wd, dir };  // t: param, grad, m, exp inf
}
namespace nadam {
enum { lr, b1, b2, eps, wd, decoupled, dir, bc2, coef_grad, coef_avg };  // t: param, grad, m, v
}
namespace radam {
enum { lr, b1, b2, eps, wd, decoupled, dir, bc1, bc2_sqrt, rect };  // t: param, grad, m, v; rect 0: no rectification
}

namespace rprop {
enum { etaminus, etaplus, lo, hi, dir };  // t: param, grad, prev (the last step's gradient), step size
}
namespace asgd {
enum { decay, neg_eta, wd, dir, mu, average };  // t: param, grad, ax; average 0: ax is a copy of the parameter
}

}  // namespace ember::optim

namespace ember {
// The device kernel of a step (CUDA: ember/backend/cuda/optim.cu, one multi-tensor launch per group): the items'
// tensors are contiguous float32/float64 on one device. The CPU's is cpu::optim_step, called directly.
EMBER_DECLARE_KERNEL(optim_step, optim::Algo algo, const std::vector<optim::Work>& work)
}  // namespace ember

namespace ember::cpu {
// Applies `algo` to every element of every work item: one pass over memory, split across threads over the items'
// concatenated elements (Note [Fused optimizer steps]).
void optim_step(optim::Algo algo, const std::vector<optim::Work>& work);
}  // namespace ember::cpu
