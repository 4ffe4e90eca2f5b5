// The host's side of Note [Deferred device errors] (check.h): the per-device report slots and their check.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "ember/backend/cuda/check.h"
#include "ember/backend/cuda/device_error.cuh"
#include "ember/backend/kernels/index.h"
#include "ember/cuda.h"

namespace ember::cuda {

namespace {
constexpr int kMaxDevices = 64;
struct Slot {
  DeviceErrorReport* host = nullptr;
  DeviceErrorReport* dev = nullptr;
};
Slot g_slots[kMaxDevices];
std::mutex g_mutex;

Slot& slot(int device) {
  EMBER_CHECK(device >= 0 && device < kMaxDevices, "device error slot: invalid device ", device);
  Slot& s = g_slots[device];
  if (!s.host) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!s.host) {
      DeviceGuard g(device);
      void* p = nullptr;
      EMBER_CUDA_CHECK(cudaHostAlloc(&p, sizeof(DeviceErrorReport), cudaHostAllocMapped));
      std::memset(p, 0, sizeof(DeviceErrorReport));
      void* d = nullptr;
      EMBER_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
      s.dev = static_cast<DeviceErrorReport*>(d);
      s.host = static_cast<DeviceErrorReport*>(p);
    }
  }
  return s;
}

bool launch_blocking_env() {
  for (const char* name : {"EMBER_CUDA_LAUNCH_BLOCKING", "CUDA_LAUNCH_BLOCKING"}) {
    const char* v = std::getenv(name);
    if (v && std::string(v) == "1") return true;
  }
  return false;
}
}  // namespace

DeviceErrorReport* device_error_slot(int device) { return slot(device).dev; }

void check_device_errors(int device) {
  if (device < 0 || device >= kMaxDevices || !g_slots[device].host) return;  // no kernel has reported on it
  volatile DeviceErrorReport* r = g_slots[device].host;
  if (r->state != 2) return;
  const std::string op = r->op ? r->op : "cuda kernel";
  const int kind = r->kind;
  const int64_t index = r->index, dim = r->dim, size = r->size;
  r->state = 0;  // read: the next report may be written
  if (kind == kZeroDivision)
    fail<Error>("ZeroDivisionError: integer division by zero in ",
                index == 0   ? "div"
                : index == 1 ? "remainder"
                             : "fmod",
                " (found by a CUDA kernel on cuda:", device, "; the op's output is not valid)");
  if (kind == kProbabilityOutOfRange)
    fail<Error>(op, ": expects all elements of p to be in [0, 1], but p's element ", index,
                " (flat index) is not (found by a CUDA kernel on cuda:", device, "; the op's output is not valid)");
  if (kind == kNegativeStd)
    fail<Error>(op, ": expects all elements of std >= 0.0, but std's element ", index,
                " (flat index) is not (found by a CUDA kernel on cuda:", device, "; the op's output is not valid)");
  if (kind == kInvalidParameter)
    fail<Error>(op, " (element ", index, " is out of range; found by a CUDA kernel on cuda:", device,
                "; the op's output is not valid)");
  fail_out_of_bounds(op.c_str(), op, ": index ", index, " is out of bounds for dimension ", dim, " with size ", size,
                     " (found by a CUDA kernel on cuda:", device, "; the op's output is not valid)");
}

void after_launch(int device) {
  EMBER_CUDA_CHECK(cudaGetLastError());
  static const bool blocking = launch_blocking_env();
  if (!blocking) return;
  EMBER_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(current_stream(device).handle)));
  check_device_errors(device);
}

}  // namespace ember::cuda
