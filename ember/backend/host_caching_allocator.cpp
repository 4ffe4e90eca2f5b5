#include "ember/backend/host_caching_allocator.h"

#include <bit>
#include <cstdio>

#include "ember/error.h"

namespace ember {

HostCachingAllocator::HostCachingAllocator(std::unique_ptr<DeviceMemory> memory) : memory_(std::move(memory)) {}

HostCachingAllocator::~HostCachingAllocator() {
  // Blocks still handed out belong to tensors that outlive the allocator (process exit): leave them to the OS.
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [event, block] : pending_) memory_->destroy_event(event);
  pending_.clear();
  release_cached();
}

size_t HostCachingAllocator::round_size(size_t nbytes) { return nbytes <= 512 ? 512 : std::bit_ceil(nbytes); }

void* HostCachingAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> l(mu_);
  process_events();
  const size_t size = round_size(nbytes);
  Block* b = nullptr;
  if (auto it = free_.find(size); it != free_.end()) {
    b = it->second;
    free_.erase(it);
  } else {
    void* p = memory_->malloc(size);
    if (!p) {
      release_cached();
      p = memory_->malloc(size);
    }
    if (!p) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f MiB", double(size) / double(1 << 20));
      throw OutOfMemoryError(std::string("pinned host memory: out of memory. Tried to allocate ") + buf +
                             " of page-locked host memory");
    }
    b = new Block();
    b->ptr = static_cast<char*>(p);
    b->size = size;
    blocks_[b->ptr] = b;
    counter_.on_sys_alloc(int64_t(size));
  }
  b->allocated = true;
  counter_.on_alloc(int64_t(size));
  return b->ptr;
}

void HostCachingAllocator::deallocate(void* ptr, size_t) {
  if (!ptr) return;
  std::lock_guard<std::mutex> l(mu_);
  auto it = blocks_.find(static_cast<const char*>(ptr));
  EMBER_CHECK(it != blocks_.end() && it->second->allocated,
              "pinned memory allocator: freeing a pointer it did not hand out");
  Block* b = it->second;
  b->allocated = false;
  counter_.on_free(int64_t(b->size));
  for (uintptr_t s : b->streams) {
    pending_.emplace_back(memory_->record_event(s), b);
    ++b->pending_events;
  }
  b->streams.clear();
  if (b->pending_events == 0) free_.emplace(b->size, b);
}

void HostCachingAllocator::record_stream(const void* ptr, uintptr_t stream) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = blocks_.upper_bound(static_cast<const char*>(ptr));
  EMBER_CHECK(it != blocks_.begin(), "pinned memory allocator: record_stream on memory it did not hand out");
  Block* b = std::prev(it)->second;
  EMBER_CHECK(b->allocated && static_cast<const char*>(ptr) < b->ptr + b->size,
              "pinned memory allocator: record_stream on memory it did not hand out");
  b->streams.insert(stream);
}

bool HostCachingAllocator::contains(const void* ptr) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = blocks_.upper_bound(static_cast<const char*>(ptr));
  if (it == blocks_.begin()) return false;
  const Block* b = std::prev(it)->second;
  return b->allocated && static_cast<const char*>(ptr) < b->ptr + b->size;
}

void HostCachingAllocator::process_events() {
  poll_events(*memory_, pending_, [this](Block* b) {
    if (--b->pending_events == 0) free_.emplace(b->size, b);
  });
}

void HostCachingAllocator::release_cached() {
  process_events();
  for (auto& [size, b] : free_) {
    memory_->free(b->ptr);
    counter_.on_sys_free(int64_t(b->size));
    blocks_.erase(b->ptr);
    delete b;
  }
  free_.clear();
}

MemoryStats HostCachingAllocator::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return counter_.s;
}

void HostCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> l(mu_);
  counter_.reset_peak();
}

void HostCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> l(mu_);
  release_cached();
}

size_t HostCachingAllocator::num_cached_blocks() const {
  std::lock_guard<std::mutex> l(mu_);
  return free_.size();
}

}  // namespace ember
