// torch.linalg's factorizations and solvers on the LAPACK kernels, and the matrix functions built from them.
// Each op validates (PyTorch's messages), copies its input into a batch of column-major matrices the kernel
// overwrites, checks LAPACK's info per matrix, and records its gradient formula, written with ember ops so that it
// is differentiable again. Results of factorizations are column-major, as PyTorch's are.
#include <cmath>
#include <limits>

#include "ember/autocast.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels/lapack.h"
#include "ember/ops.h"
#include "ember/ops/detail/lapack_util.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/linalg.h"

namespace ember {

using autograd::FormulaNode;
using autograd::TensorList;
using namespace linalg_detail;

namespace {

// X with A X = B for square A and a matrix B [..., n, k] whose batch broadcasts with A's; one node with the formula
// of linalg.solve (gB = A^-T g, gA = -gB X^T). The public solve reduces its other cases to this. With info_out,
// LAPACK's info is handed back (on A's device) instead of checked.
Tensor solve_matrix(const Tensor& A, const Tensor& B, const char* fn, Tensor* info_out = nullptr) {
  const DimVector batch = broadcast_shapes(batch_of(A), batch_of(B), fn);
  const int64_t n = rows(A), k = cols(B);
  Tensor X;
  {
    autograd::NoGradGuard no_grad;
    LU f = lu_factor(A, batch, info_out != nullptr);
    if (info_out)
      *info_out = f.info;
    else
      check_info(f.info, fn, A.dim() > 2, [&](int) {
        return std::string(
            "The solver failed because the input matrix "
            "is singular.");
      });
    X = colmajor_copy(B, with(batch, {n, k}));
    if (X.numel()) lu_solve_kernel[A.device()](f.lu, f.pivots, X, false);
  }
  if (auto node = autograd::make_node("LinalgSolveExBackward0", {&A, &B}, [fn](FormulaNode& nd, TensorList& g) {
        const Tensor gB = solve_matrix(mH(nd.saved_tensor(0)), g[0], fn);
        Tensor gA;
        if (nd.needs(0)) gA = neg(matmul(gB, mH(nd.saved_tensor(1))));
        return TensorList{gA, nd.needs(1) ? gB : Tensor()};
      })) {
    node->save(A);
    autograd::set_history(X, node);
    node->save_output(X);
  }
  return X;
}

// PyTorch's rule for a vector right-hand side of solve and lstsq.
bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  for (int64_t i = 0; i < B.dim(); ++i)
    if (B.sizes()[i] != A.sizes()[i]) return false;
  return true;
}

// The sign of the permutation of LU's pivots (1-based row swaps): -1 for an odd number of swaps.
Tensor pivot_sign(const Tensor& pivots, ScalarType dt) {
  const int64_t n = pivots.sizes()[pivots.dim() - 1];
  Tensor swaps = sum(ne(pivots, arange(1, n + 1, 1, TensorOptions(ScalarType::Int32).device(pivots.device()))), {{-1}});
  return to(sub(1, mul(remainder(swaps, 2), 2)), dt);
}

// det(A) through U diag(S) Vh, valid for singular A: the adjugate's adjoint alpha U diag(prod_{j != i} S_j) Vh with
// alpha = conj(det U det Vh) g.
Tensor det_backward_svd(const Tensor& g, const Tensor& A) {
  auto [U, S, Vh] = linalg_svd(A, false);
  const Tensor alpha = mul(conj(mul(linalg_det(U), linalg_det(Vh))), g);
  // prod_{j != i} S_j without dividing: exclusive products from both ends.
  const int64_t n = S.sizes()[S.dim() - 1];
  const Tensor one = ones_like(narrow(S, -1, 0, 1));
  const Tensor left = cumprod(cat({one, narrow(S, -1, 0, n - 1)}, -1), -1);
  const Tensor right = flip(cumprod(flip(cat({narrow(S, -1, 1, n - 1), one}, -1), {{-1}}), -1), {{-1}});
  const Tensor D = mul(mul(left, right), unsqueeze(alpha, -1));
  return matmul(mul(U, unsqueeze(D, -2)), Vh);
}

// torch.allclose(a, b, rtol=1e-2, atol=1e-2), the lax test of PyTorch's gauge checks (no false positives).
bool lax_close(const Tensor& a, const Tensor& b) {
  autograd::NoGradGuard no_grad;
  return a.numel() == 0 || all(le(abs(sub(a, b)), add(mul(abs(b), 1e-2), 1e-2))).item<bool>();
}

// ---- SVD

struct Svd {
  Tensor U, S, Vh;
};

Svd svd_compute(const Tensor& A, bool vectors, bool full, const char* fn) {
  const DimVector batch = batch_of(A);
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n);
  const int64_t uc = full ? m : k, vr = full ? n : k;
  Svd r;
  r.S = empty(with(batch, {k}), like_real(A));
  if (vectors) {
    r.U = empty_colmajor(with(batch, {m, uc}), like(A));
    r.Vh = empty_colmajor(with(batch, {vr, n}), like(A));
  }
  if (k == 0) {  // nothing to factor: the singular vectors are any orthonormal basis
    if (vectors) {
      copy_into(r.U, eye(m, uc, like(A)));
      copy_into(r.Vh, eye(vr, n, like(A)));
    }
    return r;
  }
  Tensor a = colmajor_copy(A, A.sizes()), info = info_tensor(batch);
  svd_kernel[A.device()](a, r.U, r.S, r.Vh, info);
  check_info(info, fn, A.dim() > 2, [&](int code) {
    if (code < 0 && !all(isfinite(A)).item<bool>())
      return std::string("The algorithm failed to converge because the input matrix contained non-finite values.");
    return detail::cat(
        "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
        "repeated singular values (error code: ",
        code, ").");
  });
  return r;
}

