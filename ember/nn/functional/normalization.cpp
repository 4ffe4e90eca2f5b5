// Normalization ops. layer_norm and batch_norm run fused kernels forward and backward (backend/cpu/norm.cpp); their
// formulas switch to a composition of ember ops when the backward itself is being recorded (create_graph), so that
// they are differentiable again: see Note [Fused backward]. group_norm and instance_norm are built on them, as in
// PyTorch; local_response_norm and normalize are compositions.
//
// Note [Fused backward]
// A fused backward kernel gives numbers, not a graph. While a formula runs with grad mode on (create_graph), it
// computes the same gradients with ember ops instead, recomputing the statistics from x so that their dependence
// on x is part of the recorded graph. gradcheck covers the fused path, gradgradcheck the composite one, and
// test_nn_norm.py checks that the two give one gradient.
#include "ember/nn/functional/normalization.h"

#include <algorithm>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/normalization.h"
#include "ember/dispatch_hook.h"
#include "ember/nn/functional/padding.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

ScalarType compute_dtype(ScalarType t) { return t == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32; }

// t contiguous in dtype ct (undefined stays undefined).
Tensor prep(const Tensor& t, ScalarType ct) {
  if (!t.defined()) return t;
  return contiguous(t.dtype() == ct ? t : to(t, ct));
}
// Whether batch_norm keeps x in the channels-last layout: a 4-d (5-d) CPU tensor dense in it and not row-major. Its
// memory is then a row-major [N * spatial, C, 1], so the channel kernels (whose contract is a dense [A, C, B]) run on
// it as they are, with A = N * spatial and B = 1.
bool channels_last_batch(const Tensor& x) {
  return x.device().is_cpu() && suggest_memory_format(x) != MemoryFormat::Contiguous;
}

// t in dtype ct, dense in channels-last when `cl`, else contiguous (undefined stays undefined).
Tensor prep_as(const Tensor& t, ScalarType ct, bool cl) {
  if (!t.defined() || !cl) return prep(t, ct);
  return contiguous(t.dtype() == ct ? t : to(t, ct),
                    t.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d);
}

// t flattened, contiguous in dtype ct (undefined stays undefined).
Tensor flat(const Tensor& t, ScalarType ct) { return t.defined() ? reshape(prep(t, ct), DimVector{-1}) : t; }
Tensor cast(const Tensor& t, ScalarType dtype) { return t.defined() && t.dtype() != dtype ? to(t, dtype) : t; }

DimVector iota(int64_t begin, int64_t end) {
  DimVector d;
  for (int64_t i = begin; i < end; ++i) d.push_back(i);
  return d;
}

// sum over dims, or t itself when there are none (sum with no dims would reduce everything).
Tensor sum_over(const Tensor& t, IntArrayRef dims) { return dims.empty() ? t : sum(t, dims); }

// dx of y = xhat * w + b with xhat = (x - mean) * rstd, mean and rstd taken over dims of x (gw = g * w).
Tensor normalized_dx(const Tensor& gw, const Tensor& xhat, const Tensor& rstd, IntArrayRef dims) {
  return mul(rstd, sub(sub(gw, mean(gw, dims, true)), mul(xhat, mean(mul(gw, xhat), dims, true))));
}

std::string torch_size(IntArrayRef s) { return "torch.Size(" + shape_str(s) + ")"; }

void check_param(const Tensor& t, int64_t c, const char* what) {
  if (t.defined()) EMBER_CHECK(t.numel() == c, what, " should contain ", c, " elements not ", t.numel());
}

}  // namespace

// ---- layer_norm

