#include "ember/nn/modules/padding.h"

#include "ember/nn/functional/padding.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::float_str;
using detail::tuple_str;

namespace {

constexpr const char* pad_family(PadMode m) {
  switch (m) {
    case PadMode::Zero: return "ZeroPad";
    case PadMode::Constant: return "ConstantPad";
    case PadMode::Reflect: return "ReflectionPad";
    case PadMode::Replicate: return "ReplicationPad";
    case PadMode::Circular: return "CircularPad";
  }
  return "?";
}

constexpr const char* pad_mode(PadMode m) {
  switch (m) {
    case PadMode::Zero:
    case PadMode::Constant: return "constant";
    case PadMode::Reflect: return "reflect";
    case PadMode::Replicate: return "replicate";
    case PadMode::Circular: return "circular";
  }
  return "?";
}

}  // namespace

template <size_t D, PadMode M>
PadNd<D, M>::PadNd(DimVector p, double v)
    : Module(pad_family(M) + std::to_string(D) + "d"), padding(std::move(p)), value(v) {
  EMBER_CHECK_VALUE(padding.size() == 2 * D, name(), ": padding must have 1 or ", 2 * D, " values, got ",
                    shape_str(padding));
}

template <size_t D, PadMode M>
Tensor PadNd<D, M>::forward(const Tensor& x) {
  if constexpr (M == PadMode::Zero || M == PadMode::Constant) return constant_pad_nd(x, padding, value);
  return pad(x, padding, pad_mode(M));
}

template <size_t D, PadMode M>
std::string PadNd<D, M>::extra_repr() const {
  if constexpr (M == PadMode::Constant) return "padding=" + tuple_str(padding) + ", value=" + float_str(value);
  return tuple_str(padding);
}

#define EMBER_NN_PAD_INSTANCES(D)              \
  template class PadNd<D, PadMode::Zero>;      \
  template class PadNd<D, PadMode::Constant>;  \
  template class PadNd<D, PadMode::Reflect>;   \
  template class PadNd<D, PadMode::Replicate>; \
  template class PadNd<D, PadMode::Circular>;
EMBER_NN_PAD_INSTANCES(1)
EMBER_NN_PAD_INSTANCES(2)
EMBER_NN_PAD_INSTANCES(3)
#undef EMBER_NN_PAD_INSTANCES

}  // namespace ember::nn
