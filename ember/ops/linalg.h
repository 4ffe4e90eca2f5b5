// torch.linalg's inverses, solvers, determinants and decompositions (ops/lapack.cpp) on the LAPACK kernels: float32,
// float64, complex64 and complex128 (on the CPU and CUDA; the gradients are PyTorch's complex formulas), batched over
// leading dims, differentiable (the formulas are written with ember ops, so they are differentiable again). The LU and
// LDL^T families are in ops/lu.h, the matrix functions in ops/matrix_functions.h, the norms in ops/norm.h.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {

// torch.linalg.LinAlgError (a RuntimeError): a singular or not positive-definite input, or a factorization that
// did not converge.
struct LinAlgError : Error {
  using Error::Error;
};

Tensor linalg_inv(const Tensor& A);
// B is a vector right-hand side when it is 1-d or has A's shape without the last dim (PyTorch's rule); the batch
// dims broadcast. left = false solves X A = B.
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false);
Tensor linalg_det(const Tensor& A);
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A);  // (sign, logabsdet)
Tensor logdet(const Tensor& A);                             // log(det): NaN for a negative determinant
Tensor linalg_cholesky(const Tensor& A, bool upper = false);
// mode: "reduced", "complete" or "r" (Q is then undefined).
std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode = "reduced");
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true);  // (U, S, Vh)
Tensor linalg_svdvals(const Tensor& A);
// uplo: "L" or "U", the triangle read. (eigenvalues ascending, eigenvectors as columns)
std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view uplo = "L");
Tensor linalg_eigvalsh(const Tensor& A, std::string_view uplo = "L");
// The eigendecomposition of a general square matrix (LAPACK geev), real or complex: (eigenvalues, eigenvectors as unit
// columns), both of the complex dtype of A's precision. The eigenvalues come in LAPACK's order.
std::pair<Tensor, Tensor> linalg_eig(const Tensor& A);
Tensor linalg_eigvals(const Tensor& A);
struct LstsqResult {
  Tensor solution, residuals, rank, singular_values;
};
// driver: "gelsy" (the default on the CPU), "gels" (the default and only one on CUDA), "gelsd" or "gelss"; rcond
// defaults to eps * max(m, n). Outputs as PyTorch's: residuals when m > n and every matrix has full rank (empty
// otherwise; not for gelsy's rank-deficient case), rank except for gels, singular values for gelsd and gelss.
LstsqResult linalg_lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond = {},
                         std::optional<std::string_view> driver = {});
// Pseudo-inverse through the SVD (eigh when hermitian): singular values below max(atol, rtol * largest) are dropped;
// rtol defaults to eps * max(m, n) when atol is not given, else to 0.
Tensor linalg_pinv(const Tensor& A, std::optional<double> atol = {}, std::optional<double> rtol = {},
                   bool hermitian = false);
Tensor linalg_matrix_power(const Tensor& A, int64_t n);

// The *_ex forms return (result, info): info int32 [...] on the input's device, LAPACK's code per matrix (0: fine);
// check_errors raises LinAlgError as the plain form does.
std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false);
std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left = true,
                                          bool check_errors = false);
std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false);

// torch.cholesky_solve(B, L): X with (L L^T) X = B (U^T U for upper); torch.cholesky_inverse: (L L^T)^-1.
Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper = false);
Tensor cholesky_inverse(const Tensor& L, bool upper = false);
// torch.triangular_solve(b, A): (solution of op(A) X = b, A broadcast to the batch and cloned).
std::pair<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper = true, bool transpose = false,
                                           bool unitriangular = false);

}  // namespace ember