// The checks layer_norm and rms_norm share (PyTorch's messages); returns the number of leading dims.
static int64_t check_normalized_shape(const Tensor& x, IntArrayRef normalized_shape, const Tensor& weight,
                                      const Tensor& bias) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(k >= 1,
              "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
              "element, but got normalized_shape = ",
              shape_str(normalized_shape));
  for (auto [t, what] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}})
    EMBER_CHECK(!t->defined() || std::ranges::equal(t->sizes(), normalized_shape), "Expected ", what,
                " to be of same shape as normalized_shape, but got ", what, " of shape ", shape_str(t->sizes()),
                " and normalized_shape = ", shape_str(normalized_shape));
  const int64_t lead = x.dim() - k;
  EMBER_CHECK(
      lead >= 0 && std::ranges::equal(x.sizes().subspan(lead), normalized_shape),
      "Given normalized_shape=", shape_str(normalized_shape), ", expected input with shape [*",
      [&] {
        std::string s;
        for (int64_t d : normalized_shape) s += ", " + std::to_string(d);
        return s;
      }(),
      "], but got input of size", shape_str(x.sizes()));
  return lead;
}

Tensor layer_norm(const Tensor& x, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias, double eps) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, layer_norm, x, normalized_shape, weight, bias, eps);
  check_same_device("layer_norm", {&x, &weight, &bias});
  const int64_t lead = check_normalized_shape(x, normalized_shape, weight, bias);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(is_floating(x.dtype()), "layer_norm: expected a floating point input, got ", x.dtype());
  EMBER_PY_DISPATCH(Tensor, "aten.native_layer_norm.default", x, normalized_shape, weight, bias, eps);
  int64_t M = 1, N = 1;
  for (int64_t d = 0; d < lead; ++d) M *= x.size(d);
  for (int64_t d : normalized_shape) N *= d;
  const ScalarType ct = compute_dtype(x.dtype());
  const int64_t mn[] = {M, N};
  Tensor y, mu, rstd;
  {
    autograd::NoGradGuard no_grad;
    Tensor xc = prep(x, ct);
    y = empty_like(xc);
    mu = empty(DimVector{M}, TensorOptions(ct).device(x.device()));
    rstd = empty(DimVector{M}, TensorOptions(ct).device(x.device()));
    if (M > 0 && N > 0)
      layer_norm_kernel[x.device()](y.view(mn), mu, rstd, xc.view(mn), flat(weight, ct), flat(bias, ct), eps);
    y = cast(y, x.dtype());
  }
  auto node = autograd::make_node(
      "NativeLayerNormBackward0", {&x, &weight, &bias}, [k, eps, M, N](FormulaNode& n, TensorList& gs) {
        const Tensor& g = gs[0];
        const Tensor x = n.saved_tensor(0), w = n.saved_tensor(1);
        Tensor dx, dw, db;
        const DimVector lead_dims = iota(0, x.dim() - k);
        // Offered as aten.native_layer_norm_backward when it records no graph; the statistics go as PyTorch's, with
        // size-1 normalized dims; bias goes as None (the node does not keep it: only its gradient's shape matters).
        if (dispatch::enabled() && !autograd::is_grad_enabled()) [[unlikely]] {
          DimVector stat_shape(x.sizes().subspan(0, x.dim() - k));
          for (int64_t i = 0; i < k; ++i) stat_shape.push_back(1);
          Tensor mu = n.saved_tensor(2).view(stat_shape), rs = n.saved_tensor(3).view(stat_shape);
          if (dispatch::has_wrapper_data(&x)) {  // a wrapper subclass's statistics, through its handler
            const DimVector dims = iota(x.dim() - k, x.dim());
            mu = mean(x, dims, true);
            rs = rsqrt(add(mean(square(sub(x, mu)), dims, true), eps));
          }
          if (auto r = dispatch::call("aten.native_layer_norm_backward.default",
                                      dispatch::values(g, x, x.sizes().subspan(x.dim() - k), mu, rs, w, Tensor(),
                                                       std::array<bool, 3>{n.needs(0), n.needs(1), n.needs(2)}))) {
            r->resize(3);
            return TensorList{(*r)[0], (*r)[1], (*r)[2]};
          }
        }
        if (autograd::is_grad_enabled()) {  // Note [Fused backward]
          const DimVector dims = iota(x.dim() - k, x.dim());
          const Tensor mu = mean(x, dims, true), rstd = rsqrt(add(var(x, dims, 0, true), eps));
          const Tensor xhat = mul(sub(x, mu), rstd);
          if (n.needs(0)) dx = normalized_dx(w.defined() ? mul(g, w) : g, xhat, rstd, dims);
          if (n.needs(1)) dw = sum_over(mul(g, xhat), lead_dims);
          if (n.needs(2)) db = sum_over(g, lead_dims);
          return TensorList{dx, dw, db};
        }
        const ScalarType ct = compute_dtype(x.dtype());
        const TensorOptions o = TensorOptions(ct).device(x.device());
        const int64_t mn[] = {M, N};
        if (n.needs(0)) dx = empty(mn, o);
        if (n.needs(1)) dw = empty(DimVector{N}, o);
        if (n.needs(2)) db = empty(DimVector{N}, o);
        if (M > 0 && N > 0) {
          layer_norm_backward_kernel[x.device()](dx, dw, db, prep(g, ct).view(mn), prep(x, ct).view(mn),
                                                 n.saved_tensor(2), n.saved_tensor(3), flat(w, ct));
        } else {  // nothing to sum
          for (Tensor* t : {&dw, &db})
            if (t->defined()) fill_(*t, 0);
        }
        const DimVector norm_shape(x.sizes().subspan(x.dim() - k));
        if (dx.defined()) dx = cast(dx.view(x.sizes()), x.dtype());
        if (dw.defined()) dw = cast(dw.view(norm_shape), w.dtype());
        if (db.defined()) db = cast(db.view(norm_shape), x.dtype());
        return TensorList{dx, dw, db};
      });
  if (node) {
    node->save(x);
    node->save(weight);
    node->save(mu);
    node->save(rstd);
    autograd::set_history(y, node);
  }
  return y;
}

