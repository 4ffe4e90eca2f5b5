#include "ember/backend/caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "ember/error.h"
#include "ember/profiler/profiler.h"

namespace ember {

namespace {

size_t round_size(size_t n) {
  return n < CachingAllocator::kMinBlock ? CachingAllocator::kMinBlock : (n + 511) / 512 * 512;
}

size_t segment_size(size_t size) {
  if (size <= CachingAllocator::kSmallSize) return CachingAllocator::kSmallSegment;
  if (size < CachingAllocator::kMinLargeAlloc) return CachingAllocator::kLargeSegment;
  const size_t r = CachingAllocator::kRoundLarge;
  return (size + r - 1) / r * r;
}

std::string mib(size_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / double(1 << 20));
  return buf;
}

// The device a memory event is recorded for, from the allocator's name ("cuda:1").
Device profiled_device(const std::string& name) {
  const auto colon = name.find(':');
  return Device(DeviceType::CUDA, colon == std::string::npos ? -1 : std::atoi(name.c_str() + colon + 1));
}

}  // namespace

bool CachingAllocator::BySize::operator()(const Block* a, const Block* b) const {
  return std::tie(a->stream, a->size, a->ptr) < std::tie(b->stream, b->size, b->ptr);
}

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceMemory> memory, std::string device_name, Options options)
    : memory_(std::move(memory)), device_(std::move(device_name)), options_(options) {}

CachingAllocator::~CachingAllocator() {
  // Memory still handed out belongs to tensors that outlive the allocator (process exit): leave it to the driver.
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [event, block] : pending_) memory_->destroy_event(event);
  pending_.clear();
  release_cached();
}

void CachingAllocator::stat_update(Stat (&st)[3], bool small, int64_t n) {
  for (int i : {int(AllocatorStats::kAll), small ? int(AllocatorStats::kSmall) : int(AllocatorStats::kLarge)}) {
    if (n >= 0)
      st[i].add(n);
    else
      st[i].sub(-n);
  }
}

// Free blocks enter and leave their pool only here, which keeps inactive_split (free blocks of a split segment)
// right: a pooled block's neighbours change only through merges, which take it out of the pool first.
void CachingAllocator::pool_insert(Block* b) {
  b->counted_split = b->prev || b->next;
  if (b->counted_split) {
    stat_update(st_.inactive_split, b->small, 1);
    stat_update(st_.inactive_split_bytes, b->small, int64_t(b->size));
  }
  pool_of(b).insert(b);
}

void CachingAllocator::pool_erase(Block* b) {
  if (b->counted_split) {
    stat_update(st_.inactive_split, b->small, -1);
    stat_update(st_.inactive_split_bytes, b->small, -int64_t(b->size));
    b->counted_split = false;
  }
  pool_of(b).erase(b);
}

CachingAllocator::Block* CachingAllocator::find_free(size_t size, uintptr_t stream, bool small) {
  Pool& pool = small ? small_ : large_;
  Block key{nullptr, size, stream, small};
  for (auto it = pool.lower_bound(&key); it != pool.end() && (*it)->stream == stream; ++it) {
    Block* b = *it;
    // An oversize block serves only oversize requests (splitting it would fragment it for good).
    if (b->size > options_.max_split_size && size <= options_.max_split_size) continue;
    pool_erase(b);
    return b;
  }
  return nullptr;
}

CachingAllocator::Block* CachingAllocator::new_segment(size_t size, uintptr_t stream, bool small) {
  const size_t bytes = options_.caching ? segment_size(size) : size;
  // Past the limit on reserved memory, the request fails as if the device were out of memory.
  auto device_malloc = [&]() -> void* {
    if (limit_ != SIZE_MAX && (bytes > limit_ || size_t(counter_.s.reserved) > limit_ - bytes)) return nullptr;
    return memory_->malloc(bytes);
  };
  void* p = device_malloc();
  if (!p) {
    ++st_.num_alloc_retries;
    release_cached();
    p = device_malloc();
  }
  if (!p) {
    ++st_.num_ooms;
    out_of_memory(size, bytes);
  }
  counter_.on_sys_alloc(int64_t(bytes));
  ++segments_;
  ++st_.num_device_alloc;
  stat_update(st_.segment, small, 1);
  stat_update(st_.reserved_bytes, small, int64_t(bytes));
  if (bytes > options_.max_split_size) st_.oversize_segments.add(1);
  return new Block{static_cast<char*>(p), bytes, stream, small};
}

