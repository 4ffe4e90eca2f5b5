#include "ember/nn/modules/module.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/ops.h"

namespace ember::nn {

namespace {

void check_name(const std::string& name, const char* what) {
  EMBER_CHECK(!name.empty(), what, " name can't be empty string \"\"");
  EMBER_CHECK(name.find('.') == std::string::npos, what, " name can't contain \".\", got: ", name);
}

template <class V>
bool has(const V& v, const std::string& name) {
  return std::ranges::any_of(v, [&](const auto& p) { return p.first == name; });
}

}  // namespace

Tensor Module::forward(const Tensor&) {
  fail<NotImplementedError>("Module [", name_, "] has no forward(Tensor) (it takes other inputs)");
}

Tensor& Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  check_name(name, "parameter");
  EMBER_CHECK(!has(params_, name) && !has(buffers_, name) && !has(children_, name), "attribute '", name,
              "' already exists");
  if (t.defined()) t.set_requires_grad(requires_grad);
  params_.emplace_back(name, std::move(t));
  return params_.back().second;
}

Tensor& Module::register_buffer(const std::string& name, Tensor t) {
  check_name(name, "buffer");
  EMBER_CHECK(!has(params_, name) && !has(buffers_, name) && !has(children_, name), "attribute '", name,
              "' already exists");
  buffers_.emplace_back(name, std::move(t));
  return buffers_.back().second;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> m) {
  check_name(name, "module");
  EMBER_CHECK(!has(params_, name) && !has(buffers_, name) && !has(children_, name), "attribute '", name,
              "' already exists");
  children_.emplace_back(name, std::move(m));
}

void Module::collect(NamedTensors& out, const std::string& prefix, bool params, bool recurse) const {
  for (const auto& [n, t] : params ? params_ : buffers_)
    if (t.defined() && std::ranges::none_of(out, [&](const auto& p) { return p.second.is_same(t); }))
      out.emplace_back(prefix + n, t);
  if (!recurse) return;
  for (const auto& [n, child] : children_)
    if (child) child->collect(out, prefix + n + ".", params, true);
}

NamedTensors Module::named_parameters(bool recurse) const {
  NamedTensors r;
  collect(r, "", true, recurse);
  return r;
}

NamedTensors Module::named_buffers(bool recurse) const {
  NamedTensors r;
  collect(r, "", false, recurse);
  return r;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> r;
  for (auto& [n, t] : named_parameters(recurse)) r.push_back(t);
  return r;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> r;
  for (auto& [n, t] : named_buffers(recurse)) r.push_back(t);
  return r;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> r;
  for (auto& [n, m] : children_) r.push_back(m);
  return r;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_modules(const std::string& prefix) {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> r{{prefix, shared_from_this()}};
  for (auto& [n, m] : children_) {
    if (!m) continue;
    auto sub = m->named_modules(prefix.empty() ? n : prefix + "." + n);
    r.insert(r.end(), sub.begin(), sub.end());
  }
  return r;
}

NamedTensors Module::state_dict() const {
  NamedTensors r;
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m, const std::string& prefix) {
    for (const auto& [n, t] : m.params_)
      if (t.defined()) r.emplace_back(prefix + n, t.detach());
    for (const auto& [n, t] : m.buffers_)
      if (t.defined()) r.emplace_back(prefix + n, t.detach());
    for (const auto& [n, c] : m.children_)
      if (c) walk(*c, prefix + n + ".");
  };
  walk(*this, "");
  return r;
}

void Module::load_state_dict(const NamedTensors& state, bool strict) {
  NamedTensors mine = state_dict();
  std::vector<std::string> missing, unexpected, errors;
  std::vector<std::pair<Tensor, Tensor>> copies;  // made only once everything checked out: an error changes nothing
  for (auto& [key, dst] : mine) {
    auto it = std::ranges::find_if(state, [&](const auto& p) { return p.first == key; });
    if (it == state.end()) {
      missing.push_back(key);
      continue;
    }
    if (!std::ranges::equal(it->second.sizes(), dst.sizes())) {
      errors.push_back("size mismatch for " + key + ": copying a param with shape " + shape_str(it->second.sizes()) +
                       " from checkpoint, the shape in current model is " + shape_str(dst.sizes()) + ".");
      continue;
    }
    copies.emplace_back(dst, it->second);
  }
  for (auto& [key, t] : state)
    if (std::ranges::none_of(mine, [&](const auto& p) { return p.first == key; })) unexpected.push_back(key);
  std::ostringstream msg;
  auto list = [&](const char* what, const std::vector<std::string>& keys) {
    msg << "\n\t" << what << " key(s) in state_dict: ";
    for (size_t i = 0; i < keys.size(); ++i) msg << (i ? ", " : "") << '"' << keys[i] << '"';
    msg << ". ";
  };
  if (strict && !missing.empty()) list("Missing", missing);
  if (strict && !unexpected.empty()) list("Unexpected", unexpected);
  for (auto& e : errors) msg << "\n\t" << e;
  const std::string s = msg.str();
  EMBER_CHECK(s.empty(), "Error(s) in loading state_dict for ", name_, ":", s);
  autograd::NoGradGuard no_grad;
  for (auto& [dst, src] : copies) dst.copy_(src);
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [n, c] : children_)
    if (c) c->train(on);
}

namespace {
// Replaces the data of every parameter and buffer t of m and its children for which convert(t) is a different
// tensor, keeping the tensor objects (a .grad of the old kind is dropped).
template <class F>
void convert_all(NamedTensors& params, NamedTensors& buffers, F&& convert) {
  autograd::NoGradGuard no_grad;
  for (auto* list : {&params, &buffers})
    for (auto& [n, t] : *list) {
      if (!t.defined()) continue;
      Tensor c = convert(t);
      if (c.is_same(t)) continue;
      if (t.grad().defined()) t.set_grad(Tensor());
      t.impl()->set_data(*c.impl());
    }
}
}  // namespace

void Module::to(ScalarType dtype) {
  convert_all(params_, buffers_, [&](const Tensor& t) { return t.is_floating_point() ? ember::to(t, dtype) : t; });
  for (auto& [n, c] : children_)
    if (c) c->to(dtype);
}

void Module::to(Device device) {
  convert_all(params_, buffers_, [&](const Tensor& t) { return ember::to(t, device); });
  for (auto& [n, c] : children_)
    if (c) c->to(device);
}

void Module::zero_grad(bool set_to_none) {
  for (auto& p : parameters()) {
    if (!p.grad().defined()) continue;
    if (set_to_none)
      p.set_grad(Tensor());
    else
      p.grad().zero_();
  }
}

std::string Module::repr() const {
  std::string s = name_ + "(";
  const std::string extra = extra_repr();
  if (children_.empty()) return s + extra + ")";
  s += "\n";
  if (!extra.empty()) s += "  " + extra + "\n";
  for (auto& [n, c] : children_) {
    std::string child = c ? c->repr() : "None";
    std::string indented;
    for (char ch : child) indented += ch == '\n' ? std::string("\n  ") : std::string(1, ch);
    s += "  (" + n + "): " + indented + "\n";
  }
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.repr(); }

}  // namespace ember::nn
