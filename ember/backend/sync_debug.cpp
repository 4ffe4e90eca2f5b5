// Note [Sync debug mode] (ember/cuda.h): the mode and the check at every host wait. Device-independent, so that it
// exists in every build; only the CUDA backend's waits call on_host_wait.
#include <atomic>
#include <string>

#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {

namespace {
std::atomic<int> g_mode{0};
std::atomic<void (*)(const std::string&)> g_handler{nullptr};
thread_local const char* t_op = nullptr;
}  // namespace

int sync_debug_mode() { return g_mode.load(std::memory_order_relaxed); }

void set_sync_debug_mode(int mode) {
  EMBER_CHECK(mode >= 0 && mode <= 2, "set_sync_debug_mode: invalid value of debug_mode, expected one of 0,1,2 (got ",
              mode, ")");
  g_mode.store(mode, std::memory_order_relaxed);
}

void set_sync_warning_handler(void (*handler)(const std::string&)) { g_handler.store(handler); }

void on_host_wait(const char* fallback) {
  const int mode = g_mode.load(std::memory_order_relaxed);
  if (mode == 0) [[likely]]
    return;
  const std::string msg = std::string("called a synchronizing CUDA operation: ") + (t_op ? t_op : fallback);
  if (mode == 2) fail<Error>(msg);
  if (auto* h = g_handler.load()) h(msg);
}

// The outermost name wins: the op the user called (nonzero), not the step that waits (its item()).
SyncOpName::SyncOpName(const char* op) : prev_(t_op) {
  if (!t_op) t_op = op;
}
SyncOpName::~SyncOpName() { t_op = prev_; }

}  // namespace ember::cuda
