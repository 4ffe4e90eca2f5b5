#include "ember/nn/modules/transformer.h"

#include <cmath>
#include <limits>

#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/nn/functional/padding.h"
#include "ember/ops.h"
#include "ember/ops/linalg.h"

namespace ember::nn {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A bool mask (True = not allowed) becomes an additive float mask of -inf; a float mask is used as it is.
Tensor canonical_mask(const Tensor& mask, const char* what, ScalarType dtype) {
  if (!mask.defined()) return mask;
  if (mask.dtype() == ScalarType::Bool) return masked_fill(zeros(mask.sizes(), dtype), mask, -kInf);
  EMBER_CHECK_TYPE(is_floating(mask.dtype()), "MultiheadAttention: only bool and floating types of ", what,
                   " are supported, got ", dtype_name(mask.dtype()));
  return mask;
}

// One more key position (bias_k or the zero attention) that every query may attend to.
Tensor pad_last(const Tensor& mask) { return mask.defined() ? pad(mask, DimVector{0, 1}) : mask; }

}  // namespace

Tensor generate_square_subsequent_mask(int64_t sz, ScalarType dtype) {
  return masked_fill(zeros(DimVector{sz, sz}, dtype), triu(ones(DimVector{sz, sz}, ScalarType::Bool), 1), -kInf);
}

// ---- MultiheadAttention

