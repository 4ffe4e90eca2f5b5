#include "ember/backend/caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "ember/error.h"

namespace ember {

namespace {

size_t round_size(size_t n) { return n < CachingAllocator::kMinBlock ? CachingAllocator::kMinBlock
                                                                     : (n + 511) / 512 * 512; }

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

CachingAllocator::Block* CachingAllocator::find_free(size_t size, uintptr_t stream, bool small) {
  Pool& pool = small ? small_ : large_;
  Block key{nullptr, size, stream, small};
  for (auto it = pool.lower_bound(&key); it != pool.end() && (*it)->stream == stream; ++it) {
    Block* b = *it;
    // An oversize block serves only oversize requests (splitting it would fragment it for good).
    if (b->size > options_.max_split_size && size <= options_.max_split_size) continue;
    pool.erase(it);
    return b;
  }
  return nullptr;
}

CachingAllocator::Block* CachingAllocator::new_segment(size_t size, uintptr_t stream, bool small) {
  const size_t bytes = options_.caching ? segment_size(size) : size;
  void* p = memory_->malloc(bytes);
  if (!p) {
    release_cached();
    p = memory_->malloc(bytes);
  }
  if (!p) out_of_memory(size, bytes);
  counter_.on_sys_alloc(int64_t(bytes));
  ++segments_;
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
    pool_of(r).insert(r);
  }
  b->allocated = true;
  live_[b->ptr] = b;
  counter_.on_alloc(int64_t(b->size));
  return b->ptr;
}

void CachingAllocator::deallocate(void* ptr, size_t /*nbytes*/) {
  if (!ptr) return;
  std::lock_guard<std::mutex> l(mu_);
  auto it = live_.find(ptr);
  EMBER_CHECK(it != live_.end(), device_, " caching allocator: freeing a pointer it did not allocate");
  Block* b = it->second;
  live_.erase(it);
  counter_.on_free(int64_t(b->size));
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

void CachingAllocator::free_block(Block* b) {
  b->allocated = false;
  if (!options_.caching) {
    memory_->free(b->ptr);
    counter_.on_sys_free(int64_t(b->size));
    --segments_;
    delete b;
    return;
  }
  Pool& pool = pool_of(b);
  // Merge with free neighbours of the same segment (a neighbour waiting on events counts as in use).
  if (Block* p = b->prev; p && !p->allocated && p->pending_events == 0) {
    pool.erase(p);
    p->size += b->size;
    p->next = b->next;
    if (b->next) b->next->prev = p;
    delete b;
    b = p;
  }
  if (Block* n = b->next; n && !n->allocated && n->pending_events == 0) {
    pool.erase(n);
    b->size += n->size;
    b->next = n->next;
    if (n->next) n->next->prev = b;
    delete n;
  }
  pool.insert(b);
}

void CachingAllocator::process_events() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!memory_->event_done(it->first)) {
      ++it;
      continue;
    }
    memory_->destroy_event(it->first);
    Block* b = it->second;
    it = pending_.erase(it);
    if (--b->pending_events == 0) free_block(b);
  }
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
      memory_->free(b->ptr);
      counter_.on_sys_free(int64_t(b->size));
      --segments_;
      it = pool->erase(it);
      delete b;
    }
}

void CachingAllocator::out_of_memory(size_t requested, size_t segment) {
  const MemoryStats& s = counter_.s;
  throw OutOfMemoryError(device_ + " out of memory. Tried to allocate " + mib(requested) + " (a segment of " +
                         mib(segment) + "); ember has " + mib(size_t(s.allocated)) + " allocated and " +
                         mib(size_t(s.reserved)) + " reserved (allocated + cached); the device has " +
                         mib(memory_->free_bytes()) + " free");
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return counter_.s;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> l(mu_);
  counter_.reset_peak();
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> l(mu_);
  release_cached();
}

size_t CachingAllocator::num_segments() const {
  std::lock_guard<std::mutex> l(mu_);
  return segments_;
}

}  // namespace ember
