// The numeric parts of gradient scaling (torch.amp.GradScaler, python/ember/amp/grad_scaler.py): PyTorch's
// _amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_. Both only enqueue device work and write
// their results into device tensors, so a training step never waits for the device here.
#pragma once

#include <vector>

#include "ember/tensor.h"

namespace ember::amp {

// Multiplies every defined gradient by inv_scale (a 1-element float32 tensor) in place, and sets found_inf (a
// 1-element float32 tensor) to 1 when any gradient holds an inf or NaN (it is never reset to 0 here). All tensors
// are on found_inf's device; gradients are floating.
void foreach_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                           const Tensor& inv_scale);

// One step of the scale's schedule, in place: after an overflow (found_inf != 0) scale *= backoff_factor and the
// growth tracker restarts; otherwise the tracker counts successful steps and after growth_interval of them
// scale *= growth_factor (kept only if finite) and the tracker restarts. scale: 1-element float32;
// growth_tracker: 1-element int32. Returns scale.
const Tensor& update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                            double growth_factor, double backoff_factor, int64_t growth_interval);

}  // namespace ember::amp