MultiheadAttention::MultiheadAttention(int64_t e, int64_t h, MultiheadAttentionOptions o)
    : Module("MultiheadAttention"), embed_dim(e), num_heads(h), options(o) {
  EMBER_CHECK_VALUE(e > 0 && h > 0, "embed_dim and num_heads must be greater than 0, got embed_dim=", e,
                    " and num_heads=", h, " instead");
  EMBER_CHECK_VALUE(e % h == 0, "MultiheadAttention: embed_dim (", e, ") must be divisible by num_heads (", h, ")");
  head_dim = e / h;
  kdim = o.kdim.value_or(e);
  vdim = o.vdim.value_or(e);
  if (kdim == e && vdim == e) {
    in_proj_weight = register_parameter("in_proj_weight", empty(DimVector{3 * e, e}));
    detail::xavier_uniform(in_proj_weight);
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty(DimVector{e, e}));
    k_proj_weight = register_parameter("k_proj_weight", empty(DimVector{e, kdim}));
    v_proj_weight = register_parameter("v_proj_weight", empty(DimVector{e, vdim}));
    for (const Tensor& w : {q_proj_weight, k_proj_weight, v_proj_weight}) detail::xavier_uniform(w);
  }
  if (o.bias) in_proj_bias = register_parameter("in_proj_bias", zeros(DimVector{3 * e}));
  out_proj = register_module("out_proj", std::make_shared<NonDynamicallyQuantizableLinear>(e, e, o.bias));
  if (o.bias) {
    autograd::NoGradGuard no_grad;
    fill_(out_proj->bias, 0.0);
  }
  if (o.add_bias_kv) {
    bias_k = register_parameter("bias_k", empty(DimVector{1, 1, e}));
    bias_v = register_parameter("bias_v", empty(DimVector{1, 1, e}));
    detail::xavier_normal(bias_k);
    detail::xavier_normal(bias_v);
  }
}

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query_in, const Tensor& key_in,
                                                      const Tensor& value_in, const Tensor& key_padding_mask_in,
                                                      bool need_weights, const Tensor& attn_mask_in,
                                                      bool average_attn_weights, bool is_causal) {
  EMBER_CHECK_VALUE(query_in.dim() == 2 || query_in.dim() == 3,
                    "MultiheadAttention: query should be unbatched 2D or batched 3D tensor but received ",
                    query_in.dim(), "-D query tensor ", shape_str(query_in.sizes()));
  EMBER_CHECK_VALUE(key_in.dim() == query_in.dim() && value_in.dim() == query_in.dim(),
                    "MultiheadAttention: query ", shape_str(query_in.sizes()), ", key ", shape_str(key_in.sizes()),
                    " and value ", shape_str(value_in.sizes()), " must have the same number of dims");
  const bool unbatched = query_in.dim() == 2;
  Tensor query = query_in, key = key_in, value = value_in, key_padding_mask = key_padding_mask_in;
  if (options.batch_first && !unbatched) {
    query = query.transpose(0, 1);
    key = key.transpose(0, 1);
    value = value.transpose(0, 1);
  }
  if (unbatched) {
    query = query.unsqueeze(1);
    key = key.unsqueeze(1);
    value = value.unsqueeze(1);
    if (key_padding_mask.defined()) key_padding_mask = key_padding_mask.unsqueeze(0);
  }
  const int64_t tgt_len = query.size(0), bsz = query.size(1), e = embed_dim, h = num_heads, d = head_dim;
  EMBER_CHECK_VALUE(query.size(2) == e, "MultiheadAttention: was expecting embedding dimension of ", e,
                    ", but got query ", shape_str(query_in.sizes()));
  EMBER_CHECK_VALUE(key.size(2) == kdim && value.size(2) == vdim && key.size(0) == value.size(0) &&
                        key.size(1) == bsz && value.size(1) == bsz,
                    "MultiheadAttention: key ", shape_str(key_in.sizes()), " and value ", shape_str(value_in.sizes()),
                    " do not match the query ", shape_str(query_in.sizes()), " (kdim ", kdim, ", vdim ", vdim, ")");

  const Tensor& b = in_proj_bias;
  auto part = [](const Tensor& t, int64_t i, int64_t n) { return t.defined() ? t.narrow(0, i * n, n) : t; };
  const bool packed = in_proj_weight.defined();
  Tensor q = linear(query, packed ? part(in_proj_weight, 0, e) : q_proj_weight, part(b, 0, e));
  Tensor k = linear(key, packed ? part(in_proj_weight, 1, e) : k_proj_weight, part(b, 1, e));
  Tensor v = linear(value, packed ? part(in_proj_weight, 2, e) : v_proj_weight, part(b, 2, e));

  Tensor attn_mask = canonical_mask(attn_mask_in, "attn_mask", q.dtype());
  key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", q.dtype());
  if (is_causal && !attn_mask.defined()) attn_mask = generate_square_subsequent_mask(tgt_len, q.dtype());
  if (bias_k.defined()) {
    k = cat({k, bias_k.expand(DimVector{1, bsz, e})});
    v = cat({v, bias_v.expand(DimVector{1, bsz, e})});
    attn_mask = pad_last(attn_mask);
    key_padding_mask = pad_last(key_padding_mask);
  }
  // [L, B, E] -> [B * H, L, D]
  q = q.reshape(DimVector{tgt_len, bsz * h, d}).transpose(0, 1);
  k = k.reshape(DimVector{k.size(0), bsz * h, d}).transpose(0, 1);
  v = v.reshape(DimVector{v.size(0), bsz * h, d}).transpose(0, 1);
  if (options.add_zero_attn) {
    k = cat({k, zeros(DimVector{bsz * h, 1, d}, k.dtype())}, 1);
    v = cat({v, zeros(DimVector{bsz * h, 1, d}, v.dtype())}, 1);
    attn_mask = pad_last(attn_mask);
    key_padding_mask = pad_last(key_padding_mask);
  }
  const int64_t src_len = k.size(1);
  Tensor scores = matmul(q * (1.0 / std::sqrt(static_cast<double>(d))), k.transpose(1, 2));  // [B * H, L, S]
  if (attn_mask.defined())
    scores = scores + (attn_mask.dim() == 2 ? attn_mask : attn_mask.reshape(DimVector{bsz * h, tgt_len, src_len}));
  if (key_padding_mask.defined())
    scores = (scores.reshape(DimVector{bsz, h, tgt_len, src_len}) +
              key_padding_mask.reshape(DimVector{bsz, 1, 1, src_len}))
                 .reshape(DimVector{bsz * h, tgt_len, src_len});
  Tensor weights = softmax(scores, -1);
  if (options.dropout > 0 && is_training()) weights = ember::dropout(weights, options.dropout, true);
  Tensor out = matmul(weights, v).transpose(0, 1).reshape(DimVector{tgt_len * bsz, e});  // [L * B, E]
  out = linear(out, out_proj->weight, out_proj->bias).reshape(DimVector{tgt_len, bsz, e});
  if (options.batch_first && !unbatched) out = out.transpose(0, 1);
  if (unbatched) out = out.squeeze(1);
  if (!need_weights) return {out, Tensor()};
  weights = weights.reshape(DimVector{bsz, h, tgt_len, src_len});
  if (average_attn_weights) weights = mean(weights, DimVector{1});
  if (unbatched) weights = weights.squeeze(0);
  return {out, weights};
}

