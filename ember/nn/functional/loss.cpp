// The loss functions. Each is a composition of ember ops unless noted, so gradients (and second gradients) come
// from the ops' formulas; binary_cross_entropy records PyTorch's formula (the composition's gradient is NaN where
// the input is exactly 0 or 1), cross_entropy over class indices fuses its log-softmax into one kernel, ctc_loss
// is a kernel with a recorded formula, and the terms of smooth_l1_loss and huber_loss are binary ops of their own
// (one pass instead of seven; their gradients in autograd/binary_derivatives.def).
#include "ember/nn/functional/loss.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "ember/autocast.h"
#include "ember/autograd/detail/shape_grad.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/loss.h"
#include "ember/dispatch_hook.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/distance.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;

namespace {

// "ember.Size([3, 1])", as Python prints a tensor's size.
std::string size_repr(IntArrayRef s) {
  std::ostringstream os;
  os << "ember.Size([";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "])";
  return os.str();
}

Tensor log_softmax_of(const Tensor& x, int64_t dim) { return sub(x, logsumexp(x, {{dim}}, true)); }

// log(1 + exp(z)) without overflow, as m + log(exp(-m) + exp(z - m)) with m = max(z, 0). The result's derivative
// with respect to m is 0, so the subgradient clamp picks at z = 0 does not matter (PyTorch's formula).
Tensor softplus_stable(const Tensor& z) {
  Tensor m = clamp(z, Scalar(0.0), std::nullopt);
  return add(m, log(add(exp(neg(m)), exp(sub(z, m)))));
}

// w shaped to broadcast along dim `dim` of a tensor of rank `rank`.
Tensor along_dim(const Tensor& w, int64_t dim, int64_t rank) {
  DimVector shape(rank, 1);
  shape[dim] = w.numel();
  return reshape(w, shape);
}

// Class-index targets: int64, and the input's shape without the class dim (input has a batch dim here).
Tensor check_class_targets(const Tensor& x, const Tensor& target) {
  EMBER_CHECK(!is_floating(target.dtype()) && target.dtype() != ScalarType::Bool,
              "expected scalar type Long but found ", type_label(target.dtype()));
  EMBER_CHECK(target.dim() >= 1, "0D or 1D target tensor expected, multi-target not supported");
  EMBER_CHECK_VALUE(x.size(0) == target.size(0), "Expected input batch_size (", x.size(0),
                    ") to match target batch_size (", target.size(0), ").");
  DimVector expected(x.sizes());
  expected.erase(1);
  EMBER_CHECK(std::ranges::equal(expected, target.sizes()), "Expected target size ", shape_str(expected), ", got ",
              shape_str(target.sizes()));
  return target.dtype() == ScalarType::Int64 ? target : to(target, ScalarType::Int64);
}

void check_class_weight(const Tensor& weight, int64_t classes) {
  if (!weight.defined()) return;
  EMBER_CHECK(weight.dim() == 1 && weight.numel() == classes, "weight tensor should be defined either for all ",
              classes, " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
}

// IndexError for the first target outside [0, classes) that is not ignored.
void check_target_bounds(const Tensor& target, const Tensor& valid, int64_t classes) {
  if (target.is_meta()) return;  // no values to check (Note [Meta device]); the checks below skip meta likewise
  autograd::NoGradGuard no_grad;
  Tensor bad = logical_and(valid, logical_or(lt(target, 0), ge(target, classes)));
  if (item(any(bad)).to_bool())
    fail<IndexError>("Target ", item(masked_select(target, bad).select(0, 0)).to_int(), " is out of bounds.");
}

// The weight of each target (0 where ignored): the denominator of a weighted mean.
Tensor target_weights(const Tensor& weight, const Tensor& safe_target, const Tensor& valid, ScalarType dtype) {
  if (!weight.defined()) return to(valid, dtype);
  Tensor w = reshape(index_select(weight, 0, reshape(safe_target, {{-1}})), safe_target.sizes());
  return mul(w, valid);
}

// Note [Fused cross entropy]
// cross_entropy over class indices needs, per position, lse = logsumexp over the classes and x at the target: one
// kernel computes both in two passes over x without materialising log_softmax(x). Its node keeps x and lse and
// returns the gradient softmax(x) * (g_nll + g_lse) - onehot(target) * g_nll: with create_graph, written with ember
// ops (so it is differentiable again); otherwise, for rows of classes, in one pass of a kernel where the ops made
// four, each allocating. The LSTM language model's 700 x 10000 logits, loss and gradient at two threads: 11.6 ms
// before, 6.4 ms with this kernel and huge pages (Note [Huge pages]); PyTorch 2.15 11.6 ms.
// Returns (nll, lse); nll is 0 where the target is ignored.
std::pair<Tensor, Tensor> logits_nll(const Tensor& x, const Tensor& target, int64_t ignore_index) {
  const int64_t outer = x.size(0), classes = x.size(1);
  int64_t inner = 1;
  for (int64_t d = 2; d < x.dim(); ++d) inner *= x.size(d);
  Tensor nll = empty(target.sizes(), TensorOptions(x.dtype()).device(x.device()));
  Tensor lse = empty(target.sizes(), TensorOptions(x.dtype()).device(x.device()));
  if (target.numel()) {
    EMBER_CHECK(classes > 0, "cross_entropy(): input of shape ", shape_str(x.sizes()), " has no classes");
    cross_entropy_logits_kernel[x.device()](nll, lse, reshape(contiguous(x), {{outer, classes, inner}}),
                                            contiguous(target), ignore_index);
  }
  if (auto n = autograd::make_node("CrossEntropyBackward0", {&x}, [ignore_index](FormulaNode& n, TensorList& g) {
        const Tensor x = n.saved_tensor(0), target = n.saved_tensor(1), lse = n.saved_tensor(2);
        const Tensor valid = ne(target, ignore_index);
        Tensor gnll = g[0].defined() ? mul(g[0], valid) : Tensor();
        Tensor coef = gnll.defined() && g[1].defined() ? add(gnll, g[1]) : gnll.defined() ? gnll : g[1];
        if (!autograd::is_grad_enabled() && x.dim() == 2 &&
            cross_entropy_logits_backward_kernel.fn[static_cast<int>(x.device().type)]) {
          // one kernel (no create_graph: this gradient needs no graph of its own)
          autograd::NoGradGuard no_grad;
          const Tensor xc = contiguous(x), gx = empty_like(xc);
          cross_entropy_logits_backward_kernel[x.device()](
              gx, xc, contiguous(lse), contiguous(coef), contiguous(target), gnll.defined() ? contiguous(gnll) : gnll);
          return TensorList{gx};
        }
        Tensor gx = mul(exp(sub(x, unsqueeze(lse, 1))), unsqueeze(coef, 1));
        if (gnll.defined()) gx = scatter_add(gx, 1, unsqueeze(where(valid, target, 0), 1), unsqueeze(neg(gnll), 1));
        return TensorList{gx};
      })) {
    n->num_outputs = 2;
    n->save(x);
    n->save(target);
    autograd::set_history(nll, n, 0);
    autograd::set_history(lse, n, 1);
    n->save_output(lse);
  }
  return {nll, lse};
}

// log clamped to >= -100, as PyTorch, so that a confident wrong answer costs 100, not inf.
Tensor bce_unweighted(const Tensor& x, const Tensor& t) {
  Tensor lx = clamp(log(x), Scalar(-100.0), std::nullopt);
  Tensor l1x = clamp(log(sub(1.0, x)), Scalar(-100.0), std::nullopt);
  return neg(add(mul(t, lx), mul(sub(1.0, t), l1x)));
}

Tensor reduce_weighted(const Tensor& loss, const Tensor& weights, Reduction r) {
  if (r == Reduction::Mean) return div(sum(loss), sum(weights));
  return apply_reduction(loss, r);
}

// The elementwise losses of two tensors that broadcast (PyTorch warns about the broadcasting in Python).
void check_floating_operands(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK_TYPE(is_floating(input.dtype()) || is_floating(target.dtype()), op,
                   "(): expected floating point input or target, got ", input.dtype(), " and ", target.dtype());
}

Tensor checked_diff(const Tensor& input, const Tensor& target, const char* op) {
  check_floating_operands(input, target, op);
  return sub(input, target);
}

}  // namespace

Reduction reduction_from(std::string_view s) {
  if (s == "mean") return Reduction::Mean;
  if (s == "sum") return Reduction::Sum;
  if (s == "none") return Reduction::None;
  fail<ValueError>(s, " is not a valid value for reduction");
}

Tensor apply_reduction(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::Mean: return mean(loss);
    case Reduction::Sum: return sum(loss);
    default: return loss;
  }
}

