// Joining and splitting (ops/split_stack.cpp): cat, stack and their h/v/d/column forms; split, chunk, unbind,
// tensor_split and the h/v/d splits.
#pragma once

#include <vector>

#include "ember/tensor.h"

namespace ember {

// `out`, when defined, receives the result (cast to its dtype).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0, const Tensor& out = {});
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0, const Tensor& out = {});
Tensor hstack(const std::vector<Tensor>& tensors, const Tensor& out = {});
Tensor vstack(const std::vector<Tensor>& tensors, const Tensor& out = {});
Tensor dstack(const std::vector<Tensor>& tensors, const Tensor& out = {});
Tensor column_stack(const std::vector<Tensor>& tensors, const Tensor& out = {});
// The shape of t with leading dims of size 1 added (atleast_3d: [n] -> [1, n, 1], [m, n] -> [m, n, 1]).
Tensor atleast_1d(const Tensor& t);
Tensor atleast_2d(const Tensor& t);
Tensor atleast_3d(const Tensor& t);

// ---- splitting: the pieces are views of t.
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& t, IntArrayRef sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim = 0);
// Views of t: `sections` nearly equal pieces, or pieces between the given indices.
std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split_indices(const Tensor& t, IntArrayRef indices, int64_t dim = 0);
// which: 'h', 'v' or 'd' (hsplit, vsplit, dsplit); sections must divide the size.
std::vector<Tensor> hvd_split(const Tensor& t, int64_t sections, char which);
std::vector<Tensor> hvd_split_indices(const Tensor& t, IntArrayRef indices, char which);

}  // namespace ember