// ---- the layers

namespace {

std::function<Tensor(const Tensor&)> activation_of(const TransformerLayerOptions& o) {
  if (o.activation_fn) return o.activation_fn;
  if (o.activation == "relu") return [](const Tensor& x) { return relu(x); };
  if (o.activation == "gelu") return [](const Tensor& x) { return gelu(x); };
  fail<Error>("activation should be relu/gelu, not ", o.activation);
}

MultiheadAttentionOptions attention_options(const TransformerLayerOptions& o) {
  MultiheadAttentionOptions a;
  a.dropout = o.dropout;
  a.bias = o.bias;
  a.batch_first = o.batch_first;
  return a;
}

// The feed-forward block: linear2(dropout(activation(linear1(x)))).
Tensor feed_forward(const TransformerLayerOptions& o, Linear& linear1, Dropout& dropout, Linear& linear2,
                    const Tensor& x) {
  return linear2(dropout(activation_of(o)(linear1(x))));
}

}  // namespace

TransformerEncoderLayer::TransformerEncoderLayer(int64_t dm, int64_t nh, TransformerLayerOptions o)
    : Module("TransformerEncoderLayer"), d_model(dm), nhead(nh), options(std::move(o)) {
  activation_of(options);  // checks the name
  const auto& p = options;
  self_attn = register_module("self_attn", std::make_shared<MultiheadAttention>(dm, nh, attention_options(p)));
  linear1 = register_module("linear1", std::make_shared<Linear>(dm, p.dim_feedforward, p.bias));
  dropout = register_module("dropout", std::make_shared<Dropout>(p.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(p.dim_feedforward, dm, p.bias));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(DimVector{dm}, p.layer_norm_eps, true, p.bias));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(DimVector{dm}, p.layer_norm_eps, true, p.bias));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(p.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(p.dropout));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& mask, const Tensor& key_padding_mask,
                                        bool is_causal) {
  auto sa = [&](const Tensor& x) {
    return (*dropout1)(self_attn->forward(x, x, x, key_padding_mask, false, mask, true, is_causal).first);
  };
  auto ff = [&](const Tensor& x) { return (*dropout2)(feed_forward(options, *linear1, *dropout, *linear2, x)); };
  Tensor x = src;
  if (options.norm_first) {
    x = x + sa((*norm1)(x));
    return x + ff((*norm2)(x));
  }
  x = (*norm1)(x + sa(x));
  return (*norm2)(x + ff(x));
}

