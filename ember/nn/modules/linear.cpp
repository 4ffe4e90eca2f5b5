#include "ember/nn/modules/linear.h"

#include <algorithm>
#include <cmath>

#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"
#include "ember/ops/linalg.h"

namespace ember::nn {

using detail::bool_str;
using detail::default_init;

Linear::Linear(std::string name, int64_t in, int64_t out, bool with_bias)
    : Module(std::move(name)), in_features(in), out_features(out) {
  weight = register_parameter("weight", empty(DimVector{out, in}));
  if (with_bias) bias = register_parameter("bias", empty(DimVector{out}));
  default_init(weight, bias, in);
}

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + bool_str(bias.defined());
}

Bilinear::Bilinear(int64_t in1, int64_t in2, int64_t out, bool with_bias)
    : Module("Bilinear"), in1_features(in1), in2_features(in2), out_features(out) {
  weight = register_parameter("weight", empty(DimVector{out, in1, in2}));
  if (with_bias) bias = register_parameter("bias", empty(DimVector{out}));
  default_init(weight, bias, in1);  // torch.nn.Bilinear's bound: 1 / sqrt(weight.size(1))
}

Tensor Bilinear::forward(const Tensor& x1, const Tensor& x2) { return bilinear(x1, x2, weight, bias); }

std::string Bilinear::extra_repr() const {
  return "in1_features=" + std::to_string(in1_features) + ", in2_features=" + std::to_string(in2_features) +
         ", out_features=" + std::to_string(out_features) + ", bias=" + bool_str(bias.defined());
}

Tensor Flatten::forward(const Tensor& x) { return x.flatten(start_dim, end_dim); }

std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

Tensor Unflatten::forward(const Tensor& x) { return unflatten(x, dim, unflattened_size); }

std::string Unflatten::extra_repr() const {
  return "dim=" + std::to_string(dim) + ", unflattened_size=" + detail::tuple_str(unflattened_size);
}

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
