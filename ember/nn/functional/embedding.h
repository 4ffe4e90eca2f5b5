// Embeddings (torch.nn.functional's embedding and embedding_bag).
#pragma once

#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

// The rows of weight [num_embeddings, dim] at `indices` (int64 or int32): [*indices.shape, dim]. The row
// padding_idx (>= 0) gets no gradient; scale_grad_by_freq divides each index's gradient by its count in indices.
// The gradient is dense (sparse is accepted for the API). With max_norm, the rows looked up are first renormalized
// in place (embedding_renorm_), as torch.nn.functional.embedding and nn.Embedding do.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1, bool scale_grad_by_freq = false,
                 bool sparse = false, std::optional<double> max_norm = {}, double norm_type = 2.0);
// Rescales, in place and without recording, the rows of weight that indices refer to whose norm_type-norm exceeds
// max_norm, to norm max_norm (as PyTorch: max_norm / (norm + 1e-7)).
const Tensor& embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type);
// Sums, means or maxima of bags of embeddings: indices [B, L] (offsets undefined), or 1-d with 1-d offsets of each
// bag's start. Empty bags give zeros; indices equal to padding_idx (>= 0) are left out.
Tensor embedding_bag(const Tensor& indices, const Tensor& weight, const Tensor& offsets = {},
                     std::optional<double> max_norm = {}, double norm_type = 2, bool scale_grad_by_freq = false,
                     std::string_view mode = "mean", bool sparse = false, const Tensor& per_sample_weights = {},
                     bool include_last_offset = false, int64_t padding_idx = -1);

}  // namespace ember
