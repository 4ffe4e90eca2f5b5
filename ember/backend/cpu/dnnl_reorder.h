// Reorders between ember's plain tensors and oneDNN's blocked layouts as ember copies (Note [Reorders as copies] in
// dnnl_reorder.cpp).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "ember/tensor.h"

namespace ember::dnnl_cpu {

// Whether copy_blocked moves memory laid out as `user` (strided, unblocked) to and from `inner`: the same dims and
// 16/32-bit float type, and at most one block per dim in `inner`.
bool copyable(const dnnl::memory::desc& user, const dnnl::memory::desc& inner);
// A buffer for memory laid out as `md`, of its element type.
Tensor blocked_buffer(const dnnl::memory::desc& md);
// Copies t (laid out as `user`) into `blocked` (laid out as `inner`, zeroing its padding), or back when !to_blocked.
void copy_blocked(const dnnl::memory::desc& user, const Tensor& t, const dnnl::memory::desc& inner,
                  const Tensor& blocked, bool to_blocked);

}  // namespace ember::dnnl_cpu
