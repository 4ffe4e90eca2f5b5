// Note [CPU caching allocator]
// Fresh pages from the OS cost a page fault per 4 KiB on first touch, which makes an op that writes a
// new 64 MiB output several times slower than one writing into a reused buffer. So freed blocks are
// kept in size classes (above 256 bytes two per power of two, 1.5 * 2^k and 2^(k+1), so at most a third
// of a block goes unused) and handed out again. The cache is capped (EMBER_CPU_CACHE_MB, default 1024;
// 0 disables caching); past the cap, blocks go back to the system. Blocks are 64-byte aligned for
// AVX-512 loads. One mutex: an uncontended lock costs less than malloc does.
//
// Note [Larger cached blocks]
// A network's activations come in many sizes, a few classes per stage, and a cache that hands a block
// only to requests of its own class keeps every stage's blocks: at batch 32, efficientnet_b0's
// forward held 1 GiB reserved for a 0.46 GiB peak of live tensors (torchvision's large blocks go
// back to the OS when freed). So a request of at least 1 MiB that finds its class empty takes the
// smallest cached block of a larger class up to twice its own rounded size before asking the OS; the
// block goes back to its own class when freed. Such a block is backed by pages already, so it costs
// no more resident memory than a fresh one and no page faults. That forward's peak RSS fell from 960
// to 815 MB (resnet50's from 868 to 732 MB at batch 32), its steady state still making no system
// allocations. allocated_bytes counts a lent block by the class asked for; reserved_bytes, whole.
//
// Note [Large blocks are mapped]
// Blocks from kMapFrom up are the system's pages (mmap), unmapped when they leave the cache. glibc's malloc serves
// them from its heap below a threshold that grows to 32 MiB, and keeps freed heap memory mapped: after a failed
// allocation under an address-space limit (ulimit -v; the API fuzzer's 4 GiB), the gigabytes that an op had
// allocated before it failed stayed in the process's address space though every tensor was gone, and oneDNN's JIT
// compiler then crashed mapping the code of its next kernel. Unmapped, they are returned at once.
//
// Note [Huge pages]
// A block of a transparent huge page (2 MiB on x86-64) or more starts on a huge page boundary and is madvise'd
// MADV_HUGEPAGE (the kernels of Debian and most distributions give huge pages only where asked). With 4 KiB pages an
// op streaming 64 MiB walks 16K pages, and in a virtual machine each TLB miss walks two page tables: a.sum() over 16M
// floats on one thread took 4.0 ms (16 GB/s) with 4 KiB pages and 1.5 ms with huge ones, where PyTorch 2.15, whose
// allocator asks for none by default, took 3.2 ms. A block's tail past its last whole huge page keeps small pages,
// and the kernel may still hand out small ones when it has no huge page free: it is a hint, never an error.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
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
  size_t half = size_t(1) << (lg - 1);
  size_t steps = (n - (size_t(1) << lg) + half - 1) / half;  // 1..2
  *rounded = (size_t(1) << lg) + steps * half;
  return 4 + (lg - 8) * 4 + static_cast<int>(steps);
}

// The bytes of a block of class c, one size_class returns (its inverse).
size_t class_bytes(int c) {
  if (c <= 4) return static_cast<size_t>(c) * 64;
  const int lg = 8 + (c - 5) / 4;
  return (size_t(1) << lg) + static_cast<size_t>((c - 5) % 4 + 1) * (size_t(1) << (lg - 1));
}

// Requests from this size on may take a larger cached block (Note [Larger cached blocks]).
constexpr size_t kUpsizeFrom = size_t(1) << 20;

// Blocks from this size on are mapped pages (Note [Large blocks are mapped]); size classes keep them whole pages.
constexpr size_t kMapFrom = size_t(1) << 17;

// The size of a transparent huge page, or 0 where the kernel has none (Note [Huge pages]).
size_t huge_page_bytes() {
  static const size_t bytes = [] {
    size_t b = 0;
    if (std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r")) {
      unsigned long long v = 0;
      if (std::fscanf(f, "%llu", &v) == 1) b = static_cast<size_t>(v);
      std::fclose(f);
    }
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    // a power of two above the page size, and small enough to align blocks to (aarch64's 512 MiB ones are not)
    return b > page && (b & (b - 1)) == 0 && b <= (size_t(32) << 20) ? b : 0;
  }();
  return bytes;
}

void* sys_alloc(size_t rounded) {
  if (rounded < kMapFrom) return std::aligned_alloc(kAlign, rounded);
  const size_t huge = huge_page_bytes();
  if (huge == 0 || rounded < huge) {
    void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  // Map a huge page more and keep the stretch that starts on one, so that its huge pages are whole (where the
  // address space has no room for the extra page, the block goes without).
  const size_t span = rounded + huge;
  void* m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    m = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? nullptr : m;
  }
  const auto begin = reinterpret_cast<uintptr_t>(m), start = (begin + huge - 1) & ~uintptr_t(huge - 1);
  if (start > begin) munmap(m, start - begin);
  if (const size_t tail = begin + span - (start + rounded); tail > 0)
    munmap(reinterpret_cast<void*>(start + rounded), tail);
  madvise(reinterpret_cast<void*>(start), rounded, MADV_HUGEPAGE);  // a hint: it fails where THP is off
  return reinterpret_cast<void*>(start);
}
void sys_free(void* p, size_t rounded) {
  if (rounded < kMapFrom)
    std::free(p);
  else
    munmap(p, rounded);
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
    } else if ((p = take_larger_locked(c, rounded))) {
    } else {
      p = sys_alloc(rounded);
      if (!p) {  // give the cache back and try once more
        release_cache_locked();
        p = sys_alloc(rounded);
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
    if (!larger_.empty()) {  // a block of a larger class goes back to its own
      auto it = larger_.find(p);
      if (it != larger_.end()) {
        c = it->second;
        rounded = class_bytes(c);
        larger_.erase(it);
      }
    }
    if (cached_ + static_cast<int64_t>(rounded) <= cap_) {
      try {
        free_[c].push_back(p);  // may need memory itself: when there is none, the block goes back to the OS
        cached_ += rounded;
        return;
      } catch (const std::bad_alloc&) {  // (deallocate runs in destructors: nothing may escape)
      }
    }
    sys_free(p, rounded);
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
  // The smallest cached block of a class above c and at most twice `rounded` (c's size), for a request of at
  // least kUpsizeFrom (Note [Larger cached blocks]). nullptr: none.
  void* take_larger_locked(int c, size_t rounded) {
    if (rounded < kUpsizeFrom) return nullptr;
    for (int big = c + 1; big < kClasses && class_bytes(big) <= 2 * rounded; ++big) {
      if (free_[big].empty()) continue;
      void* p = free_[big].back();
      try {
        larger_.emplace(p, big);
      } catch (const std::bad_alloc&) {
        return nullptr;  // the map cannot grow: the request goes to the OS instead
      }
      free_[big].pop_back();
      cached_ -= static_cast<int64_t>(class_bytes(big));
      return p;
    }
    return nullptr;
  }

  void release_cache_locked() {
    int64_t count = 0;
    for (int c = 0; c < kClasses; ++c) {
      for (void* p : free_[c]) sys_free(p, class_bytes(c));
      count += static_cast<int64_t>(free_[c].size());
      free_[c].clear();
    }
    c_.on_sys_free(cached_, count);
    cached_ = 0;
  }

  mutable std::mutex mu_;
  std::vector<void*> free_[kClasses];
  std::unordered_map<void*, int> larger_;  // blocks handed out for a smaller class: their own class
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
