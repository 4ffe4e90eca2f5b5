// The CUDA runtime as the core sees it. backend/cuda implements it; backend/no_cuda implements it for
// builds without CUDA (no devices; anything that needs one raises "ember was built without CUDA").
#pragma once

#include <cstddef>
#include <string>

#include "ember/allocator.h"

namespace ember::cuda {

bool is_built();            // compiled with CUDA
int device_count();         // 0 when not built, no driver or no device; never throws
bool is_available();        // device_count() > 0
int current_device();
void set_device(int index);
void synchronize(int index = -1);
std::string device_name(int index);
Allocator* allocator(int index);
// A stream is a device plus an opaque queue handle (cudaStream_t; null is the default stream). Work
// is enqueued on the calling thread's current stream of the device (issue 8 adds the Python API,
// events, and the allocator's per-stream pools).
struct Stream {
  int device = 0;
  void* handle = nullptr;
  bool operator==(const Stream& o) const { return device == o.device && handle == o.handle; }
};
Stream current_stream(int device = -1);
void set_current_stream(Stream s);  // for the calling thread

// Copies between host and device memory (or within a device), ordered on the current stream; blocks
// the host until done unless the copy is device to device.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };
void memcpy(void* dst, const void* src, size_t nbytes, CopyKind kind, int device);

// Raises a RuntimeError naming the op unless CUDA is usable on this machine.
void check_available(const char* what);

// The switches of ember.backends.cuda and ember.backends.cudnn (PyTorch's names and defaults). They exist in
// every build, so that code setting them runs unchanged without CUDA; the CUDA kernels read them at each call.
struct Flags {
  bool allow_tf32_matmul = false;    // backends.cuda.matmul.allow_tf32
  bool allow_fp16_reduced_precision_reduction = true;
  bool allow_bf16_reduced_precision_reduction = true;
  bool cudnn_enabled = true;         // backends.cudnn.enabled
  bool cudnn_benchmark = false;      // backends.cudnn.benchmark: time the algorithms once per shape, keep the fastest
  bool cudnn_deterministic = false;  // backends.cudnn.deterministic: only deterministic algorithms
  bool cudnn_allow_tf32 = true;      // backends.cudnn.allow_tf32
};
Flags& flags();

}  // namespace ember::cuda
