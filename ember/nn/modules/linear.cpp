#include "ember/nn/modules/linear.h"

#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::bool_str;
using detail::default_init;

Linear::Linear(std::string name, int64_t in, int64_t out, bool with_bias)
    : Module(std::move(name)), in_features(in), out_features(out) {
  weight = register_parameter("weight", empty(DimVector{out, in}));
  if (with_bias) bias = register_parameter("bias", empty(DimVector{out}));
  default_init(weight, bias, in);
}

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + bool_str(bias.defined());
}

Bilinear::Bilinear(int64_t in1, int64_t in2, int64_t out, bool with_bias)
    : Module("Bilinear"), in1_features(in1), in2_features(in2), out_features(out) {
  weight = register_parameter("weight", empty(DimVector{out, in1, in2}));
  if (with_bias) bias = register_parameter("bias", empty(DimVector{out}));
  default_init(weight, bias, in1);  // torch.nn.Bilinear's bound: 1 / sqrt(weight.size(1))
}

Tensor Bilinear::forward(const Tensor& x1, const Tensor& x2) { return bilinear(x1, x2, weight, bias); }

std::string Bilinear::extra_repr() const {
  return "in1_features=" + std::to_string(in1_features) + ", in2_features=" + std::to_string(in2_features) +
         ", out_features=" + std::to_string(out_features) + ", bias=" + bool_str(bias.defined());
}

}  // namespace ember::nn
