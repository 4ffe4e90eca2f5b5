// Dropout: a Bernoulli mask from the Philox generator (ops/random.cpp), applied with mul, so that the gradient
// (g times the mask) and its derivatives come from mul's formula.
#include <cmath>

#include "ember/autograd/node.h"
#include "ember/nn/dropout.h"
#include "ember/ops.h"

namespace ember {

namespace {

// PyTorch's _dropout_impl.
Tensor dropout_impl(const Tensor& x, double p, bool training, bool inplace, bool feature, bool alpha,
                    Generator* gen) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !training || x.numel() == 0) return x;
  EMBER_CHECK(!feature || x.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  EMBER_CHECK(is_floating(x.dtype()), "dropout: expected a floating point input, got ", x.dtype());
  auto apply = [&](const Tensor& m, BinaryOp op) { return inplace ? binary_op(op, x, m, x) : binary_op(op, x, m); };
  if (p == 1) return apply(zeros({}, TensorOptions(x.dtype()).device(x.device())), BinaryOp::Mul);
  Tensor noise, shift;
  {
    autograd::NoGradGuard no_grad;
    DimVector shape(x.sizes());
    if (feature)
      for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
    noise = bernoulli(empty(shape, TensorOptions(x.dtype()).device(x.device())), 1 - p, gen);
    if (alpha) {  // a * (x * mask + k * (mask - 1 + p)), k = 1.758...: dropped values sit at SELU's saturation
      constexpr double kAlpha = 1.7580993408473766;
      const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
      shift = add(mul(sub(noise, 1.0), kAlpha * a), kAlpha * a * p);
      noise = mul(noise, a);
    } else {
      noise = div(noise, 1 - p);
    }
  }
  Tensor r = apply(noise, BinaryOp::Mul);
  if (!alpha) return r;
  return inplace ? binary_op(BinaryOp::Add, r, shift, r) : add(r, shift);
}

}  // namespace

Tensor dropout(const Tensor& x, double p, bool training, bool inplace, Generator* gen) {
  return dropout_impl(x, p, training, inplace, false, false, gen);
}
Tensor feature_dropout(const Tensor& x, double p, bool training, bool inplace, Generator* gen) {
  return dropout_impl(x, p, training, inplace, true, false, gen);
}
Tensor alpha_dropout(const Tensor& x, double p, bool training, bool inplace, Generator* gen) {
  return dropout_impl(x, p, training, inplace, false, true, gen);
}
Tensor feature_alpha_dropout(const Tensor& x, double p, bool training, bool inplace, Generator* gen) {
  return dropout_impl(x, p, training, inplace, true, true, gen);
}

}  // namespace ember
