// Streams and events (ember/cuda.h). Streams made by new_stream come from a per-device pool, as in PyTorch: a fixed
// number of non-blocking streams per priority, created on first use and handed out round robin, never destroyed, so
// a Stream handle stays valid however long Python keeps it.
#include <array>
#include <atomic>
#include <mutex>

#include "ember/backend/cuda/check.h"
#include "ember/cuda.h"

namespace ember::cuda {

namespace {
constexpr int kMaxDevices = 64;
constexpr int kPoolSize = 32;
thread_local void* t_current_stream[kMaxDevices] = {};

struct StreamPool {
  std::once_flag once;
  std::array<cudaStream_t, kPoolSize> low{}, high{};
  std::atomic<uint32_t> next_low{0}, next_high{0};
};
StreamPool g_pools[kMaxDevices];

int checked_device(int device, const char* what) {
  check_available(what);
  if (device < 0) device = current_device();
  EMBER_CHECK(device < device_count() && device < kMaxDevices, what, ": invalid device ordinal ", device, " (",
              device_count(), " devices)");
  return device;
}

cudaStream_t raw(Stream s) { return static_cast<cudaStream_t>(s.handle); }

// The answer of cudaEventQuery / cudaStreamQuery: done, or still pending; other errors raise.
bool ready(cudaError_t err) {
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return true;
}
}  // namespace

uintptr_t record_marker(Stream s) {
  DeviceGuard g(s.device);
  cudaEvent_t e;
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  EMBER_CUDA_CHECK(cudaEventRecord(e, raw(s)));
  return reinterpret_cast<uintptr_t>(e);
}

bool marker_done(uintptr_t event) { return ready(cudaEventQuery(reinterpret_cast<cudaEvent_t>(event))); }

void destroy_marker(uintptr_t event) { cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event)); }

Stream current_stream(int device) {
  device = checked_device(device, "current_stream");
  return Stream{device, t_current_stream[device]};
}

void set_current_stream(Stream s) { t_current_stream[checked_device(s.device, "set_stream")] = s.handle; }

Stream default_stream(int device) { return Stream{checked_device(device, "default_stream"), nullptr}; }

void priority_range(int* least, int* greatest) {
  check_available("Stream.priority_range");
  EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(least, greatest));
}

Stream new_stream(int device, int priority) {
  device = checked_device(device, "Stream");
  StreamPool& p = g_pools[device];
  std::call_once(p.once, [&] {
    DeviceGuard g(device);
    int least = 0, greatest = 0;
    EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (int i = 0; i < kPoolSize; ++i) {
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.low[i], cudaStreamNonBlocking, least));
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.high[i], cudaStreamNonBlocking, greatest));
    }
  });
  const bool high = priority < 0;
  const uint32_t i = (high ? p.next_high : p.next_low).fetch_add(1) % kPoolSize;
  return Stream{device, high ? p.high[i] : p.low[i]};
}

int stream_priority(Stream s) {
  checked_device(s.device, "Stream.priority");
  int prio = 0;
  EMBER_CUDA_CHECK(cudaStreamGetPriority(raw(s), &prio));
  return prio;
}

bool stream_query(Stream s) {
  checked_device(s.device, "Stream.query");
  DeviceGuard g(s.device);
  return ready(cudaStreamQuery(raw(s)));
}

void stream_synchronize(Stream s) {
  checked_device(s.device, "Stream.synchronize");
  DeviceGuard g(s.device);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(raw(s)));
  check_device_errors(s.device);
}

void stream_wait_stream(Stream s, Stream other) {
  if (s == other) return;
  Event e;
  e.record(other);
  e.wait(s);
}

Event::Event(bool enable_timing, bool blocking) : timing_(enable_timing), blocking_(blocking) {}

Event::~Event() {
  if (event_ && !is_initialized()) return;  // a forked child: the handle belongs to the parent's context
  if (event_) cudaEventDestroy(static_cast<cudaEvent_t>(event_));
}

void Event::record(Stream s) {
  checked_device(s.device, "Event.record");
  EMBER_CHECK(device_ < 0 || device_ == s.device, "Event.record: event was created on cuda:", device_,
              " but the stream is on cuda:", s.device);
  DeviceGuard g(s.device);
  if (!event_) {
    cudaEvent_t e;
    unsigned flags = (timing_ ? 0u : unsigned(cudaEventDisableTiming)) |
                     (blocking_ ? unsigned(cudaEventBlockingSync) : 0u);
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
    event_ = e;
    device_ = s.device;
  }
  EMBER_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event_), raw(s)));
}

void Event::wait(Stream s) {
  checked_device(s.device, "Event.wait");
  if (!event_) return;
  DeviceGuard g(s.device);
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(raw(s), static_cast<cudaEvent_t>(event_), 0));
}

bool Event::query() const {
  if (!event_) return true;
  check_available("Event.query");
  DeviceGuard g(device_);
  return ready(cudaEventQuery(static_cast<cudaEvent_t>(event_)));
}

void Event::synchronize() const {
  if (!event_) return;
  check_available("Event.synchronize");
  DeviceGuard g(device_);
  EMBER_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)));
  check_device_errors(device_);
}

float Event::elapsed_time(const Event& end) const {
  check_available("Event.elapsed_time");
  EMBER_CHECK(timing_ && end.timing_, "Event.elapsed_time: both events must be created with enable_timing=True");
  EMBER_CHECK(event_ && end.event_,
              "Event.elapsed_time: both events must be recorded before calculating elapsed "
              "time");
  DeviceGuard g(device_);
  float ms = 0;
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(event_), static_cast<cudaEvent_t>(end.event_)));
  return ms;
}

}  // namespace ember::cuda
