// The pinned host memory allocator's logic (ember/backend/host_caching_allocator.h, Note [Pinned host memory]) on the
// fake device of tests/fake_device.h: blocks are reused only after the streams that used them have passed events.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ember/backend/host_caching_allocator.h"
#include "ember/error.h"
#include "fake_device.h"

using namespace ember;
using ember::test_support::FakeDevice;

namespace {

constexpr size_t MiB = size_t(1) << 20;

struct HostFixture : ember::test_support::FakeFixture<HostCachingAllocator> {
  explicit HostFixture(size_t capacity = 1024 * MiB) : FakeFixture(capacity) {}
};

}  // namespace

TEST(HostCachingAllocator, SizesAreRoundedToPowersOfTwoAndFreedBlocksAreReused) {
  HostFixture f;
  EXPECT_EQ(HostCachingAllocator::round_size(1), 512u);
  EXPECT_EQ(HostCachingAllocator::round_size(513), 1024u);
  EXPECT_EQ(HostCachingAllocator::round_size(3 * MiB), 4 * MiB);
  void* a = f.alloc->allocate(3000);
  EXPECT_EQ(f.dev->blocks.at(a), 4096u);
  f.alloc->deallocate(a);
  EXPECT_EQ(f.dev->frees, 0);         // cached
  void* b = f.alloc->allocate(2500);  // same size class: the same block
  EXPECT_EQ(b, a);
  void* c = f.alloc->allocate(5000);  // another size class: a new block
  EXPECT_NE(c, a);
  EXPECT_EQ(f.dev->mallocs, 2);
  MemoryStats s = f.alloc->stats();
  EXPECT_EQ(s.allocated, 4096 + 8192);
  EXPECT_EQ(s.reserved, 4096 + 8192);
  EXPECT_EQ(s.num_sys_allocs, 2);
  f.alloc->deallocate(b);
  f.alloc->deallocate(c);
  EXPECT_EQ(f.alloc->stats().allocated, 0);
  EXPECT_EQ(f.alloc->num_cached_blocks(), 2u);
  f.alloc->empty_cache();
  EXPECT_EQ(f.dev->frees, 2);
  EXPECT_EQ(f.dev->used, 0u);
  EXPECT_EQ(f.alloc->stats().reserved, 0);
}

TEST(HostCachingAllocator, ABlockUsedByAStreamWaitsForItsEventBeforeReuse) {
  HostFixture f;
  char* a = static_cast<char*>(f.alloc->allocate(4096));
  f.alloc->record_stream(a + 100, 7);  // a non_blocking copy from a view of the block, on stream 7
  f.alloc->record_stream(a, 8);        // and one on stream 8
  f.alloc->deallocate(a);
  ASSERT_EQ(f.dev->events.size(), 2u);  // one event per stream, recorded at the free
  std::set<uintptr_t> streams;
  for (auto& [e, s] : f.dev->event_stream) streams.insert(s);
  EXPECT_EQ(streams, (std::set<uintptr_t>{7, 8}));
  void* b = f.alloc->allocate(4096);
  EXPECT_NE(b, a);  // the copies may still read a
  f.dev->events.begin()->second = true;
  void* c = f.alloc->allocate(4096);
  EXPECT_NE(c, a);  // one of the two streams is still pending
  f.dev->complete_all();
  void* d = f.alloc->allocate(4096);
  EXPECT_EQ(d, a);
  EXPECT_TRUE(f.dev->events.empty());  // destroyed once seen complete
  // A reused block starts with no streams: freeing it again records no events.
  f.alloc->deallocate(d);
  EXPECT_TRUE(f.dev->events.empty());
  f.alloc->deallocate(b);
  f.alloc->deallocate(c);
}

TEST(HostCachingAllocator, ContainsFindsPointersInsideLiveBlocksOnly) {
  HostFixture f;
  char* a = static_cast<char*>(f.alloc->allocate(1000));  // a 1024-byte block
  EXPECT_TRUE(f.alloc->contains(a));
  EXPECT_TRUE(f.alloc->contains(a + 1023));
  EXPECT_FALSE(f.alloc->contains(a + 1024));
  EXPECT_FALSE(f.alloc->contains(a - 1));
  int local = 0;
  EXPECT_FALSE(f.alloc->contains(&local));
  f.alloc->deallocate(a);
  EXPECT_FALSE(f.alloc->contains(a));           // cached, not handed out
  EXPECT_THROW(f.alloc->deallocate(a), Error);  // double free
  EXPECT_THROW(f.alloc->record_stream(&local, 1), Error);
}

TEST(HostCachingAllocator, OutOfMemoryReleasesTheCacheRetriesThenRaises) {
  HostFixture f(8 * MiB);
  void* a = f.alloc->allocate(4 * MiB);
  f.alloc->deallocate(a);                // 4 MiB cached
  void* b = f.alloc->allocate(6 * MiB);  // an 8 MiB block: fits only once the cache is released
  EXPECT_EQ(f.dev->frees, 1);
  try {
    f.alloc->allocate(1);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("pinned host memory: out of memory"), std::string::npos) << e.what();
  }
  f.alloc->deallocate(b);
  void* c = f.alloc->allocate(1);  // works again
  EXPECT_NE(c, nullptr);
  f.alloc->deallocate(c);
}
