// Attention: torch.nn.functional.scaled_dot_product_attention (softmax(q k^T * scale + bias) v) and
// multi_head_attention_forward (the math of nn.MultiheadAttention, shared by the C++ module and the Python one),
// composed of matmul and elementwise ops (their gradients come from theirs).
#pragma once

#include <optional>
#include <utility>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember {

// query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev] (batch dims broadcast). attn_mask: bool
// (true: attend) or floating (added to the scores), broadcasting to [..., L, S]. is_causal masks j > i. scale
// defaults to 1 / sqrt(E). A row whose every position is masked gives zeros (PyTorch >= 2.5). enable_gqa
// (grouped-query attention): key and value may have fewer heads (dim -3) than query, each serving
// query.size(-3) / key.size(-3) query heads.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = {}, bool enable_gqa = false,
                                    Generator* gen = nullptr);

// torch.nn.functional.multi_head_attention_forward, with its arguments, defaults and checks. query [L, N, E]
// (or unbatched [L, E]), key [S, N, Ek], value [S, N, Ev] (batch_first is the caller's transpose). The in-projection
// is in_proj_weight [3E, E] (q, k, v stacked), or q/k/v_proj_weight with use_separate_proj_weight; in_proj_bias
// [3E]. bias_k and bias_v [1, 1, E] append one key/value position, add_zero_attn one of zeros; static_k/static_v
// [N * num_heads, S, E / num_heads] replace the projected keys/values. Masks: a bool one is True where attention is
// not allowed, a float one is added to the scores; attn_mask [L, S] or [N * num_heads, L, S], key_padding_mask
// [N, S]. is_causal is a hint that attn_mask is the causal mask (it needs attn_mask; without key_padding_mask and
// need_weights the mask itself is not read). Dropout (probability dropout_p, only when training) acts on the
// attention weights. Returns (output [L, N, E], weights): the weights are undefined unless need_weights, averaged
// over heads ([N, L, S]) with average_attn_weights, else [N, num_heads, L, S] (unbatched: without N).
std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check, int64_t num_heads,
    const Tensor& in_proj_weight, const Tensor& in_proj_bias, const Tensor& bias_k, const Tensor& bias_v,
    bool add_zero_attn, double dropout_p, const Tensor& out_proj_weight, const Tensor& out_proj_bias,
    bool training = true, const Tensor& key_padding_mask = {}, bool need_weights = true, const Tensor& attn_mask = {},
    bool use_separate_proj_weight = false, const Tensor& q_proj_weight = {}, const Tensor& k_proj_weight = {},
    const Tensor& v_proj_weight = {}, const Tensor& static_k = {}, const Tensor& static_v = {},
    bool average_attn_weights = true, bool is_causal = false, Generator* gen = nullptr);

}  // namespace ember
