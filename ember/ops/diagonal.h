// More shape ops, composed of the existing ones (ops/shape_more.cpp): the diagonal family and the *_scatter ops,
// index triangles, cross and kron products, rotations, splitting and stacking helpers, in-place metadata ops
// (unsqueeze_, t_, ...), resize_, put_, and the numeric helpers of ops/stats.cpp (diff, cov, quantile, ...).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- the diagonal family (ops/shape_more.cpp)
Tensor diag(const Tensor& t, int64_t diagonal = 0);  // 1-d: a matrix with t on that diagonal; 2-d: its diagonal
Tensor diag_embed(const Tensor& t, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diagflat(const Tensor& t, int64_t offset = 0);
Tensor trace(const Tensor& t);  // integers sum to int64
// int64 (or opts' dtype) [2, count]: the coordinates of the lower (upper) triangle of a row x col matrix.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions opts = {});
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions opts = {});
const Tensor& fill_diagonal_(const Tensor& t, const Scalar& value, bool wrap = false);
// A copy of self with src written into the region that the view names (PyTorch's *_scatter ops).
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0, std::optional<int64_t> start = {},
                     std::optional<int64_t> end = {}, int64_t step = 1);
Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset = {});

// ---- products and rotations
// torch.cross: dim nullopt picks the first dim of size 3 (of the broadcast shape); torch.linalg.cross: dim -1.
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = {});
Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
Tensor kron(const Tensor& a, const Tensor& b);
Tensor rot90(const Tensor& t, int64_t k = 1, IntArrayRef dims = {{0, 1}});
Tensor block_diag(const std::vector<Tensor>& tensors);
Tensor cartesian_prod(const std::vector<Tensor>& tensors);
Tensor combinations(const Tensor& t, int64_t r = 2, bool with_replacement = false);

// ---- dims, splitting and stacking
Tensor atleast_1d(const Tensor& t);
Tensor atleast_2d(const Tensor& t);
Tensor atleast_3d(const Tensor& t);
Tensor ravel(const Tensor& t);
// Views of t: `sections` nearly equal pieces, or pieces between the given indices.
std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split_indices(const Tensor& t, IntArrayRef indices, int64_t dim = 0);
// which: 'h', 'v' or 'd' (hsplit, vsplit, dsplit); sections must divide the size.
std::vector<Tensor> hvd_split(const Tensor& t, int64_t sections, char which);
std::vector<Tensor> hvd_split_indices(const Tensor& t, IntArrayRef indices, char which);
Tensor dstack(const std::vector<Tensor>& tensors, const Tensor& out = {});
Tensor column_stack(const std::vector<Tensor>& tensors, const Tensor& out = {});

// ---- in place on metadata: self takes the view's geometry (the same tensor object, a version bump, the view's
// gradient formula as its grad_fn).
const Tensor& unsqueeze_(const Tensor& t, int64_t dim);
const Tensor& squeeze_(const Tensor& t, std::optional<int64_t> dim = {});
const Tensor& transpose_(const Tensor& t, int64_t d0, int64_t d1);
const Tensor& t_(const Tensor& t);
const Tensor& as_strided_(const Tensor& t, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset = {});
// resize_: contiguous strides for `size`, keeping the storage when it is large enough, else a larger one holding
// the old bytes. Not allowed on tensors that require grad (PyTorch's rule).
const Tensor& resize_(const Tensor& t, IntArrayRef size);
// put_: self.flatten()[index] = source (or +=), negative indices count from the end.
const Tensor& put_(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor put(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate = false);
// index_reduce: self[..., index[i], ...] combined with source[..., i, ...] along dim; reduce: prod, mean, amax or
// amin (scatter_reduce's semantics, include_self included).
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self = true);
const Tensor& index_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                            std::string_view reduce, bool include_self = true);
// sum_to_size: g summed over the dims that broadcast `size` to t's shape.
Tensor sum_to_size(const Tensor& t, IntArrayRef size);

// ---- numeric helpers (ops/stats.cpp)
Tensor diff(const Tensor& t, int64_t n = 1, int64_t dim = -1, const Tensor& prepend = {}, const Tensor& append = {});
Tensor renorm(const Tensor& t, double p, int64_t dim, double maxnorm);
Tensor dist(const Tensor& a, const Tensor& b, double p = 2);
Tensor cov(const Tensor& t, int64_t correction = 1, const Tensor& fweights = {}, const Tensor& aweights = {});
Tensor corrcoef(const Tensor& t);
// torch.vander: decreasing powers unless increasing; linalg.vander: increasing powers over the last dim.
Tensor vander(const Tensor& x, std::optional<int64_t> n = {}, bool increasing = false);
Tensor linalg_vander(const Tensor& x, std::optional<int64_t> n = {});
// Sample spacing dx, or the sample points x (broadcast along dim).
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
// q: a 0-d or 1-d tensor of probabilities in [0, 1] (a 1-d q adds a leading dim to the result). dim nullopt:
// over all elements. interpolation: linear, lower, higher, midpoint or nearest. nan: nanquantile (ignore NaNs).
Tensor quantile(const Tensor& t, const Tensor& q, std::optional<int64_t> dim = {}, bool keepdim = false,
                std::string_view interpolation = "linear", bool ignore_nan = false);

}  // namespace ember
