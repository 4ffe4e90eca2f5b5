#pragma once

#include <cuda_runtime.h>

#include "ember/error.h"

#define EMBER_CUDA_CHECK(expr)                                                                  \
  do {                                                                                          \
    cudaError_t err_ = (expr);                                                                  \
    if (err_ != cudaSuccess) [[unlikely]]                                                       \
      ::ember::fail<::ember::Error>("CUDA error: ", cudaGetErrorString(err_), " (", #expr, ")"); \
  } while (0)

namespace ember::cuda {

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
