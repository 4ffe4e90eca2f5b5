// Thread-local autograd switches: grad mode (no_grad / enable_grad), inference mode and anomaly mode.
#pragma once

namespace ember::autograd {

// Whether ops record the graph on this thread (on by default; every new thread starts with it on).
bool is_grad_enabled();
void set_grad_enabled(bool enabled);
// inference_mode: grad mode off, and the flag Python's is_inference_mode_enabled() reports.
bool is_inference_mode();
void set_inference_mode(bool enabled);
// Anomaly mode (process-wide, as in PyTorch): nodes remember where they were created, and the engine
// checks every gradient for NaN and names the forward op when backward fails.
bool is_anomaly_enabled();
bool is_anomaly_check_nan();
void set_anomaly_enabled(bool enabled, bool check_nan = true);

// RAII: sets grad mode for a scope and restores the previous value.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

struct NoGradGuard : GradModeGuard {
  NoGradGuard() : GradModeGuard(false) {}
};

}  // namespace ember::autograd
