// The CUDA runtime behind ember/cuda.h. CUDA is initialised lazily: nothing here runs until a CUDA
// function is first called, so importing ember on a machine without a GPU costs nothing.
#include <cstdlib>
#include <memory>
#include <string>
#include <mutex>
#include <vector>

#include "ember/backend/caching_allocator.h"
#include "ember/backend/cuda/check.h"
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
    DeviceGuard g(device_);
    cudaEvent_t e;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(e, reinterpret_cast<cudaStream_t>(stream)));
    return reinterpret_cast<uintptr_t>(e);
  }
  bool event_done(uintptr_t event) override {
    const cudaError_t err = cudaEventQuery(reinterpret_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    EMBER_CUDA_CHECK(err);
    return true;
  }
  void destroy_event(uintptr_t event) override { cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event)); }

 private:
  int device_;
};

std::unique_ptr<CachingAllocator> make_allocator(int device);

}  // namespace

bool is_built() { return true; }

int device_count() {
  static int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // no driver or no device: CUDA is simply unavailable
      return 0;
    }
    return n;
  }();
  return count;
}

bool is_available() { return device_count() > 0; }

void check_available(const char* what) {
  EMBER_CHECK(device_count() > 0, what, ": no CUDA device is available (ember was built with CUDA, but the driver "
              "found no GPU); ember.cuda.is_available() is False");
}

int current_device() {
  check_available("current_device");
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int index) {
  check_available("set_device");
  EMBER_CHECK(index >= 0 && index < device_count(), "set_device: invalid device ordinal ", index, " (",
              device_count(), " devices)");
  EMBER_CUDA_CHECK(cudaSetDevice(index));
}

void synchronize(int index) {
  check_available("synchronize");
  DeviceGuard g(index);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  check_device_errors(index < 0 ? current_device() : index);
}

std::string device_name(int index) {
  check_available("get_device_name");
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  return p.name;
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
constexpr int kMaxDevices = 64;
thread_local void* t_current_stream[kMaxDevices] = {};
}  // namespace

namespace {
// EMBER_CUDA_NO_CACHING=1: every allocation is a cudaMalloc and every free a cudaFree (for compute-sanitizer).
std::unique_ptr<CachingAllocator> make_allocator(int device) {
  CachingAllocator::Options o;
  const char* env = std::getenv("EMBER_CUDA_NO_CACHING");
  o.caching = !(env && std::string(env) == "1");
  o.current_stream = [device] { return reinterpret_cast<uintptr_t>(current_stream(device).handle); };
  return std::make_unique<CachingAllocator>(std::make_unique<CudaMemory>(device), "cuda:" + std::to_string(device),
                                            o);
}
}  // namespace

Stream current_stream(int device) {
  if (device < 0) device = current_device();
  EMBER_CHECK(device < kMaxDevices, "current_stream: device index ", device, " out of range");
  return Stream{device, t_current_stream[device]};
}

void set_current_stream(Stream s) {
  EMBER_CHECK(s.device >= 0 && s.device < device_count(), "set_current_stream: invalid device ", s.device);
  t_current_stream[s.device] = s.handle;
}

void memcpy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device) {
  if (nbytes == 0) return;
  DeviceGuard g(device);
  const cudaMemcpyKind k = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                           : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                            : cudaMemcpyDeviceToDevice;
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, k, stream));
  // Host memory may be pageable and is used by the caller right after: wait for copies touching it.
  if (kind != CopyKind::DeviceToDevice) {
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    check_device_errors(device);
  }
}

}  // namespace ember::cuda
