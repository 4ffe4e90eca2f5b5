// Note [Plan caches]
// A least-recently-used cache of library plans (cuFFT's, Note [cuFFT plans] in backend/cuda/cufft.cpp), generic over
// the key and the plan so that tests/test_plan_cache.cpp checks its logic with a fake plan on machines without a GPU.
// PyTorch's semantics (ember.backends.cuda.cufft_plan_cache): `max_size` plans at most (4096 by default); a lookup
// that misses makes the plan and puts it first, evicting the least recently used one when full; a hit moves the plan
// first; max_size 0 keeps nothing (each call makes its plan); lowering max_size evicts the oldest at once. Plans are
// handed out as shared_ptr, so one evicted or cleared while another thread still runs it lives until that run is
// enqueued. Thread-safe: one mutex per cache, held while a missing plan is made (two threads wanting one plan make it
// once).
#pragma once

#include <cstdint>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "ember/error.h"

namespace ember {

template <class Key, class Plan, class Hash = std::hash<Key>>
class PlanCache {
 public:
  static constexpr int64_t kDefaultMaxSize = 4096;  // PyTorch's CUFFT_DEFAULT_CACHE_SIZE

  explicit PlanCache(int64_t max_size = kDefaultMaxSize) { set_max_size(max_size); }
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // The plan of `key`: the cached one, or make() (returning a std::unique_ptr<Plan> or a shared_ptr) cached first.
  // An exception from make() leaves the cache as it was.
  template <class Make>
  std::shared_ptr<Plan> get(const Key& key, Make&& make) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      ++hits_;
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;
    }
    ++misses_;
    std::shared_ptr<Plan> plan(make());
    if (max_size_ == 0) return plan;
    while (static_cast<int64_t>(order_.size()) >= max_size_) evict_oldest();
    order_.emplace_front(key, plan);
    index_.emplace(key, order_.begin());
    return plan;
  }

  int64_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int64_t>(order_.size());
  }
  int64_t max_size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return max_size_;
  }
  // PyTorch's checks and messages.
  void set_max_size(int64_t n) {
    EMBER_CHECK(n >= 0, "cuFFT plan cache size must be non-negative, but got ", n);
    std::lock_guard<std::mutex> lock(mu_);
    max_size_ = n;
    while (static_cast<int64_t>(order_.size()) > max_size_) evict_oldest();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    index_.clear();
    order_.clear();
  }
  // Whether key is cached (without touching its place), and the lookups so far: for tests.
  bool contains(const Key& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    return index_.count(key) != 0;
  }
  int64_t hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }
  int64_t misses() const {
    std::lock_guard<std::mutex> lock(mu_);
    return misses_;
  }

 private:
  using Entry = std::pair<Key, std::shared_ptr<Plan>>;
  void evict_oldest() {
    index_.erase(order_.back().first);
    order_.pop_back();
  }

  mutable std::mutex mu_;
  int64_t max_size_ = kDefaultMaxSize;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<Key, typename std::list<Entry>::iterator, Hash> index_;
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace ember
