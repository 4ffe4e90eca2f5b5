// The C++ frontend's Module, as libtorch's torch::nn::Module: parameters, buffers and submodules registered by
// name, traversal with PyTorch's dotted names, state_dict / load_state_dict, train/eval, dtype and device
// conversion, zero_grad. Layers (ember/nn/modules.h) derive from it; a model is a Module that registers layers.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn {

// Ordered (name, tensor) pairs: what state_dict returns and load_state_dict reads.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string name = "Module") : name_(std::move(name)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The forward of a module with one input and one output (what Sequential chains); others define their own.
  virtual Tensor forward(const Tensor& input);
  Tensor operator()(const Tensor& input) { return forward(input); }

  // Registration returns the stored tensor; layers keep it as a member (a handle to the same tensor).
  Tensor& register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  Tensor& register_buffer(const std::string& name, Tensor t);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    add_child(name, m);
    return m;
  }

  std::vector<Tensor> parameters(bool recurse = true) const;
  NamedTensors named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const { return children_; }
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_modules(const std::string& prefix = "");

  // Detached parameters and buffers under PyTorch's dotted names.
  NamedTensors state_dict() const;
  // Copies values in (under no_grad). strict: every key must match, with equal shapes; errors list the keys.
  void load_state_dict(const NamedTensors& state, bool strict = true);

  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  // Converts floating parameters and buffers (keeping the tensor objects, as Module.to in Python).
  void to(ScalarType dtype);
  void to(Device device);
  void zero_grad(bool set_to_none = true);

  const std::string& name() const { return name_; }
  // PyTorch's repr: "Linear(in_features=3, out_features=4, bias=true)" and nested children.
  virtual std::string extra_repr() const { return ""; }
  std::string repr() const;

 protected:
  void add_child(const std::string& name, std::shared_ptr<Module> m);

 private:
  void collect(NamedTensors& out, const std::string& prefix, bool params, bool recurse) const;
  std::string name_;
  bool training_ = true;
  NamedTensors params_, buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

std::ostream& operator<<(std::ostream& os, const Module& m);

}  // namespace ember::nn