// PyTorch's svd_backward for A = U diag(S) Vh with k = min(m, n) singular vectors (undefined gradients: none
// reached that output). Repeated singular values make the vectors' gradient infinite (as in PyTorch).
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S,
                    const Tensor& Vh) {
  const int64_t m = rows(U), n = cols(Vh);
  if (!gU.defined() && !gVh.defined()) {
    if (!gS.defined()) return {};
    return m >= n ? matmul(U, mul(unsqueeze(gS, -1), Vh)) : matmul(mul(U, unsqueeze(gS, -2)), Vh);
  }
  auto skew = [](const Tensor& X) { return sub(X, mH(X)); };
  const Tensor UhgU = gU.defined() ? skew(matmul(mH(U), gU)) : Tensor();
  const Tensor VhgV = gVh.defined() ? skew(matmul(Vh, mH(gVh))) : Tensor();
  const bool complex = is_complex(U.dtype());
  if (complex) {  // the loss must not depend on the phases of the singular vectors: Im diag(U^H gU + V^H gV) = 0
    const Tensor im_u = gU.defined() ? imag(diagonal(UhgU, 0, -2, -1)) : zeros_like(S);
    const Tensor im_v = gVh.defined() ? imag(diagonal(VhgV, 0, -2, -1)) : zeros_like(S);
    EMBER_CHECK(lax_close(im_u, neg(im_v)),
                "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i "
                "phi}. The specified loss function depends on this phase term, making it ill-defined.");
  }
  const Tensor S2 = mul(S, S);
  const Tensor E = add(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)), eye(S.sizes()[S.dim() - 1], std::nullopt, like(S)));
  Tensor gA;
  if (gU.defined() && gVh.defined())
    gA = div(add(mul(UhgU, unsqueeze(S, -2)), mul(unsqueeze(S, -1), VhgV)), E);
  else if (gU.defined())
    gA = mul(div(UhgU, E), unsqueeze(S, -2));
  else
    gA = mul(unsqueeze(S, -1), div(VhgV, E));
  if (gS.defined()) gA = add(gA, diag_matrix(gS));
  if (complex && gU.defined() && gVh.defined()) gA = add(gA, diag_matrix(div(diagonal(UhgU, 0, -2, -1), mul(S, 2.0))));
  if (m > n && gU.defined()) {
    gA = matmul(U, gA);
    const Tensor gUSinv = div(gU, unsqueeze(S, -2));
    gA = add(gA, sub(gUSinv, matmul(U, matmul(mH(U), gUSinv))));
    return matmul(gA, Vh);
  }
  if (m < n && gVh.defined()) {
    gA = matmul(gA, Vh);
    const Tensor SinvgVh = div(gVh, unsqueeze(S, -1));
    gA = add(gA, sub(SinvgVh, matmul(matmul(SinvgVh, mH(Vh)), Vh)));
    return matmul(U, gA);
  }
  return m >= n ? matmul(U, matmul(gA, Vh)) : matmul(matmul(U, gA), Vh);
}

// ---- symmetric eigendecomposition

std::pair<Tensor, Tensor> eigh_compute(const Tensor& A, std::string_view uplo, bool vectors, const char* fn) {
  EMBER_CHECK(uplo == "L" || uplo == "U" || uplo == "l" || uplo == "u",
              "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  check_matrix(A, fn, true);
  const DimVector batch = batch_of(A);
  const int64_t n = rows(A);
  Tensor w = empty(with(batch, {n}), like_real(A)), V = colmajor_copy(A, A.sizes());
  if (n > 0 && V.numel()) {
    Tensor info = info_tensor(batch);
    eigh_kernel[A.device()](V, w, uplo == "U" || uplo == "u", vectors, info);
    check_info(info, fn, A.dim() > 2, [&](int code) {
      return detail::cat(
          "The algorithm failed to converge because the input matrix is ill-conditioned or has too "
          "many repeated eigenvalues (error code: ",
          code, ").");
    });
  }
  return {w, vectors ? V : Tensor()};
}

// PyTorch's check that a loss of complex eigenvectors does not depend on their phases: Im diag(V^H gV) = 0.
void check_phase_invariant(const Tensor& VhgV, const char* fn) {
  if (!is_complex(VhgV.dtype())) return;
  const Tensor im = imag(diagonal(VhgV, 0, -2, -1));
  EMBER_CHECK(lax_close(im, zeros_like(im)), fn,
              ": The eigenvectors in the complex case are specified up to multiplication by e^{i phi}. The specified "
              "loss function depends on this quantity, so it is ill-defined.");
}

// A = V diag(L) V^H: PyTorch's linalg_eig_backward for a Hermitian A.
Tensor eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  if (!gV.defined()) {
    if (!gL.defined()) return {};
    return matmul(mul(V, unsqueeze(gL, -2)), mH(V));
  }
  Tensor VhgV = matmul(mH(V), gV);
  check_phase_invariant(VhgV, "linalg_eigh_backward");
  VhgV = mul(sub(VhgV, mH(VhgV)), 0.5);
  const Tensor E = add(sub(unsqueeze(L, -2), unsqueeze(L, -1)), eye(L.sizes()[L.dim() - 1], std::nullopt, like(L)));
  Tensor gA = div(VhgV, E);
  if (gL.defined()) gA = add(sub(gA, diag_matrix(diagonal(gA, 0, -2, -1))), diag_matrix(gL));
  return matmul(V, matmul(gA, mH(V)));
}

