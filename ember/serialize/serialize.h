// The C++ API of ember's checkpoints (docs/serialization.md), as libtorch's torch::save / torch::load: a
// tensor or a state dict, in ember's format (the same files ember.save / ember.load read and write in Python); a
// module's state: ember/nn/modules/serialize.h. Saving replaces the file atomically; loading never runs code.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/serialize/safetensors.h"
#include "ember/tensor.h"

namespace ember {

void save(const Tensor& t, const std::string& path);
// A state dict: loads in Python as an OrderedDict of str -> Tensor.
void save(const std::vector<std::pair<std::string, Tensor>>& state, const std::string& path);
void save(const std::map<std::string, Tensor>& state, const std::string& path);

struct LoadOptions {
  std::optional<Device> map_location;  // unset: where each storage was saved from
  bool mmap = false;                   // map the file copy-on-write instead of reading it
  bool verify = true;                  // check each storage's CRC-32C (false: trusted files, faster loads)
};

// A file holding one tensor (ember.save(tensor, path) in Python).
Tensor load(const std::string& path, const LoadOptions& options = {});
// A file holding a dict of str -> Tensor (a state dict), in its saved order.
std::vector<std::pair<std::string, Tensor>> load_state_dict(const std::string& path, const LoadOptions& options = {});

}  // namespace ember
