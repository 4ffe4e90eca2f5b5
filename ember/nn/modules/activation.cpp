#include "ember/nn/modules/activation.h"

#include <cmath>

#include "ember/nn/functional/activation.h"
#include "ember/nn/modules/detail/util.h"
#include "ember/ops.h"

namespace ember::nn {

using detail::float_str;

namespace act {

namespace {

std::string inplace_str(bool inplace, const char* sep = "") { return inplace ? std::string(sep) + "inplace=True" : ""; }

// torch.nn.Softplus's defaults are ints (beta=1, threshold=20) and print so.
std::string number_str(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? std::to_string(static_cast<int64_t>(v)) : float_str(v);
}

}  // namespace

// One row per layer: the check of its options, the functional op, and torch.nn's extra_repr.
#define ACT(Name, check_body, forward_expr, repr_expr)                                                    \
  void Name##Spec::check([[maybe_unused]] const Options& o) { check_body; }                               \
  Tensor Name##Spec::forward(const Tensor& x, [[maybe_unused]] const Options& o) { return forward_expr; } \
  std::string Name##Spec::repr([[maybe_unused]] const Options& o) { return repr_expr; }

ACT(ReLU, , relu(x, o.inplace), inplace_str(o.inplace))
ACT(ReLU6, , relu6(x, o.inplace), inplace_str(o.inplace))
ACT(SELU, , selu(x, o.inplace), inplace_str(o.inplace))
ACT(SiLU, , silu(x, o.inplace), inplace_str(o.inplace))
ACT(Mish, , mish(x, o.inplace), inplace_str(o.inplace))
ACT(Hardswish, , hardswish(x, o.inplace), inplace_str(o.inplace))
ACT(Hardsigmoid, , hardsigmoid(x, o.inplace), inplace_str(o.inplace))
ACT(Sigmoid, , sigmoid(x), "")
ACT(Tanh, , tanh(x), "")
ACT(Softsign, , softsign(x), "")
ACT(Tanhshrink, , tanhshrink(x), "")
ACT(LogSigmoid, , logsigmoid(x), "")
ACT(ELU, , elu(x, o.alpha, 1, 1, o.inplace), "alpha=" + float_str(o.alpha) + inplace_str(o.inplace, ", "))
ACT(CELU, , celu(x, o.alpha, o.inplace), "alpha=" + float_str(o.alpha) + inplace_str(o.inplace, ", "))
ACT(LeakyReLU, , leaky_relu(x, o.negative_slope, o.inplace),
    "negative_slope=" + float_str(o.negative_slope) + inplace_str(o.inplace, ", "))
ACT(Hardtanh,
    EMBER_CHECK_VALUE(o.max_val > o.min_val, "Hardtanh: max_val (", o.max_val, ") must be greater than min_val (",
                      o.min_val, ")"),
    hardtanh(x, o.min_val, o.max_val, o.inplace),
    "min_val=" + float_str(o.min_val) + ", max_val=" + float_str(o.max_val) + inplace_str(o.inplace, ", "))
ACT(Threshold, , threshold(x, o.threshold, o.value, o.inplace),
    "threshold=" + float_str(o.threshold) + ", value=" + float_str(o.value) + inplace_str(o.inplace, ", "))
ACT(Softplus, , softplus(x, o.beta, o.threshold),
    "beta=" + number_str(o.beta) + ", threshold=" + number_str(o.threshold))
ACT(Hardshrink, , hardshrink(x, o.lambd), float_str(o.lambd))
ACT(Softshrink, , softshrink(x, o.lambd), float_str(o.lambd))
ACT(GLU, , glu(x, o.dim), "dim=" + std::to_string(o.dim))
ACT(GELU,
    EMBER_CHECK(o.approximate == "none" || o.approximate == "tanh", "GELU: approximate must be 'none' or 'tanh', got '",
                o.approximate, "'"),
    gelu(x, o.approximate == "tanh"), "approximate='" + o.approximate + "'")
ACT(Softmax, , softmax(x, o.dim.value_or(softmax_default_dim(x.dim()))),
    "dim=" + (o.dim ? std::to_string(*o.dim) : "None"))
ACT(LogSoftmax, , log_softmax(x, o.dim.value_or(softmax_default_dim(x.dim()))),
    "dim=" + (o.dim ? std::to_string(*o.dim) : "None"))
ACT(Softmin, , softmin(x, o.dim.value_or(softmax_default_dim(x.dim()))),
    "dim=" + (o.dim ? std::to_string(*o.dim) : "None"))
#undef ACT

}  // namespace act

PReLU::PReLU(int64_t n, double init) : Module("PReLU"), num_parameters(n), init(init) {
  EMBER_CHECK_VALUE(n >= 1, "PReLU: num_parameters must be at least 1, got ", n);
  weight = register_parameter("weight", empty(DimVector{n}));
  autograd::NoGradGuard no_grad;
  fill_(weight, init);
}

Tensor PReLU::forward(const Tensor& x) { return prelu(x, weight); }

std::string PReLU::extra_repr() const { return "num_parameters=" + std::to_string(num_parameters); }

}  // namespace ember::nn
