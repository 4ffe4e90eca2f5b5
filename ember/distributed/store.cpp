// PrefixStore, HashStore and the helpers every store shares.
#include <condition_variable>
#include <mutex>

#include "ember/distributed/detail/kv_map.h"
#include "ember/distributed/store.h"
#include "ember/error.h"

namespace ember::distributed {

namespace store_detail {

int64_t parse_int(const Bytes& v, const std::string& key) {
  std::string s(v.begin(), v.end());
  try {
    size_t used = 0;
    int64_t r = std::stoll(s, &used);
    if (used == s.size()) return r;
  } catch (const std::exception&) {
  }
  fail<Error>("[Store.add] the value of key '", key, "' is not an integer: '", s, "'");
}

Bytes int_bytes(int64_t v) {
  std::string s = std::to_string(v);
  return Bytes(s.begin(), s.end());
}

std::string timeout_message(const char* store, const std::vector<std::string>& keys, Millis timeout) {
  std::string names;
  for (const auto& k : keys) names += (names.empty() ? "'" : ", '") + k + "'";
  return detail::cat("[", store, "] Wait timeout: timed out after ", timeout.count(), " ms waiting for key(s) ", names);
}

}  // namespace store_detail

// ---- PrefixStore

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultTimeout), prefix_(std::move(prefix)), store_(std::move(store)) {
  EMBER_CHECK_VALUE(store_ != nullptr, "[PrefixStore] the underlying store is None");
}

std::vector<std::string> PrefixStore::keys(const std::vector<std::string>& ks) const {
  std::vector<std::string> r;
  r.reserve(ks.size());
  for (const auto& k : ks) r.push_back(key(k));
  return r;
}

void PrefixStore::set(const std::string& k, const Bytes& v) { store_->set(key(k), v); }
Bytes PrefixStore::get(const std::string& k) { return store_->get(key(k)); }
int64_t PrefixStore::add(const std::string& k, int64_t d) { return store_->add(key(k), d); }
Bytes PrefixStore::compare_set(const std::string& k, const Bytes& e, const Bytes& d) {
  return store_->compare_set(key(k), e, d);
}
bool PrefixStore::delete_key(const std::string& k) { return store_->delete_key(key(k)); }
int64_t PrefixStore::num_keys() { return store_->num_keys(); }  // c10d: the underlying store's count
bool PrefixStore::check(const std::vector<std::string>& ks) { return store_->check(keys(ks)); }
void PrefixStore::wait(const std::vector<std::string>& ks, Millis t) { store_->wait(keys(ks), t); }
void PrefixStore::set_timeout(Millis t) {
  Store::set_timeout(t);
  store_->set_timeout(t);
}

// ---- HashStore

struct HashStore::State {
  std::mutex mu;
  std::condition_variable cv;
  store_detail::KeyValueMap kv;
};

HashStore::HashStore() : state_(std::make_unique<State>()) {}
HashStore::~HashStore() = default;

void HashStore::set(const std::string& key, const Bytes& value) {
  {
    std::lock_guard<std::mutex> l(state_->mu);
    state_->kv.map[key] = value;
  }
  state_->cv.notify_all();
}

Bytes HashStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->kv.map.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t delta) {
  int64_t r;
  {
    std::lock_guard<std::mutex> l(state_->mu);
    r = state_->kv.add(key, delta);
  }
  state_->cv.notify_all();
  return r;
}

Bytes HashStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Bytes r;
  {
    std::lock_guard<std::mutex> l(state_->mu);
    r = state_->kv.compare_set(key, expected, desired);
  }
  state_->cv.notify_all();
  return r;
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->kv.map.erase(key) > 0;
}

int64_t HashStore::num_keys() {
  std::lock_guard<std::mutex> l(state_->mu);
  return static_cast<int64_t>(state_->kv.map.size());
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->kv.has_all(keys);
}

void HashStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  timeout = resolve(timeout);
  std::unique_lock<std::mutex> l(state_->mu);
  if (!state_->cv.wait_for(l, timeout, [&] { return state_->kv.has_all(keys); }))
    throw Error(store_detail::timeout_message("HashStore", keys, timeout));
}

}  // namespace ember::distributed
