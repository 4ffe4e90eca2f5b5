// The matrix functions of torch.linalg composed of ember ops (matrix_rank, cond, matrix_exp, tensorinv, tensorsolve,
// householder_product): they get their gradient, CUDA support and batching from the ops they are made of. geqrf and
// ormqr (without a gradient to record) call the LAPACK kernels, LAPACK's on the CPU and cuSOLVER's on CUDA.
#include "ember/ops/matrix_functions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/ops/detail/lapack_util.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;
using namespace linalg_detail;

namespace {

// The polar decomposition's gradient (A = U H, H = V diag(S) V^H): with M = U^H gU - gH H and the Sylvester solve
// Lyap(Y) = V ((V^H Y V) / (S_i + S_j)) V^H (of Omega H + H Omega = Y), gA = U (gH + Lyap(M - M^H)), plus
// (I - U U^H) gU H^-1 for a tall A. Well defined for repeated singular values, unlike the SVD's.
Tensor polar_backward(const Tensor& gU, const Tensor& gH, const Tensor& S, const Tensor& Vh, const Tensor& U,
                      const Tensor& H) {
  if (!gU.defined() && !gH.defined()) return {};
  const Tensor V = mH(Vh);
  auto lyap = [&](const Tensor& Y) {
    return matmul(V, matmul(div(matmul(Vh, matmul(Y, V)), add(unsqueeze(S, -1), unsqueeze(S, -2))), Vh));
  };
  Tensor M;
  if (gU.defined()) M = matmul(mH(U), gU);
  if (gH.defined()) M = M.defined() ? sub(M, matmul(gH, H)) : neg(matmul(gH, H));
  Tensor inner = lyap(sub(M, mH(M)));
  if (gH.defined()) inner = add(inner, gH);
  Tensor gA = matmul(U, inner);
  if (gU.defined() && rows(U) > cols(U)) {
    const Tensor Hinv = matmul(div(V, unsqueeze(S, -2)), Vh);
    const Tensor gUHinv = matmul(gU, Hinv);
    gA = add(gA, sub(gUHinv, matmul(U, matmul(mH(U), gUHinv))));
  }
  return gA;
}

}  // namespace

Tensor linalg_matrix_rank(const Tensor& A, const Tensor& atol, const Tensor& rtol, bool hermitian) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_matrix_rank, A, atol, rtol, hermitian);
  const char* fn = "torch.linalg.matrix_rank";
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor input must have at least 2 dimensions.");
  check_float(A, fn);
  autograd::NoGradGuard no_grad;
  const int64_t m = rows(A), n = cols(A);
  const Tensor S = hermitian ? abs(linalg_eigvalsh(A)) : linalg_svdvals(A);
  const auto opts = like_real(A);
  const ScalarType real = to_real(A.dtype());
  const Tensor at = atol.defined() ? to(atol, A.device(), real) : zeros({}, opts);
  const Tensor def = full({}, eps_of(A.dtype()) * static_cast<double>(std::max(m, n)), opts);
  const Tensor rt = rtol.defined() ? to(rtol, A.device(), real) : atol.defined() ? where(gt(at, 0), 0.0, def) : def;
  if (std::min(m, n) == 0) {
    const DimVector shape = broadcast_shapes(broadcast_shapes(batch_of(A), at.sizes(), fn), rt.sizes(), fn);
    return zeros(shape, like(A, ScalarType::Int64));
  }
  const Tensor tol = maximum(at, mul(rt, amax(S, {{-1}})));
  return sum(gt(S, unsqueeze(tol, -1)), {{-1}}, false, ScalarType::Int64);
}

namespace {

std::string ord_label(double p) {
  if (std::isinf(p)) return p > 0 ? "inf" : "-inf";
  return detail::cat(p);
}

// cond for the norms other than 2: norm(A) norm(A^-1), inf for a singular A (PyTorch's rule).
template <class Ord>
Tensor cond_by_inverse(const Tensor& A, Ord p, const std::string& label) {
  const std::string fn = "linalg.cond(ord=" + label + ")";
  check_float(A, "linalg.cond");
  EMBER_CHECK(rows(A) == cols(A), fn, ": A must be batches of square matrices, but they are ", rows(A), " by ", cols(A),
              " matrices");
  if (A.numel() == 0) return zeros(batch_of(A), like_real(A));
  auto [inv, info] = linalg_inv_ex(A);
  const Tensor singular = unsqueeze(unsqueeze(gt(info, 0), -1), -1);
  const Tensor invm = where(singular, std::numeric_limits<double>::infinity(), inv);
  return mul(linalg_matrix_norm(A, p), linalg_matrix_norm(invm, p));
}

}  // namespace