// The derivative of A^+ in terms of A^+ itself (PyTorch's pinv_backward, products kept small).
Tensor pinv_backward(const Tensor& g, const Tensor& pinvA, const Tensor& A) {
  const int64_t m = rows(A), n = cols(A);
  const Tensor pinvAh = mH(pinvA), gh = mH(g);
  if (m <= n) {
    const Tensor K = matmul(gh, pinvA);
    const Tensor KpinvAh = matmul(K, pinvAh);
    return add(sub(add(neg(mH(matmul(pinvA, K))), KpinvAh), matmul(matmul(A, pinvA), KpinvAh)),
               matmul(matmul(pinvAh, pinvA), sub(gh, matmul(K, A))));
  }
  const Tensor K = matmul(pinvA, gh);
  const Tensor pinvAhK = matmul(pinvAh, K);
  return sub(add(add(neg(mH(matmul(K, pinvA))), matmul(matmul(sub(gh, matmul(A, K)), pinvA), pinvAh)), pinvAhK),
             matmul(matmul(pinvAhK, pinvA), A));
}

}  // namespace

// ---- inverse and solvers

namespace {

std::pair<Tensor, Tensor> inv_impl(const Tensor& A, const char* fn, bool check_errors) {
  check_matrix(A, fn, true);
  const DimVector batch = batch_of(A);
  const int64_t n = rows(A);
  Tensor X, info;
  {
    autograd::NoGradGuard no_grad;
    LU f = lu_factor(A, batch, true);
    info = f.info;
    if (check_errors)
      check_info(info, fn, A.dim() > 2, [](int i) {
        return detail::cat("The diagonal element ", i,
                           " is zero, the inversion could not be completed because the "
                           "input matrix is singular.");
      });
    X = colmajor_copy(eye(n, std::nullopt, like(A)), A.sizes());
    if (X.numel()) lu_solve_kernel[A.device()](f.lu, f.pivots, X, false);
  }
  if (auto node = autograd::make_node("LinalgInvExBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        const Tensor invT = mH(nd.saved_tensor(0));
        return TensorList{neg(matmul(invT, matmul(g[0], invT)))};
      })) {
    autograd::set_history(X, node);
    node->save_output(X);
  }
  return {X, info};
}

// The vector and left = false cases reduced to solve_matrix.
std::pair<Tensor, Tensor> solve_impl(const Tensor& A, const Tensor& B, bool left, const char* fn, bool check_errors) {
  check_matrix(A, fn, true);
  check_same(A, B, fn);
  const bool vector = is_vector_rhs(A, B);
  const Tensor Bm = vector ? unsqueeze(B, -1) : B;
  EMBER_CHECK(Bm.dim() >= 2, fn, ": The input tensor B must have at least 2 dimensions.");
  const int64_t n = rows(A), nb = left ? rows(Bm) : cols(Bm);
  EMBER_CHECK(vector ? B.sizes()[B.dim() - 1] == n : nb == n, fn, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows(Bm), "x", cols(Bm), ")");
  Tensor info, X;
  if (vector)
    X = squeeze(solve_matrix(left ? A : mT(A), Bm, fn, &info), -1);
  else
    X = left ? solve_matrix(A, B, fn, &info) : mT(solve_matrix(mT(A), mT(B), fn, &info));
  if (check_errors)
    check_info(info, fn, A.dim() > 2, [](int) {
      return std::string(
          "The solver failed because the input matrix is "
          "singular.");
    });
  return {X, info};
}

}  // namespace

Tensor linalg_inv(const Tensor& A) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_inv, A);
  return inv_impl(A, "linalg.inv", true).first;
}

std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_inv_ex, A, check_errors);
  return inv_impl(A, "linalg.inv_ex", check_errors);
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_solve, A, B, left);
  return solve_impl(A, B, left, "torch.linalg.solve", true).first;
}

std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_solve_ex, A, B, left, check_errors);
  return solve_impl(A, B, left, "torch.linalg.solve_ex", check_errors);
}

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  const char* fn = "linalg.solve_triangular";
  check_matrix(A, fn, true);
  check_same(A, B, fn);
  EMBER_CHECK(B.dim() >= 2, fn, ": The input tensor B must have at least 2 dimensions.");
  const int64_t n = rows(A);
  EMBER_CHECK((left ? rows(B) : cols(B)) == n, fn, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows(B), "x", cols(B), ")");
  const DimVector batch = broadcast_shapes(batch_of(A), batch_of(B), fn);
  Tensor X;
  {
    autograd::NoGradGuard no_grad;
    const Tensor a = colmajor_copy(A, with(batch, {n, n}));
    X = colmajor_copy(B, with(batch, {rows(B), cols(B)}));
    if (X.numel()) triangular_solve_kernel[A.device()](a, X, upper, left, unitriangular);
  }
  if (auto node = autograd::make_node(
          "LinalgSolveTriangularBackward0", {&A, &B}, [upper, left, unitriangular](FormulaNode& nd, TensorList& g) {
            const Tensor gB = linalg_solve_triangular(mH(nd.saved_tensor(0)), g[0], !upper, left, unitriangular);
            Tensor gA;
            if (nd.needs(0)) {
              const Tensor Xt = mH(nd.saved_tensor(1));
              gA = neg(left ? matmul(gB, Xt) : matmul(Xt, gB));
              gA = upper ? triu(gA, unitriangular ? 1 : 0) : tril(gA, unitriangular ? -1 : 0);
            }
            return TensorList{gA, nd.needs(1) ? gB : Tensor()};
          })) {
    node->save(A);
    autograd::set_history(X, node);
    node->save_output(X);
  }
  return X;
}

// ---- determinants

