// The diagonal family and the *_scatter ops (ops/diagonal.cpp).
#pragma once

#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor diag(const Tensor& t, int64_t diagonal = 0);  // 1-d: a matrix with t on that diagonal; 2-d: its diagonal
Tensor diag_embed(const Tensor& t, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diagflat(const Tensor& t, int64_t offset = 0);
Tensor trace(const Tensor& t);  // integers sum to int64
// int64 (or opts' dtype) [2, count]: the coordinates of the lower (upper) triangle of a row x col matrix.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions opts = {});
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions opts = {});
const Tensor& fill_diagonal_(const Tensor& t, const Scalar& value, bool wrap = false);
Tensor block_diag(const std::vector<Tensor>& tensors);

// A copy of self with src written into the region that the view names (PyTorch's *_scatter ops).
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0, std::optional<int64_t> start = {},
                     std::optional<int64_t> end = {}, int64_t step = 1);
Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset = {});

}  // namespace ember
