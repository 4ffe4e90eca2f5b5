#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "ember/ops.h"
#include "ember/parallel.h"

using namespace ember;

// Many back-to-back jobs with varying chunk counts, including the first job of a fresh pool: every
// element is visited exactly once and nothing hangs.
TEST(Parallel, EveryChunkRunsOnceAcrossManyJobs) {
  set_num_threads(2);  // a fresh pool
  for (int rep = 0; rep < 5000; ++rep) {
    const int64_t n = (rep % 3) * 40000 + 10;
    std::atomic<int64_t> visited{0};
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) { visited += e - b; });
    ASSERT_EQ(visited.load(), n) << "job " << rep;
  }
}

TEST(Parallel, ExceptionsPropagateToTheCaller) {
  set_num_threads(2);
  EXPECT_THROW(parallel_for(0, 1 << 20, 1024,
                            [](int64_t b, int64_t) {
                              if (b > 0) throw std::runtime_error("worker failed");
                            }),
               std::runtime_error);
  std::atomic<int64_t> visited{0};  // the pool still works afterwards
  parallel_for(0, 1 << 20, 1024, [&](int64_t b, int64_t e) { visited += e - b; });
  EXPECT_EQ(visited.load(), 1 << 20);
}

TEST(Parallel, NestedCallsRunSerially) {
  std::atomic<int64_t> inner{0};
  parallel_for(0, 1 << 17, 1024, [&](int64_t, int64_t) {
    EXPECT_TRUE(in_parallel_region());
    parallel_for(0, 100000, 10, [&](int64_t b, int64_t e) { inner += e - b; });
  });
  EXPECT_EQ(inner.load() % 100000, 0);
  EXPECT_FALSE(in_parallel_region());
}

TEST(Parallel, ThreadCountDoesNotChangeResults) {
  Tensor x = rand({{1 << 20}});
  set_num_threads(1);
  const double one = sum(x, {}, false, ScalarType::Float64).item<double>();
  Tensor e1 = exp(x);
  set_num_threads(2);
  const double two = sum(x, {}, false, ScalarType::Float64).item<double>();
  Tensor e2 = exp(x);
  EXPECT_NEAR(one, two, 1e-9 * one);  // the split differs, so float64 rounding may too
  EXPECT_TRUE(item(all(eq(e1, e2))).to_bool());
  EXPECT_THROW(set_num_threads(0), ValueError);
}