Tensor linalg_det(const Tensor& A) {
  const char* fn = "linalg.det";
  check_matrix(A, fn, true);
  Tensor det;
  {
    autograd::NoGradGuard no_grad;
    LU f = lu_factor(A, batch_of(A), A.is_meta());  // a zero pivot (info > 0): a singular matrix, det 0, no error
    det = mul(prod(diagonal(f.lu, 0, -2, -1), {{-1}}), pivot_sign(f.pivots, A.dtype()));
  }
  if (auto node = autograd::make_node("LinalgDetBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        const Tensor A = nd.saved_tensor(0), det = nd.saved_tensor(1);
        if (A.numel() == 0) return TensorList{zeros_like(A)};
        const Tensor gd = mul(g[0], conj(det));
        // g conj(det) A^-H, through a solve; a (nearly) singular matrix has no inverse: then through the SVD.
        const bool singular = any(lt(abs(det), 100 * eps_of(A.dtype()))).item<bool>();
        if (singular) return TensorList{det_backward_svd(g[0], A)};
        return TensorList{
            solve_matrix(mH(A), diag_matrix(expand(unsqueeze(gd, -1), A.sizes().first(A.dim() - 1))), "linalg.det")};
      })) {
    node->save(A);
    autograd::set_history(det, node);
    node->save_output(det);
  }
  return det;
}

std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  const char* fn = "linalg.slogdet";
  check_matrix(A, fn, true);
  Tensor sign, logabs;
  {
    autograd::NoGradGuard no_grad;
    LU f = lu_factor(A, batch_of(A), A.is_meta());
    const Tensor d = diagonal(f.lu, 0, -2, -1);
    sign = mul(prod(is_complex(A.dtype()) ? sgn(d) : ember::sign(d), {{-1}}), pivot_sign(f.pivots, A.dtype()));
    logabs = sum(log(abs(d)), {{-1}});
  }
  if (auto node = autograd::make_node("LinalgSlogdetBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        const Tensor A = nd.saved_tensor(0);
        // PyTorch's formula: (g_logabs - i Im(conj(g_sign) sign)) A^-H; the sign of a real matrix is piecewise
        // constant.
        Tensor gd = g[1];
        if (is_complex(A.dtype())) {
          if (g[0].defined()) {
            const Tensor phase = mul(imag(mul(conj(g[0]), nd.saved_tensor(1))), Scalar(Complex<double>(0, -1)));
            gd = gd.defined() ? add(gd, phase) : phase;
          } else if (gd.defined()) {
            gd = to(gd, A.dtype());
          }
        }
        if (!gd.defined()) return TensorList{Tensor()};
        return TensorList{solve_matrix(mH(A), diag_matrix(expand(unsqueeze(gd, -1), A.sizes().first(A.dim() - 1))),
                                       "linalg.slogdet")};
      })) {
    node->num_outputs = 2;
    node->save(A);
    if (is_complex(A.dtype())) autograd::set_history(sign, node, 0);
    autograd::set_history(logabs, node, 1);
    node->save_output(is_complex(A.dtype()) ? sign : Tensor());
  }
  return {sign, logabs};
}

Tensor logdet(const Tensor& A) {
  check_matrix(A, "logdet", true);
  auto [sign, logabs] = linalg_slogdet(A);
  if (is_complex(A.dtype())) return add(log(sign), logabs);  // PyTorch's: the branch of log at the sign
  return where(lt(sign, 0), std::numeric_limits<double>::quiet_NaN(), logabs);
}

// ---- factorizations

namespace {

std::pair<Tensor, Tensor> cholesky_impl(const Tensor& A, bool upper, const char* fn, bool check_errors) {
  check_matrix(A, fn, true);
  Tensor L, info;
  {
    autograd::NoGradGuard no_grad;
    L = colmajor_copy(A, A.sizes());
    info = info_tensor(batch_of(A), A.device());
    if (L.numel()) cholesky_kernel[A.device()](L, upper, info);
    if (check_errors)
      check_info(info, fn, A.dim() > 2, [](int order) {
        return detail::cat(
            "The factorization could not be completed because the input is not positive-definite "
            "(the leading minor of order ",
            order, " is not positive-definite).");
      });
  }
  if (auto node = autograd::make_node("LinalgCholeskyExBackward0", {&A}, [upper](FormulaNode& nd, TensorList& g) {
        // gA = L^-H Phi(L^H gL) L^-1, symmetrized; Phi keeps the lower triangle with the diagonal halved.
        const Tensor L = upper ? mH(nd.saved_tensor(0)) : nd.saved_tensor(0);
        const Tensor gL = upper ? mH(g[0]) : g[0];
        Tensor gA = tril(matmul(mH(L), gL));
        gA = mul(add(gA, mH(tril(gA, -1))), 0.5);
        gA = linalg_solve_triangular(mH(L), gA, true, true);
        return TensorList{linalg_solve_triangular(L, gA, false, false)};
      })) {
    autograd::set_history(L, node);
    node->save_output(L);
  }
  return {L, info};
}

}  // namespace

Tensor linalg_cholesky(const Tensor& A, bool upper) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_cholesky, A, upper);
  return cholesky_impl(A, upper, "linalg.cholesky", true).first;
}

std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_cholesky_ex, A, upper, check_errors);
  return cholesky_impl(A, upper, "linalg.cholesky_ex", check_errors);
}

