#include "ember/nn/modules_misc.h"

#include "ember/nn/distance.h"
#include "ember/nn/dropout.h"
#include "ember/nn/embedding.h"
#include "ember/nn/modules_internal.h"
#include "ember/nn/padding.h"
#include "ember/nn/spatial.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::bool_str;
using detail::float_str;
using detail::int_or_tuple_str;
using detail::tuple_str;

// ---- dropout

namespace {

constexpr const char* dropout_name(DropoutKind k) {
  constexpr const char* names[] = {"Dropout",   "Dropout1d",    "Dropout2d",
                                   "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"};
  return names[static_cast<int>(k)];
}

}  // namespace

template <DropoutKind K>
DropoutT<K>::DropoutT(double p, bool inplace) : Module(dropout_name(K)), p(p), inplace(inplace) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, name(), ": dropout probability has to be between 0 and 1, but got ", p);
}

template <DropoutKind K>
Tensor DropoutT<K>::forward(const Tensor& x) {
  const bool training = is_training();
  switch (K) {
    case DropoutKind::Plain: return dropout(x, p, training, inplace);
    case DropoutKind::Channel1d: return dropout1d(x, p, training, inplace);
    case DropoutKind::Channel2d: return dropout2d(x, p, training, inplace);
    case DropoutKind::Channel3d: return dropout3d(x, p, training, inplace);
    case DropoutKind::Alpha: return alpha_dropout(x, p, training, inplace);
    case DropoutKind::FeatureAlpha: return feature_alpha_dropout(x, p, training, inplace);
  }
  return x;
}

template <DropoutKind K>
std::string DropoutT<K>::extra_repr() const {
  return "p=" + float_str(p) + ", inplace=" + bool_str(inplace);
}

template class DropoutT<DropoutKind::Plain>;
template class DropoutT<DropoutKind::Channel1d>;
template class DropoutT<DropoutKind::Channel2d>;
template class DropoutT<DropoutKind::Channel3d>;
template class DropoutT<DropoutKind::Alpha>;
template class DropoutT<DropoutKind::FeatureAlpha>;

// ---- embeddings

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

// ---- padding

namespace {

constexpr const char* kPadFamily[] = {"ZeroPad", "ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad"};
constexpr const char* kPadMode[] = {"constant", "constant", "reflect", "replicate", "circular"};

}  // namespace

template <size_t D, PadMode M>
PadNd<D, M>::PadNd(DimVector p, double v)
    : Module(kPadFamily[static_cast<int>(M)] + std::to_string(D) + "d"), padding(std::move(p)), value(v) {
  EMBER_CHECK_VALUE(padding.size() == 2 * D, name(), ": padding must have 1 or ", 2 * D, " values, got ",
                    shape_str(padding));
}

template <size_t D, PadMode M>
Tensor PadNd<D, M>::forward(const Tensor& x) {
  if constexpr (M == PadMode::Zero || M == PadMode::Constant) return constant_pad_nd(x, padding, value);
  return pad(x, padding, kPadMode[static_cast<int>(M)]);
}

template <size_t D, PadMode M>
std::string PadNd<D, M>::extra_repr() const {
  if constexpr (M == PadMode::Constant) return "padding=" + tuple_str(padding) + ", value=" + float_str(value);
  return tuple_str(padding);
}

#define EMBER_NN_PAD_INSTANCES(D)                  \
  template class PadNd<D, PadMode::Zero>;          \
  template class PadNd<D, PadMode::Constant>;      \
  template class PadNd<D, PadMode::Reflect>;       \
  template class PadNd<D, PadMode::Replicate>;     \
  template class PadNd<D, PadMode::Circular>;
EMBER_NN_PAD_INSTANCES(1)
EMBER_NN_PAD_INSTANCES(2)
EMBER_NN_PAD_INSTANCES(3)
#undef EMBER_NN_PAD_INSTANCES

// ---- resampling

Upsample::Upsample(Options o) : Module("Upsample"), options(std::move(o)) {
  EMBER_CHECK_VALUE(options.size.empty() != options.scale_factor.empty(),
                    "Upsample: exactly one of size and scale_factor must be given");
}

