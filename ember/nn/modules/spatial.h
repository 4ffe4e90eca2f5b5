// Dropout, embeddings, padding, resampling (Upsample, PixelShuffle, Fold/Unfold, ChannelShuffle) and distances.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/modules/module.h"

namespace ember::nn {

// ---- dropout: Dropout, Dropout1d/2d/3d (whole channels), AlphaDropout, FeatureAlphaDropout; identity in eval.

enum class DropoutKind : uint8_t { Plain, Channel1d, Channel2d, Channel3d, Alpha, FeatureAlpha };

template <DropoutKind K>
class DropoutT : public Module {
 public:
  explicit DropoutT(double p = 0.5, bool inplace = false);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  double p;
  bool inplace;
};
using Dropout = DropoutT<DropoutKind::Plain>;
using Dropout1d = DropoutT<DropoutKind::Channel1d>;
using Dropout2d = DropoutT<DropoutKind::Channel2d>;
using Dropout3d = DropoutT<DropoutKind::Channel3d>;
using AlphaDropout = DropoutT<DropoutKind::Alpha>;
using FeatureAlphaDropout = DropoutT<DropoutKind::FeatureAlpha>;

// ---- embeddings

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

// ---- padding: ZeroPad1d/2d/3d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d,
// CircularPad1d/2d/3d. padding: one value (every side) or 2 * D values (last dim first, as F.pad).

enum class PadMode : uint8_t { Zero, Constant, Reflect, Replicate, Circular };

template <size_t D, PadMode M>
class PadNd : public Module {
 public:
  explicit PadNd(int64_t padding, double value = 0) : PadNd(DimVector(2 * D, padding), value) {}
  explicit PadNd(DimVector padding, double value = 0);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  DimVector padding;
  double value;  // ConstantPad only
};
#define EMBER_NN_PAD_ALIASES(D)                                 \
  using ZeroPad##D##d = PadNd<D, PadMode::Zero>;                \
  using ConstantPad##D##d = PadNd<D, PadMode::Constant>;        \
  using ReflectionPad##D##d = PadNd<D, PadMode::Reflect>;       \
  using ReplicationPad##D##d = PadNd<D, PadMode::Replicate>;    \
  using CircularPad##D##d = PadNd<D, PadMode::Circular>;
EMBER_NN_PAD_ALIASES(1)
EMBER_NN_PAD_ALIASES(2)
EMBER_NN_PAD_ALIASES(3)
#undef EMBER_NN_PAD_ALIASES

// ---- resampling

// F.interpolate with a fixed size or scale_factor (one value for every spatial dim, or one per dim); mode
// "nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact".
class Upsample : public Module {
 public:
  struct Options {
    std::vector<int64_t> size;
    std::vector<double> scale_factor;
    std::string mode = "nearest";
    std::optional<bool> align_corners;
    std::optional<bool> recompute_scale_factor;
  };
  explicit Upsample(Options options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Options options;
};

class PixelShuffle : public Module {
 public:
  explicit PixelShuffle(int64_t upscale_factor) : Module("PixelShuffle"), upscale_factor(upscale_factor) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t upscale_factor;
};

class PixelUnshuffle : public Module {
 public:
  explicit PixelUnshuffle(int64_t downscale_factor) : Module("PixelUnshuffle"), downscale_factor(downscale_factor) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t downscale_factor;
};

// [N, C, *] -> [N, C, *] with the channels in groups interleaved.
class ChannelShuffle : public Module {
 public:
  explicit ChannelShuffle(int64_t groups) : Module("ChannelShuffle"), groups(groups) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  int64_t groups;
};

// Sizes: one value (both spatial dims) or two.
struct FoldOptions {
  DimVector kernel_size, dilation = {1}, padding = {0}, stride = {1};
};

// Sliding blocks [N, C * prod(k), L] -> the image [N, C, output_size] (overlaps summed).
class Fold : public Module {
 public:
  Fold(DimVector output_size, FoldOptions options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  DimVector output_size;
  FoldOptions options;
};

// The image [N, C, H, W] -> its sliding blocks [N, C * prod(k), L].
class Unfold : public Module {
 public:
  explicit Unfold(FoldOptions options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  FoldOptions options;
};

// ---- distances: forward(x1, x2)

class CosineSimilarity : public Module {
 public:
  explicit CosineSimilarity(int64_t dim = 1, double eps = 1e-8) : Module("CosineSimilarity"), dim(dim), eps(eps) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  Tensor operator()(const Tensor& x1, const Tensor& x2) { return forward(x1, x2); }
  using Module::forward;
  int64_t dim;
  double eps;
};

class PairwiseDistance : public Module {
 public:
  explicit PairwiseDistance(double p = 2.0, double eps = 1e-6, bool keepdim = false)
      : Module("PairwiseDistance"), norm(p), eps(eps), keepdim(keepdim) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  Tensor operator()(const Tensor& x1, const Tensor& x2) { return forward(x1, x2); }
  using Module::forward;
  double norm, eps;
  bool keepdim;
};

}  // namespace ember::nn