void* CachingAllocator::allocate(size_t nbytes, uintptr_t stream) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> l(mu_);
  process_events();
  const size_t size = round_size(nbytes);
  const bool small = size <= kSmallSize;
  Block* b = options_.caching ? find_free(size, stream, small) : nullptr;
  if (!b) b = new_segment(size, stream, small);
  const size_t rest = b->size - size;
  const bool split = options_.caching && b->size <= options_.max_split_size &&
                     (small ? rest >= kMinBlock : rest > kSmallSize);
  if (split) {
    Block* r = new Block{b->ptr + size, rest, stream, small};
    r->prev = b;
    r->next = b->next;
    if (b->next) b->next->prev = r;
    b->next = r;
    b->size = size;
    pool_insert(r);
  }
  b->allocated = true;
  b->requested = nbytes;
  live_[b->ptr] = b;
  counter_.on_alloc(int64_t(b->size));
  stat_update(st_.allocation, small, 1);
  stat_update(st_.allocated_bytes, small, int64_t(b->size));
  stat_update(st_.requested_bytes, small, int64_t(nbytes));
  stat_update(st_.active, small, 1);
  stat_update(st_.active_bytes, small, int64_t(b->size));
  if (b->size > options_.max_split_size) st_.oversize_allocations.add(1);
  if (profiler::memory_active()) [[unlikely]]
    profiler::record_memory_slow(b->ptr, int64_t(nbytes), profiled_device(device_));
  return b->ptr;
}

void CachingAllocator::deallocate(void* ptr, size_t /*nbytes*/) {
  if (!ptr) return;
  std::lock_guard<std::mutex> l(mu_);
  auto it = live_.find(ptr);
  EMBER_CHECK(it != live_.end(), device_, " caching allocator: freeing a pointer it did not allocate");
  Block* b = it->second;
  live_.erase(it);
  if (profiler::memory_active()) [[unlikely]]
    profiler::record_memory_slow(ptr, -int64_t(b->requested), profiled_device(device_));
  counter_.on_free(int64_t(b->size));
  stat_update(st_.allocation, b->small, -1);
  stat_update(st_.allocated_bytes, b->small, -int64_t(b->size));
  stat_update(st_.requested_bytes, b->small, -int64_t(b->requested));
  if (b->size > options_.max_split_size) st_.oversize_allocations.sub(1);
  if (!b->uses.empty()) {
    // Work queued on the other streams may still read or write it: reusable once their events have completed.
    for (uintptr_t s : b->uses) {
      pending_.emplace_back(memory_->record_event(s), b);
      ++b->pending_events;
    }
    b->uses.clear();
    return;
  }
  free_block(b);
}

void CachingAllocator::record_stream(void* ptr, uintptr_t stream) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = live_.find(ptr);
  EMBER_CHECK(it != live_.end(), device_, " caching allocator: record_stream on a pointer it did not allocate");
  if (stream != it->second->stream) it->second->uses.insert(stream);
}

// Called once a block is no longer in use by any stream: it leaves the active statistics.
void CachingAllocator::free_block(Block* b) {
  b->allocated = false;
  stat_update(st_.active, b->small, -1);
  stat_update(st_.active_bytes, b->small, -int64_t(b->size));
  if (!options_.caching) {
    release_segment(b);
    return;
  }
  // Merge with free neighbours of the same segment (a neighbour waiting on events counts as in use).
  if (Block* p = b->prev; p && !p->allocated && p->pending_events == 0) {
    pool_erase(p);
    p->size += b->size;
    p->next = b->next;
    if (b->next) b->next->prev = p;
    delete b;
    b = p;
  }
  if (Block* n = b->next; n && !n->allocated && n->pending_events == 0) {
    pool_erase(n);
    b->size += n->size;
    b->next = n->next;
    if (n->next) n->next->prev = b;
    delete n;
  }
  pool_insert(b);
}

void CachingAllocator::release_segment(Block* b) {
  memory_->free(b->ptr);
  counter_.on_sys_free(int64_t(b->size));
  --segments_;
  ++st_.num_device_free;
  stat_update(st_.segment, b->small, -1);
  stat_update(st_.reserved_bytes, b->small, -int64_t(b->size));
  if (b->size > options_.max_split_size) st_.oversize_segments.sub(1);
  delete b;
}

void CachingAllocator::process_events() {
  poll_events(*memory_, pending_, [this](Block* b) {
    if (--b->pending_events == 0) free_block(b);
  });
}

void CachingAllocator::release_cached() {
  process_events();
  for (Pool* pool : {&small_, &large_})
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      if (b->prev || b->next) {  // part of a segment that is partly in use
        ++it;
        continue;
      }
      it = pool->erase(it);  // a whole segment: never counted in inactive_split
      release_segment(b);
    }
}

void CachingAllocator::out_of_memory(size_t requested, size_t segment) {
  const MemoryStats& s = counter_.s;
  throw OutOfMemoryError(
      device_ + " out of memory. Tried to allocate " + mib(requested) + " (a segment of " + mib(segment) +
      "); ember has " + mib(size_t(s.allocated)) + " allocated and " + mib(size_t(s.reserved)) +
      " reserved (allocated + cached); the device has " + mib(memory_->free_bytes()) + " free" +
      (limit_ == SIZE_MAX ? std::string() : "; " + mib(limit_) + " allowed (set_per_process_memory_fraction)"));
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return counter_.s;
}

