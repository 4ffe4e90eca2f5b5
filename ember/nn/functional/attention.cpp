#include "ember/nn/functional/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "ember/autocast.h"
#include "ember/dispatch_hook.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/detail/softmax.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/padding.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/linalg.h"

namespace ember {

namespace {

// softmax over the last dim, 0 (not NaN) in rows that are all -inf.
Tensor masked_softmax(const Tensor& x) {
  EMBER_PY_DISPATCH(Tensor, "aten._safe_softmax.default", x, int64_t{-1});
  Tensor m = amax(x, {{-1}}, true).detach();
  Tensor shift = where(isinf(m), 0.0, m);
  Tensor e = exp(sub(x, shift));
  Tensor s = sum(e, {{-1}}, true);
  return div(e, where(eq(s, 0), 1.0, s));
}

// Grouped-query attention: t (key or value) [..., Hkv, S, D] with its heads repeated (each consecutively) to the
// query's Hq heads, Hq a multiple of Hkv.
Tensor repeat_kv_heads(const Tensor& query, const Tensor& t, const char* what) {
  EMBER_CHECK_INDEX(query.dim() >= 3 && t.dim() >= 3,
                    "scaled_dot_product_attention(): enable_gqa needs query, key "
                    "and value of at least 3 dims [..., heads, L, E], got query ",
                    shape_str(query.sizes()), " and ", what, " ", shape_str(t.sizes()));
  const int64_t hq = query.size(-3), hkv = t.size(-3);
  if (hq == hkv) return t;
  EMBER_CHECK(hkv > 0 && hq % hkv == 0,
              "scaled_dot_product_attention(): Number of heads in key and value must divide "
              "the number of heads in query, got ",
              hq, " query heads and ", hkv, " ", what, " heads");
  return repeat_interleave(t, hq / hkv, t.dim() - 3);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key_in, const Tensor& value_in,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa, Generator* gen) {
  EMBER_AUTOCAST(autocast::kLower, scaled_dot_product_attention, query, key_in, value_in, attn_mask, dropout_p,
                 is_causal, scale, enable_gqa, gen);
  Tensor key = key_in, value = value_in;
  if (enable_gqa) {
    key = repeat_kv_heads(query, key, "key");
    value = repeat_kv_heads(query, value, "value");
  }
  check_same_device("scaled_dot_product_attention", {&query, &key, &value, &attn_mask});
  const char* op = "scaled_dot_product_attention";
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, op,
              "(): expected query, key and value of at least 2 dims, got shapes ", shape_str(query.sizes()), ", ",
              shape_str(key.sizes()), " and ", shape_str(value.sizes()));
  EMBER_CHECK(query.size(-1) == key.size(-1), op, "(): query and key must have the same embedding size, got shapes ",
              shape_str(query.sizes()), " and ", shape_str(key.sizes()));
  EMBER_CHECK(key.size(-2) == value.size(-2), op, "(): key and value must have the same sequence length, got shapes ",
              shape_str(key.sizes()), " and ", shape_str(value.sizes()));
  EMBER_CHECK(query.dtype() == key.dtype() && query.dtype() == value.dtype(), op,
              "(): Expected query, key, and value to have the same dtype, but got query.dtype: ", query.dtype(),
              " key.dtype: ", key.dtype(), " and value.dtype: ", value.dtype(), " instead.");
  EMBER_CHECK_TYPE(is_floating(query.dtype()), op, "(): expected floating point inputs, got ", query.dtype());
  EMBER_CHECK(!(is_causal && attn_mask.defined()), op, "(): Explicit attn_mask should not be set when is_causal=True");
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1, op, "(): dropout_p must be in [0, 1], got ", dropout_p);
  const int64_t l = query.size(-2), s = key.size(-2);
  const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
  // The scale multiplies the smaller of query [..., L, E] and the scores [..., L, S].
  const Tensor key_t = transpose(key, -2, -1);
  Tensor scores = factor == 1.0        ? matmul(query, key_t)
                  : query.size(-1) < s ? matmul(mul(query, factor), key_t)
                                       : mul(matmul(query, key_t), factor);
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  // A causal mask alone: one op masks and normalizes, where masked_fill and softmax each wrote the scores (and their
  // gradients). Its row keeps its first position, so no row is all masked. A __torch_dispatch__ mode sees
  // PyTorch's math (masked_fill, _safe_softmax).
  const bool causal_only = is_causal && !attn_mask.defined() && !dispatch::enabled();
  const bool fused = causal_only && causal_softmax_fused(scores);
  if (is_causal && !fused)
    scores = masked_fill(scores, triu(ones({{l, s}}, TensorOptions(ScalarType::Bool).device(query.device())), 1),
                         kNegInf);
  if (attn_mask.defined()) {
    if (attn_mask.dtype() == ScalarType::Bool)
      scores = masked_fill(scores, logical_not(attn_mask), kNegInf);
    else
      scores = add(scores, attn_mask);
  }
  Tensor weights = fused ? causal_softmax(scores) : causal_only ? softmax(scores, -1) : masked_softmax(scores);
  if (dropout_p > 0) {
    Tensor keep = dropout_p >= 1 ? zeros_like(weights) : bernoulli(weights.detach(), 1.0 - dropout_p, gen);
    weights = dropout_p >= 1 ? mul(weights, keep) : div(mul(weights, keep), 1.0 - dropout_p);
  }
  return matmul(weights, value);
}

