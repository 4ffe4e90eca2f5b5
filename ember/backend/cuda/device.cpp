// The CUDA runtime behind ember/cuda.h. CUDA is initialised lazily: nothing here runs until a CUDA
// function is first called, so importing ember on a machine without a GPU costs nothing.
#include <memory>
#include <mutex>
#include <vector>

#include "ember/backend/cuda/check.h"
#include "ember/cuda.h"

namespace ember::cuda {

namespace {

// Plain cudaMalloc/cudaFree with counters. Issue 8 replaces this with the caching allocator.
class CudaAllocator final : public Allocator {
 public:
  explicit CudaAllocator(int device) : device_(device) {}

  void* allocate(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    DeviceGuard g(device_);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      std::lock_guard<std::mutex> l(mu_);
      fail<OutOfMemoryError>("CUDA out of memory. Tried to allocate ", nbytes, " bytes on cuda:", device_, " (",
                             c_.s.allocated, " bytes allocated by ember, ", free_b, " bytes free of ", total_b, ")");
    }
    EMBER_CUDA_CHECK(err);
    std::lock_guard<std::mutex> l(mu_);
    c_.on_sys_alloc(nbytes);
    c_.on_alloc(nbytes);
    return p;
  }

  void deallocate(void* p, size_t nbytes) override {
    if (!p) return;
    DeviceGuard g(device_);
    cudaFree(p);
    std::lock_guard<std::mutex> l(mu_);
    c_.on_free(nbytes);
    c_.on_sys_free(nbytes);
  }

  MemoryStats stats() const override {
    std::lock_guard<std::mutex> l(mu_);
    return c_.s;
  }
  void reset_peak_stats() override {
    std::lock_guard<std::mutex> l(mu_);
    c_.reset_peak();
  }
  void empty_cache() override {}

 private:
  int device_;
  mutable std::mutex mu_;
  MemoryCounter c_;
};

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
}

std::string device_name(int index) {
  check_available("get_device_name");
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  return p.name;
}

Allocator* allocator(int index) {
  check_available("cuda allocator");
  static std::vector<std::unique_ptr<CudaAllocator>>* all = [] {
    auto* v = new std::vector<std::unique_ptr<CudaAllocator>>();  // leaked: outlives static destructors
    for (int i = 0; i < device_count(); ++i) v->push_back(std::make_unique<CudaAllocator>(i));
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
  if (kind != CopyKind::DeviceToDevice) EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace ember::cuda
