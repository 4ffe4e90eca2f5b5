#include "ember/autograd/grad_mode.h"

#include <atomic>

namespace ember::autograd {

namespace {
thread_local bool grad_enabled = true;
thread_local bool inference_mode = false;
std::atomic<bool> anomaly_enabled{false};
std::atomic<bool> anomaly_check_nan{true};
}  // namespace

bool is_grad_enabled() { return grad_enabled; }
void set_grad_enabled(bool enabled) { grad_enabled = enabled; }
bool is_inference_mode() { return inference_mode; }
void set_inference_mode(bool enabled) { inference_mode = enabled; }
bool is_anomaly_enabled() { return anomaly_enabled.load(std::memory_order_relaxed); }
bool is_anomaly_check_nan() { return anomaly_check_nan.load(std::memory_order_relaxed); }
void set_anomaly_enabled(bool enabled, bool check_nan) {
  anomaly_enabled = enabled;
  anomaly_check_nan = check_nan;
}

}  // namespace ember::autograd
