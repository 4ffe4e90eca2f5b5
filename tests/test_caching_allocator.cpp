// The caching allocator's logic (ember/backend/caching_allocator.h, Note [Caching allocator]) on a fake device
// (tests/fake_device.h) whose memory is host memory with a capacity, and whose events complete when the test says so.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "ember/backend/caching_allocator.h"
#include "ember/error.h"
#include "fake_device.h"

using namespace ember;
using ember::test_support::FakeDevice;

namespace {

constexpr size_t MiB = size_t(1) << 20;

struct Fixture : ember::test_support::FakeFixture<CachingAllocator> {
  explicit Fixture(size_t capacity = 1024 * MiB, CachingAllocator::Options o = {})
      : FakeFixture(capacity, "fake:0", o) {}
};

}  // namespace

TEST(CachingAllocator, SmallRequestsAreRoundedAndShareATwoMiBSegment) {
  Fixture f;
  char* a = static_cast<char*>(f.alloc->allocate(1));
  char* b = static_cast<char*>(f.alloc->allocate(1000));
  EXPECT_EQ(b, a + 512);  // 1 byte takes 512, then the next block of the same segment
  EXPECT_EQ(f.dev->mallocs, 1);
  EXPECT_EQ(f.dev->used, 2 * MiB);
  MemoryStats s = f.alloc->stats();
  EXPECT_EQ(s.allocated, 512 + 1024);
  EXPECT_EQ(s.reserved, int64_t(2 * MiB));
  EXPECT_EQ(s.num_sys_allocs, 1);
  f.alloc->deallocate(a, 1);
  f.alloc->deallocate(b, 1000);
  EXPECT_EQ(f.alloc->stats().allocated, 0);
  EXPECT_EQ(f.dev->frees, 0);  // cached, not returned
}

TEST(CachingAllocator, ASteadyLoopMakesNoDeviceCalls) {
  Fixture f;
  for (int it = 0; it < 50; ++it) {
    void* x = f.alloc->allocate(3 * MiB);
    void* y = f.alloc->allocate(300 * 1024);
    void* z = f.alloc->allocate(40 * MiB);
    f.alloc->deallocate(y, 0);
    f.alloc->deallocate(x, 0);
    f.alloc->deallocate(z, 0);
  }
  EXPECT_EQ(f.dev->mallocs, 3);  // one 20 MiB, one 2 MiB and one 40 MiB segment, then reuse
  EXPECT_EQ(f.alloc->stats().num_allocs, 150);
  EXPECT_EQ(f.alloc->stats().peak_allocated, int64_t(3 * MiB + 300 * 1024 + 40 * MiB));
}

TEST(CachingAllocator, FreedNeighboursMergeAndLargeSegmentsAreSizedByTheRequest) {
  Fixture f;
  char* a = static_cast<char*>(f.alloc->allocate(2 * MiB));  // a 20 MiB segment, split
  char* b = static_cast<char*>(f.alloc->allocate(2 * MiB));
  char* c = static_cast<char*>(f.alloc->allocate(2 * MiB));
  EXPECT_EQ(b, a + 2 * MiB);
  EXPECT_EQ(c, b + 2 * MiB);
  f.alloc->deallocate(b, 0);
  f.alloc->deallocate(a, 0);  // merges with b
  char* d = static_cast<char*>(f.alloc->allocate(4 * MiB));
  EXPECT_EQ(d, a);
  EXPECT_EQ(f.dev->mallocs, 1);
  // 15 MiB does not fit the segment's free 14 MiB; >= 10 MiB: a segment of its own, rounded up to 2 MiB.
  char* big = static_cast<char*>(f.alloc->allocate(15 * MiB + 1));
  EXPECT_EQ(f.dev->mallocs, 2);
  EXPECT_EQ(f.dev->blocks.at(big), 16 * MiB);
  f.alloc->deallocate(c, 0);
  f.alloc->deallocate(d, 0);
  f.alloc->deallocate(big, 0);
  EXPECT_EQ(f.alloc->num_segments(), 2u);
  f.alloc->empty_cache();  // every segment is whole again: all go back
  EXPECT_EQ(f.dev->frees, 2);
  EXPECT_EQ(f.dev->used, 0u);
  EXPECT_EQ(f.alloc->stats().reserved, 0);
  EXPECT_EQ(f.alloc->num_segments(), 0u);
}

