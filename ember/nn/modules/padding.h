// Padding layers: ZeroPad1d/2d/3d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d,
// CircularPad1d/2d/3d. padding: one value (every side) or 2 * D values (last dim first, as F.pad).
#pragma once

#include <cstdint>
#include <string>

#include "ember/nn/modules/module.h"

namespace ember::nn {

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
#define EMBER_NN_PAD_ALIASES(D)                              \
  using ZeroPad##D##d = PadNd<D, PadMode::Zero>;             \
  using ConstantPad##D##d = PadNd<D, PadMode::Constant>;     \
  using ReflectionPad##D##d = PadNd<D, PadMode::Reflect>;    \
  using ReplicationPad##D##d = PadNd<D, PadMode::Replicate>; \
  using CircularPad##D##d = PadNd<D, PadMode::Circular>;
EMBER_NN_PAD_ALIASES(1)
EMBER_NN_PAD_ALIASES(2)
EMBER_NN_PAD_ALIASES(3)
#undef EMBER_NN_PAD_ALIASES

}  // namespace ember::nn
