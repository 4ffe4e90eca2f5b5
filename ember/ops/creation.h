// Creating tensors (ops/creation.cpp): empty, zeros, ones, full, ranges, eye, the *_like forms and from_blob.
#pragma once

#include <functional>
#include <optional>

#include "ember/tensor.h"

namespace ember {

Tensor empty(IntArrayRef size, TensorOptions opts = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions opts = {});
Tensor zeros(IntArrayRef size, TensorOptions opts = {});
Tensor ones(IntArrayRef size, TensorOptions opts = {});
Tensor full(IntArrayRef size, const Scalar& value, TensorOptions opts = {});  // dtype defaults from value
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions opts = {});
Tensor arange(const Scalar& end, TensorOptions opts = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions opts = {});
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0, TensorOptions opts = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions opts = {});
// *_like: dtype and device default to the input's; the layout is contiguous.
Tensor empty_like(const Tensor& t, TensorOptions opts);
Tensor empty_like(const Tensor& t);
Tensor zeros_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor ones_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor full_like(const Tensor& t, const Scalar& value, std::optional<ScalarType> dtype = std::nullopt);
// A tensor holding a copy of host data of type src_dtype, converted to opts' dtype and device.
Tensor from_blob_copy(const void* data, ScalarType src_dtype, IntArrayRef size, TensorOptions opts);
// A tensor that shares external host memory; `deleter` runs when the storage is released.
Tensor from_blob(void* data, ScalarType dtype, IntArrayRef size, IntArrayRef strides, Device device,
                 std::function<void()> deleter, size_t storage_nbytes);

}  // namespace ember
