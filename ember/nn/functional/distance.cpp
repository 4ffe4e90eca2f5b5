#include "ember/nn/functional/distance.h"

#include <cmath>
#include <utility>
#include <vector>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/nn/distance.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/linalg.h"

namespace ember {

namespace {

// t + (max(t, lo) - t) with the correction held constant: clamped values, the unclamped gradient (PyTorch clamps a
// clone of the norms under no_grad in cosine_similarity).
Tensor clamp_min_keep_grad(const Tensor& t, double lo) {
  Tensor shift;
  {
    autograd::NoGradGuard no_grad;
    shift = sub(clamp(t, Scalar(lo), std::nullopt), t);
  }
  return add(t, shift);
}

// Euclidean distances through |a|^2 - 2 a b^T + |b|^2 (one matrix product instead of a [*, P, R, M] difference),
// recorded with PyTorch's _euclidean_dist_backward (0 where a distance is 0, where sqrt has no derivative).
Tensor euclidean_mm(const Tensor& a, const Tensor& b) {
  Tensor r;
  {
    autograd::NoGradGuard no_grad;
    Tensor an = sum(square(a), {{-1}}, true), bn = sum(square(b), {{-1}}, true);
    Tensor d2 = add(sub(an, mul(matmul(a, transpose(b, -2, -1)), 2.0)), transpose(bn, -2, -1));
    r = sqrt(clamp(d2, Scalar(0.0), std::nullopt));
  }
  if (auto n = autograd::make_node(
          "EuclideanDistBackward0", {&a, &b}, [](autograd::FormulaNode& n, autograd::TensorList& g) {
            const Tensor a = n.saved_tensor(0), b = n.saved_tensor(1), r = n.saved_tensor(2);
            const Tensor zero = eq(r, 0);
            const Tensor ratio = where(zero, 0.0, div(g[0], where(zero, 1.0, r)));
            autograd::TensorList out(2);
            if (n.needs(0)) out[0] = sub(mul(a, sum(ratio, {{-1}}, true)), matmul(ratio, b));
            if (n.needs(1))
              out[1] = sub(mul(b, unsqueeze(sum(ratio, {{-2}}), -1)), matmul(transpose(ratio, -2, -1), a));
            return out;
          })) {
    n->save(a);
    n->save(b);
    autograd::set_history(r, n);
    n->save_output(r);
  }
  return r;
}

void check_p(double p, const char* op) { EMBER_CHECK(p >= 0, op, " only supports non-negative p values"); }

// Note [Distances by kernel]
// cdist's p-norm distances (every p but 2 through the matrix product) and pdist's come from kernels that walk the
// pairs of rows (backend/math/distance.h), where the composition norm(x1[.., :, None] - x2[.., None, :]) held the
// [*, P, R, M] differences: pdist of [256, 32] took 920 us against PyTorch's 100, and cdist with p = 1 of two
// [1000, 128] needed 512 MB. The gradient is composed (pair_grads): it forms the differences, in the backward only.
// float16 and bfloat16 inputs are computed in float32 (PyTorch's CPU kernels refuse them).

// What pair (i, j) gives x1's row i (x2's row j takes its negative): g d||diff||_p / d diff, of shape [.., P, R, M], as
// PyTorch's _cdist_backward: 0 where the distance is 0, sign(diff) for p = 1, the coordinates that reach the distance
// for p = inf, and sign(diff) |diff|^(p-1) / dist^(p-1) otherwise (0 where diff is 0 when p < 1).
Tensor pair_grad(const Tensor& diff, const Tensor& dist, const Tensor& g, double p) {
  const Tensor d = unsqueeze(dist, -1), gd = unsqueeze(g, -1);
  if (p == 0) return zeros_like(diff);
  if (p == 1) return mul(sign(diff), gd);
  if (std::isinf(p)) return mul(mul(sign(diff), eq(abs(diff), d)), gd);
  // (the distance 1 where it is 0: a division by 0 in the unselected branch would make the double backward NaN)
  const Tensor zero = eq(d, 0), safe = where(zero, 1.0, d);
  if (p == 2) return where(zero, 0.0, mul(diff, div(gd, safe)));
  Tensor r = where(zero, 0.0, mul(mul(sign(diff), pow(abs(diff), p - 1)), div(gd, pow(safe, p - 1))));
  return p < 1 ? where(eq(diff, 0), 0.0, r) : r;
}

// The gradients of the distances `dist` [.., P, R] between the rows of x1 [.., P, M] and x2 [.., R, M] given g.
std::pair<Tensor, Tensor> pair_grads(const Tensor& x1, const Tensor& x2, const Tensor& dist, const Tensor& g,
                                     double p) {
  const Tensor c = pair_grad(sub(unsqueeze(x1, -2), unsqueeze(x2, -3)), dist, g, p);
  return {sum(c, {{-2}}), neg(sum(c, {{-3}}))};
}

// The dtype the kernels compute x's distances in.
ScalarType distance_dtype(const Tensor& x) {
  return x.dtype() == ScalarType::Float16 || x.dtype() == ScalarType::BFloat16 ? ScalarType::Float32 : x.dtype();
}

// cdist by the kernel (Note [Distances by kernel]); the batch dims broadcast.
Tensor cdist_by_pairs(const Tensor& x1_in, const Tensor& x2_in, double p) {
  const Tensor x1 = to(x1_in, distance_dtype(x1_in)), x2 = to(x2_in, distance_dtype(x2_in));
  const int64_t rows = x1.size(-2), cols = x2.size(-2), m = x1.size(-1);
  DimVector batch = broadcast_shapes(x1.sizes().first(x1.dim() - 2), x2.sizes().first(x2.dim() - 2), "cdist");
  const int64_t b = checked_numel(batch, "cdist");
  auto flat = [&](const Tensor& t, int64_t r) {
    DimVector full(batch);
    full.push_back(r);
    full.push_back(m);
    return contiguous(reshape(expand(t, full), {{b, r, m}}));
  };
  DimVector out_shape(batch);
  out_shape.push_back(rows);
  out_shape.push_back(cols);
  Tensor out = empty(out_shape, TensorOptions(x1.dtype()).device(x1.device()));
  if (out.numel()) cdist_forward_kernel[x1.device()](view(out, {{b, rows, cols}}), flat(x1, rows), flat(x2, cols), p);
  if (auto n = autograd::make_node(
          "CdistBackward0", {&x1, &x2}, [p](autograd::FormulaNode& n, autograd::TensorList& g) {
            auto [g1, g2] = pair_grads(n.saved_tensor(0), n.saved_tensor(1), n.saved_tensor(2), g[0], p);
            return autograd::TensorList{g1, g2};
          })) {
    n->save(x1);
    n->save(x2);
    autograd::set_history(out, n);
    n->save_output(out);
  }
  return to(out, x1_in.dtype());
}

}  // namespace

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  check_same_device("pairwise_distance", {&x1, &x2});
  Tensor d = add(sub(x1, x2), eps);
  if (d.dim() == 0) return norm(d, p, {}, keepdim);
  return norm(d, p, {{-1}}, keepdim);
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, cosine_similarity, x1, x2, dim, eps);
  check_same_device("cosine_similarity", {&x1, &x2});
  auto b = broadcast_tensors({x1, x2});
  const ScalarType t = promote_types(x1.dtype(), x2.dtype());
  const ScalarType ft = is_floating(t) ? t : default_dtype();
  Tensor a = to(b[0], ft), c = to(b[1], ft);
  dim = wrap_dim(dim, a.dim(), "cosine_similarity");
  Tensor na = clamp_min_keep_grad(linalg_vector_norm(a, 2, {{dim}}, true), eps);
  Tensor nc = clamp_min_keep_grad(linalg_vector_norm(c, 2, {{dim}}, true), eps);
  return sum(mul(div(a, na), div(c, nc)), {{dim}});
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::string_view compute_mode) {
  EMBER_AUTOCAST(autocast::kFp32, cdist, x1, x2, p, compute_mode);
  check_same_device("cdist", {&x1, &x2});
  EMBER_CHECK(is_floating(x1.dtype()), "cdist only supports floating-point dtypes, X1 got: ", type_label(x1.dtype()));
  EMBER_CHECK(is_floating(x2.dtype()), "cdist only supports floating-point dtypes, X2 got: ", type_label(x2.dtype()));
  EMBER_CHECK(x1.dtype() == x2.dtype(), "cdist(): X1 and X2 must have the same dtype, got ", type_label(x1.dtype()),
              " and ", type_label(x2.dtype()));
  check_p(p, "cdist");
  EMBER_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  EMBER_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
              " X2: ", x2.size(-1));
  EMBER_CHECK(compute_mode == "use_mm_for_euclid_dist_if_necessary" || compute_mode == "use_mm_for_euclid_dist" ||
                  compute_mode == "donot_use_mm_for_euclid_dist",
              compute_mode, " is not a valid value for compute_mode");
  const bool mm = p == 2 &&
                  (compute_mode == "use_mm_for_euclid_dist" ||
                   (compute_mode == "use_mm_for_euclid_dist_if_necessary" && (x1.size(-2) > 25 || x2.size(-2) > 25)));
  if (mm) return euclidean_mm(x1, x2);
  return cdist_by_pairs(x1, x2, p);
}