namespace {
// PyTorch's Reduction enum values (the reduction argument of the aten loss ops).
int64_t reduction_code(Reduction r) { return r == Reduction::None ? 0 : r == Reduction::Mean ? 1 : 2; }
}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     Reduction reduction, double label_smoothing) {
  EMBER_AUTOCAST(autocast::kFp32, cross_entropy, input, target, weight, ignore_index, reduction, label_smoothing);
  check_same_device("cross_entropy", {&input, &target, &weight});
  EMBER_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
              "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  EMBER_CHECK_VALUE(input.dim() >= 1, "Expected 1 or more dimensions (got ", input.dim(), ")");
  EMBER_CHECK_TYPE(is_floating(input.dtype()), "cross_entropy(): expected a floating point input, got ", input.dtype());
  const int64_t cdim = input.dim() == 1 ? 0 : 1;
  const int64_t classes = input.size(cdim);
  check_class_weight(weight, classes);

  if (std::ranges::equal(input.sizes(), target.sizes())) {  // class probabilities
    EMBER_CHECK(is_floating(target.dtype()), "Expected floating point type for target with class probabilities, got ",
                type_label(target.dtype()));
    EMBER_CHECK(ignore_index < 0, "ignore_index is not supported for floating point target");
    Tensor t = label_smoothing > 0 ? add(mul(target, 1.0 - label_smoothing), label_smoothing / classes) : target;
    Tensor prod = mul(log_softmax_of(input, cdim), t);
    if (weight.defined()) prod = mul(prod, along_dim(weight, cdim, input.dim()));
    Tensor per = neg(sum(prod, {{cdim}}));
    const double positions = static_cast<double>(input.numel() / std::max<int64_t>(classes, 1));
    if (reduction == Reduction::Mean) return div(sum(per), positions);
    return apply_reduction(per, reduction);
  }

  // Offered as aten.cross_entropy_loss, which a mode sees as PyTorch's parts (_log_softmax, nll_loss_forward), for
  // the batch of class indices with no label smoothing; an [N, C, H, W] input's parts are _log_softmax and
  // nll_loss2d_forward (Note [Python dispatch]).
  if (dispatch::enabled() && label_smoothing == 0.0 && target.dim() + 1 == input.dim() &&
      (input.dim() == 2 || input.dim() == 4)) [[unlikely]] {
    if (auto r = dispatch::call(
            "aten.cross_entropy_loss.default",
            dispatch::values(input, target, weight, reduction_code(reduction), ignore_index, label_smoothing)))
      return dispatch::result<Tensor>(std::move(*r));
  }

  const bool unbatched = input.dim() == 1;
  EMBER_CHECK(!unbatched || target.dim() == 0, "cross_entropy(): a 1-d input of ", classes,
              " classes expects a 0-d target, got shape ", shape_str(target.sizes()));
  const Tensor x = unbatched ? unsqueeze(input, 0) : input;
  const Tensor t = check_class_targets(x, unbatched ? unsqueeze(target, 0) : target);
  const bool narrow = x.dtype() == ScalarType::Float16 || x.dtype() == ScalarType::BFloat16;
  auto [nll, lse] = logits_nll(narrow ? to(x, ScalarType::Float32) : x, t, ignore_index);
  const Tensor valid = ne(t, ignore_index);
  const Tensor safe_t = where(valid, t, 0);
  const Tensor wt = target_weights(weight, safe_t, valid, nll.dtype());
  Tensor per = weight.defined() ? mul(nll, wt) : nll;
  if (label_smoothing > 0) {
    // -sum_c w_c log_softmax(x)_c = W * lse - sum_c w_c x_c, zero where the target is ignored.
    const Tensor xs = narrow ? to(x, ScalarType::Float32) : x;
    Tensor wx = weight.defined() ? sum(mul(xs, along_dim(weight, 1, x.dim())), {{1}}) : sum(xs, {{1}});
    Tensor total = weight.defined() ? sum(weight) : full({}, static_cast<double>(classes), nll.dtype());
    Tensor smooth = where(valid, sub(mul(lse, total), wx), 0.0);
    per = add(mul(per, 1.0 - label_smoothing), mul(smooth, label_smoothing / classes));
  }
  Tensor r = reduction == Reduction::None ? (unbatched ? squeeze(per, 0) : per) : reduce_weighted(per, wt, reduction);
  return narrow ? to(r, input.dtype()) : r;
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, nll_loss, input, target, weight, ignore_index, reduction);
  check_same_device("nll_loss", {&input, &target, &weight});
  EMBER_CHECK_VALUE(input.dim() >= 1, "Expected 1 or more dimensions (got ", input.dim(), ")");
  const bool unbatched = input.dim() == 1;
  EMBER_CHECK(!unbatched || target.dim() == 0, "nll_loss(): a 1-d input of ", input.size(0),
              " classes expects a 0-d target, got shape ", shape_str(target.sizes()));
  const Tensor x = unbatched ? unsqueeze(input, 0) : input;
  const Tensor t = check_class_targets(x, unbatched ? unsqueeze(target, 0) : target);
  const int64_t classes = x.size(1);
  check_class_weight(weight, classes);
  const Tensor valid = ne(t, ignore_index);
  check_target_bounds(t, valid, classes);
  const Tensor safe_t = where(valid, t, 0);
  const Tensor wt = target_weights(weight, safe_t, valid, x.dtype());
  Tensor picked = classes ? squeeze(gather(x, 1, unsqueeze(safe_t, 1)), 1) : zeros(t.sizes(), x.dtype());
  Tensor per = neg(mul(picked, wt));
  if (reduction == Reduction::None) return unbatched ? squeeze(per, 0) : per;
  return reduce_weighted(per, wt, reduction);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, mse_loss, input, target, reduction);
  check_same_device("mse_loss", {&input, &target});
  EMBER_PY_DISPATCH(Tensor, "aten.mse_loss.default", input, target, reduction_code(reduction));
  return apply_reduction(square(checked_diff(input, target, "mse_loss")), reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, l1_loss, input, target, reduction);
  check_same_device("l1_loss", {&input, &target});
  return apply_reduction(abs(checked_diff(input, target, "l1_loss")), reduction);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  EMBER_AUTOCAST(autocast::kFp32, smooth_l1_loss, input, target, reduction, beta);
  check_same_device("smooth_l1_loss", {&input, &target});
  EMBER_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  EMBER_PY_DISPATCH(Tensor, "aten.smooth_l1_loss.default", input, target, reduction_code(reduction), beta);
  if (beta == 0) return l1_loss(input, target, reduction);
  check_floating_operands(input, target, "smooth_l1_loss");
  return apply_reduction(binary_op(BinaryOp::SmoothL1, input, target, {}, beta), reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  EMBER_AUTOCAST(autocast::kFp32, huber_loss, input, target, reduction, delta);
  check_same_device("huber_loss", {&input, &target});
  EMBER_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  EMBER_PY_DISPATCH(Tensor, "aten.huber_loss.default", input, target, reduction_code(reduction), delta);
  check_floating_operands(input, target, "huber_loss");
  return apply_reduction(binary_op(BinaryOp::Huber, input, target, {}, delta), reduction);
}

