// Note [Caching allocator]
// The PyTorch paper's section 5.3: device memory is obtained from the driver in segments and then reused, so that
// the steady state of a training loop makes no cudaMalloc/cudaFree calls (which synchronize the device). The logic is
// device-independent and lives here, tested on the CPU with a fake device (tests/test_caching_allocator.cpp); the CUDA
// backend gives it cudaMalloc/cudaFree and CUDA events.
//
// - Requests are rounded up to multiples of 512 bytes. Up to 1 MiB they come from the small pool, carved from 2 MiB
//   segments; larger ones from the large pool: 20 MiB segments for requests under 10 MiB, otherwise a segment of the
//   request rounded up to 2 MiB.
// - A free block is found best-fit among those of the same stream (a block freed on one stream is never handed to
//   another, since work queued there may still use it). A bigger block is split when the rest is worth keeping
//   (>= 512 bytes in the small pool, > 1 MiB in the large one); blocks larger than max_split_size ("oversize") are
//   never split and serve only requests of at least max_split_size. A freed block merges with free neighbours of its
//   segment.
// - record_stream(p, s): p is also used by work on stream s; when freed, the block waits for an event recorded on
//   each such stream before it can be reused.
// - Out of memory: free every cached segment and retry; if that fails too, OutOfMemoryError states the request, what
//   ember holds (allocated and reserved) and what the device has free; the allocator stays usable.
// - With caching off (EMBER_CUDA_NO_CACHING=1 for the CUDA backend), every request is its own segment and every free
//   returns it at once, so tools like compute-sanitizer see every allocation.
// - A limit on reserved memory (set_memory_limit, torch.cuda.set_per_process_memory_fraction): a new segment that
//   would take reserved bytes past it fails like a device out of memory (cached segments are freed and the request
//   retried, then OutOfMemoryError), whatever the device has free.
// - snapshot(): the segments and their blocks (torch.cuda.memory_snapshot()).
// - Statistics: stats() gives the Allocator interface's MemoryStats; detailed_stats() PyTorch's (memory_stats() keys:
//   "allocated_bytes.all.current", "num_device_alloc", ...), each a Stat per pool.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/allocator.h"

namespace ember {

// What the allocator asks of a device. Streams and events are opaque handles (cudaStream_t, cudaEvent_t).
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  virtual void* malloc(size_t bytes) = 0;  // nullptr when the device is out of memory
  virtual void free(void* ptr) = 0;
  virtual size_t free_bytes() = 0;                       // for the out-of-memory message
  virtual uintptr_t record_event(uintptr_t stream) = 0;  // after the work queued on `stream` so far
  virtual bool event_done(uintptr_t event) = 0;
  virtual void destroy_event(uintptr_t event) = 0;
};

// Polls a queue of (event, block) pairs: destroys each completed event and calls on_done(block) (the allocators'
// freed blocks that streams may still use).
template <class Block, class F>
void poll_events(DeviceMemory& memory, std::deque<std::pair<uintptr_t, Block*>>& pending, F&& on_done) {
  for (auto it = pending.begin(); it != pending.end();) {
    if (!memory.event_done(it->first)) {
      ++it;
      continue;
    }
    memory.destroy_event(it->first);
    Block* b = it->second;
    it = pending.erase(it);
    on_done(b);
  }
}

// One statistic as PyTorch keeps it: the current value, its high-water mark since reset_peak, and the accumulated
// amounts added and removed since reset_accumulated.
struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void add(int64_t n) {
    current += n;
    allocated += n;
    peak = std::max(peak, current);
  }
  void sub(int64_t n) {
    current -= n;
    freed += n;
  }
  void reset_peak() { peak = current; }
  void reset_accumulated() { allocated = freed = 0; }
};

// PyTorch's caching allocator statistics. The arrays are indexed by pool: all, small_pool, large_pool.
struct AllocatorStats {
  enum { kAll = 0, kSmall = 1, kLarge = 2 };
  Stat allocation[3], segment[3], active[3], inactive_split[3];  // counts of blocks
  Stat allocated_bytes[3], reserved_bytes[3], active_bytes[3], inactive_split_bytes[3], requested_bytes[3];
  Stat oversize_allocations, oversize_segments;
  int64_t num_alloc_retries = 0, num_ooms = 0, num_sync_all_streams = 0;
  int64_t num_device_alloc = 0, num_device_free = 0;  // cudaMalloc / cudaFree calls
  int64_t max_split_size = 0;
  // The flat dictionary of torch.cuda.memory_stats(): "<stat>.<pool>.<current|peak|allocated|freed>" and the counts.
  std::vector<std::pair<std::string, int64_t>> flat() const;
};

