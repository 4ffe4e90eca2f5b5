#include "ember/nn/functional/distance.h"

#include <vector>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
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
  // [*, P, 1, M] - [*, 1, R, M]: the norm's formula gives 0 (not NaN) where two rows coincide.
  return norm(sub(unsqueeze(x1, -2), unsqueeze(x2, -3)), p, {{-1}}, false);
}

Tensor pdist(const Tensor& x, double p) {
  EMBER_AUTOCAST(autocast::kFp32Cuda, pdist, x, p);
  EMBER_CHECK(x.dim() == 2, "pdist only supports 2D tensors, got: ", x.dim(), "D");
  EMBER_CHECK(is_floating(x.dtype()), "pdist only supports floating-point dtypes");
  check_p(p, "pdist");
  const int64_t n = x.size(0);
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      rows.push_back(i);
      cols.push_back(j);
    }
  const int64_t m = static_cast<int64_t>(rows.size());
  const auto opts = TensorOptions(ScalarType::Int64).device(x.device());
  Tensor i = from_blob_copy(rows.data(), ScalarType::Int64, {{m}}, opts);
  Tensor j = from_blob_copy(cols.data(), ScalarType::Int64, {{m}}, opts);
  return norm(sub(index_select(x, 0, i), index_select(x, 0, j)), p, {{-1}}, false);
}

}  // namespace ember
