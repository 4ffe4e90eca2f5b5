// The C++ API of ember's checkpoints (docs/serialization.md), as libtorch's torch::save / torch::load: a
// tensor, a state dict, or a module's state, in ember's format (the same files ember.save / ember.load
// read and write in Python). Saving replaces the file atomically; loading never runs code.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/modules/module.h"
#include "ember/serialize/safetensors.h"
#include "ember/tensor.h"

namespace ember {

void save(const Tensor& t, const std::string& path);
// A state dict: loads in Python as an OrderedDict of str -> Tensor.
void save(const std::vector<std::pair<std::string, Tensor>>& state, const std::string& path);
void save(const std::map<std::string, Tensor>& state, const std::string& path);
// The module's state_dict().
void save(const nn::Module& module, const std::string& path);

struct LoadOptions {
  std::optional<Device> map_location;  // unset: where each storage was saved from
  bool mmap = false;                   // map the file copy-on-write instead of reading it
};

// A file holding one tensor (ember.save(tensor, path) in Python).
Tensor load(const std::string& path, const LoadOptions& options = {});
// A file holding a dict of str -> Tensor (a state dict), in its saved order.
std::vector<std::pair<std::string, Tensor>> load_state_dict(const std::string& path, const LoadOptions& options = {});
// Copies a saved state dict into the module's parameters and buffers. Missing, unexpected and mis-shaped
// keys are reported together (as PyTorch's load_state_dict), and then nothing in the module has changed.
void load(nn::Module& module, const std::string& path, const LoadOptions& options = {});

}  // namespace ember
