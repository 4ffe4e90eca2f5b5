// torch.nn.functional.scaled_dot_product_attention: softmax(q k^T * scale + bias) v, composed of matmul and
// elementwise ops (its gradients come from theirs).
#pragma once

#include <optional>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember {

// query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev] (batch dims broadcast). attn_mask: bool
// (true: attend) or floating (added to the scores), broadcasting to [..., L, S]. is_causal masks j > i. scale
// defaults to 1 / sqrt(E). A row whose every position is masked gives zeros (PyTorch >= 2.5).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                   const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false,
                                   std::optional<double> scale = {}, Generator* gen = nullptr);

}  // namespace ember