TransformerDecoderLayer::TransformerDecoderLayer(int64_t dm, int64_t nh, TransformerLayerOptions o)
    : Module("TransformerDecoderLayer"), d_model(dm), nhead(nh), options(std::move(o)) {
  activation_of(options);
  const auto& p = options;
  self_attn = register_module("self_attn", std::make_shared<MultiheadAttention>(dm, nh, attention_options(p)));
  multihead_attn =
      register_module("multihead_attn", std::make_shared<MultiheadAttention>(dm, nh, attention_options(p)));
  linear1 = register_module("linear1", std::make_shared<Linear>(dm, p.dim_feedforward, p.bias));
  dropout = register_module("dropout", std::make_shared<Dropout>(p.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(p.dim_feedforward, dm, p.bias));
  for (auto [name, norm] : {std::pair{"norm1", &norm1}, std::pair{"norm2", &norm2}, std::pair{"norm3", &norm3}})
    *norm = register_module(name, std::make_shared<LayerNorm>(DimVector{dm}, p.layer_norm_eps, true, p.bias));
  for (auto [name, drop] :
       {std::pair{"dropout1", &dropout1}, std::pair{"dropout2", &dropout2}, std::pair{"dropout3", &dropout3}})
    *drop = register_module(name, std::make_shared<Dropout>(p.dropout));
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                        const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                        const Tensor& memory_key_padding_mask, bool tgt_is_causal,
                                        bool memory_is_causal) {
  auto sa = [&](const Tensor& x) {
    return (*dropout1)(self_attn->forward(x, x, x, tgt_key_padding_mask, false, tgt_mask, true, tgt_is_causal).first);
  };
  auto mha = [&](const Tensor& x) {
    return (*dropout2)(multihead_attn
                           ->forward(x, memory, memory, memory_key_padding_mask, false, memory_mask, true,
                                     memory_is_causal)
                           .first);
  };
  auto ff = [&](const Tensor& x) { return (*dropout3)(feed_forward(options, *linear1, *dropout, *linear2, x)); };
  Tensor x = tgt;
  if (options.norm_first) {
    x = x + sa((*norm1)(x));
    x = x + mha((*norm2)(x));
    return x + ff((*norm3)(x));
  }
  x = (*norm1)(x + sa(x));
  x = (*norm2)(x + mha(x));
  return (*norm3)(x + ff(x));
}

// ---- the stacks

namespace {

// torch.nn's _get_clones (deepcopy): a fresh layer of the same options holding the prototype's values and mode.
template <class Layer>
std::shared_ptr<ModuleList> clones(const Layer& prototype, int64_t n) {
  EMBER_CHECK_VALUE(n >= 1, prototype.name(), " stack: num_layers must be at least 1, got ", n);
  auto list = std::make_shared<ModuleList>();
  for (int64_t i = 0; i < n; ++i) {
    auto layer = std::make_shared<Layer>(prototype.d_model, prototype.nhead, prototype.options);
    layer->load_state_dict(prototype.state_dict());
    layer->train(prototype.is_training());
    list->push_back(layer);
  }
  return list;
}

}  // namespace

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& layer, int64_t n, std::shared_ptr<LayerNorm> nm)
    : Module("TransformerEncoder"), num_layers(n) {
  layers = register_module("layers", clones(layer, n));
  if (nm) norm = register_module("norm", std::move(nm));
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask,
                                   bool is_causal) {
  Tensor x = src;
  for (const auto& m : *layers)
    x = std::static_pointer_cast<TransformerEncoderLayer>(m)->forward(x, mask, src_key_padding_mask, is_causal);
  return norm ? (*norm)(x) : x;
}

TransformerDecoder::TransformerDecoder(const TransformerDecoderLayer& layer, int64_t n, std::shared_ptr<LayerNorm> nm)
    : Module("TransformerDecoder"), num_layers(n) {
  layers = register_module("layers", clones(layer, n));
  if (nm) norm = register_module("norm", std::move(nm));
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                   const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                   const Tensor& memory_key_padding_mask, bool tgt_is_causal, bool memory_is_causal) {
  Tensor x = tgt;
  for (const auto& m : *layers)
    x = std::static_pointer_cast<TransformerDecoderLayer>(m)->forward(
        x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal,
        memory_is_causal);
  return norm ? (*norm)(x) : x;
}

Transformer::Transformer(int64_t dm, int64_t nh, int64_t n_enc, int64_t n_dec, TransformerLayerOptions o)
    : Module("Transformer"), d_model(dm), nhead(nh), batch_first(o.batch_first) {
  auto final_norm = [&] { return std::make_shared<LayerNorm>(DimVector{dm}, o.layer_norm_eps, true, o.bias); };
  encoder = register_module("encoder",
                            std::make_shared<TransformerEncoder>(TransformerEncoderLayer(dm, nh, o), n_enc, final_norm()));
  decoder = register_module("decoder",
                            std::make_shared<TransformerDecoder>(TransformerDecoderLayer(dm, nh, o), n_dec, final_norm()));
  for (const Tensor& p : parameters())
    if (p.dim() > 1) detail::xavier_uniform(p);
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                            const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                            const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
  const int64_t batch_dim = batch_first ? 0 : 1;
  if (src.dim() == 3 && tgt.dim() == 3 && src.size(batch_dim) != tgt.size(batch_dim))
    fail<Error>("Transformer: the batch number of src and tgt must be equal (src ", shape_str(src.sizes()), ", tgt ",
                shape_str(tgt.sizes()), ")");
  if (src.dim() == 0 || tgt.dim() == 0 || src.size(-1) != d_model || tgt.size(-1) != d_model)
    fail<Error>("Transformer: the feature number of src and tgt must be equal to d_model (", d_model, "), got src ",
                shape_str(src.sizes()), " and tgt ", shape_str(tgt.sizes()));
  Tensor memory = encoder->forward(src, src_mask, src_key_padding_mask);
  return decoder->forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

}  // namespace ember::nn
