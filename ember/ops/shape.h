// Shape and indexing ops: joining and splitting, reordering and repetition (ops/shape.cpp), and the
// gather/scatter family, masks, nonzero and advanced indexing (ops/index.cpp), with the kernels they share.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- joining and splitting (ops/shape.cpp); `out`, when defined, receives the result (cast to its dtype)
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0, const Tensor& out = {});
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0, const Tensor& out = {});
Tensor hstack(const std::vector<Tensor>& tensors, const Tensor& out = {});
Tensor vstack(const std::vector<Tensor>& tensors, const Tensor& out = {});
// Views of t.
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& t, IntArrayRef sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim = 0);
Tensor movedim(const Tensor& t, IntArrayRef source, IntArrayRef destination);
Tensor broadcast_to(const Tensor& t, IntArrayRef size);
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
// indexing: "ij" or "xy"; the results are expanded views of the inputs.
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing = "ij");

// ---- reordering and repetition (ops/shape.cpp): new tensors
Tensor flip(const Tensor& t, IntArrayRef dims);
Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims = {});  // dims empty: over the flattened t
Tensor repeat(const Tensor& t, IntArrayRef repeats);
Tensor tile(const Tensor& t, IntArrayRef reps);
// dim nullopt: over the flattened t.
Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim = {});
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim = {});
Tensor repeat_interleave(const Tensor& repeats);  // each i repeated repeats[i] times
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor triu(const Tensor& t, int64_t diagonal = 0);
const Tensor& tril_(const Tensor& t, int64_t diagonal = 0);
const Tensor& triu_(const Tensor& t, int64_t diagonal = 0);

// ---- gather, scatter and indexing (ops/index.cpp). Index tensors are int64 unless noted.
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
Tensor nonzero(const Tensor& self);                    // int64 [count, self.dim()]
std::vector<Tensor> nonzero_tuple(const Tensor& self);  // one int64 vector per dim (a 0-d self counts as 1-d)
Tensor argwhere(const Tensor& self);
Tensor take(const Tensor& self, const Tensor& index);  // index into the flattened self
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim = {});
// int64 [..., num_classes]; num_classes -1: the largest class + 1.
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);

}  // namespace ember
