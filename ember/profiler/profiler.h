// The event recorder behind ember.profiler (Note [Profiler]): off by default; while on, every kernel-slot
// call, autograd node, user scope and (with memory on) allocation is recorded per thread, and stop() hands
// the events back in one list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/profiler/hook.h"

namespace ember::profiler {

enum class EventKind : uint8_t { Kernel, User, Autograd, Memory };

struct Event {
  std::string name;
  EventKind kind = EventKind::User;
  int64_t id = 0;
  int64_t parent = -1;   // the id of the innermost scope open on the same thread when this one began
  int64_t start_ns = 0;  // steady clock
  int64_t end_ns = 0;    // == start_ns for memory events
  uint64_t thread = 0;   // 1, 2, ... in the order threads first recorded
  Device device;         // kernels: their operands' device; memory events: the allocator's
  std::vector<std::vector<int64_t>> shapes;          // record_shapes: one per argument ([] for non-tensors)
  std::vector<std::string> dtypes;                   // "" for non-tensors
  int64_t bytes = 0;                                 // memory events: allocated (> 0) or freed (< 0)
  uint64_t address = 0;                              // memory events
  int64_t device_start_ns = -1, device_end_ns = -1;  // activity "device": the kernel's time on the device
};

struct Config {
  bool record_shapes = false;
  bool profile_memory = false;
  bool device_timing = false;  // ProfilerActivity.CUDA: time kernels on devices that have a DeviceTimer
};

// Starts recording (RuntimeError if already on), drops what an earlier session left.
void start(const Config& config);
// Stops recording and returns every closed event of this session, ordered by start time.
std::vector<Event> stop();
// Drops what was recorded so far and keeps recording (the schedule's warmup -> record transition).
void clear();
bool enabled();

// A named scope on the calling thread (record_function, autograd nodes); no-op while the profiler is off.
class RecordScope {
 public:
  explicit RecordScope(std::string name, EventKind kind = EventKind::User);
  ~RecordScope() { end(); }
  void end();                           // closes it early (idempotent)
  int64_t id() const { return h_.id; }  // its event's id (0 when nothing is recorded)
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;

 private:
  ScopeHandle h_;
  bool nvtx_ = false;
};

// The Python side's record_function: opens a scope and returns a handle for pop_scope (any thread may pop it).
int64_t push_scope(const std::string& name);
void pop_scope(int64_t handle);

// Allocators call this after each allocation (bytes > 0) and free (bytes < 0); attributed to the calling
// thread's innermost open scope.
void record_memory_slow(const void* ptr, int64_t bytes, Device device);
inline bool memory_active() { return g_state.load(std::memory_order_relaxed) & 4u; }
inline void record_memory(const void* ptr, int64_t bytes, Device device) {
  if (memory_active()) [[unlikely]]
    record_memory_slow(ptr, bytes, device);
}

// Device timing (activity "device"): a backend registers one for its device type. record() puts a timing event
// on the device's current stream and returns a handle; elapsed_ns() turns it into steady-clock nanoseconds
// once the device got there (waiting for it); release() ends the session's events.
struct DeviceTimer {
  virtual ~DeviceTimer() = default;
  virtual int64_t record(Device device) = 0;
  virtual int64_t to_host_ns(int64_t handle) = 0;
  virtual void release() = 0;
};
void register_device_timer(DeviceType type, DeviceTimer* timer);  // nullptr unregisters

// emit_nvtx: kernel-slot calls and scopes also become NVTX ranges, through the marker the CUDA backend registers
// (a build without CUDA has none: set_nvtx then changes nothing, and nvtx_available() is false).
struct RangeMarker {
  void (*push)(const char* name) = nullptr;
  void (*pop)() = nullptr;
};
void register_range_marker(RangeMarker marker);
bool nvtx_available();
void set_nvtx(bool on);

// The name a kernel-slot call is recorded under: "ember::" + the op its enum argument names (unary's
// UnaryOp::Relu: "ember::relu") or the slot's name.
std::string kernel_event_name(const char* slot, std::initializer_list<KernelArg> args);

}  // namespace ember::profiler
