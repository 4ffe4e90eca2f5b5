// Note [Intra-op parallelism]
// One pool of worker threads for all of ember's kernels, built so that a busy machine never makes a job slower than
// running it on the calling thread alone:
// - Work is claimed, not assigned. parallel_for splits [begin, end) into chunks of at least `grain` elements (up to
//   kChunksPerThread per thread). Each thread has home chunks, a contiguous share (the caller's first): it claims
//   its own from the front, then the others' from the back, until none are left. The caller never waits for a
//   worker that has not started: if the other workers are descheduled (a DataLoader worker, a second job, a CPU
//   quota), the caller runs every chunk itself and returns, and a worker that wakes up late finds the job gone. Each
//   thread's claim word carries the job's tag, so a late worker can never claim a chunk of a later job with an
//   earlier job's function.
// - Homes keep data where it was made. With one shared counter, which thread ran which chunk changed from job to
//   job, so each op read about half of what the last one wrote from the other core's cache: a chain of add, mul,
//   sub and sum over 128K floats ran 78 us at two threads against 57 at one (PyTorch's OpenMP, which splits
//   statically, 39). With homes, two threads split consecutive ops alike (39 us), as PyTorch's do, and a worker
//   that is late still loses its chunks to the others.
// - Waiting is brief. After a job a worker spins for at most kSpinMicros (so back-to-back ops skip a futex wake)
//   and then sleeps on a futex; it does not spin at all while the CPUs are contended. A worker learns that from
//   waiting for a core longer than kSlowWakeMicros (a competitor's time slice): woken, before it ran, or preempted
//   during its spin (a brief preemption by a timer or a kernel thread, or one during a chunk's work, happens on quiet
//   machines too, and counting those kept spinning off there). The contended window is 100 ms, doubling up to 1.6 s
//   while each probe after it finds the contention again. The caller waits for chunks already running the same way.
//   A wake is sent once: while a woken worker waits for a core, the jobs posted meanwhile do not wake it again (each
//   would be a futex call on the caller's time: 17,000 of them in 190 MobileNetV3 inferences beside a busy process).
// - A preempted worker gets the caller's core. The caller may still run out of chunks while a worker sits preempted
//   in the middle of one, queued behind another process until the kernel's next tick, while the caller's own core
//   idles. So a waiting caller reads the CPU clocks of the workers in a chunk (pthread_getcpuclockid), and again every
//   kReprobeMicros while it sleeps; a worker whose clock stood still is moved onto the caller's CPU (its affinity set
//   to that CPU alone), runs there at once, and restores its own mask when the chunk ends. A running worker is never
//   moved. With a busy process beside the C++ demo this cut the caller's sleeps per epoch from 1.5 s to 1.0 s.
// - One thread budget. The default thread count is the CPUs this process may use: its affinity mask, capped by a
//   cgroup CPU quota (cpu.max, or cpu.cfs_quota_us; ember/cpu_budget.h), unless EMBER_NUM_THREADS or
//   OMP_NUM_THREADS says otherwise. The other libraries' threads split work statically and busy-wait between
//   calls, so ember runs them single-threaded on its own pool instead: OpenBLAS's GEMMs as blocks of the output
//   (Note [GEMMs on ember's threads] in backend/cpu/blas.cpp), oneDNN's convolutions and poolings as slices of the
//   batch or of the channels (Note [Primitives on ember's threads] in backend/cpu/dnnl.cpp). Only LAPACK routines
//   and 16-bit matrix products use the libraries' own threads, with ember's count, after parking ember's spinning
//   workers (park_threads). The same holds in C++ programs: nothing depends on environment variables read before ember
//   is loaded.
// - Ops can ask how many threads will come. expected_threads() is 1 plus the share of the workers that got a core
//   within a time slice when recently woken (detail::WakeShare): beside a busy process almost every wake waits for
//   the competitor's slice (over 1 ms), and the worker runs almost none of a batch-1 network's jobs (0.3% of
//   MobileNetV3's chunks). An op that can run two ways with the same results takes the one suited to the threads that
//   will come: oneDNN's one-thread reorder or ember's copy on the pool (Note [Reorders as copies]), a convolution
//   forward whole or in channel pieces where a check found their bits equal (Note [Exact splits]). Splits that change
//   the bits (a matrix product's blocks, a batch's slices) keep following get_num_threads(). Wakes, not the chunks the
//   workers ran, are the measure: a worker woken in 100 us on a quiet machine misses a 50 us job too, and once the
//   convolutions ran whole only such short jobs were left to measure, so a quiet machine stayed at one expected thread
//   (ResNet-50 at batch 1: 86-92 ms instead of 50).
// - Results do not depend on timing: chunk boundaries depend only on the sizes and the thread count, never on
//   which thread ran a chunk. Work below `grain` elements, and any parallel_for nested inside another, runs serially
//   on the caller. The first exception thrown by a chunk is rethrown on the caller. A forked child starts with a
//   fresh pool.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace ember {

constexpr int64_t kGrainSize = 32768;  // elements per task below which threading does not pay
constexpr int kChunksPerThread = 4;    // more chunks than threads, so that a late worker's share is taken by the others

void set_num_threads(int n);
int get_num_threads();
// The thread count ember starts with: the affinity mask capped by the cgroup CPU quota (or the environment's).
int default_num_threads();
bool in_parallel_region();
// The threads a job posted now can expect to run on: get_num_threads() less the workers that have not been getting a
// core in time when woken for recent jobs (a loaded machine). Only for choosing between ways of running an op that give
// the same bits (Note [Intra-op parallelism]).
int expected_threads();
// Spinning workers go to sleep now: call before handing the cores to another library's threads.
void park_threads();

namespace detail {

// How often sleeping workers got a core in time when woken for a job (Note [Intra-op parallelism]): a running average
// over about kWeight wakes of 1 (running within a time slice of the wake) or 0 (later: a competitor held the cores),
// forgotten after kStaleMicros without a wake (workers that spin between jobs need none). expected() is 1 + that share
// of the workers.
class WakeShare {
 public:
  static constexpr int kOne = 1024;  // fixed point
  static constexpr int kWeight = 16;
  static constexpr int64_t kStaleMicros = 100000;
  void note(bool on_time, int64_t now_micros);
  int expected(int threads, int64_t now_micros) const;
  void reset();

 private:
  std::atomic<int> share_{kOne};
  std::atomic<int64_t> at_{0};
};

// Tests: expected_threads() returns n (capped by the thread count) instead of measuring, until n is 0 again.
void set_expected_threads(int n);

}  // namespace detail

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f);

// f(chunk_begin, chunk_end) over [begin, end).
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (end <= begin) return;
  if (end - begin <= grain || in_parallel_region() || get_num_threads() == 1) {
    f(begin, end);
    return;
  }
  parallel_for_impl(begin, end, grain, std::function<void(int64_t, int64_t)>(f));
}

}  // namespace ember