std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_qr, A, mode);
  const char* fn = "linalg.qr";
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_matrix(A, fn, false);
  const DimVector batch = batch_of(A);
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n);
  const bool complete = mode == "complete", with_q = mode != "r";
  const int64_t qc = complete ? m : k;
  Tensor Q, R;
  {
    autograd::NoGradGuard no_grad;
    R = empty_colmajor(with(batch, {qc, n}), like(A));
    Q = with_q ? empty_colmajor(with(batch, {m, qc}), like(A)) : empty({{0}}, like(A));
    if (A.numel() == 0) {
      copy_into(R, zeros({}, like(A)));
      if (with_q) copy_into(Q, eye(m, qc, like(A)));
    } else {
      qr_kernel[A.device()](colmajor_copy(A, A.sizes()), with_q ? Q : Tensor(), R);
    }
  }
  if (auto node = autograd::make_node(
          "LinalgQrBackward0", {&A}, [mode = std::string(mode)](FormulaNode& nd, TensorList& g) {
            EMBER_CHECK(mode != "r",
                        "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                        "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
            const Tensor Q = nd.saved_tensor(0), R = nd.saved_tensor(1);
            const Tensor &gQ = g[0], &gR = g[1];
            const int64_t m = rows(Q), n = cols(R);
            EMBER_CHECK(mode == "reduced" || m <= n,
                        "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
            Tensor gA;
            if (gQ.defined())
              gA = gR.defined() ? sub(matmul(gR, mH(R)), matmul(mH(Q), gQ)) : neg(matmul(mH(Q), gQ));
            else
              gA = matmul(gR, mH(R));
            if (m >= n) {  // gA = [gQ + Q sym(triu(...))] R^-T, sym(X) = X + X^T with the diagonal halved
              Tensor s = triu(gA);
              s = add(s, mH(s));
              s = sub(s, diag_matrix(mul(diagonal(s, 0, -2, -1), 0.5)));
              gA = matmul(Q, s);
              if (gQ.defined()) gA = add(gA, gQ);
              return TensorList{linalg_solve_triangular(mH(R), gA, false, false)};
            }
            // m < n: A = Q [R1 | R2]; the gradient of the square part, then R2's
            Tensor skew = tril(sub(mH(gA), gA));  // its diagonal is imaginary: halved for complex (PyTorch's)
            if (is_complex(skew.dtype())) skew = sub(skew, diag_matrix(mul(diagonal(skew, 0, -2, -1), 0.5)));
            gA = matmul(Q, skew);
            gA = linalg_solve_triangular(mH(narrow(R, -1, 0, m)), gA, false, false);
            DimVector shape(R.sizes());
            shape.back() = n - m;
            gA = cat({gA, zeros(shape, like(gA))}, -1);
            if (gR.defined()) gA = add(gA, matmul(Q, gR));
            return TensorList{gA};
          })) {
    node->num_outputs = 2;
    autograd::set_history(Q, node, 0);
    autograd::set_history(R, node, 1);
    node->save_output(Q);
    node->save_output(R);
  }
  return {Q, R};
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_svd, A, full_matrices);
  const char* fn = "linalg.svd";
  check_matrix(A, fn, false);
  Svd r;
  {
    autograd::NoGradGuard no_grad;
    r = svd_compute(A, true, full_matrices, fn);
  }
  if (auto node = autograd::make_node("LinalgSvdBackward0", {&A}, [full_matrices](FormulaNode& nd, TensorList& g) {
        Tensor U = nd.saved_tensor(0), S = nd.saved_tensor(1), Vh = nd.saved_tensor(2);
        Tensor gU = g[0], gVh = g[2];
        if (full_matrices) {  // the extra columns of U and rows of Vh are no function of A: their gradient is dropped
          const int64_t k = S.sizes()[S.dim() - 1];
          U = narrow(U, -1, 0, k);
          Vh = narrow(Vh, -2, 0, k);
          if (gU.defined()) gU = narrow(gU, -1, 0, k);
          if (gVh.defined()) gVh = narrow(gVh, -2, 0, k);
        }
        return TensorList{svd_backward(gU, g[1], gVh, U, S, Vh)};
      })) {
    node->num_outputs = 3;
    autograd::set_history(r.U, node, 0);
    autograd::set_history(r.S, node, 1);
    autograd::set_history(r.Vh, node, 2);
    node->save_output(r.U);
    node->save_output(r.S);
    node->save_output(r.Vh);
  }
  return {r.U, r.S, r.Vh};
}

Tensor linalg_svdvals(const Tensor& A) {
  const char* fn = "linalg.svdvals";
  check_matrix(A, fn, false);
  // The gradient needs the singular vectors, as outputs of the SVD's node so that it is differentiable again.
  if (autograd::needs_grad({&A})) return std::get<1>(linalg_svd(A, false));
  autograd::NoGradGuard no_grad;
  return svd_compute(A, false, false, fn).S;
}

std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view uplo) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_eigh, A, uplo);
  const char* fn = "linalg.eigh";
  std::pair<Tensor, Tensor> r;
  {
    autograd::NoGradGuard no_grad;
    r = eigh_compute(A, uplo, true, fn);
  }
  if (auto node = autograd::make_node("LinalgEighBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        return TensorList{eigh_backward(g[0], g[1], nd.saved_tensor(0), nd.saved_tensor(1))};
      })) {
    node->num_outputs = 2;
    autograd::set_history(r.first, node, 0);
    autograd::set_history(r.second, node, 1);
    node->save_output(r.first);
    node->save_output(r.second);
  }
  return r;
}

Tensor linalg_eigvalsh(const Tensor& A, std::string_view uplo) {
  // The gradient needs the eigenvectors, as outputs of eigh's node so that it is differentiable again.
  if (autograd::needs_grad({&A})) return linalg_eigh(A, uplo).first;
  autograd::NoGradGuard no_grad;
  return eigh_compute(A, uplo, false, "linalg.eigvalsh").first;
}

// ---- general eigendecomposition