Tensor linalg_cond(const Tensor& A, std::optional<double> p) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_cond, A, p);
  const char* fn = "linalg.cond";
  if (p) {
    const double a = std::abs(*p);
    EMBER_CHECK(a == 1 || a == 2 || std::isinf(a), fn, " got an invalid norm type: ", ord_label(*p));
  }
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor must have at least 2 dimensions.");
  if (p && std::abs(*p) != 2) return cond_by_inverse(A, *p, ord_label(*p));
  check_float(A, fn);
  if (std::min(rows(A), cols(A)) == 0) return zeros(batch_of(A), like_real(A));
  const Tensor S = linalg_svdvals(A);
  const int64_t k = S.sizes()[S.dim() - 1];
  const Tensor first = select(S, -1, 0), last = select(S, -1, k - 1);
  return p && *p < 0 ? div(last, first) : div(first, last);
}

Tensor linalg_cond(const Tensor& A, std::string_view p) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_cond, A, p);
  const char* fn = "linalg.cond";
  EMBER_CHECK(p == "fro" || p == "nuc", fn, " got an invalid norm type: ", p);
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor must have at least 2 dimensions.");
  if (p == "nuc" && A.numel() > 0) {  // PyTorch's: from the singular values, sum(S) sum(1 / S)
    check_float(A, fn);
    EMBER_CHECK(rows(A) == cols(A), "linalg.cond(ord=nuc): A must be batches of square matrices, but they are ",
                rows(A), " by ", cols(A), " matrices");
    const Tensor S = linalg_svdvals(A);
    return mul(sum(S, {{-1}}), sum(reciprocal(S), {{-1}}));
  }
  return cond_by_inverse(A, p, std::string(p));
}

Tensor linalg_matrix_exp(const Tensor& A) {
  const char* fn = "linalg.matrix_exp";
  EMBER_CHECK_T(NotImplementedError, is_inexact(A.dtype()),
                "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got ", type_label(A.dtype()));
  check_matrix(A, fn, true);
  const int64_t n = rows(A);
  if (A.numel() == 0) return clone(A);
  // Scaling and squaring (Higham 2005): A / 2^s has 1-norm <= theta_13, where the [13/13] Pade approximant is exact
  // to double precision; then R^(2^s). s is chosen per matrix; a batch squares as often as its largest s needs.
  constexpr double theta13 = 5.371920351148152;
  constexpr double b[] = {64764752532480000.,
                          32382376266240000.,
                          7771770303897600.,
                          1187353796428800.,
                          129060195264000.,
                          10559470521600.,
                          670442572800.,
                          33522128640.,
                          1323241920.,
                          40840800.,
                          960960.,
                          16380.,
                          182.,
                          1.};
  Tensor s;
  int64_t smax = 0;
  {
    autograd::NoGradGuard no_grad;
    const Tensor norm1 = amax(sum(abs(A), {{-2}}), {{-1}});
    s = clamp(ceil(div(log(div(norm1, theta13)), std::log(2.0))), 0.0, 1024.0);
    s = where(isfinite(s), s, 0.0);  // NaN input: no squaring, the NaNs carry through
    smax = A.is_meta() ? 0 : static_cast<int64_t>(amax(s).item<double>());
  }
  const Tensor As = mul(A, unsqueeze(unsqueeze(pow(2.0, neg(s)), -1), -1));
  const Tensor I = expand(eye(n, std::nullopt, like(A)), A.sizes());
  const Tensor A2 = matmul(As, As), A4 = matmul(A2, A2), A6 = matmul(A4, A2);
  auto comb = [&](double c6, double c4, double c2, double c0) {
    Tensor r = add(add(mul(A6, c6), mul(A4, c4)), mul(A2, c2));
    return c0 != 0 ? add(r, mul(I, c0)) : r;
  };
  const Tensor U = matmul(As, add(matmul(A6, comb(b[13], b[11], b[9], 0)), comb(b[7], b[5], b[3], b[1])));
  const Tensor V = add(matmul(A6, comb(b[12], b[10], b[8], 0)), comb(b[6], b[4], b[2], b[0]));
  Tensor R = linalg_solve(sub(V, U), add(V, U));
  const bool uniform = A.dim() == 2 || A.is_meta() || [&] {
    autograd::NoGradGuard no_grad;
    return all(eq(s, static_cast<double>(smax))).item<bool>();
  }();
  for (int64_t i = 0; i < smax; ++i) {
    const Tensor R2 = matmul(R, R);
    R = uniform ? R2 : where(unsqueeze(unsqueeze(gt(s, static_cast<double>(i)), -1), -1), R2, R);
  }
  return R;
}

