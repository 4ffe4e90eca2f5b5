// The CUDA runtime as the core sees it. backend/cuda implements it; backend/no_cuda implements it for
// builds without CUDA (no devices; anything that needs one raises "ember was built without CUDA").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/allocator.h"
#include "ember/dtype.h"

namespace ember {
class Tensor;

// The non_blocking forms of ember::to and copy_ (ops.h; implemented in ember/ops/copy.cpp). A copy between the host
// and a device with non_blocking=true returns without waiting when the host side is pinned memory (the block records
// the stream); pageable memory is copied synchronously. A CUDA tensor moved to the CPU non_blocking lands in pinned
// memory, as in PyTorch: its values are there once the stream has been synchronized.
Tensor to(const Tensor& t, Device device, std::optional<ScalarType> dtype, bool copy, bool non_blocking);
const Tensor& copy_(const Tensor& dst, const Tensor& src, bool non_blocking);
}  // namespace ember

namespace ember::cuda {

// Note [Lazy CUDA initialisation]: no CUDA context exists until a function that needs a device runs; device_count()
// (and is_available()) only count devices. The first such function initialises CUDA for the process (init()). The
// driver's state does not survive fork: in a child forked after the parent started the driver (by initialising CUDA,
// or by counting devices where there are some), every such function raises "Cannot re-initialize CUDA in forked
// subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method" (pthread_atfork marks the
// child). Forked children that never use CUDA (DataLoader workers) are unaffected.
bool is_built();        // compiled with CUDA
int device_count();     // 0 when not built, no driver or no device; never throws
bool is_available();    // device_count() > 0
bool is_initialized();  // init() has run in this process (false in a forked child)
void init();            // initialises CUDA now; raises where no device is usable
int current_device();
void set_device(int index);
void synchronize(int index = -1);
std::string device_name(int index);
struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;
  size_t total_memory = 0;
  int multi_processor_count = 0;
};
DeviceProperties device_properties(int index);
void mem_get_info(int index, size_t* free_bytes, size_t* total_bytes);  // cudaMemGetInfo
int cudnn_version();  // cuDNN's version when its library can be loaded, else 0 (needs no device)
Allocator* allocator(int index);

// A stream is a device plus an opaque queue handle (cudaStream_t; null is the default, legacy stream). Work
// is enqueued on the calling thread's current stream of the device. Streams made by new_stream come from a
// per-device pool (as PyTorch's) and live as long as the process.
struct Stream {
  int device = 0;
  void* handle = nullptr;
  bool operator==(const Stream& o) const { return device == o.device && handle == o.handle; }
};
Stream current_stream(int device = -1);
void set_current_stream(Stream s);  // for the calling thread
Stream default_stream(int device = -1);
Stream new_stream(int device = -1, int priority = 0);  // priority < 0: the high-priority pool
int stream_priority(Stream s);
void priority_range(int* least, int* greatest);
bool stream_query(Stream s);                      // all work queued on s has completed
void stream_synchronize(Stream s);                // host waits for s (and raises deferred device errors)
void stream_wait_stream(Stream s, Stream other);  // work queued on s from now waits for other's work so far

// A CUDA event, created on its first record (on the recording stream's device).
class Event {
 public:
  explicit Event(bool enable_timing = false, bool blocking = false);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(Stream s);
  void wait(Stream s);                         // s waits for the recorded work (no-op if never recorded)
  bool query() const;                          // recorded work completed (true if never recorded)
  void synchronize() const;                    // host waits for it
  float elapsed_time(const Event& end) const;  // milliseconds from this event to end; both recorded, timing on
  void* handle() const { return event_; }
  int device() const { return device_; }
  bool enable_timing() const { return timing_; }
  bool blocking() const { return blocking_; }

 private:
  void* event_ = nullptr;
  int device_ = -1;
  bool timing_, blocking_;
};

// The allocators' events (DeviceMemory's record_event/event_done/destroy_event): untimed, recorded on s under its
// device, polled without waiting.
uintptr_t record_marker(Stream s);
bool marker_done(uintptr_t event);
void destroy_marker(uintptr_t event);

