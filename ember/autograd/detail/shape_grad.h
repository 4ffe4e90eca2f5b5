// Helpers for recording the shape and indexing ops (ops/shape.cpp, split_stack.cpp, index.cpp, diagonal.cpp, ...),
// whose formulas sit next to the ops.
//
// Note [Composite forwards]
// Many of these ops build their result with other ops (clone, views, where, nonzero) and then write into it with
// a kernel. When the op records a formula of its own, the ops inside would record nodes that the result's history
// replaces anyway, so such a forward runs untracked (grad mode off) and the op's node is the only one made. The
// result must be a fresh tensor, not a view of one made inside: an in-place op on a view rewrites its base's
// history (Note [In-place on views]), which would not be the op's.
#pragma once

#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd {

// f() with grad mode off when `recording` (the op records its own node), else f() as is.
template <class F>
decltype(auto) untracked(bool recording, F&& f) {
  if (!recording) return f();
  NoGradGuard guard;
  return f();
}

// needs_grad over a list, without building the pointer list on the path that records nothing.
bool any_needs_grad(const std::vector<Tensor>& ts, const Tensor* extra = nullptr);
// Zeros of g's dtype and device.
Tensor zeros_for(const Tensor& g, IntArrayRef shape);
// g placed at the front of zeros of `shape` (g no larger along any dim; the same numel: a reshape). For an input
// of which the op reads only the leading block, as scatter's src when the index is smaller.
Tensor grow_to(const Tensor& g, IntArrayRef shape);
// t, with a backward that raises `msg` (PyTorch's DelayedError): for a gradient whose own gradient would be wrong.
Tensor delayed_error(const Tensor& t, const char* msg);

}  // namespace ember::autograd
