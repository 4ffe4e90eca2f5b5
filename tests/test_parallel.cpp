#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ember/cpu_budget.h"
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

// Chunks are claimed from each thread's home share, front and back (Note [Intra-op parallelism]): for every chunk
// count against the thread count, from fewer chunks than threads to four per thread, each chunk runs exactly once.
TEST(Parallel, HomeSharesAndStealingRunEachChunkOnce) {
  set_num_threads(5);
  for (int rep = 0; rep < 200; ++rep)
    for (int64_t n = 1; n <= 20; ++n) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(n));
      parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
        for (; b < e; ++b) runs[static_cast<size_t>(b)].fetch_add(1);
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(runs[static_cast<size_t>(i)].load(), 1) << "chunk " << i << " of " << n;
    }
  set_num_threads(2);
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

// A long all()/any() into one output splits across threads, each storing its part. The parts were once a
// std::vector<bool>, whose bits share a word: two threads finishing together could lose one's store, and x.all() of an
// all-true x came back false (a flaky distribution-validation failure in CI). Many threads, many repeats, so that
// stores coincide often; the store is of one byte now, and this must never fail.
TEST(Parallel, SplitBoolReductionsLoseNoPart) {
  Tensor t = ones({{300000}}, TensorOptions(ScalarType::Bool));
  Tensor f = zeros({{300000}}, TensorOptions(ScalarType::Bool));
  static_cast<bool*>(f.data_ptr())[299999] = true;  // only the last part holds a true
  for (int threads : {2, 8, 16}) {
    set_num_threads(threads);
    for (int rep = 0; rep < 2000; ++rep) {
      ASSERT_TRUE(item(all(t)).to_bool()) << threads << " threads, repeat " << rep;
      ASSERT_TRUE(item(any(f)).to_bool()) << threads << " threads, repeat " << rep;
    }
  }
  set_num_threads(2);
}

// Chunks are claimed by whichever thread comes first, but their boundaries depend only on the sizes and the thread
// count (Note [Intra-op parallelism]): a job's chunks are the same on every run, and they tile the range.
TEST(Parallel, ChunkBoundariesDoNotDependOnWhichThreadRuns) {
  set_num_threads(2);
  auto chunks_of = [](int64_t n, int64_t grain) {
    std::mutex mu;
    std::vector<std::pair<int64_t, int64_t>> seen;
    parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      std::lock_guard<std::mutex> l(mu);
      seen.emplace_back(b, e);
    });
    std::sort(seen.begin(), seen.end());
    return seen;
  };
  for (int64_t n : {int64_t{65537}, int64_t{1} << 20, int64_t{3} * kGrainSize}) {
    const auto first = chunks_of(n, kGrainSize);
    ASSERT_GE(first.size(), 2u);
    ASSERT_LE(first.size(), 8u);  // at most kChunksPerThread per thread
    int64_t next = 0;
    for (auto [b, e] : first) {
      EXPECT_EQ(b, next);
      EXPECT_GE(e - b, 1);
      next = e;
    }
    EXPECT_EQ(next, n);
    for (int rep = 0; rep < 200; ++rep) ASSERT_EQ(chunks_of(n, kGrainSize), first) << "n=" << n;
  }
}

// Jobs posted from several threads at once run one at a time, each completely (the caller of one job never runs a
// chunk of another's).
TEST(Parallel, ConcurrentCallersEachGetTheirWholeJob) {
  set_num_threads(2);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&, t] {
      for (int rep = 0; rep < 300; ++rep) {
        const int64_t n = 40000 + 1000 * t + rep;
        std::vector<int> hits(n, 0);
        parallel_for(0, n, 4096, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) ++hits[i];
        });
        if (std::count(hits.begin(), hits.end(), 1) != n) ++failures;
      }
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
}

// A pool bigger than the machine (oversubscribed: workers are descheduled while jobs run) still runs every chunk of
// every job exactly once.
TEST(Parallel, OversubscribedPoolRunsEveryChunk) {
  set_num_threads(static_cast<int>(std::thread::hardware_concurrency()) * 4 + 1);
  for (int rep = 0; rep < 2000; ++rep) {
    const int64_t n = 100000 + rep;
    std::atomic<int64_t> visited{0};
    parallel_for(0, n, 1024, [&](int64_t b, int64_t e) { visited += e - b; });
    ASSERT_EQ(visited.load(), n) << "job " << rep;
  }
  set_num_threads(2);
}

