#include "ember/parallel.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "ember/backend/blas.h"
#include "ember/error.h"

namespace ember {

namespace {

thread_local bool t_in_parallel = false;

int default_threads() {
  if (const char* env = std::getenv("EMBER_NUM_THREADS")) return std::max(1, std::atoi(env));
  if (const char* env = std::getenv("OMP_NUM_THREADS")) return std::max(1, std::atoi(env));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Hand-offs spin briefly before sleeping: back-to-back parallel ops then find the workers awake
// (a futex wake costs tens of microseconds, more than a whole op near the grain size), while an idle
// pool sleeps within ~200 us (20000 PAUSEs of ~10 ns on a Sapphire Rapids Xeon); park_threads ends it at once.
constexpr int kSpins = 20000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class ThreadPool {
 public:
  explicit ThreadPool(int n) {
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { loop(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }
  int size() const { return static_cast<int>(workers_.size()) + 1; }
  void park() { parked_.store(true, std::memory_order_relaxed); }

  // Runs f(chunk) for chunk in [0, nchunks): chunk 0 here, the others on workers 1..nchunks-1.
  void run(int nchunks, const std::function<void(int)>& f) {
    std::lock_guard<std::mutex> job_lock(job_mu_);  // one parallel job at a time
    error_ = nullptr;
    parked_.store(false, std::memory_order_relaxed);
    pending_.store(nchunks - 1, std::memory_order_relaxed);
    {
      // Workers read (generation, job, nchunks) together under mu_, so none mixes two jobs.
      std::lock_guard<std::mutex> l(mu_);
      job_ = &f;
      nchunks_ = nchunks;
      generation_.fetch_add(1, std::memory_order_release);
    }
    if (sleepers_.load() > 0) cv_.notify_all();
    run_chunk(f, 0);
    for (int i = 0; i < kSpins && pending_.load(std::memory_order_acquire) != 0; ++i) cpu_relax();
    if (pending_.load(std::memory_order_acquire) != 0) {
      std::unique_lock<std::mutex> l(mu_);
      done_cv_.wait(l, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      job_ = nullptr;
    }
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run_chunk(const std::function<void(int)>& f, int chunk) {
    t_in_parallel = true;
    try {
      f(chunk);
    } catch (...) {
      std::lock_guard<std::mutex> l(mu_);
      if (!error_) error_ = std::current_exception();
    }
    t_in_parallel = false;
  }

  void loop(int id) {
    uint64_t seen = 0;  // the generation at construction: a job posted before this thread starts still counts
    for (;;) {
      for (int i = 0; i < kSpins && generation_.load(std::memory_order_acquire) == seen &&
                      !parked_.load(std::memory_order_relaxed);
           ++i)
        cpu_relax();
      if (generation_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> l(mu_);
        sleepers_.fetch_add(1);
        cv_.wait(l, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        sleepers_.fetch_sub(1);
      }
      const std::function<void(int)>* job;
      int nchunks;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (stop_) return;
        seen = generation_.load(std::memory_order_relaxed);
        job = job_;
        nchunks = nchunks_;
      }
      if (job && id < nchunks) {
        run_chunk(*job, id);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
          std::lock_guard<std::mutex> l(mu_);  // pairs with the caller's wait
          done_cv_.notify_one();
        }
      }
    }
  }

  std::vector<std::thread> workers_;
  std::mutex job_mu_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* job_ = nullptr;
  int nchunks_ = 0;
  std::atomic<int> pending_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> parked_{false};  // set by park(): spinning workers sleep now
  std::atomic<uint64_t> generation_{0};
  bool stop_ = false;
  std::exception_ptr error_;
};

std::mutex g_pool_mu;
ThreadPool* g_pool = nullptr;  // created on first use; leaked at exit (workers may still be parked)
int g_num_threads = 0;

void after_fork_in_child() {
  // The parent's workers do not exist in the child: forget the pool (without joining) and start over.
  g_pool = nullptr;
  new (&g_pool_mu) std::mutex();
}

ThreadPool& pool() {
  std::lock_guard<std::mutex> l(g_pool_mu);
  if (!g_pool) {
    static bool registered = (pthread_atfork(nullptr, nullptr, after_fork_in_child), true);
    (void)registered;
    g_pool = new ThreadPool(get_num_threads());
  }
  return *g_pool;
}

}  // namespace

void set_num_threads(int n) {
  EMBER_CHECK_VALUE(n > 0, "set_num_threads: expected a positive number of threads, got ", n);
  EMBER_CHECK(!t_in_parallel, "set_num_threads: cannot be called from inside a parallel region");
  std::lock_guard<std::mutex> l(g_pool_mu);
  g_num_threads = n;
  set_blas_num_threads(n);  // OpenBLAS threads inside one call as many as ember's pool (Note [Intra-op parallelism])
  if (g_pool && g_pool->size() != n) {
    delete g_pool;
    g_pool = nullptr;
  }
}

void park_threads() {
  std::lock_guard<std::mutex> l(g_pool_mu);
  if (g_pool) g_pool->park();
}

int get_num_threads() {
  if (g_num_threads == 0) g_num_threads = default_threads();
  return g_num_threads;
}

bool in_parallel_region() { return t_in_parallel; }

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  ThreadPool& p = pool();
  const int64_t n = end - begin;
  const int64_t chunks = std::min<int64_t>(p.size(), (n + grain - 1) / std::max<int64_t>(grain, 1));
  const int64_t per = (n + chunks - 1) / chunks;
  p.run(static_cast<int>(chunks), [&](int c) {
    const int64_t b = begin + c * per, e = std::min(end, b + per);
    if (b < e) f(b, e);
  });
}

}  // namespace ember
