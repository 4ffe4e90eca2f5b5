// Embedding layers: Embedding and EmbeddingBag.
#pragma once

#include <optional>
#include <string>

#include "ember/nn/modules/module.h"

namespace ember::nn {

// weight [num_embeddings, embedding_dim] ~ N(0, 1), the padding_idx row zero. max_norm renormalizes the looked-up
// rows in place (under no_grad), as torch.nn.Embedding does.
struct EmbeddingOptions {
  std::optional<int64_t> padding_idx;
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false, sparse = false;
};

class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, EmbeddingOptions options = {});
  Tensor forward(const Tensor& indices) override;
  std::string extra_repr() const override;
  Tensor weight;
  int64_t num_embeddings, embedding_dim;
  EmbeddingOptions options;
};

// mode "sum", "mean" or "max"; forward(input, offsets, per_sample_weights) as F.embedding_bag.
struct EmbeddingBagOptions {
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  std::string mode = "mean";
  bool sparse = false, include_last_offset = false;
  std::optional<int64_t> padding_idx;
};

class EmbeddingBag : public Module {
 public:
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim, EmbeddingBagOptions options = {});
  Tensor forward(const Tensor& input) override { return forward(input, {}, {}); }
  Tensor forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights = {});
  Tensor operator()(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights = {}) {
    return forward(input, offsets, per_sample_weights);
  }
  using Module::operator();
  std::string extra_repr() const override;
  Tensor weight;
  int64_t num_embeddings, embedding_dim;
  EmbeddingBagOptions options;
};

}  // namespace ember::nn