// ---- batch_norm

// A composition (as PyTorch's): y = x / sqrt(mean(x^2) + eps) * weight over the trailing dims, computed in float32 for
// 16-bit inputs and rounded once; autograd differentiates the parts.
Tensor rms_norm(const Tensor& x, IntArrayRef normalized_shape, const Tensor& weight, std::optional<double> eps) {
  check_same_device("rms_norm", {&x, &weight});
  const int64_t lead = check_normalized_shape(x, normalized_shape, weight, {});
  EMBER_CHECK(is_floating(x.dtype()), "rms_norm: expected a floating point input, got ", x.dtype());
  DimVector dims;
  for (int64_t d = lead; d < x.dim(); ++d) dims.push_back(d);
  // eps=None: the input dtype's machine epsilon (torch.finfo(input.dtype).eps).
  const double e = eps                                 ? *eps
                   : x.dtype() == ScalarType::Float64  ? 2.220446049250313e-16
                   : x.dtype() == ScalarType::Float16  ? 0.0009765625
                   : x.dtype() == ScalarType::BFloat16 ? 0.0078125
                                                       : 1.1920928955078125e-07;
  const Tensor xf = to(x, compute_dtype(x.dtype()));
  Tensor y = mul(xf, rsqrt(add(mean(mul(xf, xf), dims, /*keepdim=*/true), e)));
  if (weight.defined()) y = mul(y, weight);
  return to(y, x.dtype());
}

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  check_same_device("batch_norm", {&x, &running_mean, &running_var, &weight, &bias});
  wrap_dim(1, x.dim(), "batch_norm");  // needs a channel dim
  EMBER_CHECK(is_floating(x.dtype()), "batch_norm: expected a floating point input, got ", x.dtype());
  const int64_t C = x.size(1), A = x.size(0), B = x.numel() / std::max<int64_t>(A * C, 1);
  const int64_t count = A * B;
  if (training)
    EMBER_CHECK_VALUE(count != 1, "Expected more than 1 value per channel when training, got input size ",
                      torch_size(x.sizes()));
  else
    EMBER_CHECK(running_mean.defined() && running_var.defined(), "running_", running_mean.defined() ? "var" : "mean",
                " must be defined in evaluation mode");
  check_param(weight, C, "weight");
  check_param(bias, C, "bias");
  check_param(running_mean, C, "running_mean");
  check_param(running_var, C, "running_var");
  if (dispatch::enabled()) [[unlikely]] {  // Note [Python dispatch]
    if (auto r = dispatch::call("aten.native_batch_norm.default",
                                dispatch::values(x, weight, bias, running_mean, running_var, training, momentum, eps)))
      return dispatch::result<Tensor>(std::move(*r));
  }
  const ScalarType ct = compute_dtype(x.dtype());
  const TensorOptions f64 = TensorOptions(ScalarType::Float64).device(x.device());
  const bool cl = channels_last_batch(x);
  const int64_t acb[] = {cl ? A * B : A, C, cl ? 1 : B};
  Tensor y, mu, invstd, scale, shift;
  {
    autograd::NoGradGuard no_grad;
    Tensor xc = prep_as(x, ct, cl);
    if (training) {
      // (ops on [C] cost a microsecond or more each: as few as the formulas allow, the coefficients in one kernel)
      Tensor s1 = empty(DimVector{C}, f64), s2 = empty(DimVector{C}, f64);
      if (x.numel()) channel_moments_kernel[x.device()](s1, Tensor(), xc, xc, Tensor(), IntArrayRef(acb));
      mu = div(s1, static_cast<double>(count));
      if (x.numel()) channel_moments_kernel[x.device()](s1, s2, xc, xc, mu, IntArrayRef(acb));
      Tensor v = div(s2, static_cast<double>(count));
      if (running_mean.defined()) copy_(running_mean, add(mul(mu, momentum), running_mean, 1 - momentum));
      if (running_var.defined())  // the unbiased variance, as PyTorch
        copy_(running_var, add(mul(v, momentum * static_cast<double>(count) / static_cast<double>(count - 1)),
                               running_var, 1 - momentum));
      // y = x * scale + shift per channel
      auto f64_of = [](const Tensor& p) { return p.defined() ? contiguous(to(p, ScalarType::Float64)) : p; };
      scale = empty(DimVector{C}, f64);
      shift = empty(DimVector{C}, f64);
      invstd = empty(DimVector{C}, f64);
      channel_coefficients_kernel[x.device()](scale, shift, invstd, mu, v, f64_of(weight), f64_of(bias), eps);
    } else {
      // The statistics and parameters in one dtype for the kernel: theirs when they share float32 or float64.
      const ScalarType st = running_mean.dtype();
      const bool same = (st == ScalarType::Float32 || st == ScalarType::Float64) && running_var.dtype() == st &&
                        (!weight.defined() || weight.dtype() == st) && (!bias.defined() || bias.dtype() == st);
      auto in = [&](const Tensor& p) { return p.defined() ? contiguous(same ? p : to(p, ScalarType::Float64)) : p; };
      scale = empty(DimVector{C}, f64);
      shift = empty(DimVector{C}, f64);
      invstd = empty(DimVector{C}, f64);
      channel_coefficients_kernel[x.device()](scale, shift, invstd, in(running_mean), in(running_var), in(weight),
                                              in(bias), eps);
    }
    y = empty_like(xc);
    if (x.numel())
      channel_affine_kernel[x.device()](y, xc, contiguous(scale), Tensor(), Tensor(), contiguous(shift),
                                        IntArrayRef(acb));
    y = cast(y, x.dtype());
  }
  auto node = autograd::make_node(
      "NativeBatchNormBackward0", {&x, &weight, &bias}, [training, eps, C, A, B, cl](FormulaNode& n, TensorList& gs) {
        const Tensor& g = gs[0];
        const Tensor x = n.saved_tensor(0), w = n.saved_tensor(1), mu = n.saved_tensor(2), invstd = n.saved_tensor(3);
        Tensor dx, dw, db;
        DimVector dims = iota(0, x.dim());
        dims.erase(1);
        // Offered as aten.native_batch_norm_backward in training (not double-differentiable there: a backward that
        // records a graph runs the formulas below). ember's statistics are float64 tensors of this node's own, so
        // save_mean and save_invstd go as None and the op recomputes them from the input (docs/extending.md).
        if (training && dispatch::enabled() && !autograd::is_grad_enabled()) [[unlikely]] {
          if (auto r = dispatch::call("aten.native_batch_norm_backward.default",
                                      dispatch::values(g, x, w, Tensor(), Tensor(), Tensor(), Tensor(), true, eps,
                                                       std::array<bool, 3>{n.needs(0), n.needs(1), n.needs(2)}))) {
            r->resize(3);
            return TensorList{(*r)[0], (*r)[1], (*r)[2]};
          }
        }
        if (autograd::is_grad_enabled()) {  // Note [Fused backward]
          DimVector cshape(x.dim(), 1);
          cshape[1] = C;
          Tensor m, rstd;
          if (training) {
            m = mean(x, dims, true);
            rstd = rsqrt(add(var(x, dims, 0, true), eps));
          } else {
            m = reshape(cast(mu, x.dtype()), cshape);
            rstd = reshape(cast(invstd, x.dtype()), cshape);
          }
          const Tensor xhat = mul(sub(x, m), rstd);
          const Tensor gw = w.defined() ? mul(g, reshape(w, cshape)) : g;
          if (n.needs(0)) dx = training ? normalized_dx(gw, xhat, rstd, dims) : mul(gw, rstd);
          if (n.needs(1)) dw = sum(mul(g, xhat), dims);
          if (n.needs(2)) db = sum(g, dims);
          return TensorList{dx, dw, db};
        }
        const ScalarType ct = compute_dtype(x.dtype());
        const int64_t acb[] = {cl ? A * B : A, C, cl ? 1 : B};
        const double count = static_cast<double>(A * B);
        const TensorOptions f64 = TensorOptions(ScalarType::Float64).device(x.device());
        Tensor gc = prep_as(g, ct, cl), xc = prep_as(x, ct, cl);
        // s1 = sum of g, s2 = sum of g * (x - mean), per channel.
        Tensor s1 = zeros(DimVector{C}, f64), s2 = zeros(DimVector{C}, f64);
        if ((training || n.needs(1) || n.needs(2)) && x.numel())
          channel_moments_kernel[x.device()](s1, s2, gc, xc, mu, IntArrayRef(acb));
        if (n.needs(1)) dw = cast(mul(s2, invstd), w.dtype());
        if (n.needs(2)) db = cast(s1, x.dtype());
        if (n.needs(0)) {
          // dx = g * ka + x * kx + k0 per channel: training subtracts the projections on 1 and on xhat.
          Tensor ka = w.defined() ? mul(invstd, to(w, ScalarType::Float64)) : invstd, kx, k0;
          if (training) {
            kx = neg(div(mul(mul(ka, mul(invstd, invstd)), s2), count));
            k0 = sub(neg(mul(div(s1, count), ka)), mul(mu, kx));
          } else {
            k0 = zeros(DimVector{C}, f64);
          }
          dx = empty_like(gc);
          if (x.numel())
            channel_affine_kernel[x.device()](dx, gc, contiguous(ka), kx.defined() ? xc : Tensor(),
                                              kx.defined() ? contiguous(kx) : Tensor(), contiguous(k0),
                                              IntArrayRef(acb));
          dx = cast(dx, x.dtype());
        }
        return TensorList{dx, dw, db};
      });
  if (node) {
    node->save(x);
    node->save(weight);
    node->save(training ? mu : to(running_mean, ScalarType::Float64));
    node->save(invstd);
    autograd::set_history(y, node);
  }
  return y;
}

