// The CUDA libraries' handles (cuBLAS here; cuDNN in cudnn.h, cuSOLVER in lapack.cpp): one per (device, thread),
// created on first use and bound to the current stream at each call, and a workspace from the device's caching
// allocator. Included by the CUDA sources only.
#pragma once

#include <cublas_v2.h>

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "ember/backend/cuda/check.h"
#include "ember/cuda.h"
#include "ember/dtype.h"

namespace ember::cuda {

const char* cublas_status_name(cublasStatus_t s);

// Raises "[op] cuBLAS error CUBLAS_STATUS_...: <context> (<expr>)"; context: the op's shapes and dtype.
#define EMBER_CUBLAS_CHECK(expr, ...)                                                                             \
  do {                                                                                                            \
    const cublasStatus_t st_ = (expr);                                                                            \
    if (st_ != CUBLAS_STATUS_SUCCESS) [[unlikely]]                                                                \
      ::ember::fail<::ember::Error>(__VA_ARGS__, ": cuBLAS error ", ::ember::cuda::cublas_status_name(st_), " (", \
                                    #expr, ")");                                                                  \
  } while (0)

// Note [Library handles]
// cuBLAS, cuDNN and cuSOLVER handles are not thread-safe and are costly to create, so each thread keeps one per
// device, taken from a process-wide free list and given back when the thread ends (a new thread reuses it). The
// free list is never destroyed: handles outlive static destructors, which may run after the driver has shut down.
template <class H>
struct HandleFreeList {
  std::mutex mu;
  std::vector<std::pair<int, H>> free;
};

// The calling thread's handle of type H for `device`; `create` makes a new one (called with the device current).
// Tag separates pools of the same handle type.
template <class Tag, class H, class Create>
H thread_handle(int device, Create&& create) {
  static auto* list = new HandleFreeList<H>();  // leaked on purpose (Note [Library handles])
  struct Held {
    std::vector<std::pair<int, H>> handles;
    ~Held() {
      std::lock_guard<std::mutex> lock(list->mu);
      for (auto& h : handles) list->free.push_back(h);
    }
  };
  thread_local Held held;
  for (auto& h : held.handles)
    if (h.first == device) return h.second;
  H h{};
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(list->mu);
    for (size_t i = 0; i < list->free.size(); ++i)
      if (list->free[i].first == device) {
        h = list->free[i].second;
        list->free.erase(list->free.begin() + static_cast<std::ptrdiff_t>(i));
        found = true;
        break;
      }
  }
  if (!found) {
    DeviceGuard guard(device);
    h = create();
  }
  held.handles.emplace_back(device, h);
  return h;
}

// Device memory from the caching allocator for one library call, released (stream-ordered, so safe to reuse by
// later work on the same stream) when it goes out of scope after the call is enqueued.
class Workspace {
 public:
  Workspace() = default;
  Workspace(int device, size_t bytes) : alloc_(bytes ? allocator(device) : nullptr), bytes_(bytes) {
    if (alloc_) ptr_ = alloc_->allocate(bytes);
  }
  ~Workspace() {
    if (alloc_ && ptr_) alloc_->deallocate(ptr_, bytes_);
  }
  Workspace(Workspace&& o) noexcept { *this = std::move(o); }
  Workspace& operator=(Workspace&& o) noexcept {
    std::swap(alloc_, o.alloc_);
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  void* get() const { return ptr_; }
  size_t size() const { return ptr_ ? bytes_ : 0; }

 private:
  Allocator* alloc_ = nullptr;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// The device index of a CUDA tensor's device (the current device for an index-less one).
inline int device_index(Device d) { return d.index >= 0 ? d.index : current_device(); }

inline cudaStream_t stream_of(int device) { return static_cast<cudaStream_t>(current_stream(device).handle); }

// The calling thread's cuBLAS handle for `device`, bound to its current stream.
cublasHandle_t cublas_handle(int device);

// How a GEMM of a floating dtype runs: data and compute types (TF32 per ember.backends.cuda.matmul.allow_tf32),
// scalar type, and the math mode (reduced-precision reductions of 16-bit types per the flags). NotImplementedError
// for other dtypes, with PyTorch's message.
struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  bool double_scalars;  // alpha and beta are doubles (64F compute) or floats
  cublasMath_t math;
};
GemmTypes gemm_types(ScalarType t);

// cuBLAS's recommended workspace on Hopper (PyTorch's default there too); taken from the caching allocator per call.
constexpr size_t kGemmWorkspace = size_t(32) << 20;

}  // namespace ember::cuda
