#include "ember/nn/modules/dropout.h"

#include "ember/nn/functional/dropout.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::bool_str;
using detail::float_str;

namespace {

constexpr const char* dropout_name(DropoutKind k) {
  switch (k) {
    case DropoutKind::Plain: return "Dropout";
    case DropoutKind::Channel1d: return "Dropout1d";
    case DropoutKind::Channel2d: return "Dropout2d";
    case DropoutKind::Channel3d: return "Dropout3d";
    case DropoutKind::Alpha: return "AlphaDropout";
    case DropoutKind::FeatureAlpha: return "FeatureAlphaDropout";
  }
  return "?";
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

}  // namespace ember::nn
