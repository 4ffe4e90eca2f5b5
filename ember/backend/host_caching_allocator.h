// Note [Pinned host memory]
// Page-locked host memory is what makes host<->device copies asynchronous (the DMA engine reads it while the host runs
// on), but cudaHostAlloc/cudaFreeHost are slow and synchronizing, so ember caches it like device memory (PyTorch's
// CachingHostAllocator). The logic is device-independent and lives here, tested on the CPU with a fake device
// (tests/test_host_caching_allocator.cpp); backend/cuda/pinned.cpp gives it cudaHostAlloc, cudaFreeHost and events.
//
// - Requests are rounded up to a power of two (at least 512 bytes); a freed block serves later requests of exactly
//   its size. Blocks are never split, so a block's start is the pointer handed out.
// - A non_blocking copy from or to a pinned block records its stream on the block (record_stream). When the block is
//   freed, an event is recorded on each such stream and the block is reused only after all of them have completed:
//   the copy may still be reading or writing it.
// - Out of memory: free every cached block and retry once; then OutOfMemoryError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/allocator.h"
#include "ember/backend/caching_allocator.h"  // DeviceMemory: the runtime's malloc/free/events

namespace ember {

class HostCachingAllocator final : public Allocator {
 public:
  // memory->malloc/free are cudaHostAlloc/cudaFreeHost; its events are recorded on device streams.
  explicit HostCachingAllocator(std::unique_ptr<DeviceMemory> memory);
  ~HostCachingAllocator() override;

  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes = 0) override;
  // ptr may point anywhere inside a live block (a view of a pinned tensor).
  void record_stream(const void* ptr, uintptr_t stream);
  bool contains(const void* ptr) const;  // ptr lies inside a live (handed out) block

  MemoryStats stats() const override;  // allocated: live blocks; reserved: all blocks held; num_sys_*: host allocs
  void reset_peak_stats() override;
  void empty_cache() override;  // frees cached blocks whose events have completed
  size_t num_cached_blocks() const;

  static size_t round_size(size_t nbytes);

 private:
  struct Block {
    char* ptr;
    size_t size;
    bool allocated = true;
    int pending_events = 0;
    std::set<uintptr_t> streams;  // streams that used it since it was handed out
  };
  void process_events();
  void release_cached();

  std::unique_ptr<DeviceMemory> memory_;
  mutable std::mutex mu_;
  std::map<const char*, Block*> blocks_;              // every block held, by start (for the range lookups)
  std::multimap<size_t, Block*> free_;                // reusable blocks by size
  std::deque<std::pair<uintptr_t, Block*>> pending_;  // (event, block) of freed blocks streams may still use
  MemoryCounter counter_;
};

}  // namespace ember
