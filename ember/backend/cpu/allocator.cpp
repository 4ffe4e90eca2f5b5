// Note [CPU caching allocator]
// Fresh pages from the OS cost a page fault per 4 KiB on first touch, which makes an op that writes a
// new 64 MiB output several times slower than one writing into a reused buffer. So freed blocks are
// kept in size classes (four per power of two, so at most 25% is wasted) and handed out again. The
// cache is capped (EMBER_CPU_CACHE_MB, default 1024; 0 disables caching); past the cap, blocks go back
// to the system. Blocks are 64-byte aligned for AVX-512 loads. One mutex: an uncontended lock costs
// less than malloc does.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "ember/allocator.h"
#include "ember/error.h"
#include "ember/profiler/profiler.h"

namespace ember {
namespace {

constexpr size_t kAlign = 64;
constexpr int kClasses = 4 * 64;

// Size class: sizes up to 256 bytes share classes of 64 bytes; above that four classes per power of two.
int size_class(size_t n, size_t* rounded) {
  if (n <= 256) {
    *rounded = (n + 63) & ~size_t(63);
    return static_cast<int>(*rounded / 64);  // 0..4
  }
  int lg = 63 - __builtin_clzll(n - 1);  // 2^lg < n <= 2^(lg+1)
  size_t quarter = size_t(1) << (lg - 1);
  size_t steps = (n - (size_t(1) << lg) + quarter - 1) / quarter;  // 1..4
  *rounded = (size_t(1) << lg) + steps * quarter;
  return 4 + (lg - 8) * 4 + static_cast<int>(steps);
}

class CpuCachingAllocator final : public Allocator {
 public:
  CpuCachingAllocator() {
    const char* env = std::getenv("EMBER_CPU_CACHE_MB");
    cap_ = (env ? std::strtoll(env, nullptr, 10) : 1024) << 20;
  }

  void* allocate(size_t nbytes) override {
    size_t rounded;
    int c = size_class(nbytes == 0 ? 1 : nbytes, &rounded);
    std::lock_guard<std::mutex> g(mu_);
    void* p;
    if (!free_[c].empty()) {
      p = free_[c].back();
      free_[c].pop_back();
      cached_ -= rounded;
    } else {
      p = std::aligned_alloc(kAlign, rounded);
      if (!p) {  // give the cache back and try once more
        release_cache_locked();
        p = std::aligned_alloc(kAlign, rounded);
      }
      if (!p) out_of_memory(nbytes);
      c_.on_sys_alloc(rounded);
    }
    c_.on_alloc(rounded);
    profiler::record_memory(p, static_cast<int64_t>(nbytes), Device(DeviceType::CPU));
    return p;
  }

  // PyTorch's wording ("DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes"), with the size
  // in GiB too. Note [Overcommit] in docs/memory.md: a request the OS grants lazily is not caught here.
  [[noreturn, gnu::cold]] void out_of_memory(size_t nbytes) const {
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.2f GiB", static_cast<double>(nbytes) / static_cast<double>(1ull << 30));
    fail<OutOfMemoryError>("CPU out of memory: can't allocate memory: you tried to allocate ", nbytes, " bytes (", gib,
                           "); ember holds ", c_.s.allocated, " bytes allocated, ", c_.s.reserved, " reserved");
  }

  void deallocate(void* p, size_t nbytes) override {
    if (!p) return;
    profiler::record_memory(p, -static_cast<int64_t>(nbytes), Device(DeviceType::CPU));
    size_t rounded;
    int c = size_class(nbytes == 0 ? 1 : nbytes, &rounded);
    std::lock_guard<std::mutex> g(mu_);
    c_.on_free(rounded);
    if (cached_ + static_cast<int64_t>(rounded) <= cap_) {
      try {
        free_[c].push_back(p);  // may need memory itself: when there is none, the block goes back to the OS
        cached_ += rounded;
        return;
      } catch (const std::bad_alloc&) {  // (deallocate runs in destructors: nothing may escape)
      }
    }
    std::free(p);
    c_.on_sys_free(rounded);
  }

  MemoryStats stats() const override {
    std::lock_guard<std::mutex> g(mu_);
    return c_.s;
  }
  void reset_peak_stats() override {
    std::lock_guard<std::mutex> g(mu_);
    c_.reset_peak();
  }
  void empty_cache() override {
    std::lock_guard<std::mutex> g(mu_);
    release_cache_locked();
  }
  // Gives the cached blocks back to the OS unless another thread holds the lock (or this one, inside the allocator);
  // whether anything was freed.
  bool try_release_cache() {
    std::unique_lock<std::mutex> g(mu_, std::try_to_lock);
    if (!g.owns_lock() || cached_ == 0) return false;
    release_cache_locked();
    return true;
  }

 private:
  void release_cache_locked() {
    int64_t count = 0;
    for (auto& list : free_) {
      for (void* p : list) std::free(p);
      count += static_cast<int64_t>(list.size());
      list.clear();
    }
    c_.on_sys_free(cached_, count);
    cached_ = 0;
  }

  mutable std::mutex mu_;
  std::vector<void*> free_[kClasses];
  int64_t cached_ = 0;
  int64_t cap_;
  MemoryCounter c_;
};

}  // namespace

namespace {

CpuCachingAllocator* g_cpu = nullptr;

// Note [Out of memory outside ember's allocator]
// When operator new fails anywhere in the process (nanobind's instance map growing while a million tensors are
// returned, a std::vector), the cached blocks of the CPU allocator (up to EMBER_CPU_CACHE_MB) go back to the OS
// and new retries. Without this, such a failure inside one of nanobind's noexcept functions aborted the process
// where an OutOfMemoryError was due (API fuzzer, 4 GiB address space). When there is nothing to give back, the
// previous handler runs, or new throws std::bad_alloc as it would have.
std::new_handler g_previous_new_handler = nullptr;

void release_cache_on_new_failure() {
  if (g_cpu && g_cpu->try_release_cache()) return;
  if (g_previous_new_handler) return g_previous_new_handler();
  throw std::bad_alloc();
}

}  // namespace

Allocator* cpu_allocator() {
  static auto* a = [] {
    g_cpu = new CpuCachingAllocator();  // leaked on purpose: tensors may outlive static destructors
    g_previous_new_handler = std::set_new_handler(release_cache_on_new_failure);
    return g_cpu;
  }();
  return a;
}

}  // namespace ember
