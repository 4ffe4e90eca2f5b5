// The state behind EMBER_PY_DISPATCH (Note [Python dispatch] in dispatch_hook.h).
#include "ember/dispatch_hook.h"

#include "ember/error.h"

namespace ember::dispatch {

constinit std::atomic<int> g_enabled{0};
constinit Hook g_hook = nullptr;

std::optional<std::vector<Tensor>> call(const char* op, std::vector<Value> args) {
  if (!g_hook) return std::nullopt;
  return g_hook(op, args);
}

}  // namespace ember::dispatch