TEST(CachingAllocator, BlocksStayWithTheirStreamAndRecordStreamDefersReuse) {
  Fixture f;
  const uintptr_t s1 = 11, s2 = 22;
  void* a = f.alloc->allocate(4096, s1);
  f.alloc->deallocate(a, 0);
  void* b = f.alloc->allocate(4096, s2);  // not a's block: it was freed on s1
  EXPECT_NE(a, b);
  EXPECT_EQ(f.dev->mallocs, 2);
  void* c = f.alloc->allocate(4096, s1);
  EXPECT_EQ(c, a);                // same stream: reused
  f.alloc->record_stream(c, s2);  // s2's queued work reads c
  f.alloc->deallocate(c, 0);
  void* d = f.alloc->allocate(4096, s1);
  EXPECT_NE(d, c);  // not until s2's event completes
  ASSERT_EQ(f.dev->events.size(), 1u);
  f.dev->events.begin()->second = true;
  void* e = f.alloc->allocate(4096, s1);
  EXPECT_EQ(e, c);
  EXPECT_TRUE(f.dev->events.empty());  // destroyed once seen complete
  for (void* p : {b, d, e}) f.alloc->deallocate(p, 0);
}

TEST(CachingAllocator, OutOfMemoryFreesTheCacheRetriesThenRaisesAndRecovers) {
  Fixture f(64 * MiB);
  void* a = f.alloc->allocate(30 * MiB);
  void* b = f.alloc->allocate(30 * MiB);
  f.alloc->deallocate(a, 0);              // 30 MiB cached
  void* c = f.alloc->allocate(32 * MiB);  // fails at first, fits after the cache is released
  EXPECT_EQ(f.dev->frees, 1);
  try {
    f.alloc->allocate(40 * MiB);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("fake:0 out of memory. Tried to allocate 40.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("62.00 MiB allocated and 62.00 MiB reserved"), std::string::npos) << m;
    EXPECT_NE(m.find("the device has 2.00 MiB free"), std::string::npos) << m;
  }
  f.alloc->deallocate(b, 0);
  void* d = f.alloc->allocate(20 * MiB);  // still works, and reuses b's segment
  EXPECT_EQ(f.dev->mallocs, 3);
  f.alloc->deallocate(c, 0);
  f.alloc->deallocate(d, 0);
}

TEST(CachingAllocator, OversizeBlocksAreNotSplitAndServeOnlyLargeRequests) {
  Fixture f(1024 * MiB, {.caching = true, .max_split_size = 16 * MiB});
  void* big = f.alloc->allocate(64 * MiB);
  f.alloc->deallocate(big, 0);
  void* small = f.alloc->allocate(12 * MiB);  // below max_split_size: a segment of its own
  EXPECT_NE(small, big);
  void* again = f.alloc->allocate(40 * MiB);  // oversize request: takes the cached 64 MiB block whole
  EXPECT_EQ(again, big);
  EXPECT_EQ(f.alloc->stats().allocated, int64_t(64 * MiB + 12 * MiB));
  f.alloc->deallocate(small, 0);
  f.alloc->deallocate(again, 0);
}

TEST(CachingAllocator, WithCachingOffEveryFreeReturnsTheMemory) {
  Fixture f(1024 * MiB, {.caching = false});
  for (int i = 0; i < 5; ++i) f.alloc->deallocate(f.alloc->allocate(1000), 0);
  EXPECT_EQ(f.dev->mallocs, 5);
  EXPECT_EQ(f.dev->frees, 5);
  EXPECT_EQ(f.dev->used, 0u);
  EXPECT_EQ(f.alloc->stats().num_sys_frees, 5);
  EXPECT_THROW(f.alloc->deallocate(reinterpret_cast<void*>(0x1234), 0), Error);
}

namespace {
int64_t stat(const CachingAllocator& a, const std::string& key) {
  for (auto& [k, v] : a.detailed_stats().flat())
    if (k == key) return v;
  ADD_FAILURE() << "no statistic " << key;
  return -1;
}
}  // namespace

TEST(CachingAllocatorStats, PyTorchsKeysTrackBytesBlocksAndDeviceCalls) {
  Fixture f;
  void* a = f.alloc->allocate(1000);     // small pool: 1024 bytes of a 2 MiB segment
  void* b = f.alloc->allocate(3 * MiB);  // large pool: 3 MiB of a 20 MiB segment
  const CachingAllocator& c = *f.alloc;
  EXPECT_EQ(stat(c, "allocated_bytes.all.current"), int64_t(1024 + 3 * MiB));
  EXPECT_EQ(stat(c, "allocated_bytes.small_pool.current"), 1024);
  EXPECT_EQ(stat(c, "allocated_bytes.large_pool.current"), int64_t(3 * MiB));
  EXPECT_EQ(stat(c, "requested_bytes.all.current"), int64_t(1000 + 3 * MiB));
  EXPECT_EQ(stat(c, "reserved_bytes.all.current"), int64_t(22 * MiB));
  EXPECT_EQ(stat(c, "segment.all.current"), 2);
  EXPECT_EQ(stat(c, "allocation.all.current"), 2);
  EXPECT_EQ(stat(c, "num_device_alloc"), 2);
  // The rest of each segment is a free block of a split segment: not releasable by empty_cache.
  EXPECT_EQ(stat(c, "inactive_split.all.current"), 2);
  EXPECT_EQ(stat(c, "inactive_split_bytes.all.current"), int64_t(22 * MiB - 1024 - 3 * MiB));
  f.alloc->deallocate(a, 0);
  f.alloc->deallocate(b, 0);
  EXPECT_EQ(stat(c, "allocated_bytes.all.current"), 0);
  EXPECT_EQ(stat(c, "allocated_bytes.all.peak"), int64_t(1024 + 3 * MiB));
  EXPECT_EQ(stat(c, "allocated_bytes.all.allocated"), int64_t(1024 + 3 * MiB));
  EXPECT_EQ(stat(c, "allocated_bytes.all.freed"), int64_t(1024 + 3 * MiB));
  EXPECT_EQ(stat(c, "active.all.current"), 0);
  EXPECT_EQ(stat(c, "inactive_split.all.current"), 0);  // merged back into whole segments
  EXPECT_EQ(stat(c, "num_device_free"), 0);
  f.alloc->empty_cache();
  EXPECT_EQ(stat(c, "num_device_free"), 2);
  EXPECT_EQ(stat(c, "reserved_bytes.all.current"), 0);
  EXPECT_EQ(stat(c, "reserved_bytes.all.peak"), int64_t(22 * MiB));
  EXPECT_EQ(stat(c, "segment.all.freed"), 2);
  f.alloc->reset_peak_stats();
  EXPECT_EQ(stat(c, "reserved_bytes.all.peak"), 0);
  EXPECT_EQ(stat(c, "allocated_bytes.all.peak"), 0);
  EXPECT_EQ(stat(c, "allocated_bytes.all.allocated"), int64_t(1024 + 3 * MiB));  // accumulated: kept
  f.alloc->reset_accumulated_stats();
  EXPECT_EQ(stat(c, "allocated_bytes.all.allocated"), 0);
  EXPECT_EQ(stat(c, "num_device_alloc"), 0);
  EXPECT_EQ(stat(c, "max_split_size"), -1);
}

TEST(CachingAllocatorStats, ABlockWaitingOnAnotherStreamStaysActive) {
  Fixture f;
  void* a = f.alloc->allocate(4096, 1);
  f.alloc->record_stream(a, 2);
  f.alloc->deallocate(a, 0);
  EXPECT_EQ(stat(*f.alloc, "allocated_bytes.all.current"), 0);
  EXPECT_EQ(stat(*f.alloc, "active_bytes.all.current"), 4096);  // stream 2 may still use it
  f.dev->complete_all();
  f.alloc->deallocate(f.alloc->allocate(512, 1), 0);  // processes the completed event
  EXPECT_EQ(stat(*f.alloc, "active_bytes.all.current"), 0);
}

TEST(CachingAllocatorStats, RetriesOomsAndOversizeAreCounted) {
  Fixture f(64 * MiB, {.caching = true, .max_split_size = 16 * MiB});
  void* a = f.alloc->allocate(30 * MiB);
  EXPECT_EQ(stat(*f.alloc, "oversize_allocations.current"), 1);
  EXPECT_EQ(stat(*f.alloc, "oversize_segments.current"), 1);
  EXPECT_EQ(stat(*f.alloc, "max_split_size"), int64_t(16 * MiB));
  f.alloc->deallocate(a, 0);
  void* b = f.alloc->allocate(40 * MiB);  // the cached 30 MiB is freed and the malloc retried
  EXPECT_EQ(stat(*f.alloc, "num_alloc_retries"), 1);
  EXPECT_THROW(f.alloc->allocate(40 * MiB), OutOfMemoryError);
  EXPECT_EQ(stat(*f.alloc, "num_ooms"), 1);
  EXPECT_EQ(stat(*f.alloc, "num_alloc_retries"), 2);
  f.alloc->deallocate(b, 0);
  EXPECT_EQ(stat(*f.alloc, "oversize_allocations.current"), 0);
}

TEST(CachingAllocatorStats, WithCachingOffEveryAllocationIsADeviceCall) {
  Fixture f(1024 * MiB, {.caching = false});
  for (int i = 0; i < 4; ++i) f.alloc->deallocate(f.alloc->allocate(1000), 0);
  EXPECT_EQ(stat(*f.alloc, "num_device_alloc"), 4);
  EXPECT_EQ(stat(*f.alloc, "num_device_free"), 4);
  EXPECT_EQ(stat(*f.alloc, "reserved_bytes.all.current"), 0);
  EXPECT_EQ(stat(*f.alloc, "reserved_bytes.all.peak"), 1024);
}

// torch.cuda.set_per_process_memory_fraction: reserved memory may not grow past the limit, whatever the device has.
TEST(CachingAllocatorLimit, ASegmentPastTheLimitFailsAfterFreeingTheCacheThenTheAllocatorRecovers) {
  Fixture f(1024 * MiB);
  f.alloc->set_memory_limit(512 * MiB);  // set_per_process_memory_fraction(0.5) of 1 GiB
  EXPECT_EQ(f.alloc->memory_limit(), 512 * MiB);
  void* a = f.alloc->allocate(300 * MiB);
  try {
    f.alloc->allocate(300 * MiB);  // 600 MiB reserved would pass the limit, though the device has 724 MiB free
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of memory. Tried to allocate 300.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("512.00 MiB allowed"), std::string::npos) << m;
  }
  EXPECT_EQ(f.dev->mallocs, 1);  // the refused segment never reached the device
  AllocatorStats s = f.alloc->detailed_stats();
  EXPECT_EQ(s.num_ooms, 1);
  EXPECT_EQ(s.num_alloc_retries, 1);
  // Freed and cached, the 300 MiB segment is returned to make room for a bigger request within the limit.
  f.alloc->deallocate(a, 0);
  void* b = f.alloc->allocate(400 * MiB);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(f.dev->frees, 1);
  EXPECT_EQ(f.alloc->stats().reserved, int64_t(400 * MiB));
  f.alloc->deallocate(b, 0);
  f.alloc->set_memory_limit(SIZE_MAX);  // no limit: the device's capacity is the bound again
  void* c = f.alloc->allocate(900 * MiB);
  EXPECT_NE(c, nullptr);
  f.alloc->deallocate(c, 0);
}

