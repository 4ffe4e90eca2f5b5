#include "ember/autograd/detail/reduce_grad.h"

#include <cmath>
#include <limits>

#include "ember/ops.h"

namespace ember::autograd {

namespace {

int64_t reduced_count(const Tensor& x, IntArrayRef keep) {
  int64_t n = 1;
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i] == 1) n *= x.size(static_cast<int64_t>(i));
  return n;
}

// The most negative finite value of a floating dtype: a log of zero that stays finite when something is subtracted.
double lowest(ScalarType t) {
  switch (t) {
    case ScalarType::Float64: return std::numeric_limits<double>::lowest();
    case ScalarType::Float16: return -65504.0;
    case ScalarType::BFloat16: return -3.3895313892515355e38;
    default: return std::numeric_limits<float>::lowest();
  }
}

constexpr int64_t kLast[] = {-1};  // the last dim, as a dims list

Tensor zeros_for(const Tensor& g, IntArrayRef sizes) {
  return zeros(sizes, TensorOptions(g.dtype()).device(g.device()));
}

// prod_{j != k} t_j along the last dim, without dividing (t may hold zeros): the products of the elements before
// and after k, as exclusive cumprods from both ends.
Tensor prod_of_others(const Tensor& t) {
  const int64_t n = t.size(-1);
  if (n <= 1) return ones_like(t);
  DimVector col(t.sizes());
  col.back() = 1;
  const Tensor one = ones(col, TensorOptions(t.dtype()).device(t.device()));
  const Tensor before = cumprod(cat({one, narrow(t, -1, 0, n - 1)}, -1), -1);
  const Tensor after = flip(cumprod(cat({one, flip(narrow(t, -1, 1, n - 1), kLast)}, -1), -1), kLast);
  return mul(before, after);
}

}  // namespace

Tensor restore_reduced(const Tensor& t, IntArrayRef keep) {
  return t.dim() == static_cast<int64_t>(keep.size()) ? t : reshape(t, keep);
}

Tensor sum_backward(const Tensor& g, IntArrayRef keep, IntArrayRef sizes) {
  return expand(restore_reduced(g, keep), sizes);
}

Tensor prod_backward(const Tensor& g_in, const Tensor& x, const Tensor& r_in, IntArrayRef dims, IntArrayRef keep) {
  const Tensor g = restore_reduced(g_in, keep), r = restore_reduced(r_in, keep);
  if (x.dim() == 0) return g;  // the identity
  if (!item(any(eq(x, 0))).to_bool()) return mul(g, div(r, x));
  // With zeros, r / x is undefined: each element's gradient is the product of the others in its slice, computed
  // with the reduced dims moved last and flattened into one (differentiable, so second derivatives are right too).
  DimVector perm, flat;
  SmallVector<bool, 8> reduced(x.dim(), false);
  for (int64_t d : dims) reduced[d] = true;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (!reduced[i]) {
      perm.push_back(i);
      flat.push_back(x.size(i));
    }
  for (int64_t d : dims) perm.push_back(d);
  flat.push_back(-1);
  const Tensor moved = permute(x, perm);
  DimVector inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  return mul(g, permute(reshape(prod_of_others(reshape(moved, flat)), moved.sizes()), inverse));
}

Tensor var_backward(const Tensor& g, const Tensor& x, IntArrayRef dims, double correction, IntArrayRef keep) {
  const double dof = static_cast<double>(reduced_count(x, keep)) - correction;
  const double scale = 2.0 / (dof > 0 ? dof : 0.0);  // inf for no degrees of freedom, as the forward's nan/inf
  return mul(mul(restore_reduced(g, keep), scale), sub(x, mean(x, dims, true)));
}

Tensor norm_backward(const Tensor& g_in, const Tensor& x, const Tensor& r_in, double ord, IntArrayRef dims,
                     IntArrayRef keep) {
  const Tensor g = restore_reduced(g_in, keep);
  auto sign = [](const Tensor& t) { return is_complex(t.dtype()) ? sgn(t) : ember::sign(t); };  // x / |x| for complex
  if (ord == 1) return mul(sign(x), g);
  const Tensor r = restore_reduced(r_in, keep);
  // The gradient at a zero norm is 0 (PyTorch's choice of subgradient), filled in with masked_fill as PyTorch's
  // formula does (so that __torch_dispatch__ sees an op it offers).
  const Tensor at_zero = eq(r, 0);
  if (ord == 2) return mul(g, masked_fill(div(x, r), at_zero, 0.0));
  const Tensor ax = abs(x);
  if (std::isinf(ord)) {  // the max (min) of |x|: split evenly among ties, NaN included
    const Tensor mask = logical_or(eq(ax, r), isnan(ax));
    return mul(sign(x), mul(div(g, sum(mask, dims, true)), mask));
  }
  // d/dx (sum |x|^p)^(1/p) = sign(x) |x|^(p-1) / r^(p-1)
  if (ord < 1) return mul(mul(mul(sign(x), masked_fill(pow(ax, ord - 1), eq(x, 0), 0.0)), g), pow(r, 1 - ord));
  const Tensor scaled = ord < 2 ? mul(sign(x), pow(ax, ord - 1)) : mul(x, pow(ax, ord - 2));
  return mul(scaled, masked_fill(div(g, pow(r, ord - 1)), at_zero, 0.0));
}

