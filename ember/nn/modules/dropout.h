// Dropout layers: Dropout, Dropout1d/2d/3d (whole channels), AlphaDropout, FeatureAlphaDropout; identity in eval.
#pragma once

#include <cstdint>
#include <string>

#include "ember/nn/modules/module.h"

namespace ember::nn {

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

}  // namespace ember::nn
