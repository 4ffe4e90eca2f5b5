// Note [Deterministic algorithms]
// PyTorch's torch.use_deterministic_algorithms(True) makes an op that has no deterministic implementation raise
// (or warn, with warn_only=True) instead of running, and makes cuDNN choose deterministic algorithms only. ember's
// CPU kernels are all deterministic (fixed split of the work, fixed summation order); on CUDA the nondeterministic
// ones are those that add floating-point values with atomics in an unspecified order: index_add_, scatter_add_,
// scatter_reduce_ (sum/prod/mean), index_put_(accumulate=True) and put_(accumulate=True) on floating tensors (and
// the gradients that use them: index_select's, gather's, embedding's, ...), and bincount with floating weights.
// Each calls alert_not_deterministic(op) before launching. Convolutions read the switch with
// backends.cudnn.deterministic (ember/backend/cuda/conv.cpp).
#include "ember/determinism.h"

#include <atomic>

#include "ember/error.h"

namespace ember {

namespace {
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_warn_only{false};
std::atomic<void (*)(const std::string&)> g_handler{nullptr};
}  // namespace

void set_deterministic_algorithms(bool enabled, bool warn_only) {
  g_enabled.store(enabled, std::memory_order_relaxed);
  g_warn_only.store(enabled && warn_only, std::memory_order_relaxed);
}

bool deterministic_algorithms() { return g_enabled.load(std::memory_order_relaxed); }
bool deterministic_algorithms_warn_only() { return g_warn_only.load(std::memory_order_relaxed); }

void set_determinism_warning_handler(void (*handler)(const std::string&)) { g_handler.store(handler); }

void alert_not_deterministic(std::string_view op) {
  if (!g_enabled.load(std::memory_order_relaxed)) [[likely]]
    return;
  const bool warn = g_warn_only.load(std::memory_order_relaxed);
  const std::string msg = std::string(op) +
                          " does not have a deterministic implementation, but you set "
                          "'torch.use_deterministic_algorithms(True" +
                          (warn ? ", warn_only=True" : "") +
                          ")'. You can turn off determinism just for this operation, or you can use the "
                          "'warn_only=True' option, if that's acceptable for your application.";
  if (!warn) fail<Error>(msg);
  if (auto* h = g_handler.load()) h(msg);
}

}  // namespace ember
