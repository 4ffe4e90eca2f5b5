// Note [Caches derived from a storage] in storage_watch.h.
#include "ember/storage_watch.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <unordered_set>

#include "ember/storage.h"

namespace ember {
namespace {

// Every storage's destructor asks whether it was watched or shared: a counting filter over address hashes (the
// registered storages alive in each slot) answers no without a lock for almost all of them, however many storages
// were registered before (a data pipeline's NumPy arrays come and go).
class Registry {
 public:
  void add(const StorageImpl* s, bool shared) {
    std::lock_guard<std::mutex> l(mu_);
    if (!(shared ? shared_ : watched_).insert(s).second) return;
    slots_[hash(s)].fetch_add(1, std::memory_order_release);
  }
  bool shared(const StorageImpl* s) {
    if (!maybe(s)) return false;
    std::lock_guard<std::mutex> l(mu_);
    return shared_.count(s) != 0;
  }
  // Forgets s; whether it was watched.
  bool remove(const StorageImpl* s) {
    if (!maybe(s)) return false;
    std::lock_guard<std::mutex> l(mu_);
    const size_t n = shared_.erase(s), watched = watched_.erase(s);
    if (n + watched) slots_[hash(s)].fetch_sub(static_cast<uint32_t>(n + watched), std::memory_order_release);
    return watched != 0;
  }

  std::atomic<void (*)(const StorageImpl*)> listener{nullptr};

 private:
  static constexpr size_t kSlots = 4096;
  static size_t hash(const StorageImpl* s) {
    const auto v = reinterpret_cast<uintptr_t>(s) >> 4;
    return (v ^ (v >> 12) ^ (v >> 24)) % kSlots;
  }
  bool maybe(const StorageImpl* s) const { return slots_[hash(s)].load(std::memory_order_acquire) != 0; }

  std::array<std::atomic<uint32_t>, kSlots> slots_{};
  std::mutex mu_;
  std::unordered_set<const StorageImpl*> watched_, shared_;
};

// Built in static memory and never destroyed: storages freed during exit still ask it. The first call may come from a
// storage's destructor with the address space full (fuzz seed 152582547), so building it must not allocate: its sets
// start with no buckets.
Registry& registry() {
  alignas(Registry) static unsigned char memory[sizeof(Registry)];
  static auto* r = new (memory) Registry;
  return *r;
}

}  // namespace

void mark_shared_outside(const StorageImpl* s) { registry().add(s, true); }

bool shared_outside(const StorageImpl* s) { return s->is_external() || registry().shared(s); }

void set_storage_release_listener(void (*listener)(const StorageImpl*)) { registry().listener.store(listener); }

void watch_storage(const StorageImpl* s) { registry().add(s, false); }

namespace detail {
void storage_released(const StorageImpl* s) {
  Registry& r = registry();
  if (r.remove(s))
    if (auto f = r.listener.load()) f(s);
}
}  // namespace detail

}  // namespace ember
