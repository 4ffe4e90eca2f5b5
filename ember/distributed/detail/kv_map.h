// The key-value semantics shared by the stores (the TCPStore server's map, HashStore, FileStore's replayed log).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ember/distributed/store.h"

namespace ember::distributed::store_detail {

struct KeyValueMap {
  std::unordered_map<std::string, Bytes> map;

  int64_t add(const std::string& key, int64_t delta) {
    auto it = map.find(key);
    int64_t v = (it == map.end() ? 0 : parse_int(it->second, key)) + delta;
    map[key] = int_bytes(v);
    return v;
  }
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
    auto it = map.find(key);
    if (it == map.end()) {
      if (!expected.empty()) return expected;
      map[key] = desired;
      return desired;
    }
    if (it->second == expected) it->second = desired;
    return it->second;
  }
  bool has_all(const std::vector<std::string>& keys) const {
    for (const auto& k : keys)
      if (!map.count(k)) return false;
    return true;
  }
};

}  // namespace ember::distributed::store_detail