// ---- group_norm and instance_norm: layer_norm and batch_norm of a reshaped input, as PyTorch builds them

Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, group_norm, x, num_groups, weight, bias, eps);
  check_same_device("group_norm", {&x, &weight, &bias});
  wrap_dim(1, x.dim(), "group_norm");
  const int64_t N = x.size(0), C = x.size(1);
  EMBER_CHECK(num_groups > 0 && C % num_groups == 0,
              "Expected number of channels in input to be divisible by "
              "num_groups, but got input of shape ",
              shape_str(x.sizes()), " and num_groups=", num_groups);
  for (auto [t, what] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}})
    EMBER_CHECK(!t->defined() || (t->dim() == 1 && t->numel() == C), "Expected ", what,
                " to be a vector of size equal to the number of channels in input, but got ", what, " of shape ",
                shape_str(t->sizes()), " and input of shape ", shape_str(x.sizes()));
  const int64_t per_group = N > 0 ? x.numel() / (N * num_groups) : 0;
  EMBER_PY_DISPATCH(Tensor, "aten.native_group_norm.default", x, weight, bias, N, C,
                    C > 0 ? per_group * num_groups / C : 0, num_groups, eps);
  const int64_t group_shape[] = {N, num_groups, per_group};
  const int64_t norm_shape[] = {per_group};
  Tensor y = reshape(layer_norm(reshape(x, group_shape), norm_shape, {}, {}, eps), x.sizes());
  if (!weight.defined() && !bias.defined()) return y;
  DimVector cshape(x.dim() - 1, 1);  // [C, 1, ...]: broadcasts against [N, C, *]
  cshape[0] = C;
  if (weight.defined() && bias.defined()) return addcmul(reshape(bias, cshape), y, reshape(weight, cshape));
  return weight.defined() ? mul(y, reshape(weight, cshape)) : add(y, reshape(bias, cshape));
}