Tensor reversed_cumsum(const Tensor& t, int64_t dim) {
  if (t.dim() == 0) return t;
  const IntArrayRef d(&dim, 1);
  Tensor r;
  {
    NoGradGuard no_grad;
    r = flip(cumsum(flip(t, d), dim), d);
  }
  if (auto n = make_node("ReversedCumsumBackward0", {&t},
                         [dim](FormulaNode&, TensorList& g) { return TensorList{cumsum(g[0], dim)}; }))
    set_history(r, n);
  return r;
}

// Note [cumprod with zeros]
// dx_k = sum_{i>=k} g_i prod_{j<=i, j!=k} x_j. Before the first zero z of a slice that is reversed_cumsum(g y)_k / x_k;
// at z it is the same sum with x_z taken as 1, reversed_cumsum(g cumprod(x with x_z = 1))_z; after z every product
// has the factor x_z = 0. That is O(n), but its derivative misses that those zero products depend on x_z. So when
// the formula records (create_graph), it computes every product instead: row k of an n x n matrix holds x with x_k
// taken as 1, and its cumprod along the row gives prod_{j<=i, j!=k} x_j (O(n^2) memory per slice, as PyTorch's
// O(n^2) double-backward formula takes O(n^2) time).
Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& y, int64_t dim) {
  if (x.dim() == 0 || x.size(dim) <= 1) return g;
  const Tensor is_zero = eq(x, 0);
  if (!item(any(is_zero)).to_bool()) return div(reversed_cumsum(mul(g, y), dim), x);
  if (is_grad_enabled()) {
    const Tensor k = arange(x.size(dim), TensorOptions(ScalarType::Int64).device(x.device()));
    const Tensor row = unsqueeze(k, 1), col = unsqueeze(k, 0);
    const Tensor rows = where(eq(row, col), 1.0, unsqueeze(transpose(x, dim, -1), -2));  // [..., k, j]
    const Tensor terms = mul(cumprod(rows, -1), unsqueeze(transpose(g, dim, -1), -2));   // [..., k, i]
    return transpose(sum(where(ge(col, row), terms, 0.0), kLast), dim, -1);
  }
  const Tensor zeros_so_far = cumsum(is_zero, dim);
  const Tensor before = eq(zeros_so_far, 0);
  const Tensor first = logical_and(is_zero, eq(zeros_so_far, 1));
  const Tensor at_first = reversed_cumsum(mul(g, cumprod(where(first, 1.0, x), dim)), dim);
  const Tensor until_first = div(reversed_cumsum(mul(g, y), dim), where(before, x, 1.0));
  return where(before, until_first, where(first, at_first, 0.0));
}

// sum_{i>=k} g_i exp(x_k - y_i), in the log domain with g split by sign so nothing overflows (TensorFlow's formula).
Tensor logcumsumexp_backward(const Tensor& g, const Tensor& x, const Tensor& y, int64_t dim) {
  if (g.dim() == 0 || g.numel() == 0) return g;
  const IntArrayRef d(&dim, 1);
  const double lo = lowest(g.dtype());
  const Tensor log_abs = log(abs(g));
  auto part = [&](const Tensor& log_g) { return exp(add(flip(logcumsumexp(flip(sub(log_g, y), d), dim), d), x)); };
  return sub(part(where(gt(g, 0), log_abs, lo)), part(where(lt(g, 0), log_abs, lo)));
}

void record_value_selecting(const char* name, const Tensor& x, Tensor& values, const Tensor& indices, int64_t dim,
                            bool keepdim) {
  const Tensor* in[] = {&x};
  if (!needs_grad(in)) [[likely]]
    return;
  auto n = make_node(name, in, [dim, keepdim, sizes = DimVector(x.sizes())](FormulaNode& n, TensorList& g) {
    if (sizes.empty()) return TensorList{g[0]};  // a 0-d input: its one element
    const Tensor idx = n.saved_tensor(0);
    Tensor r = zeros_for(g[0], sizes);
    scatter_(r, dim, keepdim ? idx : unsqueeze(idx, dim), keepdim ? g[0] : unsqueeze(g[0], dim));
    return TensorList{r};
  });
  n->save(indices);
  set_history(values, n);
}

void record_evenly_distributed(const char* name, const Tensor& x, Tensor& r, IntArrayRef dims, IntArrayRef keep) {
  const Tensor* in[] = {&x};
  if (!needs_grad(in)) [[likely]]
    return;
  auto n = make_node(name, in, [dims = DimVector(dims), keep = DimVector(keep)](FormulaNode& n, TensorList& g) {
    const Tensor x = n.saved_tensor(0), r = restore_reduced(n.saved_tensor(1), keep);
    const Tensor mask = where(isnan(r), isnan(x), eq(x, r));
    return TensorList{mul(div(restore_reduced(g[0], keep), sum(mask, dims, true)), mask)};
  });
  n->save(x);
  set_history(r, n);
  n->save_output(r);
}

}  // namespace ember::autograd