// Float32 on the CPU; refused under CUDA autocast, where it is unsafe in float16 (Note [Autocast]).
constexpr autocast::OpPolicy kBinaryCrossEntropyPolicy{autocast::Policy::Fp32, autocast::Policy::Banned,
                                                       "torch.nn.functional.binary_cross_entropy"};

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction) {
  EMBER_AUTOCAST(kBinaryCrossEntropyPolicy, binary_cross_entropy, input, target, weight, reduction);
  check_same_device("binary_cross_entropy", {&input, &target, &weight});
  EMBER_CHECK_VALUE(std::ranges::equal(input.sizes(), target.sizes()), "Using a target size (",
                    size_repr(target.sizes()), ") that is different to the input size (", size_repr(input.sizes()),
                    ") is deprecated. Please ensure they have the same size.");
  EMBER_CHECK_TYPE(is_floating(input.dtype()), "binary_cross_entropy(): expected a floating point input, got ",
                   input.dtype());
  EMBER_PY_DISPATCH(Tensor, "aten.binary_cross_entropy.default", input, target, weight, reduction_code(reduction));
  Tensor per;
  {
    autograd::NoGradGuard no_grad;
    EMBER_CHECK(input.is_meta() || item(all(logical_and(ge(input, 0), le(input, 1)))).to_bool(),
                "all elements of input should be between 0 and 1");
    Tensor base = bce_unweighted(input, target);
    per = weight.defined() ? mul(base, weight) : base;
  }
  // PyTorch's formulas: finite where the input is exactly 0 or 1.
  if (auto n = autograd::make_node(
          "BinaryCrossEntropyBackward0", {&input, &target, &weight}, [](FormulaNode& n, TensorList& g) {
            const Tensor x = n.saved_tensor(0), t = n.saved_tensor(1), w = n.saved_tensor(2);
            Tensor gw = w.defined() ? mul(g[0], w) : g[0];
            TensorList r(3);
            if (n.needs(0)) r[0] = div(mul(gw, sub(x, t)), clamp(mul(sub(1.0, x), x), Scalar(1e-12), std::nullopt));
            if (n.needs(1)) r[1] = mul(gw, sub(log(sub(1.0, x)), log(x)));
            if (n.needs(2)) r[2] = mul(g[0], bce_unweighted(x, t));
            return r;
          })) {
    n->save(input);
    n->save(target);
    n->save(weight);
    autograd::set_history(per, n);
  }
  return apply_reduction(per, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        Reduction reduction, const Tensor& pos_weight) {
  EMBER_AUTOCAST(autocast::kFp32, binary_cross_entropy_with_logits, input, target, weight, reduction, pos_weight);
  check_same_device("binary_cross_entropy_with_logits", {&input, &target, &weight, &pos_weight});
  EMBER_CHECK_VALUE(std::ranges::equal(input.sizes(), target.sizes()), "Target size (", size_repr(target.sizes()),
                    ") must be the same as input size (", size_repr(input.sizes()), ")");
  EMBER_PY_DISPATCH(Tensor, "aten.binary_cross_entropy_with_logits.default", input, target, weight, pos_weight,
                    reduction_code(reduction));
  // PyTorch's derivatives (binary_cross_entropy_with_logits_backward and its target's), recorded as one node over the
  // elementwise loss: with c = 1 + (pos_weight - 1) t, d/dx = c sigmoid(x) - pos_weight t and d/dt = -x - (pos_weight
  // - 1) log_sigmoid(x), times weight. A weight or pos_weight that requires grad takes the composition's gradients.
  const Tensor* in[] = {&input, &target};
  const Tensor* extra[] = {&weight, &pos_weight};
  const bool fused = autograd::needs_grad(in) && !autograd::needs_grad(extra);
  auto n = fused
               ? autograd::make_node(
                     "BinaryCrossEntropyWithLogitsBackward0", in,
                     [w = weight, pw = pos_weight](autograd::FormulaNode& n, autograd::TensorList& g) {
                       const Tensor x = n.saved_tensor(0), t = n.saved_tensor(1);
                       TensorList r(2);
                       if (n.needs(0)) {
                         const Tensor s = sigmoid(x);
                         Tensor d = pw.defined() ? sub(mul(add(mul(sub(pw, 1.0), t), 1.0), s), mul(pw, t)) : sub(s, t);
                         r[0] = mul(g[0], w.defined() ? mul(d, w) : d);
                       }
                       if (n.needs(1)) {
                         Tensor d = pw.defined() ? sub(neg(x), mul(sub(pw, 1.0), logsigmoid(x))) : neg(x);
                         r[1] = mul(g[0], w.defined() ? mul(d, w) : d);
                       }
                       return r;
                     })
               : nullptr;
  Tensor per = autograd::untracked(n != nullptr, [&] {
    Tensor sp = softplus_stable(neg(input));  // -log(sigmoid(x))
    if (pos_weight.defined()) sp = mul(sp, add(mul(sub(pos_weight, 1.0), target), 1.0));
    Tensor p = add(mul(sub(1.0, target), input), sp);
    return weight.defined() ? mul(p, weight) : p;
  });
  if (n) {
    n->save(input);
    n->save(target);
    autograd::set_history(per, n);
  }
  return apply_reduction(per, reduction);
}

Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction, bool log_target, bool batchmean) {
  EMBER_AUTOCAST(autocast::kFp32, kl_div, input, target, reduction, log_target, batchmean);
  check_same_device("kl_div", {&input, &target});
  Tensor per;
  if (log_target) {
    per = mul(exp(target), sub(target, input));
  } else {  // xlogy(t, t) - t * x: 0 where t == 0
    per = sub(mul(target, log(where(eq(target, 0), 1.0, target))), mul(target, input));
  }
  if (batchmean) {
    Tensor s = sum(per);
    return input.dim() ? div(s, static_cast<double>(input.size(0))) : s;
  }
  return apply_reduction(per, reduction);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, poisson_nll_loss, input, target, log_input, full, eps, reduction);
  check_same_device("poisson_nll_loss", {&input, &target});
  Tensor per = log_input ? sub(exp(input), mul(target, input)) : sub(input, mul(target, log(add(input, eps))));
  if (full) {  // Stirling's approximation of log(target!), where target > 1
    Tensor big = gt(target, 1);
    Tensor t = where(big, target, 2.0);
    Tensor stirling = add(sub(mul(t, log(t)), t), mul(log(mul(t, 2 * std::numbers::pi)), 0.5));
    per = add(per, where(big, stirling, 0.0));
  }
  return apply_reduction(per, reduction);
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var_in, bool full, double eps,
                         Reduction reduction) {
  check_same_device("gaussian_nll_loss", {&input, &target, &var_in});
  Tensor var = var_in;
  if (!std::ranges::equal(var.sizes(), input.sizes())) {
    const IntArrayRef is = input.sizes(), vs = var.sizes();
    const IntArrayRef leading = input.dim() >= 1 ? IntArrayRef(is.first(is.size() - 1)) : is;
    const bool one_short = input.dim() >= 1 && std::ranges::equal(leading, vs);
    const bool last_one = input.dim() >= 1 && var.dim() == input.dim() && vs.back() == 1 &&
                          std::ranges::equal(leading, vs.first(vs.size() - 1));
    EMBER_CHECK_VALUE(one_short || last_one, "var is of incorrect size");
    if (one_short) var = unsqueeze(var, -1);
  }
  {
    autograd::NoGradGuard no_grad;
    EMBER_CHECK_VALUE(var.is_meta() || !item(any(lt(var, 0))).to_bool(), "var has negative entry/entries");
  }
  // Clamped to eps without changing the gradient (PyTorch clamps a clone under no_grad).
  Tensor shift;
  {
    autograd::NoGradGuard no_grad;
    shift = sub(clamp(var, Scalar(eps), std::nullopt), var);
  }
  var = add(var, shift);
  Tensor per = mul(add(log(var), div(square(sub(input, target)), var)), 0.5);
  if (full) per = add(per, 0.5 * std::log(2 * std::numbers::pi));
  return apply_reduction(per, reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, cosine_embedding_loss, input1, input2, target, margin, reduction);
  check_same_device("cosine_embedding_loss", {&input1, &input2, &target});
  const int64_t td = target.dim();
  EMBER_CHECK(td <= 1, "0D or 1D target tensor expected, multi-target not supported");
  if (td == 1)
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2,
                "1D target tensor expects 2D input tensors, but found inputs "
                "with sizes ",
                shape_str(input1.sizes()), " and ", shape_str(input2.sizes()), ".");
  else
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1,
                "0D target tensor expects 1D input tensors, but found inputs "
                "with sizes ",
                shape_str(input1.sizes()), " and ", shape_str(input2.sizes()), ".");
  constexpr double kEps = 1e-12;
  Tensor prod = sum(mul(input1, input2), {{td}});
  Tensor m1 = add(sum(square(input1), {{td}}), kEps), m2 = add(sum(square(input2), {{td}}), kEps);
  Tensor cos = div(prod, sqrt(mul(m1, m2)));
  Tensor pos = where(eq(target, 1), sub(1.0, cos), 0.0);
  Tensor negative = where(eq(target, -1), clamp(sub(cos, margin), Scalar(0.0), std::nullopt), 0.0);
  return apply_reduction(add(pos, negative), reduction);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, margin_ranking_loss, input1, input2, target, margin, reduction);
  check_same_device("margin_ranking_loss", {&input1, &input2, &target});
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
              "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: ",
              size_repr(input1.sizes()), ", input2: ", size_repr(input2.sizes()),
              ", target: ", size_repr(target.sizes()), " ");
  Tensor per = clamp(add(mul(neg(target), sub(input1, input2)), margin), Scalar(0.0), std::nullopt);
  return apply_reduction(per, reduction);
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFn& distance, double margin, bool swap, Reduction reduction) {
  check_same_device("triplet_margin_with_distance_loss", {&anchor, &positive, &negative});
  const int64_t ad = anchor.dim(), pd = positive.dim(), nd = negative.dim();
  EMBER_CHECK(ad == pd && pd == nd,
              "The anchor, positive, and negative tensors are expected to have the same number "
              "of dimensions, but got: anchor ",
              ad, "D, positive ", pd, "D, and negative ", nd, "D inputs");
  auto dist = [&](const Tensor& a, const Tensor& b) { return distance ? distance(a, b) : pairwise_distance(a, b); };
  Tensor d_pos = dist(anchor, positive);
  Tensor d_neg = dist(anchor, negative);
  if (swap) d_neg = minimum(d_neg, dist(positive, negative));
  return apply_reduction(clamp(add(sub(d_pos, d_neg), margin), Scalar(0.0), std::nullopt), reduction);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, triplet_margin_loss, anchor, positive, negative, margin, p, eps, swap, reduction);
  check_same_device("triplet_margin_loss", {&anchor, &positive, &negative});
  return triplet_margin_with_distance_loss(
      anchor, positive, negative,
      [p, eps](const Tensor& a, const Tensor& b) { return pairwise_distance(a, b, p, eps); }, margin, swap, reduction);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, hinge_embedding_loss, input, target, margin, reduction);
  check_same_device("hinge_embedding_loss", {&input, &target});
  Tensor margin_part = where(ne(target, 1), clamp(sub(margin, input), Scalar(0.0), std::nullopt), 0.0);
  Tensor self_part = where(ne(target, -1), input, 0.0);
  return apply_reduction(add(margin_part, self_part), reduction);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, soft_margin_loss, input, target, reduction);
  check_same_device("soft_margin_loss", {&input, &target});
  return apply_reduction(softplus_stable(neg(mul(input, target))), reduction);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   Reduction reduction) {
  check_same_device("multilabel_soft_margin_loss", {&input, &target, &weight});
  EMBER_CHECK(input.dim() >= 1, "multilabel_soft_margin_loss(): expected an input with a class dim, got shape ",
              shape_str(input.sizes()));
  // -(t log sigmoid(x) + (1 - t) log sigmoid(-x)) = t softplus(-x) + (1 - t) softplus(x)
  Tensor per = add(mul(target, softplus_stable(neg(input))), mul(sub(1.0, target), softplus_stable(input)));
  if (weight.defined()) per = mul(per, weight);
  const int64_t cdim = input.dim() - 1;
  per = div(sum(per, {{cdim}}), static_cast<double>(input.size(cdim)));
  return apply_reduction(per, reduction);
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target_in, Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, multilabel_margin_loss, input, target_in, reduction);
  check_same_device("multilabel_margin_loss", {&input, &target_in});
  EMBER_CHECK(input.dim() >= 1 && input.dim() <= 2 && std::ranges::equal(input.sizes(), target_in.sizes()),
              "inconsistent target size: ", shape_str(target_in.sizes()),
              " for input of size: ", shape_str(input.sizes()));
  EMBER_CHECK(!is_floating(target_in.dtype()), "expected scalar type Long but found ", type_label(target_in.dtype()));
  const bool unbatched = input.dim() == 1;
  const Tensor x = unbatched ? unsqueeze(input, 0) : input;
  const Tensor t = to(unbatched ? unsqueeze(target_in, 0) : target_in, ScalarType::Int64);
  const int64_t classes = x.size(1);
  // A sample's targets are the entries before its first -1.
  const Tensor valid = cumprod(ne(t, -1), 1);
  {
    autograd::NoGradGuard no_grad;
    EMBER_CHECK(t.is_meta() || !item(any(logical_and(ne(valid, 0), logical_or(lt(t, 0), ge(t, classes))))).to_bool(),
                "argument #2 'target' is out of range");
  }
  const Tensor safe = where(ne(valid, 0), t, 0);
  const Tensor is_target = gt(scatter_add(zeros_like(t), 1, safe, valid), 0);
  // hinge(1 - x[target j] + x[i]) over target j (repeats count again) and non-target i, per sample / C
  Tensor terms = clamp(add(sub(1.0, unsqueeze(gather(x, 1, safe), 2)), unsqueeze(x, 1)), Scalar(0.0), std::nullopt);
  Tensor mask = logical_and(unsqueeze(ne(valid, 0), 2), unsqueeze(logical_not(is_target), 1));
  Tensor per = div(sum(mul(terms, mask), {{1, 2}}), static_cast<double>(classes));
  if (unbatched && reduction == Reduction::None) per = squeeze(per, 0);
  return apply_reduction(per, reduction);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target_in, int64_t p, double margin, const Tensor& weight,
                         Reduction reduction) {
  EMBER_AUTOCAST(autocast::kFp32, multi_margin_loss, input, target_in, p, margin, weight, reduction);
  check_same_device("multi_margin_loss", {&input, &target_in, &weight});
  EMBER_CHECK(p == 1 || p == 2, "only p == 1 and p == 2 supported");
  EMBER_CHECK(input.dim() >= 1 && input.dim() <= 2, "multi_margin_loss(): expected a 1-d or 2-d input, got shape ",
              shape_str(input.sizes()));
  const Tensor x = input.dim() == 1 ? unsqueeze(input, 0) : input;
  const int64_t classes = x.size(1);
  EMBER_CHECK(!is_floating(target_in.dtype()), "expected scalar type Long but found ", type_label(target_in.dtype()));
  Tensor target = reshape(to(target_in, ScalarType::Int64), {{-1}});
  EMBER_CHECK(target.numel() == x.size(0), "inconsistent target size, expected ", x.size(0), " but got ",
              shape_str(target_in.sizes()));
  check_class_weight(weight, classes);
  {
    autograd::NoGradGuard no_grad;
    EMBER_CHECK(target.is_meta() || !item(any(logical_or(lt(target, 0), ge(target, classes)))).to_bool(),
                "target out of range");
  }
  Tensor t = unsqueeze(target, 1);
  Tensor z = clamp(add(sub(x, gather(x, 1, t)), margin), Scalar(0.0), std::nullopt);
  if (p == 2) z = square(z);
  if (weight.defined()) z = mul(z, unsqueeze(index_select(weight, 0, target), 1));
  // The target's own class does not count.
  Tensor not_target = ne(unsqueeze(arange(classes, TensorOptions(ScalarType::Int64).device(x.device())), 0), t);
  Tensor per = div(sum(mul(z, not_target), {{1}}), static_cast<double>(classes));
  if (input.dim() == 1 && reduction == Reduction::None) per = squeeze(per, 0);
  return apply_reduction(per, reduction);
}

