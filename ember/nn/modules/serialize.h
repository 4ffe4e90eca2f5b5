// Saving and loading a module's state (its state_dict) as a checkpoint, as libtorch's torch::save(module, path) and
// torch::load(module, path): the files of ember/serialize/serialize.h, which ember.load reads as a state dict.
#pragma once

#include <concepts>
#include <memory>
#include <string>

#include "ember/nn/modules/module.h"
#include "ember/serialize/serialize.h"

namespace ember {

// The module's state_dict().
void save(const nn::Module& module, const std::string& path);
// Copies a saved state dict into the module's parameters and buffers. Missing, unexpected and mis-shaped
// keys are reported together (as PyTorch's load_state_dict), and then nothing in the module has changed.
void load(nn::Module& module, const std::string& path, const LoadOptions& options = {});

// libtorch's spellings with the module held by a shared_ptr: ember::save(net, path), ember::load(net, path).
template <class M>
requires std::derived_from<M, nn::Module>
void save(const std::shared_ptr<M>& module, const std::string& path) { save(*module, path); }
template <class M>
requires std::derived_from<M, nn::Module>
void load(const std::shared_ptr<M>& module, const std::string& path, const LoadOptions& options = {}) {
  load(*module, path, options);
}

}  // namespace ember