// ---- multi_head_attention_forward

namespace {

constexpr const char* kMha = "multi_head_attention_forward(): ";

// torch.nn.functional._canonical_mask: a bool mask (True = not allowed) becomes a float mask of -inf in `dtype`; a
// float mask is used as it is.
Tensor canonical_mask(const Tensor& mask, const char* name, ScalarType dtype) {
  if (!mask.defined() || is_floating(mask.dtype())) return mask;
  EMBER_CHECK_TYPE(mask.dtype() == ScalarType::Bool, kMha, "only bool and floating types of ", name,
                   " are supported, got ", mask.dtype());
  return masked_fill(zeros(mask.sizes(), TensorOptions(dtype).device(mask.device())), mask,
                     -std::numeric_limits<double>::infinity());
}

// One more key position (bias_k or the zero attention) that every query may attend to.
Tensor pad_key_dim(const Tensor& mask) { return mask.defined() ? pad(mask, DimVector{0, 1}) : mask; }

// Rows [i * n, (i + 1) * n) of a packed projection weight or bias (undefined stays undefined).
Tensor part(const Tensor& t, int64_t i, int64_t n) { return t.defined() ? t.narrow(0, i * n, n) : t; }

void check_shape(const Tensor& t, IntArrayRef expect, const char* what) {
  if (!t.defined()) return;
  EMBER_CHECK_VALUE(std::ranges::equal(t.sizes(), expect), kMha, "expecting ", what, " shape of ", shape_str(expect),
                    ", but got ", shape_str(t.sizes()));
}

// x @ W^T + b with the packed in-projection weight [3E, E] and bias [3E], checked.
Tensor packed_projection(const Tensor& x, int64_t e, const Tensor& w, const Tensor& b) {
  check_shape(b, DimVector{3 * e}, "in_proj_bias");
  EMBER_CHECK_VALUE(w.defined(), kMha, "use_separate_proj_weight is False but in_proj_weight is None");
  check_shape(w, DimVector{3 * e, e}, "in_proj_weight");
  return linear(x, w, b);
}

// The in-projection: (q, k, v) = inputs @ W^T + b with the packed weight [3E, E] or the separate ones. Self-attention
// (query, key and value one tensor) projects once with the whole packed weight, as PyTorch does.
std::tuple<Tensor, Tensor, Tensor> in_projection(const Tensor& query, const Tensor& key, const Tensor& value, int64_t e,
                                                 bool separate, const Tensor& w, const Tensor& b, const Tensor& wq,
                                                 const Tensor& wk, const Tensor& wv) {
  check_shape(b, DimVector{3 * e}, "in_proj_bias");
  if (separate) {
    EMBER_CHECK_VALUE(wq.defined() && wk.defined() && wv.defined(), kMha, "use_separate_proj_weight is True but ",
                      !wq.defined()   ? "q"
                      : !wk.defined() ? "k"
                                      : "v",
                      "_proj_weight is None");
    check_shape(wq, DimVector{e, e}, "query weights");
    check_shape(wk, DimVector{e, key.size(-1)}, "key weights");
    check_shape(wv, DimVector{e, value.size(-1)}, "value weights");
    return {linear(query, wq, part(b, 0, e)), linear(key, wk, part(b, 1, e)), linear(value, wv, part(b, 2, e))};
  }
  if (query.is_same(key) && key.is_same(value)) {
    // one node for the three views, whose gradient joins theirs (three narrows padded each with zeros)
    std::vector<Tensor> qkv = chunk(packed_projection(query, e, w, b), 3, -1);
    return {qkv[0], qkv[1], qkv[2]};
  }
  EMBER_CHECK_VALUE(w.defined(), kMha, "use_separate_proj_weight is False but in_proj_weight is None");
  check_shape(w, DimVector{3 * e, e}, "in_proj_weight");
  return {linear(query, part(w, 0, e), part(b, 0, e)), linear(key, part(w, 1, e), part(b, 1, e)),
          linear(value, part(w, 2, e), part(b, 2, e))};
}

// static_k / static_v: [N * num_heads, S, head_dim] in place of the projected keys/values.
void check_static(const Tensor& t, int64_t rows, int64_t head_dim, const char* name) {
  EMBER_CHECK_VALUE(t.dim() == 3, kMha, "expecting ", name, " of 3 dims [N * num_heads, S, head_dim], got ",
                    shape_str(t.sizes()));
  EMBER_CHECK_VALUE(t.size(0) == rows, kMha, "expecting ", name, ".size(0) of ", rows, ", but got ", t.size(0));
  EMBER_CHECK_VALUE(t.size(2) == head_dim, kMha, "expecting ", name, ".size(2) of ", head_dim, ", but got ", t.size(2));
}

// torch.nn.functional._mha_shape_check: whether the input is batched.
bool mha_batched(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
                 const Tensor& attn_mask, int64_t num_heads) {
  const int64_t d = query.dim();
  EMBER_CHECK_VALUE(d == 2 || d == 3, kMha, "query should be unbatched 2D or batched 3D tensor but received ", d,
                    "-D query tensor ", shape_str(query.sizes()));
  const char* kind = d == 3 ? "batched (3-D)" : "unbatched (2-D)";
  EMBER_CHECK_VALUE(key.dim() == d && value.dim() == d, kMha, "For ", kind,
                    " `query`, expected `key` and `value` to "
                    "be ",
                    d, "-D but found ", key.dim(), "-D and ", value.dim(), "-D tensors respectively");
  EMBER_CHECK_VALUE(!key_padding_mask.defined() || key_padding_mask.dim() == d - 1, kMha, "For ", kind,
                    " `query`, "
                    "expected `key_padding_mask` to be `None` or ",
                    d - 1, "-D but found ", key_padding_mask.dim(), "-D tensor instead");
  EMBER_CHECK_VALUE(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3, kMha, "For ", kind,
                    " `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ", attn_mask.dim(),
                    "-D tensor instead");
  if (d == 2 && attn_mask.defined() && attn_mask.dim() == 3) {
    const DimVector expect{num_heads, query.size(0), key.size(0)};
    EMBER_CHECK_VALUE(std::ranges::equal(attn_mask.sizes(), expect), kMha, "Expected `attn_mask` shape to be ",
                      shape_str(expect), " but got ", shape_str(attn_mask.sizes()));
  }
  return d == 3;
}

}  // namespace