Tensor linalg_tensorinv(const Tensor& A, int64_t ind) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_tensorinv, A, ind);
  const char* fn = "linalg.tensorinv";
  EMBER_CHECK(ind > 0, fn, ": Expected a strictly positive integer for 'ind', but got ", ind);
  EMBER_CHECK(ind <= A.dim(), fn, ": Expected 'ind' to be at most the number of dimensions (", A.dim(), "), but got ",
              ind);
  int64_t lead = 1, rest = 1;
  DimVector shape;
  for (int64_t i = ind; i < A.dim(); ++i) {
    rest *= A.sizes()[i];
    shape.push_back(A.sizes()[i]);
  }
  for (int64_t i = 0; i < ind; ++i) {
    lead *= A.sizes()[i];
    shape.push_back(A.sizes()[i]);
  }
  EMBER_CHECK(lead == rest, fn,
              ": Expected self to satisfy the requirement prod(self.shape[ind:]) == "
              "prod(self.shape[:ind]), but got ",
              rest, " != ", lead);
  return reshape(linalg_inv(reshape(A, {{lead, rest}})), shape);
}

Tensor linalg_tensorsolve(const Tensor& A_in, const Tensor& B, std::optional<DimVector> dims) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_tensorsolve, A_in, B, dims);
  const char* fn = "linalg.tensorsolve";
  Tensor A = A_in;
  if (dims && !dims->empty()) {
    DimVector dest;
    const int64_t nd = static_cast<int64_t>(dims->size());
    for (int64_t i = 0; i < nd; ++i) dest.push_back(A.dim() - nd + i);
    A = movedim(A, *dims, dest);
  }
  EMBER_CHECK(B.dim() <= A.dim(), fn, ": Expected other.ndim (", B.dim(), ") to be at most self.ndim (", A.dim(), ")");
  const DimVector result_shape(A.sizes().subspan(std::min(B.dim(), A.dim())));
  int64_t result_product = 1;
  for (int64_t s : result_shape) result_product *= s;
  EMBER_CHECK(result_product == B.numel(), fn,
              ": Expected self to satisfy the requirement "
              "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got ",
              result_product, " != ", B.numel());
  return reshape(linalg_solve(reshape(A, {{result_product, result_product}}), flatten(B)), result_shape);
}