namespace {

// Eigenvalues (and with vectors, unit eigenvectors as columns) of square A, in the complex dtype of A's precision.
std::pair<Tensor, Tensor> eig_compute(const Tensor& A, bool vectors, const char* fn) {
  check_matrix(A, fn, true);
  const DimVector batch = batch_of(A);
  const int64_t n = rows(A);
  const ScalarType ct = is_complex(A.dtype()) ? A.dtype() : to_complex(A.dtype());
  std::pair<Tensor, Tensor> r{empty(with(batch, {n}), like(A, ct)),
                              vectors ? empty_colmajor(A.sizes(), like(A, ct)) : Tensor()};
  if (A.numel() == 0 || A.is_meta()) return r;
  EMBER_CHECK(all(isfinite(A)).item<bool>(), "torch.linalg.eig: input tensor should not contain infs or NaNs.");
  Tensor info = info_tensor(batch);
  eig_kernel[A.device()](colmajor_copy(A, A.sizes()), r.first, r.second, info);
  check_info(info, fn, A.dim() > 2, [](int code) {
    return detail::cat(
        "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
        "eigenvalues (error code: ",
        code, ").");
  });
  return r;
}

// PyTorch's linalg_eig_backward for A = V diag(L) V^-1 with unit columns V: gA = V^-H (diag(gL) + (V^H gV -
// V^H V Re(diag(V^H gV))) / conj(E)) V^H, E_ij = L_j - L_i (1 on the diagonal); the real part for a real A.
Tensor eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V, bool real_input) {
  if (!gL.defined() && !gV.defined()) return {};
  const Tensor Vh = mH(V);
  Tensor gA;
  if (!gV.defined()) {
    gA = linalg_solve(Vh, mul(unsqueeze(gL, -1), Vh));
  } else {
    Tensor VhgV = matmul(Vh, gV);
    check_phase_invariant(VhgV, "linalg_eig_backward");
    VhgV = sub(VhgV, matmul(Vh, mul(V, unsqueeze(real(diagonal(VhgV, 0, -2, -1)), -2))));
    const Tensor Lc = conj(L);
    const Tensor E = add(sub(unsqueeze(Lc, -2), unsqueeze(Lc, -1)), eye(L.sizes()[L.dim() - 1], std::nullopt, like(L)));
    Tensor ret = div(VhgV, E);
    if (gL.defined()) ret = add(sub(ret, diag_matrix(diagonal(ret, 0, -2, -1))), diag_matrix(gL));
    gA = linalg_solve(Vh, matmul(ret, Vh));
  }
  return real_input ? real(gA) : gA;
}

}  // namespace

std::pair<Tensor, Tensor> linalg_eig(const Tensor& A) {
  const char* fn = "linalg.eig";
  std::pair<Tensor, Tensor> r;
  {
    autograd::NoGradGuard no_grad;
    r = eig_compute(A, true, fn);
  }
  if (auto node = autograd::make_node("LinalgEigBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        const bool real_input = !is_complex(nd.input_meta[0].dtype);
        return TensorList{eig_backward(g[0], g[1], nd.saved_tensor(0), nd.saved_tensor(1), real_input)};
      })) {
    node->num_outputs = 2;
    autograd::set_history(r.first, node, 0);
    autograd::set_history(r.second, node, 1);
    node->save_output(r.first);
    node->save_output(r.second);
  }
  return r;
}

Tensor linalg_eigvals(const Tensor& A) {
  // The gradient needs the eigenvectors, as outputs of eig's node so that it is differentiable again.
  if (autograd::needs_grad({&A})) return linalg_eig(A).first;
  autograd::NoGradGuard no_grad;
  return eig_compute(A, false, "linalg.eigvals").first;
}

