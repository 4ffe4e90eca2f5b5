#pragma once

#include <cuda_runtime.h>

#include "ember/error.h"

#define EMBER_CUDA_CHECK(expr)                                                                   \
  do {                                                                                           \
    cudaError_t err_ = (expr);                                                                   \
    if (err_ != cudaSuccess) [[unlikely]]                                                        \
      ::ember::fail<::ember::Error>("CUDA error: ", cudaGetErrorString(err_), " (", #expr, ")"); \
  } while (0)

namespace ember::cuda {

// Call after every kernel launch: raises the launch's error, if any. With EMBER_CUDA_LAUNCH_BLOCKING=1 (or
// CUDA_LAUNCH_BLOCKING=1) it also waits for the kernel and raises what it reported (check_device_errors), so an
// error surfaces at the op that caused it.
void after_launch(int device);

// Note [Deferred device errors]: kernels that can find bad input (an index out of range) write a report into a
// per-device word in mapped pinned memory instead of trapping (which would poison the CUDA context); the host
// reads it at each point where it waits for the device (synchronize, copies to the host, item()) and raises the
// report as the op's Python exception (IndexError naming the op, the index and the size).
void check_device_errors(int device);

// Sets the current device for a scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    EMBER_CUDA_CHECK(cudaGetDevice(&prev_));
    if (device >= 0 && device != prev_) EMBER_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceGuard() { cudaSetDevice(prev_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = 0;
};

}  // namespace ember::cuda
