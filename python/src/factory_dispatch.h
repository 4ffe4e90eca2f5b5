// The factories called from Python offered to __torch_dispatch__ modes (Note [Python dispatch] in
// ember/dispatch_hook.h): ember.zeros, ember.rand, ... (creation.cpp, random.cpp).
#pragma once

#include <optional>
#include <vector>

#include "common.h"
#include "ember/dispatch_hook.h"

namespace ember::py {

// The handler's result for factory `op` called with positional arguments v and a's keyword arguments, or nullopt to
// run the factory (no mode or subclass took it, or out= / pin_memory=True were given).
std::optional<Tensor> offer_factory(const char* op, std::vector<dispatch::Value> v, const FactoryArgs& a,
                                    bool memory_format = false);

}  // namespace ember::py
