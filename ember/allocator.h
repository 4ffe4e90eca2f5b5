// Device memory goes through one Allocator per device. Each keeps counters that tests and
// ember.cuda.memory_stats-style APIs read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "ember/device.h"

namespace ember {

struct MemoryStats {
  int64_t allocated = 0;       // bytes handed out and not yet returned
  int64_t peak_allocated = 0;  // high-water mark of `allocated` since the last reset
  int64_t reserved = 0;        // bytes held from the system (allocated + cached)
  int64_t peak_reserved = 0;
  int64_t num_allocs = 0;  // calls to allocate()
  int64_t num_frees = 0;
  int64_t num_sys_allocs = 0;  // blocks obtained from the system (malloc / cudaMalloc)
  int64_t num_sys_frees = 0;
};

// MemoryStats plus the bookkeeping every allocator does; not thread-safe (allocators hold their lock).
struct MemoryCounter {
  MemoryStats s;
  void on_alloc(int64_t bytes) {
    ++s.num_allocs;
    s.allocated += bytes;
    s.peak_allocated = std::max(s.peak_allocated, s.allocated);
  }
  void on_free(int64_t bytes) {
    ++s.num_frees;
    s.allocated -= bytes;
  }
  void on_sys_alloc(int64_t bytes) {
    ++s.num_sys_allocs;
    s.reserved += bytes;
    s.peak_reserved = std::max(s.peak_reserved, s.reserved);
  }
  void on_sys_free(int64_t bytes, int64_t count = 1) {
    s.num_sys_frees += count;
    s.reserved -= bytes;
  }
  void reset_peak() {
    s.peak_allocated = s.allocated;
    s.peak_reserved = s.reserved;
  }
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory for at least nbytes (nullptr-free: throws OutOfMemoryError). 0 bytes may give nullptr.
  virtual void* allocate(size_t nbytes) = 0;
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
  virtual MemoryStats stats() const = 0;
  virtual void reset_peak_stats() = 0;
  virtual void empty_cache() = 0;  // returns cached, unused blocks to the system
};

// The allocator for a device; for CUDA the build without CUDA raises "built without CUDA".
Allocator* get_allocator(Device d);
Allocator* cpu_allocator();
Allocator* meta_allocator();  // hands out no memory (Note [Meta device] in backend/meta/kernels.cpp)

}  // namespace ember
