// Views (ops/views.cpp): tensors that share storage with their input (view, reshape, permute, expand, squeeze,
// narrow, select, slice, as_strided, diagonal, unfold, ...), and contiguous and clone.
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

Tensor view(const Tensor& t, IntArrayRef size);
// The same bytes read as another dtype (PyTorch's Tensor.view(dtype)); with a different element size the last
// dimension (stride 1) is split or merged. Not differentiable.
Tensor view(const Tensor& t, ScalarType dtype);
Tensor reshape(const Tensor& t, IntArrayRef size);
Tensor permute(const Tensor& t, IntArrayRef dims);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor t(const Tensor& t);
Tensor expand(const Tensor& t, IntArrayRef size);
Tensor expand_as(const Tensor& t, const Tensor& other);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, int64_t dim);
Tensor squeeze(const Tensor& t, IntArrayRef dims);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor flatten(const Tensor& t, int64_t start = 0, int64_t end = -1);
Tensor ravel(const Tensor& t);  // reshape(t, {-1})
Tensor unflatten(const Tensor& t, int64_t dim, IntArrayRef sizes);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step = 1);
Tensor as_strided(const Tensor& t, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> offset = {});
Tensor diagonal(const Tensor& t, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
Tensor alias(const Tensor& t);       // a new TensorImpl over the same storage, without history (detach)
Tensor view_alias(const Tensor& t);  // the same, as a differentiable view (identity gradient)
Tensor contiguous(const Tensor& t);
Tensor clone(const Tensor& t);
// The shape of broadcasting a and b; `op` names the caller in the error.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op = "broadcast_shapes");

}  // namespace ember
