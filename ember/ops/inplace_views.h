// In place on metadata (ops/inplace_views.cpp): the in-place forms of the view ops, and resize_.
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

// Each makes t take the view's geometry: the same tensor object, a version bump, the view's gradient formula as
// its grad_fn.
const Tensor& unsqueeze_(const Tensor& t, int64_t dim);
const Tensor& squeeze_(const Tensor& t, std::optional<int64_t> dim = {});
const Tensor& transpose_(const Tensor& t, int64_t d0, int64_t d1);
const Tensor& t_(const Tensor& t);
const Tensor& as_strided_(const Tensor& t, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset = {});
// resize_: contiguous strides for `size`, keeping the storage when it is large enough, else a larger one holding
// the old bytes. Not allowed on tensors that require grad (PyTorch's rule).
const Tensor& resize_(const Tensor& t, IntArrayRef size);

}  // namespace ember