Tensor instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  check_same_device("instance_norm", {&x, &running_mean, &running_var, &weight, &bias});
  wrap_dim(1, x.dim(), "instance_norm");
  const int64_t N = x.size(0), C = x.size(1);
  if (use_input_stats) {
    int64_t spatial = 1;
    for (int64_t d = 2; d < x.dim(); ++d) spatial *= x.size(d);
    EMBER_CHECK_VALUE(spatial != 1, "Expected more than 1 spatial element when training, got input size ",
                      torch_size(x.sizes()));
  }
  auto rep = [N](const Tensor& t) { return t.defined() ? repeat(t, DimVector{N}) : t; };
  Tensor rm = rep(running_mean), rv = rep(running_var);
  DimVector shape(x.sizes());
  shape[0] = 1;
  shape[1] = N * C;
  Tensor y = batch_norm(reshape(contiguous(x), shape), rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps);
  if (use_input_stats) {  // the running statistics are the mean over the batch of the per-instance ones
    autograd::NoGradGuard no_grad;
    const int64_t nc[] = {N, C}, zero[] = {0};
    if (running_mean.defined()) copy_(running_mean, mean(reshape(rm, nc), zero));
    if (running_var.defined()) copy_(running_var, mean(reshape(rv, nc), zero));
  }
  return reshape(y, x.sizes());
}