// One segment of snapshot(): its blocks in address order.
struct SegmentSnapshot {
  struct BlockInfo {
    uintptr_t address;
    size_t size, requested;
    const char* state;  // "active_allocated", "active_pending_free" (freed, other streams still use it), "inactive"
  };
  uintptr_t address, stream;
  size_t total_size = 0, allocated_size = 0, active_size = 0, requested_size = 0;
  bool small;
  std::vector<BlockInfo> blocks;
};

class CachingAllocator final : public Allocator {
 public:
  struct Options {
    bool caching = true;
    size_t max_split_size = SIZE_MAX;           // blocks above this are never split
    std::function<uintptr_t()> current_stream;  // the stream allocate(nbytes) allocates for (none: stream 0)
  };
  CachingAllocator(std::unique_ptr<DeviceMemory> memory, std::string device_name, Options options);
  CachingAllocator(std::unique_ptr<DeviceMemory> memory, std::string device_name)
      : CachingAllocator(std::move(memory), std::move(device_name), Options()) {}
  ~CachingAllocator() override;

  void* allocate(size_t nbytes) override {
    return allocate(nbytes, options_.current_stream ? options_.current_stream() : 0);
  }
  void* allocate(size_t nbytes, uintptr_t stream);
  void deallocate(void* ptr, size_t nbytes) override;
  void record_stream(void* ptr, uintptr_t stream);

  MemoryStats stats() const override;
  AllocatorStats detailed_stats() const;
  void reset_peak_stats() override;
  void reset_accumulated_stats();
  void empty_cache() override;
  size_t num_segments() const;
  // Reserved memory may not grow past `bytes` (SIZE_MAX: no limit). Lowering it frees nothing already reserved.
  void set_memory_limit(size_t bytes);
  size_t memory_limit() const;
  bool owns(void* ptr) const;  // ptr is a live allocation of this allocator
  std::vector<SegmentSnapshot> snapshot() const;

  static constexpr size_t kMinBlock = 512;
  static constexpr size_t kSmallSize = size_t(1) << 20;
  static constexpr size_t kSmallSegment = size_t(2) << 20;
  static constexpr size_t kLargeSegment = size_t(20) << 20;
  static constexpr size_t kMinLargeAlloc = size_t(10) << 20;
  static constexpr size_t kRoundLarge = size_t(2) << 20;

 private:
  struct Block {
    char* ptr;
    size_t size;
    uintptr_t stream;
    bool small;
    bool allocated = false;
    bool counted_split = false;  // counted in inactive_split while in its pool
    size_t requested = 0;        // the caller's nbytes while allocated
    int pending_events = 0;
    Block* prev = nullptr;  // neighbours in the same segment
    Block* next = nullptr;
    std::set<uintptr_t> uses;  // other streams that used it (record_stream)
  };
  struct BySize {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BySize>;

  Pool& pool_of(const Block* b) { return b->small ? small_ : large_; }
  void pool_insert(Block* b);
  void pool_erase(Block* b);
  void stat_update(Stat (&st)[3], bool small, int64_t n);
  Block* find_free(size_t size, uintptr_t stream, bool small);
  Block* new_segment(size_t size, uintptr_t stream, bool small);
  void free_block(Block* b);
  void release_segment(Block* b);  // returns a whole segment to the device
  void process_events();
  void release_cached();
  [[noreturn]] void out_of_memory(size_t requested, size_t segment);

  std::unique_ptr<DeviceMemory> memory_;
  std::string device_;
  Options options_;
  mutable std::mutex mu_;
  Pool small_, large_;
  std::unordered_map<void*, Block*> live_;
  std::deque<std::pair<uintptr_t, Block*>> pending_;  // (event, block) of freed blocks other streams still use
  MemoryCounter counter_;
  AllocatorStats st_;
  size_t limit_ = SIZE_MAX;  // on reserved bytes (set_memory_limit)
  size_t segments_ = 0;      // obtained from the device and not yet returned
};

}  // namespace ember
