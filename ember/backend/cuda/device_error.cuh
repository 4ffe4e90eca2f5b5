// Kernels' side of Note [Deferred device errors] (check.h): report bad input found on the device.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace ember::cuda {

// One per device, in mapped pinned memory: the first report wins; later ones are dropped until the host reads it.
struct DeviceErrorReport {
  int state;        // 0 empty, 1 being written, 2 complete
  int kind;         // 1: index out of range
  int64_t index;    // the offending value
  int64_t size;     // the size of the dimension it indexes
  int64_t dim;      // that dimension
  const char* op;   // the op's name: a host string literal, only carried through (never read on the device)
};

// The device pointer of `device`'s report slot (allocated on first use).
DeviceErrorReport* device_error_slot(int device);

#if defined(__CUDACC__)
__device__ inline void report_index_error(DeviceErrorReport* r, const char* op, int64_t index, int64_t dim,
                                          int64_t size) {
  if (atomicCAS(&r->state, 0, 1) != 0) return;
  r->kind = 1;
  r->index = index;
  r->dim = dim;
  r->size = size;
  r->op = op;
  __threadfence_system();
  atomicExch(&r->state, 2);
}
#endif

}  // namespace ember::cuda