// ---- compositions

Tensor local_response_norm(const Tensor& x, int64_t size, double alpha, double beta, double k) {
  EMBER_CHECK_VALUE(x.dim() >= 3, "Expected 3D or higher dimensionality input (got ", x.dim(), " dimensions)");
  if (x.numel() == 0) return clone(x);
  // The mean of x^2 over a window of `size` channels, zero-padded (avg_pool with count_include_pad, as PyTorch).
  DimVector p(2 * (x.dim() - 1), 0);
  p[p.size() - 2] = size / 2;
  p[p.size() - 1] = (size - 1) / 2;
  Tensor sq = pad(mul(x, x), p);
  const int64_t last[] = {-1};
  Tensor avg = div(sum(unfold(sq, 1, size, 1), last), static_cast<double>(size));
  return div(x, pow(add(mul(avg, alpha), k), beta));
}

Tensor normalize(const Tensor& x, double p, int64_t dim, double eps) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, normalize, x, p, dim, eps);
  const int64_t d[] = {dim};
  const Tensor n = norm(x, p, d, true);
  Tensor c;
  if (dispatch::enabled()) [[unlikely]] {  // PyTorch's F.normalize calls clamp_min (Note [Python dispatch])
    if (auto r = dispatch::offer("aten.clamp_min.default", n, Scalar(eps))) c = dispatch::result<Tensor>(std::move(*r));
  }
  if (!c.defined()) c = clamp(n, Scalar(eps), std::nullopt);
  return div(x, expand_as(c, x));
}

}  // namespace ember
