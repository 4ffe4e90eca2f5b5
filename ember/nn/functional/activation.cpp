// Activations and softmax. The elementwise activations are UnaryOp cases (one kernel and one formula each); prelu,
// rrelu and glu are compositions whose gradients come from their parts; softmax has its own fused kernel
// (backend/cpu/softmax.cpp) and formula.
#include "ember/nn/functional/activation.h"

#include <algorithm>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/softmax.h"
#include "ember/dispatch_hook.h"
#include "ember/nn/functional/detail/softmax.h"
#include "ember/ops.h"

namespace ember {

namespace {

Tensor act(UnaryOp op, const Tensor& x, bool inplace, UnaryArgs args = {}) {
  return unary_op(op, x, inplace ? x : Tensor(), args);
}

}  // namespace

Tensor relu(const Tensor& x, bool inplace) { return act(UnaryOp::Relu, x, inplace); }
Tensor relu6(const Tensor& x, bool inplace) { return hardtanh(x, 0, 6, inplace); }
Tensor hardtanh(const Tensor& x, double min_val, double max_val, bool inplace) {
  return act(UnaryOp::Hardtanh, x, inplace, {min_val, max_val});
}
Tensor leaky_relu(const Tensor& x, double negative_slope, bool inplace) {
  return act(UnaryOp::LeakyRelu, x, inplace, {negative_slope});
}
Tensor elu(const Tensor& x, double alpha, double scale, double input_scale, bool inplace) {
  return act(UnaryOp::Elu, x, inplace, {alpha, scale, input_scale});
}
Tensor selu(const Tensor& x, bool inplace) {
  return elu(x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1, inplace);
}
Tensor celu(const Tensor& x, double alpha, bool inplace) {
  EMBER_CHECK(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return elu(x, alpha, 1, 1 / alpha, inplace);
}
Tensor hardswish(const Tensor& x, bool inplace) { return act(UnaryOp::Hardswish, x, inplace); }
Tensor hardsigmoid(const Tensor& x, bool inplace) { return act(UnaryOp::Hardsigmoid, x, inplace); }
Tensor silu(const Tensor& x, bool inplace) { return act(UnaryOp::Silu, x, inplace); }
Tensor mish(const Tensor& x, bool inplace) { return act(UnaryOp::Mish, x, inplace); }
Tensor softsign(const Tensor& x) { return act(UnaryOp::Softsign, x, false); }
Tensor tanhshrink(const Tensor& x) { return act(UnaryOp::Tanhshrink, x, false); }
Tensor threshold(const Tensor& x, double threshold, double value, bool inplace) {
  return act(UnaryOp::Threshold, x, inplace, {threshold, value});
}
Tensor logsigmoid(const Tensor& x) { return act(UnaryOp::LogSigmoid, x, false); }
Tensor hardshrink(const Tensor& x, double lambd) { return act(UnaryOp::Hardshrink, x, false, {lambd}); }
Tensor softshrink(const Tensor& x, double lambd) {
  EMBER_CHECK(lambd >= 0, "lambda must be greater or equal to 0, but found to be ", lambd, ".");
  return act(UnaryOp::Softshrink, x, false, {lambd});
}

Tensor prelu(const Tensor& x, const Tensor& weight) {
  EMBER_AUTOCAST(autocast::kLower, prelu, x, weight);
  const int64_t channels = x.dim() >= 2 ? x.size(1) : 1;
  EMBER_CHECK(weight.numel() == 1 || weight.numel() == channels,
              "Mismatch of parameter numbers and input channel "
              "size. Found parameter numbers = ",
              weight.numel(), " and channel size = ", channels, ".");
  EMBER_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = ", weight.dim());
  // The weight as [C, 1, ..., 1] so that it broadcasts along dim 1; the engine sums its gradient back.
  DimVector shape;
  if (x.dim() >= 2) {
    shape = DimVector(x.dim() - 1, 1);
    shape[0] = weight.numel();
  }
  Tensor w = reshape(weight, shape);
  return where(gt(x, 0.0), x, mul(w, x));
}

Tensor rrelu(const Tensor& x, double lower, double upper, bool training, bool inplace, Generator* gen) {
  EMBER_CHECK(lower <= upper, "Lower bound should be less than or equal to the upper bound");
  if (!training) return leaky_relu(x, (lower + upper) / 2, inplace);
  EMBER_CHECK(is_floating(x.dtype()), "\"rrelu_with_noise_cpu\" not implemented for '", type_label(x.dtype()), "'");
  Tensor noise;
  {  // a slope per negative element; the gradient is g * noise, as PyTorch's rrelu_with_noise
    autograd::NoGradGuard no_grad;
    noise = empty_like(x);
    uniform_(noise, lower, upper, gen);
    noise = where(ge(x, 0.0), 1.0, noise);
  }
  return inplace ? binary_op(BinaryOp::Mul, x, noise, x) : mul(x, noise);
}

Tensor glu(const Tensor& x, int64_t dim) {
  EMBER_CHECK(x.dim() > 0, "glu does not support scalars because halving size must be even");
  dim = wrap_dim(dim, x.dim(), "glu");
  const int64_t n = x.size(dim);
  EMBER_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", dim, " is size ", n);
  return mul(narrow(x, dim, 0, n / 2), sigmoid(narrow(x, dim, n / 2, n / 2)));
}

// ---- softmax

int64_t softmax_default_dim(int64_t ndim) { return ndim == 0 || ndim == 1 || ndim == 3 ? 0 : 1; }

namespace {

// causal > 0: the causal softmax of [..., causal, n] (causal_softmax).
Tensor softmax_impl(const Tensor& x_in, int64_t dim, std::optional<ScalarType> dtype, bool log, int64_t causal = 0) {
  const char* name = log ? "log_softmax" : "softmax";
  const Tensor x = dtype && *dtype != x_in.dtype() ? to(x_in, *dtype) : x_in;
  EMBER_CHECK(is_floating(x.dtype()), "\"", name, "_lastdim_kernel_impl\" not implemented for '", type_label(x.dtype()),
              "'");
  dim = wrap_dim(dim, x.dim(), name);
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    // The kernel runs in float32 or float64; 16-bit floats compute in float32, as PyTorch's accumulate type.
    const bool narrow16 = x.dtype() == ScalarType::Float16 || x.dtype() == ScalarType::BFloat16;
    Tensor xc = contiguous(narrow16 ? to(x, ScalarType::Float32) : x);
    out = empty_like(xc);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d) outer *= x.size(d);
    for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.size(d);
    const int64_t n = x.dim() ? x.size(dim) : 1;
    if (out.numel() && causal)
      causal_softmax_kernel[x.device()](out, xc, outer, n, causal);
    else if (out.numel())
      softmax_kernel[x.device()](out, xc, outer, n, inner, log);
    if (narrow16) out = to(out, x.dtype());
  }
  // Both formulas read only the result (Chainer's retain_outputs) and are written with ember ops.
  auto node = autograd::make_node(
      log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", {&x},
      [dim, log, dt = x.dtype()](autograd::FormulaNode& n, autograd::TensorList& g) {
        const Tensor y = n.saved_tensor(0);
        const int64_t d[] = {dim};
        if (dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]
          auto r = dispatch::call(
              log ? "aten._log_softmax_backward_data.default" : "aten._softmax_backward_data.default",
              dispatch::values(g[0], y, dim, dt));
          if (r) return autograd::TensorList{dispatch::result<Tensor>(std::move(*r))};
        }
        // One kernel pass where no graph is asked of it and the device has one.
        auto* fused = softmax_backward_kernel.fn[static_cast<int>(y.device().type)];
        if (fused && !autograd::is_grad_enabled() &&
            (y.dtype() == ScalarType::Float32 || y.dtype() == ScalarType::Float64) && g[0].dtype() == y.dtype() &&
            y.is_contiguous() && y.numel() > 0) {
          const Tensor go = contiguous(g[0]);
          Tensor gx = empty_like(y);
          int64_t outer = 1, inner = 1;
          for (int64_t i = 0; i < dim; ++i) outer *= y.size(i);
          for (int64_t i = dim + 1; i < y.dim(); ++i) inner *= y.size(i);
          softmax_backward_kernel[y.device()](gx, go, y, outer, y.dim() ? y.size(dim) : 1, inner, log);
          return autograd::TensorList{gx};
        }
        if (log) return autograd::TensorList{sub(g[0], mul(exp(y), sum(g[0], d, true)))};
        return autograd::TensorList{mul(y, sub(g[0], sum(mul(g[0], y), d, true)))};
      });
  if (node) {
    autograd::set_history(out, node);
    node->save_output(out);
  }
  return out;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, softmax, x, dim, dtype);
  if (!dtype) EMBER_PY_DISPATCH(Tensor, "aten._softmax.default", x, dim, false);
  return softmax_impl(x, dim, dtype, false);
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (!dtype) EMBER_AUTOCAST(autocast::kFp32Cuda, log_softmax, x, dim, dtype);
  if (!dtype) EMBER_PY_DISPATCH(Tensor, "aten._log_softmax.default", x, dim, false);
  return softmax_impl(x, dim, dtype, true);
}
bool causal_softmax_fused(const Tensor& scores) {
  return scores.dim() >= 2 && (scores.dtype() == ScalarType::Float32 || scores.dtype() == ScalarType::Float64) &&
         causal_softmax_kernel.fn[static_cast<int>(scores.device().type)] != nullptr;
}
Tensor causal_softmax(const Tensor& scores) {
  EMBER_CHECK(causal_softmax_fused(scores),
              "causal_softmax: expected float32 or float64 scores [..., L, S] on a device "
              "with the kernel, got ",
              shape_str(scores.sizes()), " ", scores.dtype(), " on ", scores.device());
  return softmax_impl(scores, -1, std::nullopt, false, scores.size(-2));
}

Tensor softmin(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(neg(dtype && *dtype != x.dtype() ? to(x, *dtype) : x), dim, std::nullopt, false);
}

Tensor gumbel_softmax(const Tensor& logits, double tau, bool hard, double eps, int64_t dim, Generator* gen) {
  (void)eps;  // unused, as in PyTorch
  Tensor gumbels;
  {
    autograd::NoGradGuard no_grad;
    Tensor u = empty_like(logits);
    uniform_(u, 0, 1, gen);
    gumbels = neg(log(neg(unary_op(UnaryOp::Log1p, neg(u)))));  // -log(Exponential(1))
  }
  Tensor y = softmax(div(add(logits, gumbels), tau), dim);
  if (!hard) return y;
  Tensor index = max(y, dim, true).second;
  Tensor y_hard = scatter(zeros_like(logits), dim, index, Scalar(1.0));
  return add(sub(y_hard, y.detach()), y);
}

}  // namespace ember
