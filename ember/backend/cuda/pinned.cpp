// Pinned host memory for CUDA: the host caching allocator (Note [Pinned host memory]) over cudaHostAlloc and
// events recorded on the streams of the copies that used a block.
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "ember/backend/cuda/check.h"
#include "ember/backend/host_caching_allocator.h"
#include "ember/cuda.h"

namespace ember::cuda {

namespace {

// The allocator knows a stream as one number: the cudaStream_t, or device + 1 for a device's default stream (null
// handle); the device of each stream it has seen is kept here, since an event is recorded under its stream's device.
std::mutex g_stream_mu;
std::unordered_map<uintptr_t, int> g_stream_device;

uintptr_t stream_key(Stream s) {
  const uintptr_t key = s.handle ? reinterpret_cast<uintptr_t>(s.handle) : uintptr_t(s.device + 1);
  std::lock_guard<std::mutex> l(g_stream_mu);
  g_stream_device[key] = s.device;
  return key;
}

Stream stream_of(uintptr_t key) {
  std::lock_guard<std::mutex> l(g_stream_mu);
  const int device = g_stream_device.at(key);
  return Stream{device, key == uintptr_t(device + 1) ? nullptr : reinterpret_cast<void*>(key)};
}

class PinnedMemory final : public DeviceMemory {
 public:
  void* malloc(size_t bytes) override {
    void* p = nullptr;
    const cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }
  void free(void* p) override { EMBER_CUDA_CHECK(cudaFreeHost(p)); }
  size_t free_bytes() override { return 0; }
  uintptr_t record_event(uintptr_t key) override { return record_marker(stream_of(key)); }
  bool event_done(uintptr_t event) override { return marker_done(event); }
  void destroy_event(uintptr_t event) override { destroy_marker(event); }
};

std::atomic<HostCachingAllocator*> g_host{nullptr};

HostCachingAllocator* host() {
  static std::once_flag once;
  std::call_once(once, [] { g_host = new HostCachingAllocator(std::make_unique<PinnedMemory>()); });  // leaked
  return g_host.load();
}

}  // namespace

void* pinned_allocate(size_t nbytes) {
  check_available("pin_memory");
  return host()->allocate(nbytes);
}

void pinned_free(void* ptr) { host()->deallocate(ptr, 0); }

bool is_pinned(const void* ptr) {
  HostCachingAllocator* h = g_host.load();
  return h && h->contains(ptr);
}

void record_pinned_use(const void* ptr, Stream s) { host()->record_stream(ptr, stream_key(s)); }

Allocator* pinned_allocator() {
  check_available("pinned memory allocator");
  return host();
}

}  // namespace ember::cuda
