// The containers: Sequential, ModuleList and ModuleDict.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/modules/module.h"

namespace ember::nn {

// Children named "0", "1", ...; forward chains them.
class Sequential : public Module {
 public:
  Sequential() : Module("Sequential") {}
  template <class M>
  Sequential& push_back(std::shared_ptr<M> m) {
    register_module(std::to_string(named_children().size()), std::move(m));
    return *this;
  }
  Tensor forward(const Tensor& x) override;
  size_t size() const { return named_children().size(); }
  std::shared_ptr<Module> operator[](int64_t i) const;
};

// Holds submodules under "0", "1", ... (their state_dict keys are prefixed so); no forward of its own.
class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  template <class M>
  ModuleList& push_back(std::shared_ptr<M> m) {
    register_module(std::to_string(items_.size()), m);
    items_.push_back(std::move(m));
    return *this;
  }
  size_t size() const { return items_.size(); }
  // Negative i counts from the end, as in Python; out of range: IndexError.
  std::shared_ptr<Module> operator[](int64_t i) const;
  template <class M>
  std::shared_ptr<M> at(int64_t i) const {
    auto m = std::dynamic_pointer_cast<M>((*this)[i]);
    EMBER_CHECK_TYPE(m != nullptr, "ModuleList: module ", i, " is a ", (*this)[i]->name(), ", not the type asked for");
    return m;
  }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> items_;
};

// Holds submodules under the given keys, in insertion order.
class ModuleDict : public Module {
 public:
  ModuleDict() : Module("ModuleDict") {}
  template <class M>
  ModuleDict& insert(const std::string& key, std::shared_ptr<M> m) {
    register_module(key, std::move(m));
    return *this;
  }
  size_t size() const { return named_children().size(); }
  bool contains(const std::string& key) const;
  // An unknown key: KeyError-like IndexError naming it.
  std::shared_ptr<Module> operator[](const std::string& key) const;
  std::vector<std::string> keys() const;
};

}  // namespace ember::nn
