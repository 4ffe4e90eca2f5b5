// The CUDA runtime behind ember/cuda.h. CUDA is initialised lazily: nothing here runs until a CUDA
// function is first called, so importing ember on a machine without a GPU costs nothing.
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/backend/caching_allocator.h"
#include "ember/backend/cuda/check.h"
#include "ember/backend/cuda_version.h"
#include "ember/cuda.h"

namespace ember::cuda {

namespace {

// The device side of the caching allocator (Note [Caching allocator] in ember/backend/caching_allocator.h).
class CudaMemory final : public DeviceMemory {
 public:
  explicit CudaMemory(int device) : device_(device) {}
  void* malloc(size_t bytes) override {
    DeviceGuard g(device_);
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear it: the allocator frees its cache and retries, or raises OutOfMemoryError
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }
  void free(void* p) override {
    DeviceGuard g(device_);
    EMBER_CUDA_CHECK(cudaFree(p));
  }
  size_t free_bytes() override {
    DeviceGuard g(device_);
    size_t free_b = 0, total_b = 0;
    return cudaMemGetInfo(&free_b, &total_b) == cudaSuccess ? free_b : 0;
  }
  uintptr_t record_event(uintptr_t stream) override {
    return record_marker(Stream{device_, reinterpret_cast<void*>(stream)});
  }
  bool event_done(uintptr_t event) override { return marker_done(event); }
  void destroy_event(uintptr_t event) override { destroy_marker(event); }

 private:
  int device_;
};

std::unique_ptr<CachingAllocator> make_allocator(int device);

}  // namespace

bool is_built() { return true; }

// Note [Lazy CUDA initialisation] (ember/cuda.h).
namespace {
std::atomic<bool> g_initialized{false};
std::atomic<bool> g_bad_fork{false};  // this process is a child forked after its parent started the driver
std::once_flag g_init_once;

void forked_child() {
  g_bad_fork = true;
  g_initialized = false;
}
}  // namespace

int device_count() {
  static int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // no driver or no device: CUDA is simply unavailable
      return 0;
    }
    // cudaGetDeviceCount has started the driver, whose state a forked child cannot use either (PyTorch counts
    // through NVML instead): from here on a forked child gets the fork error rather than a driver error.
    if (n > 0) pthread_atfork(nullptr, nullptr, forked_child);
    return n;
  }();
  return count;
}

bool is_available() { return device_count() > 0; }

bool is_initialized() { return g_initialized.load(std::memory_order_relaxed) && !g_bad_fork; }

void check_available(const char* what) {
  if (g_initialized.load(std::memory_order_acquire) && !g_bad_fork.load(std::memory_order_relaxed)) [[likely]]
    return;
  EMBER_CHECK(!g_bad_fork, what,
              ": Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
              "multiprocessing, you must use the 'spawn' start method");
  EMBER_CHECK(device_count() > 0, what,
              ": no CUDA device is available (ember was built with CUDA, but the driver "
              "found no GPU); ember.cuda.is_available() is False");
  std::call_once(g_init_once, [] {
    EMBER_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context of the current device
  });
  g_initialized.store(true, std::memory_order_release);
}

void init() { check_available("init"); }

int current_device() {
  check_available("current_device");
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int index) {
  check_available("set_device");
  EMBER_CHECK(index >= 0 && index < device_count(), "set_device: invalid device ordinal ", index, " (", device_count(),
              " devices)");
  EMBER_CUDA_CHECK(cudaSetDevice(index));
}

void synchronize(int index) {
  check_available("synchronize");
  DeviceGuard g(index);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  check_device_errors(index < 0 ? current_device() : index);
}

namespace {
int checked_index(int index, const char* what) {
  check_available(what);
  if (index < 0) index = current_device();
  EMBER_CHECK(index < device_count(), what, ": invalid device ordinal ", index, " (", device_count(), " devices)");
  return index;
}
}  // namespace

std::string device_name(int index) { return device_properties(checked_index(index, "get_device_name")).name; }

DeviceProperties device_properties(int index) {
  index = checked_index(index, "get_device_properties");
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  return DeviceProperties{p.name, p.major, p.minor, p.totalGlobalMem, p.multiProcessorCount};
}

void mem_get_info(int index, size_t* free_bytes, size_t* total_bytes) {
  index = checked_index(index, "mem_get_info");
  DeviceGuard g(index);
  EMBER_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
}

// Loaded at run time so that the core does not link cuDNN just to report its version (needs no device).
int cudnn_version() {
  static int v = [] {
    for (const char* lib : {"libcudnn.so.9", "libcudnn.so"}) {
      void* h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
      if (!h) continue;
      auto fn = reinterpret_cast<size_t (*)()>(dlsym(h, "cudnnGetVersion"));
      return fn ? int(fn()) : 0;
    }
    return 0;
  }();
  return v;
}

int runtime_version() {
  int v = 0;
  return cudaRuntimeGetVersion(&v) == cudaSuccess ? v : 0;
}

Allocator* allocator(int index) {
  check_available("cuda allocator");
  static std::vector<std::unique_ptr<CachingAllocator>>* all = [] {
    auto* v = new std::vector<std::unique_ptr<CachingAllocator>>();  // leaked: outlives static destructors
    for (int i = 0; i < device_count(); ++i) v->push_back(make_allocator(i));
    return v;
  }();
  if (index < 0) index = current_device();
  EMBER_CHECK(index < static_cast<int>(all->size()), "invalid CUDA device ordinal ", index);
  return (*all)[index].get();
}

namespace {
// EMBER_CUDA_NO_CACHING=1: every allocation is a cudaMalloc and every free a cudaFree (for compute-sanitizer).
std::unique_ptr<CachingAllocator> make_allocator(int device) {
  CachingAllocator::Options o;
  const char* env = std::getenv("EMBER_CUDA_NO_CACHING");
  o.caching = !(env && std::string(env) == "1");
  o.current_stream = [device] { return reinterpret_cast<uintptr_t>(current_stream(device).handle); };
  return std::make_unique<CachingAllocator>(std::make_unique<CudaMemory>(device), "cuda:" + std::to_string(device), o);
}
}  // namespace

void record_stream(void* ptr, Stream s) {
  static_cast<CachingAllocator*>(allocator(s.device))->record_stream(ptr, reinterpret_cast<uintptr_t>(s.handle));
}

void memcpy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device, bool non_blocking) {
  if (nbytes == 0) return;
  DeviceGuard g(device);
  const cudaMemcpyKind k = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                           : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                            : cudaMemcpyDeviceToDevice;
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  // Checked before the copy is queued, so that an error leaves no copy in flight into memory the caller frees.
  if (kind != CopyKind::DeviceToDevice && !non_blocking)
    on_host_wait(kind == CopyKind::DeviceToHost ? "copy from cuda to the host"
                                                : "copy from pageable host memory to cuda");
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, k, stream));
  // Pageable host memory is used by the caller right after: wait for copies touching it. A non_blocking copy
  // touches pinned memory, whose block has recorded the stream (Note [Pinned host memory]).
  if (kind != CopyKind::DeviceToDevice && !non_blocking) {
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    check_device_errors(device);
  }
}

}  // namespace ember::cuda
