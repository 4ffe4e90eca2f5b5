#include "ember/nn/modules/transformer.h"

#include <limits>

#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/attention.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                      const Tensor& key_padding_mask, bool need_weights,
                                                      const Tensor& attn_mask, bool average_attn_weights,
                                                      bool is_causal) {
  // batch_first: the math runs on [L, N, E]; an unbatched input has no batch dim to move.
  const bool transpose = options.batch_first && query.dim() == 3;
  auto seq_first = [&](const Tensor& t) { return transpose && t.dim() == 3 ? t.transpose(0, 1) : t; };
  // Self-attention stays one tensor (one in-projection).
  Tensor q = seq_first(query);
  Tensor k = key.is_same(query) ? q : seq_first(key);
  Tensor v = value.is_same(key) ? k : seq_first(value);
  auto [out, weights] = multi_head_attention_forward(
      q, k, v, embed_dim, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, options.add_zero_attn,
      options.dropout, out_proj->weight, out_proj->bias, is_training(), key_padding_mask, need_weights, attn_mask,
      !in_proj_weight.defined(), q_proj_weight, k_proj_weight, v_proj_weight, {}, {}, average_attn_weights, is_causal);
  return {transpose ? out.transpose(0, 1) : out, weights};
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
  multihead_attn = register_module("multihead_attn",
                                   std::make_shared<MultiheadAttention>(dm, nh, attention_options(p)));
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
    return (*dropout2)(
        multihead_attn->forward(x, memory, memory, memory_key_padding_mask, false, memory_mask, true, memory_is_causal)
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
    x = std::static_pointer_cast<TransformerDecoderLayer>(m)->forward(x, memory, tgt_mask, memory_mask,
                                                                      tgt_key_padding_mask, memory_key_padding_mask,
                                                                      tgt_is_causal, memory_is_causal);
  return norm ? (*norm)(x) : x;
}

Transformer::Transformer(int64_t dm, int64_t nh, int64_t n_enc, int64_t n_dec, TransformerLayerOptions o)
    : Module("Transformer"), d_model(dm), nhead(nh), batch_first(o.batch_first) {
  auto final_norm = [&] { return std::make_shared<LayerNorm>(DimVector{dm}, o.layer_norm_eps, true, o.bias); };
  encoder = register_module(
      "encoder", std::make_shared<TransformerEncoder>(TransformerEncoderLayer(dm, nh, o), n_enc, final_norm()));
  decoder = register_module(
      "decoder", std::make_shared<TransformerDecoder>(TransformerDecoderLayer(dm, nh, o), n_dec, final_norm()));
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
