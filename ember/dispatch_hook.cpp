// The state behind EMBER_PY_DISPATCH (Note [Python dispatch] in dispatch_hook.h).
#include "ember/dispatch_hook.h"

#include "ember/error.h"
#include "ember/parallel.h"

namespace ember::dispatch {

constinit std::atomic<int> g_enabled{0};
constinit Hook g_hook = nullptr;

std::optional<std::vector<Tensor>> call(const char* op, std::vector<Value> args) {
  // Ops that a kernel calls inside a parallel region (views of its operands) are the kernel's own, not calls a
  // handler should see; and a worker thread must not wait for the GIL that the thread running the region holds.
  if (!g_hook || in_parallel_region()) return std::nullopt;
  return g_hook(op, args);
}

}  // namespace ember::dispatch