std::pair<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query_in, const Tensor& key_in, const Tensor& value_in, int64_t embed_dim_to_check, int64_t num_heads,
    const Tensor& in_proj_weight, const Tensor& in_proj_bias, const Tensor& bias_k, const Tensor& bias_v,
    bool add_zero_attn, double dropout_p, const Tensor& out_proj_weight, const Tensor& out_proj_bias, bool training,
    const Tensor& key_padding_mask_in, bool need_weights, const Tensor& attn_mask_in, bool use_separate_proj_weight,
    const Tensor& q_proj_weight, const Tensor& k_proj_weight, const Tensor& v_proj_weight, const Tensor& static_k,
    const Tensor& static_v, bool average_attn_weights, bool is_causal, Generator* gen) {
  EMBER_CHECK_VALUE(query_in.defined() && key_in.defined() && value_in.defined() && out_proj_weight.defined(), kMha,
                    "query, key, value and out_proj_weight must be tensors");
  const bool batched = mha_batched(query_in, key_in, value_in, key_padding_mask_in, attn_mask_in, num_heads);
  Tensor query = query_in, key = key_in, value = value_in, key_padding_mask = key_padding_mask_in;
  if (!batched) {  // computed as a batch of one
    query = query.unsqueeze(1);
    key = key.unsqueeze(1);
    value = value.unsqueeze(1);
    if (key_padding_mask.defined()) key_padding_mask = key_padding_mask.unsqueeze(0);
  }
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  int64_t src_len = key.size(0);
  const ScalarType dtype = query.dtype();

  key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", dtype);
  EMBER_CHECK(!is_causal || attn_mask_in.defined(), kMha,
              "Need attn_mask if specifying the is_causal hint. You may "
              "use the Transformer module method `generate_square_subsequent_mask` to create this mask.");
  Tensor attn_mask;
  if (!(is_causal && !key_padding_mask.defined() && !need_weights)) {
    // The mask is read (merged with the padding mask, or for the weights); otherwise the hint alone is used.
    attn_mask = canonical_mask(attn_mask_in, "attn_mask", dtype);
    if (key_padding_mask.defined()) is_causal = false;
  }
  EMBER_CHECK_VALUE(embed_dim == embed_dim_to_check, kMha, "was expecting embedding dimension of ", embed_dim_to_check,
                    ", but got ", embed_dim);
  EMBER_CHECK_VALUE(num_heads > 0 && embed_dim % num_heads == 0, kMha, "embed_dim ", embed_dim,
                    " not divisible by num_heads ", num_heads);
  const int64_t head_dim = embed_dim / num_heads;
  if (use_separate_proj_weight)
    EMBER_CHECK_VALUE(key.size(0) == value.size(0) && key.size(1) == value.size(1), kMha,
                      "key's sequence and batch "
                      "dims ",
                      shape_str(key.sizes().subspan(0, 2)), " do not match value's ",
                      shape_str(value.sizes().subspan(0, 2)));
  else
    EMBER_CHECK_VALUE(std::ranges::equal(key.sizes(), value.sizes()), kMha, "key shape ", shape_str(key.sizes()),
                      " does not match value shape ", shape_str(value.sizes()));

  // Self-attention is recognised on the caller's tensors (the unbatched path made new views of them).
  const bool self_attention = query_in.is_same(key_in) && key_in.is_same(value_in);
  // Note [Batch-major attention]
  // batch_first modules hand the math [L, N, E] views of [N, L, E] memory. Written for [L, N, E], each projection
  // copied its input into that order, split heads with a copy each, and copied the gradients back. Self-attention
  // over such memory (no extra key positions, no weights asked for) runs in the memory's order instead: one
  // in-projection into [N, L, 3E], whose q, k, v are [N, H, L, D] views for the attention's products (unbind: one
  // node, its gradient one [N, L, 3E] tensor), and an output [L, N, E] view of [N, L, E] memory, which the module's
  // transpose makes dense again. The same products of the same rows: the results are those of the [L, N, E] order.
  // While a __torch_dispatch__ mode is live, the math runs PyTorch's ops in PyTorch's order, for the mode to see.
  const bool batch_major = !dispatch::enabled() && self_attention && batched && !use_separate_proj_weight &&
                           !need_weights && !bias_k.defined() && !bias_v.defined() && !static_k.defined() &&
                           !static_v.defined() && !add_zero_attn && query.transpose(0, 1).is_contiguous();
  Tensor q, k, v;
  if (batch_major) {
    std::vector<Tensor> qkv = unbind(packed_projection(query.transpose(0, 1), embed_dim, in_proj_weight, in_proj_bias)
                                         .view(DimVector{bsz, tgt_len, 3, num_heads, head_dim}),
                                     2);
    q = qkv[0].transpose(1, 2);
    k = qkv[1].transpose(1, 2);
    v = qkv[2].transpose(1, 2);
  } else {
    std::tie(q, k, v) = in_projection(query, self_attention ? query : key, self_attention ? query : value, embed_dim,
                                      use_separate_proj_weight, in_proj_weight, in_proj_bias, q_proj_weight,
                                      k_proj_weight, v_proj_weight);
  }

  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      EMBER_CHECK(attn_mask.size(0) == tgt_len && attn_mask.size(1) == src_len, kMha,
                  "The shape of the 2D attn_mask "
                  "is ",
                  shape_str(attn_mask.sizes()), ", but should be ", shape_str(DimVector{tgt_len, src_len}), ".");
      attn_mask = attn_mask.unsqueeze(0);
    } else {
      const DimVector expect{bsz * num_heads, tgt_len, src_len};
      EMBER_CHECK(std::ranges::equal(attn_mask.sizes(), expect), kMha, "The shape of the 3D attn_mask is ",
                  shape_str(attn_mask.sizes()), ", but should be ", shape_str(expect), ".");
    }
  }

  EMBER_CHECK_VALUE(bias_k.defined() == bias_v.defined(), kMha,
                    bias_k.defined() ? "bias_k is set but bias_v is None" : "bias_v is set but bias_k is None");
  if (bias_k.defined()) {
    EMBER_CHECK_VALUE(!static_k.defined(), kMha, "bias cannot be added to static key.");
    EMBER_CHECK_VALUE(!static_v.defined(), kMha, "bias cannot be added to static value.");
    check_shape(bias_k, DimVector{1, 1, embed_dim}, "bias_k");
    check_shape(bias_v, DimVector{1, 1, embed_dim}, "bias_v");
    k = cat({k, bias_k.expand(DimVector{1, bsz, embed_dim})});
    v = cat({v, bias_v.expand(DimVector{1, bsz, embed_dim})});
    attn_mask = pad_key_dim(attn_mask);
    key_padding_mask = pad_key_dim(key_padding_mask);
  }

  // [L, N, E] -> [N * H, L, D], batch first (batch-major q, k, v are [N, H, L, D] already)
  if (!batch_major) {
    q = q.reshape(DimVector{tgt_len, bsz * num_heads, head_dim}).transpose(0, 1);
    if (static_k.defined()) {
      check_static(static_k, bsz * num_heads, head_dim, "static_k");
      k = static_k;
    } else {
      k = k.reshape(DimVector{k.size(0), bsz * num_heads, head_dim}).transpose(0, 1);
    }
    if (static_v.defined()) {
      check_static(static_v, bsz * num_heads, head_dim, "static_v");
      v = static_v;
    } else {
      v = v.reshape(DimVector{v.size(0), bsz * num_heads, head_dim}).transpose(0, 1);
    }
  }
  if (add_zero_attn) {
    const DimVector one_position{bsz * num_heads, 1, head_dim};
    k = cat({k, zeros(one_position, TensorOptions(k.dtype()).device(k.device()))}, 1);
    v = cat({v, zeros(one_position, TensorOptions(v.dtype()).device(v.device()))}, 1);
    attn_mask = pad_key_dim(attn_mask);
    key_padding_mask = pad_key_dim(key_padding_mask);
  }
  src_len = k.size(-2);

  // The padding mask joins the attention mask: [N, S] -> [N * H, 1, S].
  if (key_padding_mask.defined()) {
    EMBER_CHECK_VALUE(key_padding_mask.size(0) == bsz, kMha, "Expected key_padded_mask.shape[0] to be ", bsz,
                      ", but got ", key_padding_mask.size(0));
    EMBER_CHECK_VALUE(key_padding_mask.size(1) == src_len, kMha, "Expected key_padded_mask.shape[1] to be ", src_len,
                      ", but got ", key_padding_mask.size(1));
    Tensor kpm = key_padding_mask.reshape(DimVector{bsz, 1, 1, src_len})
                     .expand(DimVector{bsz, num_heads, 1, src_len})
                     .reshape(DimVector{bsz * num_heads, 1, src_len});
    attn_mask = attn_mask.defined() ? add(attn_mask, kpm) : kpm;
  }
  if (!training) dropout_p = 0.0;

  Tensor out, weights;
  if (need_weights) {
    // The weights themselves are a result: scores, softmax and dropout written out.
    Tensor q_scaled = mul(q, std::sqrt(1.0 / static_cast<double>(head_dim)));
    weights = attn_mask.defined() ? baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
                                  : bmm(q_scaled, k.transpose(-2, -1));
    weights = softmax(weights, -1);
    if (dropout_p > 0.0) weights = dropout(weights, dropout_p, true, false, gen);
    out = bmm(weights, v).transpose(0, 1).reshape(DimVector{tgt_len * bsz, embed_dim});
    weights = weights.reshape(DimVector{bsz, num_heads, tgt_len, src_len});
    if (average_attn_weights) weights = mean(weights, DimVector{1});
    if (!batched) weights = weights.squeeze(0);
  } else {
    // [N * H, L, S] masks -> [N, H, L, S] ([1, 1, L, S] when shared by the batch), for the fused attention.
    if (attn_mask.defined())
      attn_mask = attn_mask.size(0) == 1 ? attn_mask.unsqueeze(0)
                                         : attn_mask.reshape(DimVector{bsz, num_heads, -1, src_len});
    q = q.reshape(DimVector{bsz, num_heads, tgt_len, head_dim});
    k = k.reshape(DimVector{bsz, num_heads, src_len, head_dim});
    v = v.reshape(DimVector{bsz, num_heads, src_len, head_dim});
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, {}, false, gen);
    // [N, H, L, D] -> rows in the memory's token order (Note [Batch-major attention])
    out = out.permute(batch_major ? DimVector{0, 2, 1, 3} : DimVector{2, 0, 1, 3})
              .reshape(DimVector{bsz * tgt_len, embed_dim});
  }
  out = linear(out, out_proj_weight, out_proj_bias);
  out = batch_major ? out.view(DimVector{bsz, tgt_len, out.size(1)}).transpose(0, 1)
                    : out.reshape(DimVector{tgt_len, bsz, out.size(1)});
  if (!batched) out = out.squeeze(1);
  return {out, weights};
}

}  // namespace ember
