#include "ember/parallel.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ember/cpu_budget.h"
#include "ember/error.h"

namespace ember {

namespace {

thread_local bool t_in_parallel = false;

constexpr int64_t kSpinMicros = 50;               // a worker's spin after a job; the caller's wait for running chunks
constexpr int64_t kContendedMicros = 100000;      // no spinning this long after a thread waited for a core, ...
constexpr int64_t kContendedMaxMicros = 1600000;  // ... doubling up to this while the contention persists
constexpr int64_t kSlowWakeMicros = 1000;         // a wait for a core this long is a CPU-bound competitor's time slice
constexpr int64_t kProbeMicros = 20;     // under contention, the caller's first look at a running chunk's progress
constexpr int64_t kReprobeMicros = 200;  // ... and how often it looks again while it waits
constexpr int kMaxProbes = 16;           // workers a waiting caller watches
constexpr int64_t kMaxChunks = 0xffff;   // a job's chunks: a slot holds chunk numbers in 16 bits

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int env_threads(const char* name) {
  const char* env = std::getenv(name);
  if (!env || !*env) return 0;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);  // OMP_NUM_THREADS may be a list ("4,2"): its first entry counts
  return end != env && v > 0 ? static_cast<int>(std::min<long>(v, 1 << 16)) : 0;
}

// True while a worker recently waited for a core (Note [Intra-op parallelism]).
std::atomic<int64_t> g_contended_until{0};
std::atomic<int64_t> g_contended_window{kContendedMicros};

// A worker waited for a core: the CPUs are contended for a window. Found again within a window of the last one's
// end (by the first spin after it), the contention persists and the window doubles, so that probing for its end
// costs less and less; found later, it is new and the window starts small.
void flag_contended() {
  const int64_t now = now_us(), until = g_contended_until.load(std::memory_order_relaxed);
  if (now < until) return;
  int64_t w = g_contended_window.load(std::memory_order_relaxed);
  w = now - until < w ? std::min(2 * w, kContendedMaxMicros) : kContendedMicros;
  g_contended_window.store(w, std::memory_order_relaxed);
  g_contended_until.store(now + w, std::memory_order_relaxed);
}

// How often woken workers got a core in time (Note [Intra-op parallelism]).
detail::WakeShare g_wakes;
std::atomic<int> g_expected_override{0};  // detail::set_expected_threads

// A thread's CPU time in microseconds (its clock from pthread_getcpuclockid), or -1.
int64_t cpu_micros(clockid_t clock) {
  timespec ts{};
  return clock_gettime(clock, &ts) == 0 ? int64_t{ts.tv_sec} * 1000000 + ts.tv_nsec / 1000 : -1;
}

// The caller's sleep while workers finish: on done_'s word, so that a worker's count wakes it (std::atomic::wait has
// no timeout). `micros` < 0: no timeout.
void futex_wait(std::atomic<int>* word, int seen, int64_t micros) {
  timespec ts{micros / 1000000, (micros % 1000000) * 1000};
  syscall(SYS_futex, reinterpret_cast<int*>(word), FUTEX_WAIT_PRIVATE, seen, micros < 0 ? nullptr : &ts, nullptr, 0);
}
void futex_wake(std::atomic<int>* word) {
  syscall(SYS_futex, reinterpret_cast<int*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// One worker thread, and what the caller needs to hand it a core (Note [Intra-op parallelism]).
struct Worker {
  int index = 0;  // the worker's thread number: 1.. (the caller is 0), whose home chunks it claims first
  std::thread thread;
  std::atomic<pid_t> tid{0};
  std::atomic<bool> in_chunk{false};  // running a chunk now
  std::atomic<bool> pinned{false};    // moved onto a waiting caller's CPU, mask saved in `saved`
  std::mutex pin_mu;
  cpu_set_t saved;

  // Called by the worker after each chunk: back to the CPUs it had before a caller moved it.
  void chunk_done() {
    in_chunk.store(false, std::memory_order_seq_cst);
    if (!pinned.load(std::memory_order_seq_cst)) return;
    std::lock_guard<std::mutex> l(pin_mu);
    if (pinned.exchange(false)) sched_setaffinity(0, sizeof saved, &saved);
  }
  // Called by a waiting caller: moves this worker, stalled in a chunk, onto `cpu` (the caller's, which the caller is
  // about to leave idle), unless it has left its chunk or may not run there.
  void pin_to(int cpu) {
    std::lock_guard<std::mutex> l(pin_mu);
    const pid_t t = tid.load(std::memory_order_acquire);
    if (t == 0 || pinned.load(std::memory_order_relaxed)) return;
    if (sched_getaffinity(t, sizeof saved, &saved) != 0 || !CPU_ISSET(cpu, &saved)) return;
    // Set before in_chunk is read (both seq_cst): a worker leaving its chunk either is seen here, or sees the flag
    // and restores its mask once we unlock.
    pinned.store(true, std::memory_order_seq_cst);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (!in_chunk.load(std::memory_order_seq_cst) || sched_setaffinity(t, sizeof one, &one) != 0)
      pinned.store(false, std::memory_order_relaxed);
  }
};

class ThreadPool {
 public:
  // Starts up to n - 1 workers. One that cannot start (no address space for its stack, a process limit) ends the
  // list: the pool runs with those it has rather than failing every op (or, as it did, aborting with the started
  // workers unjoined); set_num_threads makes a new pool.
  explicit ThreadPool(int n) : slots_(std::make_unique<Slot[]>(static_cast<size_t>(n))) {
    for (int i = 1; i < n; ++i) {
      try {
        auto w = std::make_unique<Worker>();
        Worker* raw = w.get();
        raw->index = i;
        workers_.reserve(static_cast<size_t>(n));
        w->thread = std::thread([this, raw] { loop(raw); });
        workers_.push_back(std::move(w));  // cannot throw: reserved
      } catch (const std::exception&) {
        break;
      }
    }
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
      epoch_.fetch_add(1);
    }
    epoch_.notify_all();
    for (auto& w : workers_) w->thread.join();
  }
  int size() const { return static_cast<int>(workers_.size()) + 1; }
  void park() { parked_.store(true, std::memory_order_relaxed); }

  // Runs f(chunk) for every chunk in [0, nchunks) on this thread and whichever workers come (see the Note).
  void run(int nchunks, const std::function<void(int)>& f) {
    std::lock_guard<std::mutex> job_lock(job_mu_);  // one parallel job at a time
    error_ = nullptr;
    parked_.store(false, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    uint32_t tag;
    {
      // Workers read (tag, job, nchunks) together under mu_, so none mixes two jobs.
      std::lock_guard<std::mutex> l(mu_);
      tag = ++tag_;
      job_ = &f;
      nchunks_ = nchunks;
      const int threads = size();
      for (int t = 0; t < threads; ++t)
        slots_[t].word.store(Slot::pack(tag, home_begin(t, nchunks, threads), home_begin(t + 1, nchunks, threads)),
                             std::memory_order_release);
      epoch_.fetch_add(1, std::memory_order_seq_cst);
    }
    wake();
    run_chunks(tag, f, nchunks, nullptr);
    // Every chunk is claimed; wait for those still running on workers.
    if (done_.load(std::memory_order_acquire) != nchunks) wait_for_running(nchunks);
    {
      std::lock_guard<std::mutex> l(mu_);
      job_ = nullptr;
    }
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static bool contended() { return now_us() < g_contended_until.load(std::memory_order_relaxed); }

  // Wakes the sleeping workers, unless a wake is already on its way to them: under load a woken worker can wait
  // milliseconds for a core, and every job in that time would otherwise pay for another futex wake.
  void wake() {
    if (sleepers_.load(std::memory_order_seq_cst) == 0 || wake_pending_.exchange(true, std::memory_order_seq_cst))
      return;
    woken_at_.store(now_us(), std::memory_order_relaxed);
    epoch_.notify_all();
  }

  // A worker started running (at `now`) `micros` after it was woken: a wait for a core longer than a time slice is
  // contention, and the job it was woken for (and likely the next ones) ran without it.
  static void woke_after(int64_t micros, int64_t now) {
    const bool slow = micros > kSlowWakeMicros;
    if (slow) flag_contended();
    g_wakes.note(!slow, now);
  }

  // The caller has run out of chunks while workers still run some. It spins briefly (under contention, only long
  // enough to read the workers' CPU clocks twice), then sleeps, waking every kReprobeMicros to read them again while
  // a worker is still unmoved: a worker whose clock stood still is preempted in the middle of its chunk, and the
  // caller moves it onto its own CPU, which it leaves idle while it sleeps (Note [Intra-op parallelism]).
  void wait_for_running(int nchunks) {
    struct Probe {
      Worker* w;  // nullptr once moved
      clockid_t clock;
      int64_t cpu;  // its CPU time at the last probe
    };
    Probe probes[kMaxProbes];
    int np = 0;
    // The clocks are read first under contention (the spin is then the time they are measured over) and after the
    // spin otherwise: a CPU clock is a system call (about 1 us here), which a job of a few us finishing within the
    // spin, the usual case on a quiet machine, should not pay (clamp_ of 64K floats at two threads: 4.3 -> 2.1 us).
    auto probe = [&] {
      for (auto& w : workers_) {
        clockid_t c;
        if (np < kMaxProbes && w->in_chunk.load(std::memory_order_relaxed) &&
            pthread_getcpuclockid(w->thread.native_handle(), &c) == 0)
          probes[np++] = {w.get(), c, cpu_micros(c)};
      }
    };
    const bool busy = contended();
    if (busy) probe();
    int64_t at = now_us();
    const int64_t until = at + (busy ? kProbeMicros : kSpinMicros);
    for (int i = 1; done_.load(std::memory_order_acquire) != nchunks; ++i) {
      cpu_relax();
      if (i % 64 == 0 && now_us() > until) break;
    }
    if (!busy && done_.load(std::memory_order_acquire) != nchunks) {
      probe();
      at = now_us();
    }
    caller_waiting_.store(true, std::memory_order_seq_cst);
    for (int d; (d = done_.load(std::memory_order_seq_cst)) != nchunks;) {
      const int64_t now = now_us();
      bool watching = false;
      for (int i = 0; i < np; ++i) {
        Probe& p = probes[i];
        if (!p.w) continue;
        const int64_t t = cpu_micros(p.clock);
        if (t >= 0 && p.cpu >= 0 && 4 * (t - p.cpu) < now - at) {  // ran under a quarter of the time: preempted
          const int cpu = sched_getcpu();
          if (cpu >= 0) p.w->pin_to(cpu);
          p.w = nullptr;
        } else {
          p.cpu = t;
          watching = true;
        }
      }
      at = now;
      futex_wait(&done_, d, watching ? kReprobeMicros : -1);
    }
    caller_waiting_.store(false, std::memory_order_relaxed);
  }

  // Thread t's home chunks are [home_begin(t), home_begin(t + 1)): contiguous shares, the caller's first and never
  // empty (Note [Intra-op parallelism]).
  static int home_begin(int t, int nchunks, int threads) {
    return static_cast<int>((int64_t{t} * nchunks + threads - 1) / threads);
  }

  // Claims and runs chunks of the job tagged `tag` until none are left (or a later job has replaced it): its own
  // home chunks from the front, then the others' from the back. `w` is the worker running them (nullptr: the caller).
  void run_chunks(uint32_t tag, const std::function<void(int)>& f, int nchunks, Worker* w) {
    const int self = w ? w->index : 0, threads = size();
    int chunk;
    for (int k = 0; k < threads;) {
      const int t = (self + k) % threads;
      if (!slots_[t].claim(tag, chunk, /*front=*/k == 0)) {
        ++k;
        continue;
      }
      if (w) w->in_chunk.store(true, std::memory_order_relaxed);
      run_chunk(f, chunk);
      if (w) w->chunk_done();
      if (done_.fetch_add(1, std::memory_order_seq_cst) + 1 == nchunks &&
          caller_waiting_.load(std::memory_order_seq_cst))
        futex_wake(&done_);
    }
  }

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

  // Spins until the epoch moves past `seen`, for at most kSpinMicros; false when it did not.
  bool spin(uint32_t seen) {
    if (contended()) return false;
    // Only a long preemption during the spin itself counts: one during a chunk's work, or a brief one (a timer, a
    // kernel thread), says nothing about spinning, and counting those kept spinning off on quiet machines (Note
    // [Intra-op parallelism]). (Telling it from a gap between the spin's clock reads instead, which saves this
    // system call, was tried and not kept: a gap also counts the hypervisor taking the virtual CPU away, which no
    // competitor in this machine does.)
    rusage ru{};
    const long before = getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : -1;
    const int64_t start = now_us(), until = start + kSpinMicros;
    bool hit = false;
    for (int i = 1;; ++i) {
      if (epoch_.load(std::memory_order_acquire) != seen) {
        hit = true;
        break;
      }
      if (parked_.load(std::memory_order_relaxed)) break;
      cpu_relax();
      if (i % 64 == 0 && now_us() > until) break;
    }
    // A spinning thread that the kernel preempted for a time slice took a core that another thread wanted: stop
    // spinning for a while.
    if (before >= 0 && now_us() - start > kSpinMicros + kSlowWakeMicros && getrusage(RUSAGE_THREAD, &ru) == 0 &&
        ru.ru_nivcsw > before)
      flag_contended();
    return hit;
  }

  void loop(Worker* w) {
    w->tid.store(static_cast<pid_t>(syscall(SYS_gettid)), std::memory_order_release);
    uint32_t seen = 0;  // the epoch at construction: a job posted before this thread starts still counts
    for (;;) {
      if (!spin(seen)) {
        // Cleared before sleeping (both seq_cst with wake()'s reads): a wake() that finds it set has already
        // woken every thread asleep before it, and a thread going to sleep after it clears it first.
        wake_pending_.store(false, std::memory_order_seq_cst);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        const int64_t asleep = now_us();
        for (uint32_t e; (e = epoch_.load(std::memory_order_seq_cst)) == seen;) epoch_.wait(e);
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
        // (timed only when a wake() came after this thread went to sleep: a wait can also end without one)
        const int64_t woken = woken_at_.load(std::memory_order_relaxed);
        if (woken >= asleep) {
          const int64_t now = now_us();
          woke_after(now - woken, now);
        }
      }
      const std::function<void(int)>* job;
      int nchunks;
      uint32_t tag;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (stop_) return;
        seen = epoch_.load(std::memory_order_relaxed);
        job = job_;
        nchunks = nchunks_;
        tag = tag_;
      }
      if (job) run_chunks(tag, *job, nchunks, w);
    }
  }

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex job_mu_;
  std::mutex mu_;
  const std::function<void(int)>* job_ = nullptr;
  int nchunks_ = 0;
  uint32_t tag_ = 0;
  // Each thread's unclaimed home chunks (Note [Intra-op parallelism]): (tag << 32) | (front << 16) | back. Its owner
  // takes the front, the others the back; a job's tag keeps a late thread from claiming a later job's chunks.
  struct alignas(64) Slot {
    std::atomic<uint64_t> word{0};
    static uint64_t pack(uint32_t tag, int front, int back) {
      return uint64_t{tag} << 32 | static_cast<uint64_t>(front) << 16 | static_cast<uint64_t>(back);
    }
    // Takes the front chunk (the owner) or the back one (another thread) of this job's unclaimed ones, if any.
    bool claim(uint32_t tag, int& chunk, bool front) {
      uint64_t c = word.load(std::memory_order_acquire);
      for (;;) {
        const int f = static_cast<int>(c >> 16 & 0xffff), b = static_cast<int>(c & 0xffff);
        if ((c >> 32) != tag || f >= b) return false;
        if (word.compare_exchange_weak(c, front ? c + (uint64_t{1} << 16) : c - 1, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
          chunk = front ? f : b - 1;
          return true;
        }
      }
    }
  };
  std::unique_ptr<Slot[]> slots_;   // one per thread, the caller's first
  std::atomic<uint32_t> epoch_{0};  // moves once per job: what sleeping workers wait on
  std::atomic<int> done_{0};
  std::atomic<bool> caller_waiting_{false};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> wake_pending_{false};  // woken by wake(), not yet back to sleep
  std::atomic<int64_t> woken_at_{0};       // when wake() last woke the sleepers
  std::atomic<bool> parked_{false};        // set by park(): spinning workers sleep now
  bool stop_ = false;
  std::exception_ptr error_;
};

std::mutex g_pool_mu;
ThreadPool* g_pool = nullptr;  // created on first use; leaked at exit (workers may still be parked)
std::atomic<int> g_num_threads{0};

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

int default_num_threads() {
  if (const int n = env_threads("EMBER_NUM_THREADS")) return n;
  if (const int n = env_threads("OMP_NUM_THREADS")) return n;
  const int cpus = affinity_cpus(), quota = cgroup_cpus();
  return quota > 0 ? std::min(cpus, quota) : cpus;
}

void set_num_threads(int n) {
  EMBER_CHECK_VALUE(n > 0, "set_num_threads: expected a positive number of threads, got ", n);
  EMBER_CHECK(!t_in_parallel, "set_num_threads: cannot be called from inside a parallel region");
  std::lock_guard<std::mutex> l(g_pool_mu);
  g_num_threads.store(n);
  g_wakes.reset();  // new workers: nothing known of them
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
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    int expected = 0;
    g_num_threads.compare_exchange_strong(expected, default_num_threads());
    n = g_num_threads.load();
  }
  return n;
}

bool in_parallel_region() { return t_in_parallel; }

int expected_threads() {
  const int forced = g_expected_override.load(std::memory_order_relaxed);
  return forced > 0 ? std::min(forced, get_num_threads()) : g_wakes.expected(get_num_threads(), now_us());
}

namespace detail {

void WakeShare::note(bool on_time, int64_t now) {
  // (workers woken together note at once: a lost update only slows the average)
  const int x = on_time ? kOne : 0;
  const int h = now - at_.load(std::memory_order_relaxed) > kStaleMicros ? kOne
                                                                         : share_.load(std::memory_order_relaxed);
  share_.store(h + (x - h) / kWeight, std::memory_order_relaxed);
  at_.store(now, std::memory_order_relaxed);
}

int WakeShare::expected(int threads, int64_t now) const {
  if (threads < 2 || now - at_.load(std::memory_order_relaxed) > kStaleMicros) return std::max(threads, 1);
  return 1 + static_cast<int>((int64_t{share_.load(std::memory_order_relaxed)} * (threads - 1) + kOne / 2) / kOne);
}

void set_expected_threads(int n) { g_expected_override.store(std::max(n, 0), std::memory_order_relaxed); }

void WakeShare::reset() {
  share_.store(kOne, std::memory_order_relaxed);
  at_.store(0, std::memory_order_relaxed);
}

}  // namespace detail

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  ThreadPool& p = pool();
  const int64_t n = end - begin;
  const int64_t chunks = std::min<int64_t>(
      {int64_t{p.size()} * kChunksPerThread, (n + grain - 1) / std::max<int64_t>(grain, 1), kMaxChunks});
  const int64_t per = (n + chunks - 1) / chunks;
  p.run(static_cast<int>(chunks), [&](int c) {
    const int64_t b = begin + c * per, e = std::min(end, b + per);
    if (b < e) f(b, e);
  });
}

}  // namespace ember