AllocatorStats CachingAllocator::detailed_stats() const {
  std::lock_guard<std::mutex> l(mu_);
  AllocatorStats s = st_;
  s.max_split_size = options_.max_split_size == SIZE_MAX ? -1 : int64_t(options_.max_split_size);
  return s;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> l(mu_);
  counter_.reset_peak();
  for (Stat* a : {st_.allocation, st_.segment, st_.active, st_.inactive_split, st_.allocated_bytes, st_.reserved_bytes,
                  st_.active_bytes, st_.inactive_split_bytes, st_.requested_bytes})
    for (int i = 0; i < 3; ++i) a[i].reset_peak();
  st_.oversize_allocations.reset_peak();
  st_.oversize_segments.reset_peak();
}

void CachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> l(mu_);
  for (Stat* a : {st_.allocation, st_.segment, st_.active, st_.inactive_split, st_.allocated_bytes, st_.reserved_bytes,
                  st_.active_bytes, st_.inactive_split_bytes, st_.requested_bytes})
    for (int i = 0; i < 3; ++i) a[i].reset_accumulated();
  st_.oversize_allocations.reset_accumulated();
  st_.oversize_segments.reset_accumulated();
  st_.num_alloc_retries = st_.num_ooms = st_.num_sync_all_streams = 0;
  st_.num_device_alloc = st_.num_device_free = 0;
}

std::vector<std::pair<std::string, int64_t>> AllocatorStats::flat() const {
  std::vector<std::pair<std::string, int64_t>> r;
  auto put = [&](const std::string& name, const Stat& s) {
    r.emplace_back(name + ".current", s.current);
    r.emplace_back(name + ".peak", s.peak);
    r.emplace_back(name + ".allocated", s.allocated);
    r.emplace_back(name + ".freed", s.freed);
  };
  const std::pair<const char*, const Stat*> arrays[] = {{"active", active},
                                                        {"active_bytes", active_bytes},
                                                        {"allocated_bytes", allocated_bytes},
                                                        {"allocation", allocation},
                                                        {"inactive_split", inactive_split},
                                                        {"inactive_split_bytes", inactive_split_bytes},
                                                        {"requested_bytes", requested_bytes},
                                                        {"reserved_bytes", reserved_bytes},
                                                        {"segment", segment}};
  for (auto& [name, a] : arrays) {
    const char* pools[] = {"all", "small_pool", "large_pool"};
    for (int i = 0; i < 3; ++i) put(std::string(name) + "." + pools[i], a[i]);
  }
  r.emplace_back("max_split_size", max_split_size);
  r.emplace_back("num_alloc_retries", num_alloc_retries);
  r.emplace_back("num_device_alloc", num_device_alloc);
  r.emplace_back("num_device_free", num_device_free);
  r.emplace_back("num_ooms", num_ooms);
  r.emplace_back("num_sync_all_streams", num_sync_all_streams);
  put("oversize_allocations", oversize_allocations);
  put("oversize_segments", oversize_segments);
  return r;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> l(mu_);
  release_cached();
}

size_t CachingAllocator::num_segments() const {
  std::lock_guard<std::mutex> l(mu_);
  return segments_;
}

void CachingAllocator::set_memory_limit(size_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  limit_ = bytes;
}

size_t CachingAllocator::memory_limit() const {
  std::lock_guard<std::mutex> l(mu_);
  return limit_;
}

bool CachingAllocator::owns(void* ptr) const {
  std::lock_guard<std::mutex> l(mu_);
  return live_.count(ptr) > 0;
}

std::vector<SegmentSnapshot> CachingAllocator::snapshot() const {
  std::lock_guard<std::mutex> l(mu_);
  // Every block is allocated (live_), waiting for other streams' events (pending_) or free in a pool; a segment is
  // the chain of blocks from one without a predecessor.
  std::set<const Block*> heads;
  auto add = [&](const Block* b) {
    while (b->prev) b = b->prev;
    heads.insert(b);
  };
  for (auto& [p, b] : live_) add(b);
  for (auto& [e, b] : pending_) add(b);
  for (const Pool* pool : {&small_, &large_})
    for (const Block* b : *pool) add(b);
  std::vector<SegmentSnapshot> r;
  for (const Block* h : heads) {
    SegmentSnapshot s;
    s.address = reinterpret_cast<uintptr_t>(h->ptr);
    s.stream = h->stream;
    s.small = h->small;
    for (const Block* b = h; b; b = b->next) {
      // A freed block that other streams still use stays `allocated` until their events complete (free_block).
      const bool pending = b->pending_events > 0, in_use = b->allocated && !pending;
      const char* state = in_use ? "active_allocated" : pending ? "active_pending_free" : "inactive";
      s.blocks.push_back({reinterpret_cast<uintptr_t>(b->ptr), b->size, in_use ? b->requested : 0, state});
      s.total_size += b->size;
      if (in_use) {
        s.allocated_size += b->size;
        s.requested_size += b->requested;
      }
      if (b->allocated) s.active_size += b->size;
    }
    r.push_back(std::move(s));
  }
  std::sort(r.begin(), r.end(),
            [](const SegmentSnapshot& a, const SegmentSnapshot& b) { return a.address < b.address; });
  return r;
}

}  // namespace ember
