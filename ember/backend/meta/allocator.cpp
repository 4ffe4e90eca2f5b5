// The meta device's allocator: a meta storage records its size and holds no memory (Note [Meta device]).
#include "ember/allocator.h"

namespace ember {
namespace {

class MetaAllocator final : public Allocator {
 public:
  void* allocate(size_t) override { return nullptr; }
  void deallocate(void*, size_t) override {}
  MemoryStats stats() const override { return {}; }
  void reset_peak_stats() override {}
  void empty_cache() override {}
};

}  // namespace

Allocator* meta_allocator() {
  static MetaAllocator a;
  return &a;
}

}  // namespace ember
