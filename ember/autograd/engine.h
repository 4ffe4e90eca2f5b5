// The backward engine: runs the graph from some tensors back to the leaves (Note [The engine] in engine.cpp).
#pragma once

#include <functional>
#include <optional>

#include "ember/autograd/node.h"

namespace ember::autograd {

// Tensor.backward / ember.autograd.backward: accumulates d(sum of roots * grads)/d(leaf) into each leaf's .grad
// (with `inputs`, only into those tensors' .grad). An undefined grad means ones for a one-element root.
// retain_graph defaults to create_graph.
void backward(const TensorList& roots, const TensorList& grads = {}, std::optional<bool> retain_graph = {},
              bool create_graph = false, const TensorList& inputs = {});

// ember.autograd.grad: the gradients of the roots with respect to `inputs`, without touching any .grad.
// An input the roots do not depend on gets an undefined tensor when allow_unused, else an error.
TensorList grad(const TensorList& roots, const TensorList& inputs, const TensorList& grads = {},
                std::optional<bool> retain_graph = {}, bool create_graph = false, bool allow_unused = false);

// Variable._execution_engine.queue_callback: runs `fn` once the innermost running backward has finished its graph
// (before backward()/grad() returns, on the same thread); a callback may queue more. Outside a backward: an error.
void queue_callback(std::function<void()> fn);

}  // namespace ember::autograd