Tensor linalg_householder_product(const Tensor& A, const Tensor& tau) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_householder_product, A, tau);
  const char* fn = "torch.linalg.householder_product";
  EMBER_CHECK(A.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  EMBER_CHECK(rows(A) >= cols(A), fn, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  EMBER_CHECK(tau.dim() >= 1 && cols(A) >= tau.sizes()[tau.dim() - 1], fn,
              ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  EMBER_CHECK(A.dim() - tau.dim() == 1, fn,
              ": Expected tau to have one dimension less than input, but got "
              "tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", A.dim());
  EMBER_CHECK(same_shape(tau.sizes().first(tau.dim() - 1), batch_of(A)), fn,
              ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
              shape_str(tau.sizes().first(tau.dim() - 1)));
  EMBER_CHECK(tau.dtype() == A.dtype(), fn, ": tau dtype ", type_label(tau.dtype()), " does not match input dtype ",
              type_label(A.dtype()));
  EMBER_CHECK(tau.device() == A.device(), fn, ": Expected input and tau to be on the same device, but found input on ",
              A.device(), " and tau on ", tau.device(), " instead.");
  check_float(A, fn);
  const int64_t m = rows(A), n = cols(A), k = tau.sizes()[tau.dim() - 1];
  // Q = H_1 ... H_k I[:, :n], applied right to left: Q <- Q - tau_i v_i (v_i^T Q); v_i unit lower (composed ops).
  Tensor Q = expand(eye(m, n, like(A)), A.sizes());
  if (k == 0) return contiguous(Q);
  const Tensor V = add(tril(narrow(A, -1, 0, k), -1), eye(m, k, like(A)));
  for (int64_t i = k - 1; i >= 0; --i) {
    const Tensor v = narrow(V, -1, i, 1), t = unsqueeze(narrow(tau, -1, i, 1), -1);
    Q = sub(Q, matmul(mul(v, t), matmul(mH(v), Q)));
  }
  return Q;
}

std::pair<Tensor, Tensor> geqrf(const Tensor& A) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, geqrf, A);
  const char* fn = "torch.geqrf";
  EMBER_CHECK(A.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  check_float(A, fn);
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n);
  Tensor R, tau;
  {  // LAPACK's geqrf on the CPU, cuSOLVER's on CUDA
    autograd::NoGradGuard no_grad;
    R = colmajor_copy(A, A.sizes());
    tau = empty(with(batch_of(A), {k}), like(A));
    if (R.numel() && !A.is_meta()) geqrf_kernel[A.device()](R, tau);
  }
  no_derivative({&A}, {&R, &tau}, "GeqrfBackward0", "geqrf");
  return {R, tau};
}

}  // namespace ember

namespace ember {

namespace {

// op(Q) C or C op(Q) composed of ember ops, one reflector at a time (H_i = I - tau_i v_i v_i^H): differentiable in
// all three inputs (the LAPACK kernel computes the same without a graph).
Tensor ormqr_composed(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose) {
  const int64_t mn = rows(A), k = tau.sizes()[tau.dim() - 1];
  const Tensor V = add(tril(narrow(A, -1, 0, k), -1), eye(mn, k, like(A)));
  Tensor R = C;
  // Q C = H_1 (... (H_k C)); Q^H C = H_k^H (... (H_1^H C)); C Q = ((C H_1) ...) H_k; C Q^H = ((C H_k^H) ...) H_1^H.
  const bool forward = left == transpose;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t i = forward ? j : k - 1 - j;
    const Tensor v = narrow(V, -1, i, 1);
    Tensor t = unsqueeze(narrow(tau, -1, i, 1), -1);
    if (transpose) t = conj(t);
    R = left ? sub(R, matmul(mul(v, t), matmul(mH(v), R))) : sub(R, matmul(mul(matmul(R, v), t), mH(v)));
  }
  return R;
}

}  // namespace