// The device caching allocator's stream bookkeeping: ptr (a block start) is also used by work on s.
void record_stream(void* ptr, Stream s);

// Copies between host and device memory (or within a device), ordered on the current stream. Device to device
// copies never block the host; copies touching host memory block it until done unless non_blocking, which the
// caller may ask only for pinned host memory (and then records the stream on the pinned block, see below).
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };
void memcpy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device, bool non_blocking = false);

// Pinned (page-locked) host memory from the host caching allocator (ember/backend/host_caching_allocator.h):
// cudaHostAlloc'd blocks, reused only after the streams that used them (record_pinned_use) have passed events
// recorded when they were freed.
void* pinned_allocate(size_t nbytes);
void pinned_free(void* ptr);
bool is_pinned(const void* ptr);  // ptr lies in a live pinned block (false, and no initialisation, before any)
void record_pinned_use(const void* ptr, Stream s);
Allocator* pinned_allocator();       // for its statistics and empty_cache
Tensor pin_memory(const Tensor& t);  // t itself when already pinned; else a pinned copy (ember/ops/copy.cpp)
bool is_pinned(const Tensor& t);

// Note [Sync debug mode]: torch.cuda.set_sync_debug_mode. Every place where ember makes the host wait for the GPU on
// its own account (copies to or from pageable host memory, so item(), .cpu(), tolist(), and ops whose output size
// depends on the data such as nonzero) calls on_host_wait(op) first: mode 1 hands "called a synchronizing CUDA
// operation" naming the op to the warning handler (the Python module's: a UserWarning), mode 2 raises it as an
// error. Waits the caller asked for (synchronize(), Stream/Event.synchronize) are exempt, as in PyTorch.
// The op is the outermost SyncOpName in scope on the calling thread, else `fallback`. (ember/backend/sync_debug.cpp)
int sync_debug_mode();  // 0 default, 1 warn, 2 error
void set_sync_debug_mode(int mode);
void set_sync_warning_handler(void (*handler)(const std::string& message));
void on_host_wait(const char* fallback);
class SyncOpName {
 public:
  explicit SyncOpName(const char* op);
  ~SyncOpName();
  SyncOpName(const SyncOpName&) = delete;
  SyncOpName& operator=(const SyncOpName&) = delete;

 private:
  const char* prev_;
};

// Smaller parts of torch.cuda's API (backend/cuda/runtime_api.cpp).
bool can_device_access_peer(int device, int peer);  // cudaDeviceCanAccessPeer
uintptr_t current_blas_handle();                    // the calling thread's cuBLAS handle of the current device
std::vector<int> arch_list();                       // CMAKE_CUDA_ARCHITECTURES of the build (empty without CUDA)
std::string error_string(int code);                 // cudaGetErrorString
// NVTX ranges and marks for profilers (Nsight Systems): torch.cuda.nvtx. Without CUDA they raise.
int nvtx_range_push(const char* message);
int nvtx_range_pop();
void nvtx_mark(const char* message);
uint64_t nvtx_range_start(const char* message);
void nvtx_range_end(uint64_t id);

// Raises a RuntimeError naming the op unless CUDA is usable on this machine (and initialises it: this is the
// gate of every function that needs a device, Note [Lazy CUDA initialisation]).
void check_available(const char* what);

// The switches of ember.backends.cuda and ember.backends.cudnn (PyTorch's names and defaults). They exist in
// every build, so that code setting them runs unchanged without CUDA; the CUDA kernels read them at each call.
struct Flags {
  bool allow_tf32_matmul = false;  // backends.cuda.matmul.allow_tf32
  bool allow_fp16_reduced_precision_reduction = true;
  bool allow_bf16_reduced_precision_reduction = true;
  bool cudnn_enabled = true;         // backends.cudnn.enabled
  bool cudnn_benchmark = false;      // backends.cudnn.benchmark: time the algorithms once per shape, keep the fastest
  bool cudnn_deterministic = false;  // backends.cudnn.deterministic: only deterministic algorithms
  bool cudnn_allow_tf32 = true;      // backends.cudnn.allow_tf32
};
Flags& flags();

}  // namespace ember::cuda