LstsqResult linalg_lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                         std::optional<std::string_view> driver_in) {
  const char* fn = "torch.linalg.lstsq";
  EMBER_CHECK(A.dim() >= 2, fn, ": input must have at least 2 dimensions.");
  EMBER_CHECK(B.dim() >= 1, fn, ": other must have at least 1 dimension.");
  check_float(A, fn);
  EMBER_CHECK(A.dtype() == B.dtype(), fn, ": Expected input and other to have the same dtype, but got input's dtype ",
              type_label(A.dtype()), " and other's dtype ", type_label(B.dtype()));
  EMBER_CHECK(A.device() == B.device(), fn, ": Expected input and other to be on the same device, but got input on ",
              A.device(), " and other on ", B.device());
  const int64_t dim_diff = A.dim() - B.dim();
  EMBER_CHECK(dim_diff >= 0 && dim_diff <= 1, fn,
              ": input.dim() must be greater or equal to other.dim() and "
              "(input.dim() - other.dim()) <= 1");
  const bool vector = dim_diff == 1;
  const int64_t m = rows(A), n = cols(A);
  EMBER_CHECK(vector ? B.sizes()[B.dim() - 1] == m : rows(B) == m, fn, ": input.size(-2) should match other.size(",
              vector ? -1 : -2, ")");
  // PyTorch's defaults: gelsy on the CPU, gels (the only one cuSOLVER has) on CUDA.
  const std::string_view driver = driver_in.value_or(A.is_cuda() ? "gels" : "gelsy");
  EMBER_CHECK(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss", fn,
              ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  EMBER_CHECK(!A.is_cuda() || driver == "gels", fn, ": `driver` other than `gels` is not supported on CUDA");
  const Tensor Bm = vector ? unsqueeze(B, -1) : B;
  const DimVector batch = broadcast_shapes(batch_of(A), batch_of(Bm), fn);
  const int64_t nrhs = cols(Bm), k = std::min(m, n), ld = std::max(m, n);
  const double rc = rcond.value_or(eps_of(A.dtype()) * static_cast<double>(std::max(m, n)));
  LstsqResult r;
  Tensor buf;
  {
    autograd::NoGradGuard no_grad;
    const auto idx = TensorOptions(ScalarType::Int64).device(A.device());
    r.rank = driver == "gels" ? empty({{0}}, idx) : zeros(batch, idx);
    const bool with_sv = driver == "gelsd" || driver == "gelss";
    r.singular_values = with_sv ? empty(with(batch, {k}), like_real(A)) : empty({{0}}, like_real(A));
    buf = empty_colmajor(with(batch, {ld, nrhs}), like(A));
    if (buf.numel()) {
      fill_(buf, 0);
      copy_into(narrow(buf, -2, 0, m), Bm);
    }
    if (k > 0 && nrhs > 0) {
      Tensor info = info_tensor(batch);
      lstsq_kernel[A.device()](colmajor_copy(A, with(batch, {m, n})), buf, r.rank, r.singular_values, rc, driver, info);
      check_info(info, fn, A.dim() > 2, [&](int code) {
        if (driver == "gels")
          return detail::cat(
              "The least squares solution could not be computed because the input matrix does not have "
              "full rank (error code: ",
              code, ").");
        return detail::cat(
            "The algorithm failed to converge because the input matrix is ill-conditioned or has too "
            "many repeated singular values (error code: ",
            code, ").");
      });
    }
    // Residuals as PyTorch: when m > n, for drivers other than gelsy, and (gelsd, gelss) every matrix of full rank.
    bool residuals = m > n && driver != "gelsy";
    if (residuals && driver != "gels" && !A.is_meta()) residuals = sum(eq(r.rank, n)).item<int64_t>() == r.rank.numel();
    r.residuals = residuals ? sum(square(abs(narrow(buf, -2, n, m - n))), {{-2}}) : empty({{0}}, like_real(A));
    DimVector sizes = with(batch, {n}), strides(buf.strides().first(batch.size()));
    strides.push_back(1);
    if (!vector) {
      sizes.push_back(nrhs);
      strides.push_back(ld);
    }
    r.solution = own(buf, sizes, strides, buf.storage_offset());
  }
  if (auto node = autograd::make_node("LinalgLstsqBackward0", {&A, &B}, [vector](FormulaNode& nd, TensorList& g) {
        const Tensor A = nd.saved_tensor(0), Bm = vector ? unsqueeze(nd.saved_tensor(1), -1) : nd.saved_tensor(1);
        const Tensor X = vector ? unsqueeze(nd.saved_tensor(2), -1) : nd.saved_tensor(2);
        Tensor gA, gB;
        auto acc = [](Tensor& to, const Tensor& t) { to = to.defined() ? add(to, t) : t; };
        if (g[0].defined()) {  // X = pinv(A) B
          const Tensor gX = vector ? unsqueeze(g[0], -1) : g[0];
          const Tensor pinvA = linalg_pinv(A);
          if (nd.needs(0)) acc(gA, pinv_backward(matmul(gX, mH(Bm)), pinvA, A));
          if (nd.needs(1)) acc(gB, matmul(mH(pinvA), gX));
        }
        if (g.size() > 1 && g[1].defined() && g[1].numel() > 0) {  // residuals |A X - B|^2 at the optimum
          const Tensor res = sub(matmul(A, X), Bm), gl = unsqueeze(g[1], -2);
          if (nd.needs(0)) acc(gA, mul(matmul(mul(gl, res), mH(X)), 2.0));
          if (nd.needs(1)) acc(gB, mul(mul(gl, res), -2.0));
        }
        if (gB.defined() && vector) gB = squeeze(gB, -1);
        return TensorList{gA, gB};
      })) {
    node->num_outputs = 2;
    node->save(A);
    node->save(B);
    autograd::set_history(r.solution, node, 0);
    if (r.residuals.numel()) autograd::set_history(r.residuals, node, 1);
    node->save_output(r.solution);
  }
  return r;
}

Tensor linalg_pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, linalg_pinv, A, atol, rtol, hermitian);
  const char* fn = "linalg.pinv";
  check_matrix(A, fn, hermitian);
  const int64_t m = rows(A), n = cols(A);
  const double at = atol.value_or(0.0);
  const double rt = rtol ? *rtol : at > 0 ? 0.0 : eps_of(A.dtype()) * static_cast<double>(std::max(m, n));
  Tensor P;
  {
    autograd::NoGradGuard no_grad;
    if (A.numel() == 0) {
      P = zeros(with(batch_of(A), {n, m}), like(A));
    } else if (hermitian) {
      auto [L, V] = eigh_compute(A, "L", true, fn);
      const Tensor absL = abs(L);
      const Tensor tol = maximum(full({}, at, like_real(A)), mul(amax(absL, {{-1}}, true), rt));
      const Tensor inv = where(gt(absL, tol), reciprocal(L), 0.0);
      P = matmul(mul(V, unsqueeze(inv, -2)), mH(V));
    } else {
      Svd s = svd_compute(A, true, false, fn);
      const Tensor tol = maximum(full({}, at, like_real(A)), mul(amax(s.S, {{-1}}, true), rt));
      const Tensor inv = where(gt(s.S, tol), reciprocal(s.S), 0.0);
      P = matmul(mul(mH(s.Vh), unsqueeze(inv, -2)), mH(s.U));
    }
  }
  if (auto node = autograd::make_node("LinalgPinvBackward0", {&A}, [](FormulaNode& nd, TensorList& g) {
        return TensorList{pinv_backward(g[0], nd.saved_tensor(1), nd.saved_tensor(0))};
      })) {
    node->save(A);
    autograd::set_history(P, node);
    node->save_output(P);
  }
  return P;
}