TEST(CachingAllocatorLimit, ALimitOfZeroRefusesEverySegment) {
  Fixture f(64 * MiB);
  f.alloc->set_memory_limit(0);
  EXPECT_THROW(f.alloc->allocate(1), OutOfMemoryError);
  EXPECT_EQ(f.dev->mallocs, 0);
  EXPECT_EQ(f.alloc->allocate(0), nullptr);  // nothing to allocate, nothing refused
}

TEST(CachingAllocatorSnapshot, SegmentsListTheirBlocksWithStatesAndSizes) {
  Fixture f;
  EXPECT_TRUE(f.alloc->snapshot().empty());
  char* a = static_cast<char*>(f.alloc->allocate(1000));        // small segment: [a 1024][rest free]
  char* b = static_cast<char*>(f.alloc->allocate(3 * MiB, 7));  // large segment on stream 7: [b 3 MiB][rest]
  EXPECT_TRUE(f.alloc->owns(a));
  EXPECT_FALSE(f.alloc->owns(a + 512));
  auto snap = f.alloc->snapshot();
  ASSERT_EQ(snap.size(), 2u);
  const SegmentSnapshot& small = snap[0].small ? snap[0] : snap[1];
  const SegmentSnapshot& large = snap[0].small ? snap[1] : snap[0];
  EXPECT_EQ(small.address, reinterpret_cast<uintptr_t>(a));
  EXPECT_EQ(small.total_size, 2 * MiB);
  EXPECT_EQ(small.allocated_size, 1024u);
  EXPECT_EQ(small.active_size, 1024u);
  EXPECT_EQ(small.requested_size, 1000u);
  EXPECT_EQ(small.stream, 0u);
  ASSERT_EQ(small.blocks.size(), 2u);
  EXPECT_STREQ(small.blocks[0].state, "active_allocated");
  EXPECT_EQ(small.blocks[0].size, 1024u);
  EXPECT_EQ(small.blocks[0].requested, 1000u);
  EXPECT_STREQ(small.blocks[1].state, "inactive");
  EXPECT_EQ(small.blocks[1].address, reinterpret_cast<uintptr_t>(a + 1024));
  EXPECT_EQ(small.blocks[1].size, 2 * MiB - 1024);
  EXPECT_EQ(large.stream, 7u);
  EXPECT_EQ(large.total_size, 20 * MiB);
  ASSERT_EQ(large.blocks.size(), 2u);
  EXPECT_EQ(large.blocks[0].size, 3 * MiB);
  // b freed while stream 9 may still use it: pending until the event completes, then merged and inactive.
  f.alloc->record_stream(b, 9);
  f.alloc->deallocate(b, 0);
  snap = f.alloc->snapshot();
  const SegmentSnapshot& l2 = snap[0].small ? snap[1] : snap[0];
  EXPECT_STREQ(l2.blocks[0].state, "active_pending_free");
  EXPECT_EQ(l2.allocated_size, 0u);
  EXPECT_EQ(l2.active_size, 3 * MiB);
  f.dev->complete_all();
  f.alloc->deallocate(a, 0);
  f.alloc->empty_cache();  // polls the events, merges, returns both whole segments
  EXPECT_TRUE(f.alloc->snapshot().empty());
}