namespace {

// CPUs in the calling thread's affinity mask.
int own_cpus() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

// One job of 8 chunks in which a worker takes a chunk, and `on_worker` runs in it; the caller holds its first chunk
// until a worker has started one, so that the worker's chunk is still running when the caller runs out of chunks.
// Returns the chunks run.
template <class F>
int64_t job_with_a_worker_chunk(const F& on_worker) {
  const auto caller = std::this_thread::get_id();
  std::atomic<bool> started{false};
  std::atomic<int64_t> visited{0};
  parallel_for(0, 8, 1, [&](int64_t b, int64_t e) {
    if (std::this_thread::get_id() == caller) {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (!started.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    } else if (!started.exchange(true)) {
      on_worker();
    }
    visited += e - b;
  });
  return visited.load();
}

}  // namespace

// A sleeping worker is woken by every job posted after it went to sleep (a wake already on its way is not sent
// twice, and that must never leave a worker asleep): each of many jobs, posted after the workers stopped spinning,
// gets a chunk run by a worker.
TEST(Parallel, EveryJobWakesASleepingWorker) {
  set_num_threads(2);
  for (int rep = 0; rep < 200; ++rep) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));  // past the workers' spin: they sleep
    bool worker_ran = false;
    ASSERT_EQ(job_with_a_worker_chunk([&] { worker_ran = true; }), 8);
    ASSERT_TRUE(worker_ran) << "job " << rep;
  }
}

// A worker descheduled in the middle of a chunk (here: asleep, so its CPU clock stands still) is moved onto the CPU
// of the caller waiting for it (Note [Intra-op parallelism]), and gets its own CPUs back when its chunk ends.
TEST(Parallel, StalledWorkerIsMovedOntoTheWaitingCallersCpu) {
  const int cpus = own_cpus();
  if (cpus < 2) GTEST_SKIP() << "needs two CPUs in the affinity mask";
  set_num_threads(2);
  int during = -1, after = -1;
  EXPECT_EQ(job_with_a_worker_chunk([&] {
              std::this_thread::sleep_for(std::chrono::milliseconds(200));
              during = own_cpus();
            }),
            8);
  EXPECT_EQ(during, 1);  // moved onto the caller's CPU while the caller waited
  EXPECT_EQ(job_with_a_worker_chunk([&] { after = own_cpus(); }), 8);
  EXPECT_EQ(after, cpus);  // and back on all of them in the next job
}

