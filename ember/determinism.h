// torch.use_deterministic_algorithms: one process-wide switch (plus warn_only) that ops read where their only
// implementation on a device is nondeterministic (Note [Deterministic algorithms]).
#pragma once

#include <string>
#include <string_view>

namespace ember {

void set_deterministic_algorithms(bool enabled, bool warn_only = false);
bool deterministic_algorithms();            // torch.are_deterministic_algorithms_enabled()
bool deterministic_algorithms_warn_only();  // torch.is_deterministic_algorithms_warn_only_enabled()

// Called by an op before it runs an implementation whose result may differ run to run (floating-point atomics on
// CUDA). Nothing when the switch is off; a RuntimeError naming `op` when it is on; with warn_only, the message goes
// to the warning handler (the Python module's: a UserWarning) and the op runs.
void alert_not_deterministic(std::string_view op);
void set_determinism_warning_handler(void (*handler)(const std::string& message));

}  // namespace ember