namespace {

// Lengths given as a tensor of n values, on the host.
std::vector<int64_t> lengths_of(const Tensor& t, int64_t n, const char* what) {
  EMBER_CHECK(!is_floating(t.dtype()), "ctc_loss(): ", what, " must be integers, got ", t.dtype());
  EMBER_CHECK(t.numel() == n, "ctc_loss(): ", what, " must have one value per sample (", n, "), got shape ",
              shape_str(t.sizes()));
  Tensor h = contiguous(to(to(reshape(t, {{-1}}), Device(kCPU)), ScalarType::Int64));
  const int64_t* p = h.data<int64_t>();
  return std::vector<int64_t>(p, p + n);
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets_in, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, Reduction reduction, bool zero_infinity) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, ctc_loss, log_probs, targets_in, input_lengths, target_lengths, blank, reduction,
                 zero_infinity);
  EMBER_CHECK(log_probs.dim() == 3 || log_probs.dim() == 2,
              "ctc_loss(): expected log_probs of shape [T, N, C] or [T, C], got ", shape_str(log_probs.sizes()));
  EMBER_CHECK_TYPE(is_floating(log_probs.dtype()), "ctc_loss(): expected floating point log_probs, got ",
                   log_probs.dtype());
  EMBER_CHECK(!is_floating(targets_in.dtype()) && targets_in.dtype() != ScalarType::Bool,
              "ctc_loss(): targets must be integers, got ", targets_in.dtype());
  const bool unbatched = log_probs.dim() == 2;
  const bool narrow = log_probs.dtype() == ScalarType::Float16 || log_probs.dtype() == ScalarType::BFloat16;
  Tensor lp = unbatched ? unsqueeze(log_probs, 1) : log_probs;
  if (narrow) lp = to(lp, ScalarType::Float32);
  const int64_t steps = lp.size(0), batch = lp.size(1), classes = lp.size(2);
  EMBER_CHECK(blank >= 0 && blank < classes, "blank must be in label range");
  CtcArgs a;
  a.blank = blank;
  a.input_lengths = lengths_of(input_lengths, batch, "input_lengths");
  a.target_lengths = lengths_of(target_lengths, batch, "target_lengths");
  Tensor targets = contiguous(to(to(targets_in, Device(kCPU)), ScalarType::Int64));
  const bool padded = unbatched ? true : targets.dim() == 2;
  if (padded) {
    const Tensor t2 = unbatched ? reshape(targets, {{1, -1}}) : targets;
    EMBER_CHECK(t2.dim() == 2 && t2.size(0) == batch, "ctc_loss(): padded targets must be [N, S] with N = ", batch,
                ", got shape ", shape_str(targets.sizes()));
    a.max_target_length = t2.size(1);
    for (int64_t n = 0; n < batch; ++n) a.offsets.push_back(n * t2.size(1));
  } else {
    EMBER_CHECK(targets.dim() == 1, "ctc_loss(): targets must be [N, S] (padded) or 1-d (concatenated), got shape ",
                shape_str(targets.sizes()));
    int64_t off = 0;
    for (int64_t n = 0; n < batch; ++n) {
      a.offsets.push_back(off);
      off += std::max<int64_t>(a.target_lengths[n], 0);
      a.max_target_length = std::max(a.max_target_length, a.target_lengths[n]);
    }
    EMBER_CHECK(off <= targets.numel(), "ctc_loss(): target_lengths sum to ", off, " but targets has only ",
                targets.numel(), " labels");
  }
  const int64_t* labels = targets.data<int64_t>();
  for (int64_t n = 0; n < batch; ++n) {
    const int64_t il = a.input_lengths[n], tl = a.target_lengths[n];
    EMBER_CHECK(il >= 0 && il <= steps, "Expected input_lengths to have value at most ", steps, ", but got value ", il,
                " (while checking arguments for ctc_loss)");
    EMBER_CHECK(tl >= 0, "ctc_loss(): target_lengths must be non-negative, got ", tl);
    if (padded)
      EMBER_CHECK(tl <= a.max_target_length, "Expected tensor to have size at least ", tl,
                  " at dimension 1, but got size ", a.max_target_length,
                  " for argument #2 'targets' (while checking arguments for ctc_loss)");
    for (int64_t i = 0; i < tl; ++i) {
      const int64_t c = labels[a.offsets[n] + i];
      EMBER_CHECK(c >= 0 && c < classes, "ctc_loss(): target label ", c, " of sample ", n, " is out of range for ",
                  classes, " classes");
    }
  }
  const auto opts = TensorOptions(lp.dtype()).device(lp.device());
  Tensor nll = empty({{batch}}, opts);
  Tensor alpha = empty({{batch, steps, 2 * a.max_target_length + 1}}, opts);
  const Tensor lpc = contiguous(lp);
  targets = to(targets, lp.device());
  ctc_loss_forward_kernel[lp.device()](nll, alpha, lpc, targets, a);
  if (auto n = autograd::make_node("CtcLossBackward0", {&lp}, [a, zero_infinity](FormulaNode& n, TensorList& g) {
        const Tensor lp = n.saved_tensor(0), nll = n.saved_tensor(3);
        Tensor grad = empty(lp.sizes(), TensorOptions(lp.dtype()).device(lp.device()));
        ctc_loss_backward_kernel[lp.device()](grad, contiguous(lp), n.saved_tensor(1), nll, n.saved_tensor(2), a,
                                              zero_infinity);
        // The beta recursion is not written with ember ops: its own gradient is not available.
        const Tensor outs[] = {grad};
        const Tensor* ins[] = {&lp};
        autograd::record_not_implemented("ctc_loss_backward", ins, outs);
        return TensorList{mul(outs[0], reshape(g[0], {{1, -1, 1}}))};
      })) {
    n->save(lpc);
    n->save(targets);
    n->save(alpha);
    autograd::set_history(nll, n);
    n->save_output(nll);
  }
  if (zero_infinity) nll = where(isinf(nll), 0.0, nll);
  if (narrow) nll = to(nll, log_probs.dtype());
  switch (reduction) {
    case Reduction::Mean: {
      Tensor tl = from_blob_copy(a.target_lengths.data(), ScalarType::Int64, {{batch}},
                                 TensorOptions(nll.dtype()).device(nll.device()));
      return mean(div(nll, clamp(tl, Scalar(1), std::nullopt)));
    }
    case Reduction::Sum: return sum(nll);
    default: return unbatched ? squeeze(nll, 0) : nll;
  }
}

}  // namespace ember
