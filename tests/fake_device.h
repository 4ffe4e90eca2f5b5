// A fake device for the allocators' logic (ember/backend/caching_allocator.h, host_caching_allocator.h): its memory is
// host memory with a capacity, and its events complete when the test says so.
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <utility>

#include "ember/backend/caching_allocator.h"

namespace ember::test_support {

struct FakeDevice : DeviceMemory {
  size_t capacity, used = 0;
  int mallocs = 0, frees = 0;
  std::map<void*, size_t> blocks;
  std::map<uintptr_t, bool> events;             // event -> done
  std::map<uintptr_t, uintptr_t> event_stream;  // event -> the stream it was recorded on
  uintptr_t next_event = 1;
  explicit FakeDevice(size_t cap) : capacity(cap) {}
  ~FakeDevice() override {
    for (auto& [p, n] : blocks) std::free(p);
  }
  void* malloc(size_t n) override {
    if (used + n > capacity) return nullptr;
    void* p = std::malloc(n);
    blocks[p] = n;
    used += n;
    ++mallocs;
    return p;
  }
  void free(void* p) override {
    used -= blocks.at(p);
    blocks.erase(p);
    std::free(p);
    ++frees;
  }
  size_t free_bytes() override { return capacity - used; }
  uintptr_t record_event(uintptr_t stream) override {
    events[next_event] = false;
    event_stream[next_event] = stream;
    return next_event++;
  }
  bool event_done(uintptr_t e) override { return events.at(e); }
  void destroy_event(uintptr_t e) override { events.erase(e); }
  void complete_all() {
    for (auto& [e, done] : events) done = true;
  }
};

// An allocator over a FakeDevice of `capacity` bytes; args follow the allocator's DeviceMemory argument.
template <class Alloc>
struct FakeFixture {
  FakeDevice* dev;
  std::unique_ptr<Alloc> alloc;
  template <class... A>
  explicit FakeFixture(size_t capacity, A&&... args) {
    auto d = std::make_unique<FakeDevice>(capacity);
    dev = d.get();
    alloc = std::make_unique<Alloc>(std::move(d), std::forward<A>(args)...);
  }
};

}  // namespace ember::test_support
