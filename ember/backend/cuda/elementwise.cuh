// The CUDA runner of Note [Shared elementwise math] (ember/backend/math/common.h): the shared formulas over
// gpu_kernel (Note [CUDA elementwise launcher]).
#pragma once

#include <array>

#include "ember/backend/cuda/device_error.cuh"
#include "ember/backend/cuda/launch.cuh"

namespace ember::cuda {

struct Runner {
  const StridedIter& it;                // the output and the inputs that live on the device, in order
  std::array<const Tensor*, 3> host{};  // input k's 0-d CPU tensor, when it comes from the host
  int device = 0;
  static constexpr const char* kDevice = "CUDA";

  // Integer division by zero: reported to the host (Note [Deferred device errors]), which raises at its next wait.
  struct Errors {
    DeviceErrorReport* report;
    __host__ __device__ void zero_division(const char* op) const {
#if defined(__CUDA_ARCH__)
      report_error(report, kZeroDivision, nullptr, op[0] == 'd' ? 0 : op[0] == 'r' ? 1 : 2, 0, 0);
#else
      fail<Error>("ZeroDivisionError: integer division by zero in ", op);
#endif
    }
  };
  Errors errors() const { return {device_error_slot(device)}; }

  template <class Out, class In, int N, class F>
  void kernel(F f) const {
    std::array<const Tensor*, N> h{};
    for (int k = 0; k < N; ++k) h[k] = host[k];
    gpu_kernel<Out, In, N>(it, f, h);
  }
};

// The iterator over `out` and those of `ins` that are on the device; `host` gets the others (0-d CPU tensors).
template <size_t N>
StridedIter device_operands(const Tensor& out, const std::array<const Tensor*, N>& ins,
                            std::array<const Tensor*, 3>& host) {
  std::array<const Tensor*, N + 1> dev{&out};  // no heap allocation on the launch path
  size_t n = 1;
  for (size_t k = 0; k < N; ++k) {
    if (ins[k]->device().is_cpu())
      host[k] = ins[k];
    else
      dev[n++] = ins[k];
  }
  if (n == 1) return StridedIter::make({dev[0]}, out.sizes());
  if (n == 2) return StridedIter::make({dev[0], dev[1]}, out.sizes());
  if constexpr (N >= 3)
    if (n == 4) return StridedIter::make({dev[0], dev[1], dev[2], dev[3]}, out.sizes());
  return StridedIter::make({dev[0], dev[1], dev[2]}, out.sizes());
}

}  // namespace ember::cuda
