#include "ember/nn/modules/dropout.h"

#include "ember/nn/functional/dropout.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::bool_str;
using detail::float_str;

namespace {

constexpr const char* dropout_name(DropoutKind k) {
  constexpr const char* names[] = {"Dropout",   "Dropout1d",    "Dropout2d",
                                   "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"};
  return names[static_cast<int>(k)];
}

// Channel dropout over D spatial dims: torch.nn.functional.dropout{D}d's rank rule (an unbatched input of D + 1 dims
// for D = 1 and 3; dropout2d reads a 3-d input as batched [N, C, L], as PyTorch 1.13 does).
Tensor channel_dropout(const Tensor& x, int64_t spatial, double p, bool training, bool inplace, const char* name) {
  const int64_t nd = x.dim();
  EMBER_CHECK(spatial != 1 || nd == 2 || nd == 3, name, ": Expected 2D or 3D input, but received a ", nd,
              "D input ", shape_str(x.sizes()), ". Note that dropout1d exists to provide channel-wise dropout on inputs "
              "with 1 spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  if (spatial == 2 || nd != spatial + 1) return feature_dropout(x, p, training, inplace);
  Tensor r = feature_dropout(x.unsqueeze(0), p, training, inplace);
  return inplace ? x : r.squeeze(0);
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
    case DropoutKind::Channel1d: return channel_dropout(x, 1, p, training, inplace, "Dropout1d");
    case DropoutKind::Channel2d: return channel_dropout(x, 2, p, training, inplace, "Dropout2d");
    case DropoutKind::Channel3d: return channel_dropout(x, 3, p, training, inplace, "Dropout3d");
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

}  // namespace ember::nn
