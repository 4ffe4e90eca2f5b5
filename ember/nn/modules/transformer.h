// MultiheadAttention and the Transformer layers, composed of ember ops as torch.nn's are (MultiheadAttention's
// math is multi_head_attention_forward in ember/nn/functional/attention.h, which the Python module calls too), with its
// parameter names (state_dict keys equal torch.nn's for the same arguments), default initialisation and mask
// conventions: a bool mask is True where attention is not allowed; a float mask is added to the scores.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ember/nn/modules/container.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/module.h"
#include "ember/nn/modules/normalization.h"

namespace ember::nn {

// The out_proj of MultiheadAttention: a Linear under the name torch.nn gives it.
class NonDynamicallyQuantizableLinear : public Linear {
 public:
  NonDynamicallyQuantizableLinear(int64_t in_features, int64_t out_features, bool bias = true)
      : Linear("NonDynamicallyQuantizableLinear", in_features, out_features, bias) {}
};

struct MultiheadAttentionOptions {
  double dropout = 0.0;
  bool bias = true, add_bias_kv = false, add_zero_attn = false;
  std::optional<int64_t> kdim, vdim;  // empty: embed_dim
  bool batch_first = false;
};

// Parameters: in_proj_weight [3E, E] (or q/k/v_proj_weight when kdim or vdim differ from E), in_proj_bias [3E],
// out_proj (weight [E, E], bias [E]), bias_k and bias_v [1, 1, E] with add_bias_kv. Inputs [L, B, E] ([B, L, E]
// with batch_first) or unbatched [L, E]. is_causal is PyTorch's hint that attn_mask is the causal mask (it needs
// attn_mask).
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, MultiheadAttentionOptions options = {});
  // (output, attention weights); the weights are undefined unless need_weights, averaged over heads when
  // average_attn_weights ([B, L, S]), else [B, H, L, S].
  std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& key_padding_mask = {}, bool need_weights = true,
                                    const Tensor& attn_mask = {}, bool average_attn_weights = true,
                                    bool is_causal = false);
  using Module::forward;  // one input: NotImplementedError
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, bias_k, bias_v;
  std::shared_ptr<NonDynamicallyQuantizableLinear> out_proj;
  int64_t embed_dim, num_heads, head_dim, kdim, vdim;
  MultiheadAttentionOptions options;
};

// A float mask [sz, sz]: -inf above the diagonal (no position attends to a later one), 0 elsewhere.
Tensor generate_square_subsequent_mask(int64_t sz, ScalarType dtype = ScalarType::Float32);

struct TransformerLayerOptions {
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";                     // or "gelu"
  std::function<Tensor(const Tensor&)> activation_fn;  // set: used instead of `activation`
  double layer_norm_eps = 1e-5;
  bool batch_first = false, norm_first = false, bias = true;
};

// Self-attention then a feed-forward block, each with a residual connection and a LayerNorm (after, or before
// with norm_first).
class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, TransformerLayerOptions options = {});
  Tensor forward(const Tensor& src) override { return forward(src, {}); }
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask = {},
                 bool is_causal = false);
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2;
  std::shared_ptr<LayerNorm> norm1, norm2;
  int64_t d_model, nhead;
  TransformerLayerOptions options;
};

// Self-attention, attention over the encoder's output (memory), then a feed-forward block.
class TransformerDecoderLayer : public Module {
 public:
  TransformerDecoderLayer(int64_t d_model, int64_t nhead, TransformerLayerOptions options = {});
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {},
                 bool tgt_is_causal = false, bool memory_is_causal = false);
  using Module::forward;
  std::shared_ptr<MultiheadAttention> self_attn, multihead_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2, dropout3;
  std::shared_ptr<LayerNorm> norm1, norm2, norm3;
  int64_t d_model, nhead;
  TransformerLayerOptions options;
};

// num_layers copies of encoder_layer (same options and parameter values, as torch.nn's deepcopy), then norm if given.
class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, int64_t num_layers,
                     std::shared_ptr<LayerNorm> norm = nullptr);
  Tensor forward(const Tensor& src) override { return forward(src, {}); }
  Tensor forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask = {},
                 bool is_causal = false);
  std::shared_ptr<ModuleList> layers;
  std::shared_ptr<LayerNorm> norm;
  int64_t num_layers;
};

class TransformerDecoder : public Module {
 public:
  TransformerDecoder(const TransformerDecoderLayer& decoder_layer, int64_t num_layers,
                     std::shared_ptr<LayerNorm> norm = nullptr);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {},
                 bool tgt_is_causal = false, bool memory_is_causal = false);
  using Module::forward;
  std::shared_ptr<ModuleList> layers;
  std::shared_ptr<LayerNorm> norm;
  int64_t num_layers;
};

// An encoder and a decoder, each ending in a LayerNorm; every parameter with more than one dim xavier_uniform.
class Transformer : public Module {
 public:
  explicit Transformer(int64_t d_model = 512, int64_t nhead = 8, int64_t num_encoder_layers = 6,
                       int64_t num_decoder_layers = 6, TransformerLayerOptions options = {});
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {}, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  using Module::forward;
  std::shared_ptr<TransformerEncoder> encoder;
  std::shared_ptr<TransformerDecoder> decoder;
  int64_t d_model, nhead;
  bool batch_first;
};

}  // namespace ember::nn
