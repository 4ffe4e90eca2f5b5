// Indexing (ops/index.cpp): gather and the scatter family, index_select/add/copy/fill, advanced indexing
// (index, index_put), masks, nonzero, take and one_hot; put_ and index_reduce (ops/index_reduce.cpp).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// Index tensors are int64 unless noted.
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
// reduce: nullopt, "add" or "multiply" (PyTorch 1.13's scatter(reduce=)).
const Tensor& scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       std::optional<std::string_view> reduce = {});
const Tensor& scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                       std::optional<std::string_view> reduce = {});
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               std::optional<std::string_view> reduce = {});
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               std::optional<std::string_view> reduce = {});
const Tensor& scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// reduce: "sum", "prod", "mean", "amax" or "amin".
const Tensor& scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self = true);
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self = true);
// index: a vector (or 0-d) of int32 or int64.
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
const Tensor& index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha = 1);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
const Tensor& index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
const Tensor& index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
// Advanced indexing: indices[k] indexes dim k of self (undefined: the whole dim); integer tensors, or bool
// masks that consume as many dims as they have (a 0-d mask inserts a dim of size 1 or 0). The indices broadcast
// together; their result dims replace the indexed dims when those are adjacent, else they come first.
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
// self[indices] = values (values broadcast to the indexing result and have self's dtype); with accumulate,
// self[indices] += values, duplicates included.
const Tensor& index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                         bool accumulate = false);
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
// Masks are bool tensors that broadcast with self.
Tensor masked_select(const Tensor& self, const Tensor& mask);
const Tensor& masked_scatter_(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
// With a 0-d tensor value, differentiable with respect to it.
const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
const Tensor& index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor nonzero(const Tensor& self);                     // int64 [count, self.dim()]
std::vector<Tensor> nonzero_tuple(const Tensor& self);  // one int64 vector per dim (a 0-d self counts as 1-d)
Tensor argwhere(const Tensor& self);
Tensor take(const Tensor& self, const Tensor& index);  // index into the flattened self
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim = {});
// int64 [..., num_classes]; num_classes -1: the largest class + 1.
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);

// ---- composed of the ops above (ops/index_reduce.cpp)
// put_: self.flatten()[index] = source (or +=), negative indices count from the end.
const Tensor& put_(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor put(const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate = false);
// index_reduce: self[..., index[i], ...] combined with source[..., i, ...] along dim; reduce: prod, mean, amax or
// amin (scatter_reduce's semantics, include_self included).
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self = true);
const Tensor& index_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                            std::string_view reduce, bool include_self = true);

}  // namespace ember
