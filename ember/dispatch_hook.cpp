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

thread_local bool t_wrapper_recording = false;

bool has_wrapper_data(const Tensor* t) {
  return t && t->defined() && t->is_meta() && t->impl()->storage()->data() != nullptr;
}

void refuse_wrapper(const char* kernel) {
  fail<NotImplementedError>(
      "[", kernel, "] a tensor subclass made with _make_wrapper_subclass reached an ember op (its kernel: '", kernel,
      "') that does not offer its call to __torch_dispatch__; the wrapper has no data of "
      "its own to compute on. docs/extending.md lists the covered ops; unwrap the tensor first");
}

}  // namespace ember::dispatch
