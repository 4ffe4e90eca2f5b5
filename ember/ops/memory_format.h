// Memory formats (PyTorch's torch.contiguous_format, channels_last, ...): which strides a dense tensor has. ember's
// ops accept any strides; elementwise ops lay their outputs out as their operands are (ops/elementwise_layout.h),
// other ops produce row-major outputs; these functions convert between the formats on request
// (Tensor.contiguous(memory_format=), .to(memory_format=), Module.to(memory_format=), empty(memory_format=)).
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember {

enum class MemoryFormat : uint8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

// Whether t's strides are f's: row-major for Contiguous; for ChannelsLast (4-d) / ChannelsLast3d (5-d) those of the
// channels-last dense layout (N, *spatial, C in memory), size-1 dims having any stride, as PyTorch. Preserve: dense.
bool is_contiguous(const Tensor& t, MemoryFormat f);
// The format t's layout follows: a channels-last one when t is in it and not row-major, else Contiguous.
MemoryFormat suggest_memory_format(const Tensor& t);
// t in format f: t itself when it already is, else a copy (differentiable). Preserve keeps a dense t's strides and
// makes other tensors row-major. A channels-last format needs a 4-d (5-d) tensor (PyTorch's error otherwise).
Tensor contiguous(const Tensor& t, MemoryFormat f);
// A copy of t in format f (differentiable); Preserve is clone(t), which keeps a dense t's strides.
Tensor clone(const Tensor& t, MemoryFormat f);
// An uninitialized tensor of `size` in format f (Preserve means Contiguous here).
Tensor empty(IntArrayRef size, TensorOptions opts, MemoryFormat f);

}  // namespace ember
