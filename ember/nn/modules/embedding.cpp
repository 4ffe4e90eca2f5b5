#include "ember/nn/modules/embedding.h"

#include "ember/nn/functional/embedding.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::float_str;

namespace {

// A negative padding_idx counts from the end; out of range: ValueError.
std::optional<int64_t> checked_padding_idx(std::optional<int64_t> idx, int64_t n, const char* layer) {
  if (!idx) return idx;
  EMBER_CHECK_VALUE(*idx >= -n && *idx < n, layer, ": padding_idx (", *idx, ") must be within num_embeddings (", n,
                    ")");
  return *idx < 0 ? *idx + n : *idx;
}

// N(0, 1), the padding row zero: torch.nn.Embedding(Bag).reset_parameters.
void init_embedding(const Tensor& weight, std::optional<int64_t> padding_idx) {
  autograd::NoGradGuard no_grad;
  normal_(weight);
  if (padding_idx) fill_(weight.select(0, *padding_idx), 0.0);
}

}  // namespace

Embedding::Embedding(int64_t n, int64_t d, EmbeddingOptions o)
    : Module("Embedding"), num_embeddings(n), embedding_dim(d), options(std::move(o)) {
  options.padding_idx = checked_padding_idx(options.padding_idx, n, "Embedding");
  weight = register_parameter("weight", empty(DimVector{n, d}));
  init_embedding(weight, options.padding_idx);
}

Tensor Embedding::forward(const Tensor& indices) {
  return embedding(weight, indices, options.padding_idx.value_or(-1), options.scale_grad_by_freq, options.sparse,
                   options.max_norm, options.norm_type);
}

std::string Embedding::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (options.padding_idx) s += ", padding_idx=" + std::to_string(*options.padding_idx);
  if (options.max_norm) s += ", max_norm=" + float_str(*options.max_norm);
  if (options.norm_type != 2) s += ", norm_type=" + float_str(options.norm_type);
  if (options.scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  if (options.sparse) s += ", sparse=True";
  return s;
}

EmbeddingBag::EmbeddingBag(int64_t n, int64_t d, EmbeddingBagOptions o)
    : Module("EmbeddingBag"), num_embeddings(n), embedding_dim(d), options(std::move(o)) {
  EMBER_CHECK_VALUE(options.mode == "sum" || options.mode == "mean" || options.mode == "max",
                    "EmbeddingBag: mode has to be one of sum, mean or max, got '", options.mode, "'");
  options.padding_idx = checked_padding_idx(options.padding_idx, n, "EmbeddingBag");
  weight = register_parameter("weight", empty(DimVector{n, d}));
  init_embedding(weight, options.padding_idx);
}

Tensor EmbeddingBag::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  const auto& o = options;
  return embedding_bag(input, weight, offsets, o.max_norm, o.norm_type, o.scale_grad_by_freq, o.mode, o.sparse,
                       per_sample_weights, o.include_last_offset, o.padding_idx.value_or(-1));
}

std::string EmbeddingBag::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (options.max_norm) s += ", max_norm=" + float_str(*options.max_norm);
  if (options.norm_type != 2) s += ", norm_type=" + float_str(options.norm_type);
  if (options.scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  s += ", mode=" + options.mode;
  if (options.padding_idx) s += ", padding_idx=" + std::to_string(*options.padding_idx);
  return s;
}

}  // namespace ember::nn
