// Bindings of the learning-rate schedulers' closed forms (ember/optim/scheduler.h, namespace lr_factor), in
// ember._C._optim: the Python schedulers' _get_closed_form_lr multiply each group's initial lr by these factors, so
// the formulas exist once. Registered from optim.cpp.
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/optim/scheduler.h"

namespace ember::py {

void init_optim_lr(nb::module_& o) {
  namespace f = optim::lr_factor;
  using nb::arg;
  o.def("_lr_factor_step", &f::step, arg("epoch"), arg("step_size"), arg("gamma"));
  o.def("_lr_factor_multi_step", &f::multi_step, arg("epoch"), arg("milestones"), arg("gamma"));
  o.def("_lr_factor_constant", &f::constant, arg("epoch"), arg("factor"), arg("total_iters"));
  o.def("_lr_factor_linear", &f::linear, arg("epoch"), arg("start_factor"), arg("end_factor"), arg("total_iters"));
  o.def("_lr_factor_exponential", &f::exponential, arg("epoch"), arg("gamma"));
  o.def("_lr_factor_polynomial", &f::polynomial, arg("epoch"), arg("total_iters"), arg("power"));
  o.def("_lr_factor_cosine", &f::cosine, arg("epoch"), arg("T_max"));
}

}  // namespace ember::py
