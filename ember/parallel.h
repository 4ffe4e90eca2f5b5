// Note [Intra-op parallelism]
// One pool of worker threads for all of ember's kernels. parallel_for splits [begin, end) into at
// most get_num_threads() contiguous chunks, runs chunk 0 on the calling thread and the others on the
// workers, and returns when all are done (rethrowing the first exception). Work below `grain`
// elements per chunk, and any parallel_for nested inside another, runs serially on the caller.
// After a job the workers spin briefly (back-to-back ops then skip a futex wake) and then sleep on a
// condition variable. ember calls OpenBLAS and oneDNN outside parallel regions with the same thread
// count. Before an OpenBLAS GEMM it parks its workers (park_threads): a worker still spinning would
// hold a core that OpenBLAS's threads need (a 128x256x512 GEMM right after an elementwise op ran 2.3x
// slower on two cores). Not before oneDNN: its OpenMP threads start slower, and the training steps of
// benchmarks/amp.py were slower with the park (the workers' wake-up afterwards cost more than it saved).
// A forked child starts with a fresh pool.
#pragma once

#include <cstdint>
#include <functional>

namespace ember {

constexpr int64_t kGrainSize = 32768;  // elements per task below which threading does not pay

void set_num_threads(int n);
int get_num_threads();
bool in_parallel_region();
// Spinning workers go to sleep now: call before handing the cores to another library's threads.
void park_threads();

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
