// Gradient scaling ops (amp.h): compositions of elementwise ops and one reduction per gradient, no host sync.
#include "ember/amp.h"

#include "ember/autograd/grad_mode.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::amp {

namespace {
void check_state_tensor(const Tensor& t, ScalarType dtype, const Device& device, const char* op, const char* what) {
  EMBER_CHECK(t.defined() && t.numel() == 1, op, ": ", what, " must be a 1-element tensor");
  EMBER_CHECK(t.dtype() == dtype, op, ": ", what, " must be a ", dtype, " tensor, got ", t.dtype());
  EMBER_CHECK(t.device() == device, op, ": ", what, " must be on ", device, ", got ", t.device());
}
}  // namespace

void foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                           const Tensor& inv_scale) {
  const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  EMBER_CHECK(found_inf.defined(), op, ": found_inf must be defined");
  const Device device = found_inf.device();
  check_state_tensor(found_inf, ScalarType::Float32, device, op, "found_inf");
  check_state_tensor(inv_scale, ScalarType::Float32, device, op, "inv_scale");
  autograd::NoGradGuard no_grad;
  const Tensor inv = reshape(inv_scale, {});
  Tensor bad;  // bool: some gradient so far had an inf or NaN
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    if (!g.defined()) continue;
    EMBER_CHECK(g.device() == device, op, ": scaled_grads[", i, "] is on ", g.device(), ", expected ", device);
    EMBER_CHECK(is_floating(g.dtype()), op, ": scaled_grads[", i, "] must be a floating tensor, got ", g.dtype());
    if (g.numel() == 0) continue;
    Tensor b = logical_not(all(isfinite(g)));
    bad = bad.defined() ? logical_or(bad, b) : b;
    binary_op(BinaryOp::Mul, g, inv, g);
  }
  if (bad.defined()) found_inf.copy_(maximum(found_inf, to(reshape(bad, found_inf.sizes()), ScalarType::Float32)));
}

const Tensor& update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                            double growth_factor, double backoff_factor, int64_t growth_interval) {
  const char* op = "_amp_update_scale_";
  EMBER_CHECK(scale.defined(), op, ": scale must be defined");
  const Device device = scale.device();
  check_state_tensor(scale, ScalarType::Float32, device, op, "current_scale");
  check_state_tensor(growth_tracker, ScalarType::Int32, device, op, "growth_tracker");
  check_state_tensor(found_inf, ScalarType::Float32, device, op, "found_inf");
  EMBER_CHECK(growth_interval > 0, op, ": growth_interval must be positive, got ", growth_interval);
  autograd::NoGradGuard no_grad;
  const Tensor found = ne(found_inf, 0);
  const Tensor successful = add(growth_tracker, 1);
  const Tensor grow = logical_and(eq(successful, growth_interval), logical_not(found));
  const Tensor grown = mul(scale, growth_factor);
  const Tensor new_scale = where(found, mul(scale, backoff_factor),
                                 where(logical_and(grow, isfinite(grown)), grown, scale));
  const Tensor new_tracker = where(logical_or(found, grow), zeros_like(growth_tracker), successful);
  scale.copy_(new_scale);
  growth_tracker.copy_(new_tracker);
  return scale;
}

}  // namespace ember::amp
