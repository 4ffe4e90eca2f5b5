#include "ember/nn/modules/serialize.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/format.h"

namespace ember {

void save(const nn::Module& module, const std::string& path) { save(module.state_dict(), path); }

void load(nn::Module& module, const std::string& path, const LoadOptions& options) {
  const auto state = load_state_dict(path, options);
  const nn::NamedTensors mine = module.state_dict();
  auto find = [](const auto& list, const std::string& key) {
    return std::ranges::find_if(list, [&](const auto& p) { return p.first == key; });
  };
  std::vector<std::string> missing, unexpected, mismatched;
  for (const auto& [key, dst] : mine) {
    auto it = find(state, key);
    if (it == state.end())
      missing.push_back(key);
    else if (!std::ranges::equal(it->second.sizes(), dst.sizes()))
      mismatched.push_back("size mismatch for " + key + ": copying a param with shape " +
                           shape_str(it->second.sizes()) + " from checkpoint, the shape in current model is " +
                           shape_str(dst.sizes()) + ".");
  }
  for (const auto& [key, t] : state)
    if (find(mine, key) == mine.end()) unexpected.push_back(key);
  // Everything is checked before the first copy, so a bad checkpoint leaves the module as it was.
  if (!missing.empty() || !unexpected.empty() || !mismatched.empty()) {
    std::ostringstream msg;
    auto list = [&](const char* what, const std::vector<std::string>& keys) {
      if (keys.empty()) return;
      msg << "\n\t" << what << " key(s) in state_dict: ";
      for (size_t i = 0; i < keys.size(); ++i) msg << (i ? ", " : "") << '"' << keys[i] << '"';
      msg << ". ";
    };
    list("Missing", missing);
    list("Unexpected", unexpected);
    for (const auto& e : mismatched) msg << "\n\t" << e;
    fail<Error>("Error(s) in loading state_dict for ", module.name(), " from '", path, "':", msg.str());
  }
  autograd::NoGradGuard no_grad;
  for (const auto& [key, dst] : mine) dst.copy_(find(state, key)->second);
}

}  // namespace ember
