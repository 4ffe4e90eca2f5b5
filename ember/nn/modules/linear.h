// Linear layers, reshaping layers and the containers (Sequential, ModuleList, ModuleDict).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/modules/module.h"

namespace ember::nn {

// y = x W^T + b; weight [out, in], both U(-1/sqrt(in), 1/sqrt(in)).
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true)
      : Linear("Linear", in_features, out_features, bias) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t in_features, out_features;

 protected:
  Linear(std::string name, int64_t in_features, int64_t out_features, bool bias);  // a subclass's name
};

// y[o] = x1^T W[o] x2 + b[o]; weight [out, in1, in2], both U(-1/sqrt(in1), 1/sqrt(in1)).
class Bilinear : public Module {
 public:
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x1, const Tensor& x2);
  Tensor operator()(const Tensor& x1, const Tensor& x2) { return forward(x1, x2); }
  using Module::forward;  // one input: NotImplementedError
  std::string extra_repr() const override;
  Tensor weight, bias;
  int64_t in1_features, in2_features, out_features;
};

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& x) override { return x; }
};

class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t start_dim, end_dim;
};

// Splits dim into unflattened_size (one entry may be -1).
class Unflatten : public Module {
 public:
  Unflatten(int64_t dim, DimVector unflattened_size)
      : Module("Unflatten"), dim(dim), unflattened_size(std::move(unflattened_size)) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t dim;
  DimVector unflattened_size;
};

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