Tensor ormqr(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose) {
  const char* fn = "torch.ormqr";
  EMBER_CHECK(A.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  EMBER_CHECK(C.dim() >= 2, fn, ": other must have at least 2 dimensions.");
  const int64_t side = left ? C.dim() - 2 : C.dim() - 1;
  EMBER_CHECK(C.sizes()[side] == rows(A), fn, ": other.shape[", left ? -2 : -1, "] must be equal to input.shape[-2]");
  EMBER_CHECK(tau.dim() >= 1 && tau.sizes()[tau.dim() - 1] == std::min(C.sizes()[side], cols(A)), fn,
              ": tau.shape[-1] must be equal to min(other.shape[", left ? -2 : -1, "], input.shape[-1])");
  EMBER_CHECK(A.dim() - tau.dim() == 1, fn,
              ": Expected tau to have one dimension less than input, but got tau.ndim equal to ", tau.dim(),
              " and input.ndim is equal to ", A.dim());
  EMBER_CHECK(A.dim() == C.dim(), fn,
              ": Expected other to have the same number of dimensions as input, but got other.ndim equal to ", C.dim(),
              " and input.ndim is equal to ", A.dim());
  EMBER_CHECK(same_shape(tau.sizes().first(tau.dim() - 1), batch_of(A)), fn,
              ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
              shape_str(tau.sizes().first(tau.dim() - 1)));
  EMBER_CHECK(same_shape(batch_of(C), batch_of(A)), fn,
              ": Expected batch dimensions of other to be equal to input.shape[:-2], but got ", shape_str(batch_of(C)));
  EMBER_CHECK(tau.dtype() == A.dtype(), fn, ": Expected input and tau to have the same dtype, but input has dtype",
              type_label(A.dtype()), " and tau has dtype ", type_label(tau.dtype()));
  EMBER_CHECK(C.dtype() == A.dtype(), fn, ": Expected input and other to have the same dtype, but input has dtype",
              type_label(A.dtype()), " and other has dtype ", type_label(C.dtype()));
  check_same_device(fn, {&A, &tau, &C});
  EMBER_CHECK_T(NotImplementedError, is_inexact(A.dtype()), "\"ormqr_cpu\" not implemented for '",
                type_label(A.dtype()), "'");
  check_float(A, fn);
  if (autograd::needs_grad({&A, &tau, &C})) return ormqr_composed(A, tau, C, left, transpose);
  Tensor R = colmajor_copy(C, C.sizes());
  if (R.numel() && !A.is_meta())
    ormqr_kernel[A.device()](colmajor_copy(A, A.sizes()), contiguous(tau), R, left, transpose);
  return R;
}

std::pair<Tensor, Tensor> linalg_polar(const Tensor& A) {
  const char* fn = "linalg.polar";
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor A must have at least 2 dimensions.");
  check_float(A, fn);
  const int64_t m = rows(A), n = cols(A);
  EMBER_CHECK(m >= n, fn, ": input must have at least as many rows as columns, but got ", m, " by ", n, " matrices");
  Tensor U, H;
  Tensor W, S, Vh;
  {
    autograd::NoGradGuard no_grad;
    std::tie(W, S, Vh) = linalg_svd(A, false);
    U = matmul(W, Vh);
    H = matmul(mul(mH(Vh), unsqueeze(S, -2)), Vh);
  }
  if (auto node = autograd::make_node("LinalgPolarBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        if (autograd::is_grad_enabled()) {  // create_graph: the factors again, as functions of A
          auto [W2, S2, Vh2] = linalg_svd(nd.saved_tensor(0), false);
          const Tensor U2 = matmul(W2, Vh2), H2 = matmul(mul(mH(Vh2), unsqueeze(S2, -2)), Vh2);
          return TensorList{polar_backward(g[0], g[1], S2, Vh2, U2, H2)};
        }
        return TensorList{
            polar_backward(g[0], g[1], nd.saved_tensor(1), nd.saved_tensor(2), nd.saved_tensor(3), nd.saved_tensor(4))};
      })) {
    node->num_outputs = 2;
    node->save(A);
    node->save(S);
    node->save(Vh);
    autograd::set_history(U, node, 0);
    autograd::set_history(H, node, 1);
    node->save_output(U);
    node->save_output(H);
  }
  return {U, H};
}

Tensor linalg_matrix_sqrth(const Tensor& A) {
  const char* fn = "linalg.matrix_sqrth";
  check_matrix(A, fn, true);
  Tensor X, L, V;
  {
    autograd::NoGradGuard no_grad;
    std::tie(L, V) = linalg_eigh(A);
    L = sqrt(clamp(L, 0.0, std::nullopt));  // negative eigenvalues (an indefinite A) count as 0, as in PyTorch
    X = contiguous(matmul(mul(V, unsqueeze(L, -2)), mH(V)));
  }
  if (auto node = autograd::make_node("LinalgMatrixSqrthBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        // X X = A: gA solves the Sylvester equation X gA + gA X = gX; in X's eigenbasis it is
        // (V^H gX V) / (s_i + s_j), made Hermitian (A is read as a Hermitian matrix).
        Tensor s = nd.saved_tensor(1), V = nd.saved_tensor(2);
        if (autograd::is_grad_enabled()) {  // create_graph: the eigendecomposition again, as a function of A
          std::tie(s, V) = linalg_eigh(nd.saved_tensor(0));
          s = sqrt(clamp(s, 0.0, std::nullopt));
        }
        const Tensor K = div(matmul(mH(V), matmul(g[0], V)), add(unsqueeze(s, -1), unsqueeze(s, -2)));
        const Tensor gA = matmul(V, matmul(K, mH(V)));
        return TensorList{mul(add(gA, mH(gA)), 0.5)};
      })) {
    node->save(A);
    node->save(L);
    node->save(V);
    autograd::set_history(X, node);
  }
  return X;
}

}  // namespace ember