Tensor pdist(const Tensor& x, double p) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, pdist, x, p);
  EMBER_CHECK(x.dim() == 2, "pdist only supports 2D tensors, got: ", x.dim(), "D");
  EMBER_CHECK(is_floating(x.dtype()), "pdist only supports floating-point dtypes");
  check_p(p, "pdist");
  const Tensor a = contiguous(to(x, distance_dtype(x)));
  const int64_t n = a.size(0);
  Tensor out = empty({{n > 1 ? checked_mul(n, n - 1, "pdist", "the number of pairs") / 2 : 0}},
                     TensorOptions(a.dtype()).device(a.device()));
  if (out.numel()) pdist_forward_kernel[a.device()](out, a, p);
  if (auto node = autograd::make_node(
          "PdistBackward0", {&a}, [p, n](autograd::FormulaNode& node, autograd::TensorList& g) {
            // the pairs' gradients and distances spread over the upper triangle of [N, N], whose zeros elsewhere give
            // no contribution (pair_grad gives 0 where the distance is 0)
            const Tensor x = node.saved_tensor(0),
                         iu = triu_indices(n, n, 1, TensorOptions(ScalarType::Int64).device(x.device()));
            const std::vector<Tensor> at{select(iu, 0, 0), select(iu, 0, 1)};
            const TensorOptions o = TensorOptions(x.dtype()).device(x.device());
            const Tensor gm = index_put(zeros({{n, n}}, o), at, g[0]),
                         dm = index_put(zeros({{n, n}}, o), at, node.saved_tensor(1));
            auto [g1, g2] = pair_grads(x, x, dm, gm, p);
            return autograd::TensorList{add(g1, g2)};
          })) {
    node->save(a);
    autograd::set_history(out, node);
    node->save_output(out);
  }
  return to(out, x.dtype());
}

}  // namespace ember
