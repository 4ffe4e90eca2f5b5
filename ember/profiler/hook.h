// What the kernel slots (ember/backend/kernels.h) need from the profiler: one relaxed load to ask whether it
// is on, and an out-of-line scope to open when it is. Everything else is in ember/profiler/profiler.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <typeinfo>

#include "ember/device.h"

namespace ember {
class Tensor;
}

namespace ember::profiler {

// Bit 0: recording; the other bits: what, or that emit_nvtx is on (Note [Profiler]). Set by start/stop/set_nvtx.
extern std::atomic<uint32_t> g_state;

inline bool active() { return g_state.load(std::memory_order_relaxed) != 0; }

// One argument of a profiled kernel call: a tensor (for record_shapes), an enum (whose value names the op of
// a generic slot: unary's UnaryOp::Relu is recorded as "relu"), or anything else.
struct KernelArg {
  const Tensor* tensor = nullptr;
  const std::type_info* enum_type = nullptr;
  int enum_value = 0;
};

inline KernelArg kernel_arg(const Tensor& t) { return {&t, nullptr, 0}; }
template <class T>
KernelArg kernel_arg(const T& v) {
  if constexpr (std::is_enum_v<T>)
    return {nullptr, &typeid(T), static_cast<int>(v)};
  else
    return {};
}

// An open scope: which thread's buffer, where in it, and in which session (Note [Profiler]).
struct ScopeHandle {
  void* thread = nullptr;
  int64_t index = -1;
  int64_t id = 0;
  uint64_t generation = 0;
};

// A kernel slot's call while the profiler is on: start/end time, thread, shapes, and device timing events
// where the device has a timer. Out of line so that the slots' header stays light.
class KernelScope {
 public:
  KernelScope(const char* slot, Device device, std::initializer_list<KernelArg> args);
  ~KernelScope();
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;

 private:
  ScopeHandle h_;
  Device device_;
  bool timed_ = false;
  bool nvtx_ = false;
};

}  // namespace ember::profiler
