// Note [Caches derived from a storage] in storage_watch.h.
#include "ember/storage_watch.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_set>

#include "ember/storage.h"

namespace ember {
namespace {

// Every storage's destructor asks whether it was watched or shared: a filter of address bits (set for each one
// registered, never cleared) answers no without a lock for almost all of them.
class Registry {
 public:
  void add(const StorageImpl* s, bool shared) {
    std::lock_guard<std::mutex> l(mu_);
    (shared ? shared_ : watched_).insert(s);
    const size_t h = hash(s);
    bits_[h / 64].fetch_or(uint64_t{1} << (h % 64), std::memory_order_release);
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
    shared_.erase(s);
    return watched_.erase(s) != 0;
  }

  std::atomic<void (*)(const StorageImpl*)> listener{nullptr};

 private:
  static constexpr size_t kBits = 4096;
  static size_t hash(const StorageImpl* s) {
    const auto v = reinterpret_cast<uintptr_t>(s) >> 4;
    return (v ^ (v >> 12) ^ (v >> 24)) % kBits;
  }
  bool maybe(const StorageImpl* s) const {
    const size_t h = hash(s);
    return (bits_[h / 64].load(std::memory_order_acquire) >> (h % 64)) & 1;
  }

  std::array<std::atomic<uint64_t>, kBits / 64> bits_{};
  std::mutex mu_;
  std::unordered_set<const StorageImpl*> watched_, shared_;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: storages freed during exit still ask it
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
