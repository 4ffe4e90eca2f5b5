// Smaller parts of torch.cuda's API (ember/cuda.h): peer access, the cuBLAS handle, the build's architectures, error
// strings and NVTX ranges (NVTX3 is header-only: the calls do nothing unless a profiler injects itself).
#include <nvtx3/nvToolsExt.h>

#include "ember/backend/cuda/check.h"
#include "ember/backend/cuda/cublas.h"
#include "ember/cuda.h"

namespace ember::cuda {

bool can_device_access_peer(int device, int peer) {
  check_available("can_device_access_peer");
  EMBER_CHECK(device >= 0 && device < device_count(), "can_device_access_peer: invalid device id ", device);
  EMBER_CHECK(peer >= 0 && peer < device_count(), "can_device_access_peer: invalid peer device id ", peer);
  if (device == peer) return false;  // as cudaDeviceCanAccessPeer (and PyTorch) answer for a device and itself
  int can = 0;
  EMBER_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
  return can != 0;
}

uintptr_t current_blas_handle() {
  check_available("current_blas_handle");
  return reinterpret_cast<uintptr_t>(cublas_handle(current_device()));
}

std::vector<int> arch_list() {
#ifdef EMBER_CUDA_ARCHITECTURES
  return {EMBER_CUDA_ARCHITECTURES};  // CMAKE_CUDA_ARCHITECTURES, e.g. 90 (CMakeLists.txt)
#else
  return {};
#endif
}

std::string error_string(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

int nvtx_range_push(const char* message) { return nvtxRangePushA(message); }
int nvtx_range_pop() { return nvtxRangePop(); }
void nvtx_mark(const char* message) { nvtxMarkA(message); }
uint64_t nvtx_range_start(const char* message) { return nvtxRangeStartA(message); }
void nvtx_range_end(uint64_t id) { nvtxRangeEnd(id); }

}  // namespace ember::cuda
