#include "ember/nn/modules/container.h"

#include <algorithm>

#include "ember/error.h"

namespace ember::nn {

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (auto& m : children()) y = m->forward(y);
  return y;
}

namespace {

// Python's index rule for a container of n items.
size_t checked_index(int64_t i, size_t n, const char* what) {
  const auto size = static_cast<int64_t>(n);
  EMBER_CHECK_INDEX(i >= -size && i < size, what, ": index ", i, " is out of range (size ", size, ")");
  return static_cast<size_t>(i < 0 ? i + size : i);
}

}  // namespace

std::shared_ptr<Module> Sequential::operator[](int64_t i) const {
  return named_children()[checked_index(i, size(), "Sequential")].second;
}

std::shared_ptr<Module> ModuleList::operator[](int64_t i) const {
  return items_[checked_index(i, items_.size(), "ModuleList")];
}

bool ModuleDict::contains(const std::string& key) const {
  return std::ranges::any_of(named_children(), [&](const auto& p) { return p.first == key; });
}

std::shared_ptr<Module> ModuleDict::operator[](const std::string& key) const {
  for (const auto& [k, m] : named_children())
    if (k == key) return m;
  fail<IndexError>("ModuleDict: no module named '", key, "'");
}

std::vector<std::string> ModuleDict::keys() const {
  std::vector<std::string> r;
  for (const auto& [k, m] : named_children()) r.push_back(k);
  return r;
}

}  // namespace ember::nn
