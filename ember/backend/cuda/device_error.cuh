// Kernels' side of Note [Deferred device errors] (check.h): report bad input found on the device.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace ember::cuda {

// One per device, in mapped pinned memory: the first report wins; later ones are dropped until the host reads it.
struct DeviceErrorReport {
  int state;       // 0 empty, 1 being written, 2 complete
  int kind;        // one of the k* below
  int64_t index;   // the offending value (zero division: 0 div, 1 remainder, 2 fmod)
  int64_t size;    // the size of the dimension it indexes
  int64_t dim;     // that dimension
  const char* op;  // the op's name: a host string literal, only carried through (never read on the device)
};

constexpr int kIndexOutOfRange = 1;
constexpr int kZeroDivision = 2;
constexpr int kProbabilityOutOfRange = 3;  // bernoulli's p; index: the flat index of the element
constexpr int kNegativeStd = 4;            // normal's std; index: likewise
constexpr int kInvalidParameter = 5;       // a sampler's parameter; op: the whole message; index: likewise

// The device pointer of `device`'s report slot (allocated on first use).
DeviceErrorReport* device_error_slot(int device);

#if defined(__CUDACC__)
__device__ inline void report_error(DeviceErrorReport* r, int kind, const char* op, int64_t index, int64_t dim,
                                    int64_t size) {
  if (atomicCAS(&r->state, 0, 1) != 0) return;
  r->kind = kind;
  r->index = index;
  r->dim = dim;
  r->size = size;
  r->op = op;
  __threadfence_system();
  atomicExch(&r->state, 2);
}

// op: a host string literal passed to the kernel as an argument (Note [Deferred device errors]).
__device__ inline void report_index_error(DeviceErrorReport* r, const char* op, int64_t index, int64_t dim,
                                          int64_t size) {
  report_error(r, kIndexOutOfRange, op, index, dim, size);
}
#endif

}  // namespace ember::cuda