Tensor Upsample::forward(const Tensor& x) {
  const auto& o = options;
  return interpolate(x, o.size, o.scale_factor, o.mode, o.align_corners, o.recompute_scale_factor);
}

// PyTorch 1.13 prints the mode unquoted.
std::string Upsample::extra_repr() const {
  std::string s;
  if (!options.scale_factor.empty()) {
    if (options.scale_factor.size() == 1) {
      s = "scale_factor=" + float_str(options.scale_factor[0]);
    } else {
      s = "scale_factor=(";
      for (size_t i = 0; i < options.scale_factor.size(); ++i) s += (i ? ", " : "") + float_str(options.scale_factor[i]);
      s += ")";
    }
  } else {
    s = "size=" + int_or_tuple_str(options.size);
  }
  return s + ", mode=" + options.mode;
}

Tensor PixelShuffle::forward(const Tensor& x) { return pixel_shuffle(x, upscale_factor); }
std::string PixelShuffle::extra_repr() const { return "upscale_factor=" + std::to_string(upscale_factor); }

Tensor PixelUnshuffle::forward(const Tensor& x) { return pixel_unshuffle(x, downscale_factor); }
std::string PixelUnshuffle::extra_repr() const { return "downscale_factor=" + std::to_string(downscale_factor); }

Tensor ChannelShuffle::forward(const Tensor& x) {
  EMBER_CHECK_VALUE(x.dim() >= 3, "ChannelShuffle: expected an input of at least 3 dims [N, C, *], got ",
                    shape_str(x.sizes()));
  EMBER_CHECK_VALUE(groups > 0 && x.size(1) % groups == 0, "ChannelShuffle: number of channels (", x.size(1),
                    ") must be divisible by groups (", groups, ")");
  DimVector split{x.size(0), groups, x.size(1) / groups}, merged{x.size(0), x.size(1)};
  for (int64_t d = 2; d < x.dim(); ++d) {
    split.push_back(x.size(d));
    merged.push_back(x.size(d));
  }
  return x.reshape(split).transpose(1, 2).reshape(merged);
}
std::string ChannelShuffle::extra_repr() const { return "groups=" + std::to_string(groups); }

namespace {
std::vector<int64_t> vec(const DimVector& v) { return {v.data(), v.data() + v.size()}; }
}  // namespace

Fold::Fold(DimVector output_size, FoldOptions o) : Module("Fold"), output_size(std::move(output_size)), options(o) {}

Tensor Fold::forward(const Tensor& x) {
  const auto& o = options;
  return col2im(x, vec(output_size), vec(o.kernel_size), vec(o.dilation), vec(o.padding), vec(o.stride));
}

std::string Fold::extra_repr() const {
  const auto& o = options;
  return "output_size=" + int_or_tuple_str(output_size) + ", kernel_size=" + int_or_tuple_str(o.kernel_size) +
         ", dilation=" + int_or_tuple_str(o.dilation) + ", padding=" + int_or_tuple_str(o.padding) +
         ", stride=" + int_or_tuple_str(o.stride);
}

Unfold::Unfold(FoldOptions o) : Module("Unfold"), options(std::move(o)) {}

Tensor Unfold::forward(const Tensor& x) {
  const auto& o = options;
  return im2col(x, vec(o.kernel_size), vec(o.dilation), vec(o.padding), vec(o.stride));
}

std::string Unfold::extra_repr() const {
  const auto& o = options;
  return "kernel_size=" + int_or_tuple_str(o.kernel_size) + ", dilation=" + int_or_tuple_str(o.dilation) +
         ", padding=" + int_or_tuple_str(o.padding) + ", stride=" + int_or_tuple_str(o.stride);
}

// ---- distances

Tensor CosineSimilarity::forward(const Tensor& x1, const Tensor& x2) { return cosine_similarity(x1, x2, dim, eps); }

Tensor PairwiseDistance::forward(const Tensor& x1, const Tensor& x2) {
  return pairwise_distance(x1, x2, norm, eps, keepdim);
}

}  // namespace ember::nn
