// Dropout. The plain form is one fused pass (Note [Fused dropout] in ember/backend/math/dropout.h) whose gradient
// node saves only the bool mask. Feature and alpha dropout apply a Bernoulli noise tensor from the Philox generator
// (ops/random.cpp) with mul, so that their gradients and derivatives come from mul's formula.
#include <algorithm>
#include <cmath>

#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/dropout.h"
#include "ember/detail/random_math.h"
#include "ember/dispatch_hook.h"
#include "ember/nn/functional/dropout.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

namespace {

// PyTorch's message: its float noise cannot be multiplied into an integer x.
void check_floating(const Tensor& x, const char* op) {
  EMBER_CHECK(is_floating(x.dtype()), op, ": result type Float can't be cast to the desired output type ",
              type_label(x.dtype()));
}

// out = x * (keep ? scale : 0) and mask = keep (where defined), keep drawn as bernoulli(1 - p) draws it; out and
// mask contiguous, x any layout.
void fused_kernel(const Tensor& out, const Tensor& mask, const Tensor& x, double p, double scale, Generator* gen,
                  const char* op) {
  Generator& g = rnd::pick_generator(gen, x.device(), op);
  const Tensor xc = x.is_contiguous() ? x : contiguous(x);
  dropout_kernel[x.device()](out, mask, xc, 1 - p, scale,
                             g.take(static_cast<uint64_t>(x.numel()) * rnd::kBernoulliWords));
}

// (output, mask): the mask is made only when the gradient is recorded (its node saves the mask alone) or want_mask.
std::pair<Tensor, Tensor> fused_dropout(const Tensor& x, double p, double scale, bool want_mask, Generator* gen,
                                        const char* op) {
  const bool record = autograd::needs_grad({&x});
  Tensor out, mask;
  {
    autograd::NoGradGuard no_grad;
    const TensorOptions o = TensorOptions(x.dtype()).device(x.device());
    out = empty(x.sizes(), o);
    if (record || want_mask) mask = empty(x.sizes(), o.dtype(ScalarType::Bool));
    fused_kernel(out, mask, x, p, scale, gen, op);
  }
  if (record) {
    auto n = autograd::make_node("NativeDropoutBackward0", {&x},
                                 [scale](autograd::FormulaNode& n, autograd::TensorList& g) {
                                   return autograd::TensorList{native_dropout_backward(g[0], n.saved_tensor(0), scale)};
                                 });
    n->save(mask);
    autograd::set_history(out, n);
  }
  return {out, mask};
}

// In place. Recording, the out-of-place form's node moves onto x (Note [In-place ops]); otherwise one pass writes x
// (no mask), through a temporary when x is not contiguous.
Tensor fused_dropout_(const Tensor& x, double p, double scale, Generator* gen) {
  if (autograd::needs_grad({&x}))
    return autograd::inplace_with_grad(x, "dropout_",
                                       [&] { return fused_dropout(x, p, scale, false, gen, "dropout").first; });
  EMBER_CHECK(!has_internal_overlap(x),
              "dropout_: unsupported operation: more than one element of the written-to "
              "tensor refers to a single memory location. Please clone() the tensor before performing the operation.");
  if (x.is_contiguous()) {
    fused_kernel(x, Tensor(), x, p, scale, gen, "dropout");
  } else {
    Tensor tmp = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
    fused_kernel(tmp, Tensor(), x, p, scale, gen, "dropout");
    copy_into(x, tmp);
  }
  x.bump_version();
  return x;
}

// PyTorch's _dropout_impl.
Tensor dropout_impl(const Tensor& x, double p, bool training, bool inplace, bool feature, bool alpha, Generator* gen) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !training || x.numel() == 0) return x;
  EMBER_CHECK(!feature || x.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  check_floating(x, "dropout");
  if (!feature && !alpha && !inplace && !gen) EMBER_PY_DISPATCH(Tensor, "aten.dropout.default", x, p, training);
  auto apply = [&](const Tensor& m, BinaryOp op) { return inplace ? binary_op(op, x, m, x) : binary_op(op, x, m); };
  if (p == 1) return apply(zeros({}, TensorOptions(x.dtype()).device(x.device())), BinaryOp::Mul);
  const double scale = 1 / (1 - p);
  if (!feature && !alpha)
    return inplace ? fused_dropout_(x, p, scale, gen) : fused_dropout(x, p, scale, false, gen, "dropout").first;
  // Feature and alpha dropout stay composed: their noise is one draw per channel, broadcast, or an affine map.
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

// dropout1d/2d/3d: PyTorch's rank rule around feature_dropout (an unbatched input gets a batch dim of one).
Tensor channel_dropout(const Tensor& x, int64_t spatial, double p, bool training, bool inplace, Generator* gen) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  const int64_t nd = x.dim();
  EMBER_CHECK(spatial != 1 || nd == 2 || nd == 3, "dropout1d: Expected 2D or 3D input, but received a ", nd,
              "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
              "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  if (spatial == 2 || nd != spatial + 1) return feature_dropout(x, p, training, inplace, gen);
  Tensor r = feature_dropout(x.unsqueeze(0), p, training, inplace, gen);
  return inplace ? x : r.squeeze(0);  // in place: written through the view
}

}  // namespace

Tensor dropout1d(const Tensor& x, double p, bool training, bool inplace, Generator* gen) {
  return channel_dropout(x, 1, p, training, inplace, gen);
}
Tensor dropout2d(const Tensor& x, double p, bool training, bool inplace, Generator* gen) {
  return channel_dropout(x, 2, p, training, inplace, gen);
}
Tensor dropout3d(const Tensor& x, double p, bool training, bool inplace, Generator* gen) {
  return channel_dropout(x, 3, p, training, inplace, gen);
}

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

std::pair<Tensor, Tensor> native_dropout(const Tensor& x, double p, std::optional<bool> train, Generator* gen) {
  // PyTorch's: an empty x comes back with an empty "mask" of x's dtype; train=False copies x.
  if (x.numel() == 0) return {x, empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()))};
  if (train && !*train) return {clone(x), ones(x.sizes(), TensorOptions(ScalarType::Bool).device(x.device()))};
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", 1 - p);
  check_floating(x, "native_dropout");
  return fused_dropout(x, p, p == 1 ? 0.0 : 1 / (1 - p), true, gen, "native_dropout");
}

Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, double scale) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "Mask should be Bool Scalar Type", type_label(mask.dtype()));
  check_same_device("native_dropout_backward", {&grad, &mask});
  EMBER_CHECK(std::ranges::equal(grad.sizes(), mask.sizes()), "native_dropout_backward: grad of shape ",
              shape_str(grad.sizes()), " and mask of shape ", shape_str(mask.sizes()), " differ");
  check_floating(grad, "native_dropout_backward");
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = empty(grad.sizes(), TensorOptions(grad.dtype()).device(grad.device()));
    if (out.numel()) dropout_backward_kernel[grad.device()](out, contiguous(grad), contiguous(mask), scale);
  }
  // Linear in grad: its gradient is the same op, so derivatives of any order stay one fused pass.
  if (auto n = autograd::make_node(
          "NativeDropoutBackwardBackward0", {&grad}, [scale](autograd::FormulaNode& n, autograd::TensorList& g) {
            return autograd::TensorList{native_dropout_backward(g[0], n.saved_tensor(0), scale)};
          })) {
    n->save(mask);
    autograd::set_history(out, n);
  }
  return out;
}

}  // namespace ember