namespace {

// A fake /proc/self/cgroup and cgroup tree under a fresh temporary folder.
struct FakeCgroup {
  std::filesystem::path root = std::filesystem::temp_directory_path() /
                               ("ember_cgroup_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
  FakeCgroup() { std::filesystem::create_directories(root); }
  ~FakeCgroup() { std::filesystem::remove_all(root); }
  static int& counter() {
    static int c = 0;
    return c;
  }
  void write(const std::string& rel, const std::string& text) const {
    const auto p = root / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  int cpus() const { return cgroup_cpus((root / "proc_cgroup").string(), (root / "sys").string()); }
};

}  // namespace

TEST(CpuBudget, CgroupV2QuotaRoundsUpAndTheSmallestAncestorWins) {
  FakeCgroup g;
  g.write("proc_cgroup", "0::/user.slice/job\n");
  g.write("sys/user.slice/job/cpu.max", "150000 100000\n");  // 1.5 CPUs -> 2 threads
  EXPECT_EQ(g.cpus(), 2);
  g.write("sys/user.slice/cpu.max", "100000 100000\n");  // the parent allows 1
  EXPECT_EQ(g.cpus(), 1);
  g.write("sys/user.slice/cpu.max", "max 100000\n");
  g.write("sys/user.slice/job/cpu.max", "max 100000\n");
  EXPECT_EQ(g.cpus(), 0);  // no quota
}

TEST(CpuBudget, CgroupV1QuotaIsReadFromTheCpuController) {
  FakeCgroup g;
  g.write("proc_cgroup", "4:memory:/a\n3:cpu,cpuacct:/docker/x\n");
  g.write("sys/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "300000\n");
  g.write("sys/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n");
  g.write("sys/memory/a/cpu.max", "50000 100000\n");  // not the cpu controller: ignored
  EXPECT_EQ(g.cpus(), 3);
  g.write("sys/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "-1\n");  // v1's "no quota"
  EXPECT_EQ(g.cpus(), 0);
}

TEST(CpuBudget, MalformedOrMissingFilesMeanNoQuota) {
  FakeCgroup g;
  EXPECT_EQ(g.cpus(), 0);  // no /proc/self/cgroup at all
  g.write("proc_cgroup", "garbage\n0::/../../etc\n0::relative\n");
  EXPECT_EQ(g.cpus(), 0);
  g.write("proc_cgroup", "0::/\n");
  g.write("sys/cpu.max", "not-a-number 100000\n");
  EXPECT_EQ(g.cpus(), 0);
  g.write("sys/cpu.max", "100000 0\n");
  EXPECT_EQ(g.cpus(), 0);
  g.write("sys/cpu.max", "1e300 1\n");
  EXPECT_EQ(g.cpus(), 0);
  EXPECT_GE(affinity_cpus(), 1);
}

// How often woken workers got a core in time (Note [Intra-op parallelism]): slow wakes bring the expected thread count
// down to the caller alone, wakes on time bring it back, and an old share is forgotten.
TEST(Parallel, ExpectedThreadsFollowTheWorkersWakes) {
  using detail::WakeShare;
  WakeShare h;
  int64_t t = 1000000;
  EXPECT_EQ(h.expected(2, t), 2);  // nothing known yet
  for (int i = 0; i < 64; ++i) h.note(false, t++);
  EXPECT_EQ(h.expected(2, t), 1);
  EXPECT_EQ(h.expected(1, t), 1);
  for (int i = 0; i < 64; ++i) h.note(true, t++);
  EXPECT_EQ(h.expected(2, t), 2);
  for (int i = 0; i < 64; ++i) h.note(i % 4 != 0, t++);  // three in four on time
  EXPECT_EQ(h.expected(4, t), 3);                        // 1 + 0.75 * 3, rounded
  for (int i = 0; i < 64; ++i) h.note(false, t++);
  EXPECT_EQ(h.expected(2, t), 1);
  EXPECT_EQ(h.expected(2, t + WakeShare::kStaleMicros + 1), 2);  // forgotten
  h.note(false, t + WakeShare::kStaleMicros + 1);                // ... and measured afresh: one slow wake is not load
  EXPECT_EQ(h.expected(2, t + WakeShare::kStaleMicros + 2), 2);
  h.reset();
  EXPECT_EQ(h.expected(2, t), 2);
  // a few wakes on time do not undo many slow ones at once, nor one slow wake many on time
  for (int i = 0; i < 64; ++i) h.note(false, t++);
  h.note(true, t++);
  EXPECT_EQ(h.expected(2, t), 1);
  for (int i = 0; i < 64; ++i) h.note(true, t++);
  h.note(false, t++);
  EXPECT_EQ(h.expected(2, t), 2);
}

// Short jobs far apart, each woken for: on a quiet machine the worker gets its core at once, too late for a 4 us job
// but in time for longer ones, so the expected count stays at the thread count. (Counting the chunks the worker ran
// instead read one thread here.)
TEST(Parallel, ExpectedThreadsStayAtTheThreadCountForShortJobsFarApart) {
  if (own_cpus() < 2) GTEST_SKIP() << "needs two CPUs in the affinity mask";
  set_num_threads(2);
  std::atomic<int64_t> sink{0};
  for (int rep = 0; rep < 64; ++rep) {
    parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(2 * (e - b));
      while (std::chrono::steady_clock::now() < until) sink.fetch_add(1, std::memory_order_relaxed);
    });
    std::this_thread::sleep_for(std::chrono::microseconds(500));  // past the worker's spin: it sleeps
  }
  EXPECT_EQ(expected_threads(), 2);
}

// The worker takes its share of long jobs (1 ms chunks), spinning between them, so the expected count stays at the
// thread count.
TEST(Parallel, ExpectedThreadsStayAtTheThreadCountForLongJobs) {
  if (own_cpus() < 2) GTEST_SKIP() << "needs two CPUs in the affinity mask";
  set_num_threads(2);
  std::atomic<int64_t> sink{0};
  for (int rep = 0; rep < 64; ++rep)
    parallel_for(0, 8, 1, [&](int64_t b, int64_t e) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(1000 * (e - b));
      while (std::chrono::steady_clock::now() < until) sink.fetch_add(1, std::memory_order_relaxed);
    });
  EXPECT_EQ(expected_threads(), 2);
}