Tensor linalg_matrix_power(const Tensor& A, int64_t k) {
  const char* fn = "linalg.matrix_power";
  EMBER_CHECK(A.dim() >= 2, fn, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(rows(A) == cols(A), fn, ": A must be batches of square matrices, but they are ", rows(A), " by ", cols(A),
              " matrices");
  if (k == 0) return contiguous(expand(eye(rows(A), std::nullopt, like(A)), A.sizes()));
  Tensor base = k < 0 ? linalg_inv(A) : A;
  uint64_t e = k < 0 ? -static_cast<uint64_t>(k) : static_cast<uint64_t>(k);
  Tensor r;
  for (;;) {  // binary powering: O(log k) products
    if (e & 1) r = r.defined() ? matmul(r, base) : base;
    e >>= 1;
    if (!e) break;
    base = matmul(base, base);
  }
  return r.is_same(A) ? clone(A) : r;
}

// ---- Cholesky solves and the deprecated triangular solve

Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, cholesky_solve, B, L, upper);
  const char* fn = "cholesky_solve";
  EMBER_CHECK(B.dim() >= 2, fn, ": b should have at least 2 dimensions, but has ", B.dim(), " dimensions instead");
  EMBER_CHECK(L.dim() >= 2, fn, ": u should have at least 2 dimensions, but has ", L.dim(), " dimensions instead");
  EMBER_CHECK(B.dtype() == L.dtype(), fn, ": Expected b and A to have the same dtype, but found b of type ",
              type_label(B.dtype()), " and A of type ", type_label(L.dtype()), " instead.");
  check_float(L, fn);
  EMBER_CHECK(L.device() == B.device(), fn, ": Expected b and A to be on the same device, but found b on ", B.device(),
              " and A on ", L.device(), " instead.");
  EMBER_CHECK(rows(L) == cols(L) && rows(L) == rows(B), "Incompatible matrix sizes for ", fn, ": each A matrix is ",
              rows(L), " by ", cols(L), " but each b matrix is ", rows(B), " by ", cols(B));
  Tensor X;
  {
    autograd::NoGradGuard no_grad;
    const Tensor Y = linalg_solve_triangular(upper ? mH(L) : L, B, false);
    X = linalg_solve_triangular(upper ? L : mH(L), Y, true);
  }
  // PyTorch's formula: L is differentiated as a full matrix of A = L L^T (U^T U).
  if (auto node = autograd::make_node("CholeskySolveBackward0", {&B, &L}, [upper](FormulaNode& nd, TensorList& g) {
        const Tensor L = nd.saved_tensor(0), X = nd.saved_tensor(1);
        const Tensor gB = cholesky_solve(g[0], L, upper);
        Tensor gL;
        if (nd.needs(1)) {
          Tensor common = matmul(gB, mH(X));
          common = add(common, mH(common));
          gL = neg(upper ? matmul(L, common) : matmul(common, L));
        }
        return TensorList{nd.needs(0) ? gB : Tensor(), gL};
      })) {
    node->save(L);
    autograd::set_history(X, node);
    node->save_output(X);
  }
  return X;
}

Tensor cholesky_inverse(const Tensor& L, bool upper) {
  EMBER_AUTOCAST(autocast::kFp32Cpu, cholesky_inverse, L, upper);
  const char* fn = "cholesky_inverse";
  check_matrix(L, fn, true);
  const int64_t n = rows(L);
  Tensor R;
  {
    autograd::NoGradGuard no_grad;
    if (L.numel() && !L.is_meta()) {  // LAPACK's potri: info i for the first zero on the diagonal
      const Tensor zero = eq(diagonal(L, 0, -2, -1), 0);
      if (any(zero).item<bool>()) {
        const Tensor info = to(where(any(zero, {{-1}}), add(argmax(to(zero, ScalarType::Int32), -1), 1), 0),
                               ScalarType::Int32);
        check_info(info, fn, L.dim() > 2, [](int i) {
          return detail::cat("The diagonal element ", i,
                             " is zero, the inversion could not be completed because the "
                             "input matrix is singular.");
        });
      }
    }
    const Tensor Linv = linalg_solve_triangular(L, expand(eye(n, std::nullopt, like(L)), L.sizes()), upper);
    R = upper ? matmul(Linv, mH(Linv)) : matmul(mH(Linv), Linv);
  }
  if (auto node = autograd::make_node("CholeskyInverseBackward0", {&L}, [upper](FormulaNode& nd, TensorList& g) {
        const Tensor L = nd.saved_tensor(0), R = nd.saved_tensor(1);
        const Tensor common = matmul(R, matmul(add(g[0], mH(g[0])), R));
        return TensorList{neg(upper ? matmul(L, common) : matmul(common, L))};
      })) {
    node->save(L);
    autograd::set_history(R, node);
    node->save_output(R);
  }
  return R;
}

std::pair<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper, bool transpose,
                                           bool unitriangular) {
  const char* fn = "torch.triangular_solve";
  EMBER_AUTOCAST(autocast::kFp32Cpu, triangular_solve, b, A, upper, transpose, unitriangular);
  EMBER_CHECK(b.dim() >= 2, fn, ": Expected b to have at least 2 dimensions, but it has ", b.dim(),
              " dimensions instead");
  EMBER_CHECK(A.dim() >= 2, fn, ": Expected A to have at least 2 dimensions, but it has ", A.dim(),
              " dimensions instead");
  const DimVector batch = broadcast_shapes(batch_of(b), batch_of(A), fn);
  const Tensor X = linalg_solve_triangular(transpose ? mT(A) : A, b, upper != transpose, true, unitriangular);
  return {X, contiguous(expand(A, with(batch, {rows(A), cols(A)})))};
}

}  // namespace ember
